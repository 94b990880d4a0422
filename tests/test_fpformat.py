"""The one table of floating-point formats (:mod:`accelgen.fpformat`) and the places that use it."""

from __future__ import annotations

import dataclasses
import typing

import ml_dtypes
import numpy as np
import pytest

from accelgen import fpformat
from accelgen.fit import sweep
from accelgen.golden import fp as golden_fp
from accelgen.golden import systolic as golden_systolic
from accelgen.ppa import arch
from accelgen.registry import FAMILIES
from accelgen.rtl import fp as rtl_fp
from accelgen.params.base import MacDtype
from accelgen.rtl.flexdpe import FlexDPEParams
from accelgen.rtl.mac import MACParams
from accelgen.rtl.systolic import SystolicParams
from accelgen.rtl.tensordash import TensorDashPEParams


@pytest.mark.parametrize("name,e,f,width,bias", [
    ("fp16", 5, 10, 16, 15),    # IEEE 754-2008 binary16
    ("bf16", 8, 7, 16, 127),    # bfloat16
    ("fp32", 8, 23, 32, 127),   # IEEE 754-2008 binary32
])
def test_table_entries(name, e, f, width, bias):
    fmt = fpformat.FORMATS[name]
    assert (fmt.name, fmt.exponent_bits, fmt.fraction_bits, fmt.width, fmt.bias) == (name, e, f, width, bias)
    assert fpformat.format_of(name) is fmt
    assert fpformat.width(name) == width
    assert fpformat.FIELD_BITS[name] == (e, f)
    assert fmt.accumulator is fpformat.ACC_FORMAT


def test_table_agrees_with_numpy_and_ml_dtypes():
    """An independent definition of the formats: numpy's float16/float32 and ml_dtypes' bfloat16."""
    for name, np_type in (("fp16", np.float16), ("bf16", ml_dtypes.bfloat16), ("fp32", np.float32)):
        info = ml_dtypes.finfo(np_type)
        fmt = fpformat.FORMATS[name]
        assert (info.nexp, info.nmant, info.bits) == (fmt.exponent_bits, fmt.fraction_bits, fmt.width), name


def test_dtype_names_and_accumulator():
    assert fpformat.FP_DTYPES == ("fp16", "bf16", "fp32")
    assert fpformat.ACC_DTYPE == "fp32"
    assert fpformat.ACC_WIDTH == 32
    assert fpformat.ACC_FORMAT is fpformat.FORMATS["fp32"]


def test_formats_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        fpformat.FORMATS["bf16"].fraction_bits = 8


@pytest.mark.parametrize("bad", ["int", "fp8", "FP16", "", None, 16, ["fp16"]])
def test_unknown_dtype_names_the_allowed_ones(bad):
    assert not fpformat.is_fp(bad)
    with pytest.raises(ValueError, match=r"is not a floating-point format; allowed: 'fp16', 'bf16', 'fp32'$"):
        fpformat.format_of(bad)
    with pytest.raises(ValueError, match=r"allowed: 'fp16', 'bf16', 'fp32'"):
        fpformat.width(bad)


def test_old_names_are_views_of_the_table():
    for mod in (rtl_fp, golden_fp):
        assert mod.FP_FORMATS == {"fp16": (5, 10), "bf16": (8, 7), "fp32": (8, 23)}
        assert mod.fp_width is fpformat.width
    assert rtl_fp.FP_DTYPES == fpformat.FP_DTYPES
    assert golden_systolic.FP_DTYPES == fpformat.FP_DTYPES
    assert sweep.FP_DTYPES == fpformat.FP_DTYPES
    assert arch.FP_WIDTH == {"fp16": 16, "bf16": 16, "fp32": 32}
    assert arch.FP_ACC_WIDTH == fpformat.ACC_WIDTH


def test_golden_numpy_types_cover_the_table():
    assert set(golden_fp._NP_TYPE) == set(fpformat.FP_DTYPES)
    for name, t in golden_fp._NP_TYPE.items():
        assert np.dtype(t).itemsize * 8 == fpformat.width(name)
        assert np.dtype(golden_fp.bits_dtype(name)).itemsize * 8 == fpformat.width(name)


def test_static_dtype_literals_agree_with_the_table():
    """A pydantic ``Literal`` must be static, so the dtype names are listed in the schemas: they must be
    ``"int"`` followed by the table's names (an fp32-only block lists a subset)."""
    full = ("int", *fpformat.FP_DTYPES)
    assert typing.get_args(MacDtype) == full
    assert typing.get_args(arch.DType) == arch.DTYPES == full
    for model in (MACParams, SystolicParams, FlexDPEParams, TensorDashPEParams):
        assert typing.get_args(model.model_fields["dtype"].annotation) == full, model.__name__
    for name, fam in FAMILIES.items():
        field = fam.params_model.model_fields.get("dtype")
        if field is not None:
            names = typing.get_args(field.annotation)
            assert names[0] == "int" and set(names[1:]) <= set(fpformat.FP_DTYPES), name


@pytest.mark.parametrize("dtype", fpformat.FP_DTYPES)
def test_implied_widths_come_from_the_table(dtype):
    w = fpformat.width(dtype)
    p = MACParams(dtype=dtype)
    assert (p.a_width, p.b_width, p.acc_width) == (w, w, fpformat.ACC_WIDTH)
    assert FlexDPEParams(dtype=dtype).width == w
    t = arch.TensorUnit(rows=2, cols=2, dtype=dtype)
    assert (t.a_width, t.acc_width) == (w, fpformat.ACC_WIDTH)
