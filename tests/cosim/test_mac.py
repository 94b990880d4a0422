"""MAC cells co-simulated on the emitted Verilog against the golden model."""

import shutil

import numpy as np
import pytest

from accelgen.cosim import run_cosim
from accelgen.cosim.mac import mac_table
from accelgen.cosim.vectors import CycleTable
from accelgen.registry import family
from accelgen.gen import render, write
from accelgen.rtl import MACParams

pytestmark = pytest.mark.cosim

VARIANTS = {
    "s4": dict(a_width=4, b_width=4, acc_width=10, signed=True),
    "u4_pipe": dict(a_width=4, b_width=4, acc_width=9, signed=False, input_reg=True, product_reg=True),
    "s12x5_full_pipe": dict(a_width=12, b_width=5, acc_width=24, signed=True, input_reg=True, product_reg=True,
                            output_reg=True, zero_gating=True),
    "s16": dict(a_width=16, b_width=16, acc_width=34, signed=True),
    "s8_addend_pipe": dict(a_width=8, b_width=8, acc_width=20, signed=True, addend_input=True, input_reg=True,
                           product_reg=True),
}
#: Slow only (``-m slow``): the same behaviour as a default variant at a larger size. ``u16_pipe``
#: is ``u4_pipe`` (unsigned, input and product registers) with 16-bit operands; its accumulator
#: wider than 32 bits is covered by default by ``s16`` (acc_width 34).
SLOW_VARIANTS = {
    # issue 48: output register and gating are s12x5_full_pipe's (signed), unsigned with an input register u4_pipe's
    "s8_out": dict(a_width=8, b_width=8, acc_width=20, signed=True, output_reg=True),
    "u8_gated": dict(a_width=8, b_width=8, acc_width=18, signed=False, input_reg=True, zero_gating=True),
    "u16_pipe": dict(a_width=16, b_width=16, acc_width=40, signed=False, input_reg=True, product_reg=True),
}


def design_name(variant: str) -> str:
    """The module name of a variant's design. Tests that simulate the same parameters use the same name,
    so that they share one (content-hashed) simulator build: ``s4`` is the family's default name
    ``mac``, which ``accelgen.flow.cosim_design`` and regressions (tests/cosim/test_regression.py) use
    for the same parameters, and ``tests/test_flow.py`` / ``tests/test_build.py`` name their
    4-bit blocks ``mac`` and ``mac_u4_pipe``."""
    return "mac" if variant == "s4" else f"mac_{variant}"


def _emit(tmp_path, params, name):
    return write(render(family("mac"), params, name), tmp_path)


@pytest.mark.parametrize("name", list(VARIANTS) + [pytest.param(n, marks=pytest.mark.slow) for n in SLOW_VARIANTS])
def test_mac_variant_passes_with_thousands_of_vectors(tmp_path, name):
    params = MACParams(**(VARIANTS | SLOW_VARIANTS)[name])
    e = _emit(tmp_path, params, design_name(name))
    table = mac_table(params, vectors=3000, seed=42)
    result = run_cosim(e.verilog_path, e.manifest, table, sim="verilator", seed=42)
    assert result.passed, result.summary() + str(result.first_mismatches)
    assert result.cycles == table.cycles and result.checks == table.checks
    assert result.vectors >= 3000
    assert "overflow" in table.info["sections"]


def test_mac_one_bit_operands(tmp_path):
    params = MACParams(a_width=1, b_width=1, acc_width=2, signed=True, input_reg=True)
    e = _emit(tmp_path, params, "mac_1b")
    result = run_cosim(e.verilog_path, e.manifest, mac_table(params, 500, 3), sim="verilator", seed=3)
    assert result.passed, result.first_mismatches


def test_cosim_detects_a_latency_error(tmp_path):
    """Expecting latency 2 from a 3-cycle MAC (the ``u4_pipe`` variant, whose build it shares) must fail,
    and leave a waveform and log."""
    params = MACParams(**VARIANTS["u4_pipe"])
    e = _emit(tmp_path, params, design_name("u4_pipe"))
    table = mac_table(params.model_copy(update={"product_reg": False, "mul_stages": 0}), vectors=200, seed=5)
    result = run_cosim(e.verilog_path, e.manifest, table, sim="verilator", seed=5)
    assert not result.passed
    assert result.mismatches > 0 and result.first_mismatches
    assert result.waveform and result.waveform.endswith((".vcd", ".fst"))
    from pathlib import Path
    assert Path(result.waveform).stat().st_size > 0 and Path(result.log).exists()
    shutil.rmtree(result.run_dir)


def test_cosim_detects_a_single_wrong_bit(tmp_path):
    params = MACParams(**VARIANTS["s4"])
    e = _emit(tmp_path, params, design_name("s4"))
    table = mac_table(params, vectors=100, seed=1)
    bad = table.expect["acc"].copy()
    bad[77] ^= np.uint64(1 << 9)
    broken = CycleTable(table.inputs, {"acc": bad}, table.check, table.info)
    result = run_cosim(e.verilog_path, e.manifest, broken, sim="verilator", seed=1, waves_on_failure=False)
    assert not result.passed and result.mismatches == 1
    assert result.first_mismatches[0]["cycle"] == 77
    shutil.rmtree(result.run_dir)


def test_icarus_alternative(tmp_path, has_icarus):
    if not has_icarus:
        pytest.skip("Icarus Verilog (iverilog) is not installed; it is optional (Debian package 'iverilog')")
    params = MACParams(**VARIANTS["s12x5_full_pipe"])
    e = _emit(tmp_path, params, design_name("s12x5_full_pipe"))
    result = run_cosim(e.verilog_path, e.manifest, mac_table(params, 1000, 9), sim="icarus", seed=9)
    assert result.passed, result.first_mismatches
