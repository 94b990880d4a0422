"""What every block family's parameter schema shares.

Every generator declares its parameters once, as a :class:`BlockParams` subclass
(a strict, frozen pydantic model). The same schema validates the Python
constructor, the YAML config and the command-line options, so the allowed values
and the error messages are identical everywhere. The schema also declares the
family's latency (a ``latency`` property) and the cycles its arithmetic
pipeline stages add (:meth:`BlockParams.stage_latency`), so that the generators,
the golden models and the estimator read one formula.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

import annotated_types
import pydantic
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..fpformat import ACC_DTYPE, ACC_WIDTH, is_fp, width as fp_width
from ..problems import problem_list

#: most register stages inside an arithmetic unit (multiplier or adder) of any block
MAX_STAGES = 3
#: widest integer operand or sum of an arithmetic unit
MAX_WIDTH = 64


def ceil_log2(n) -> int:
    """``ceil(log2 n)``: the levels of a binary tree over ``n`` inputs (``log2 n`` for a power of two)."""
    return math.ceil(math.log2(n))


def is_power_of_two(n: int) -> bool:
    """``n`` is 1, 2, 4, 8, ...: the sizes the Benes networks and reduction trees are built for."""
    return n >= 1 and n & (n - 1) == 0


def exact_log2(n: int) -> int:
    """``log2 n`` of a power of two (the stage and level counts of the networks built on it)."""
    return n.bit_length() - 1


def check_power_of_two(field: str, value: int, allowed: str) -> None:
    """The one message for a size that must be a power of two:
    ``ValueError("<field>=<value> is not a power of two; allowed: <allowed>")``."""
    if not is_power_of_two(value):
        raise ValueError(f"{field}={value} is not a power of two; allowed: {allowed}")


class BlockParams(BaseModel):
    """Base class of generator parameter sets (strict types, unknown keys rejected)."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    #: block family name used in configs and on the command line (``"mac"``)
    block: ClassVar[str] = ""

    @classmethod
    def allowed(cls, field: str) -> str:
        """Describe the values a field allows, e.g. ``"1..32"`` or ``"'int'"``."""
        info = cls.model_fields[field]
        ann = info.annotation
        if typing.get_origin(ann) is Literal:
            return " or ".join(repr(v) for v in typing.get_args(ann))
        if ann is bool:
            return "true or false"
        lo = hi = None
        for meta in info.metadata:
            if isinstance(meta, annotated_types.Ge):
                lo = meta.ge
            elif isinstance(meta, annotated_types.Gt):
                lo = meta.gt + 1
            elif isinstance(meta, annotated_types.Le):
                hi = meta.le
            elif isinstance(meta, annotated_types.Lt):
                hi = meta.lt - 1
        if ann is int:
            if lo is not None and hi is not None:
                return f"an integer in {lo}..{hi}"
            if lo is not None:
                return f"an integer >= {lo}"
            return "an integer"
        return getattr(ann, "__name__", str(ann))

    @classmethod
    def stage_latency(cls, params: Mapping[str, Any], mul_stages: int, add_stages: int) -> int:
        """Cycles ``mul_stages`` registers inside each multiplier and ``add_stages`` inside each adder add to
        one result of the block: the stage part of its ``latency``. ``params`` are the other parameters as a
        plain mapping (the estimator's model inputs: only the sizes the formula needs are read, and they need
        not pass validation). The default, ``mul_stages + add_stages``, is a result passing one multiplier and
        one adder (a MAC, a systolic PE); a block without arithmetic stages is only ever given 0 and 0."""
        return mul_stages + add_stages

    @property
    def pipeline_latency(self) -> int:
        """:meth:`stage_latency` of this parameter set's own ``mul_stages`` and ``add_stages``."""
        return self.stage_latency(dict(self), getattr(self, "mul_stages", 0), getattr(self, "add_stages", 0))

    @classmethod
    def problems(cls, exc: pydantic.ValidationError, prefix: str = "") -> list[tuple[str, str, bool]]:
        """Turn a pydantic error into ``(field_path, message, is_type_error)`` triples."""
        return [tuple(p) for p in problem_list(exc, prefix, model=cls)]

    @classmethod
    def validate_kwargs(cls, kwargs: dict[str, Any]) -> "BlockParams":
        """Validate for a Python constructor: raise ``TypeError`` for a wrongly typed value,
        ``ValueError`` for a value of the right type that cannot be built."""
        try:
            return cls(**kwargs)
        except pydantic.ValidationError as exc:
            probs = cls.problems(exc)
            text = "; ".join(f"{cls.block}.{p}: {m}" if p else f"{cls.block}: {m}" for p, m, _ in probs)
            if any(is_type for _, _, is_type in probs):
                raise TypeError(text) from None
            raise ValueError(text) from None

    @classmethod
    def from_arguments(cls, **kwargs: Any) -> "BlockParams":
        """Validate a generator constructor's keyword arguments (:meth:`validate_kwargs`). An argument
        given as ``None`` counts as left out: it takes the schema default, or the value ``dtype`` implies."""
        return cls.validate_kwargs({k: v for k, v in kwargs.items() if v is not None})


def fill_implied(data: Any, dtype: str, implied: dict[str, tuple[Any, str]]) -> Any:
    """Fill the fields a datatype implies, for a ``model_validator(mode="before")``.

    ``implied`` maps a field to ``(value, why)``. A field left out (or given as ``None``) gets
    ``value``; a contradicting value raises ``ValueError("<field>: <value> is not allowed with
    dtype=<dtype>; <why>")``, the same message for every block family.
    """
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for field, (value, why) in implied.items():
        given = out.get(field)
        if given is None:
            out[field] = value
        elif given != value or type(given) is not type(value):
            shown = str(given).lower() if isinstance(given, bool) else repr(given)
            raise ValueError(f"{field}: {shown} is not allowed with dtype={dtype!r}; {why}")
    return out


def fp_operand_implied(dtype: str, signed: bool, *, two_operands: bool = True) -> dict:
    """The fields an fp ``dtype`` implies for a multiply-accumulate block: operand widths of
    :func:`accelgen.fpformat.width` bits (``a_width``/``b_width``, or one ``width``), an fp32
    accumulator and ``signed``."""
    width = fp_width(dtype)
    sign_why = ("floating-point operands carry their own sign bit (signed true, or leave it out)" if signed else
                "floating-point operands carry their own sign bit (signed is not used; leave it out)")
    ops = {"a_width": (width, f"{dtype} operands are {width} bits wide (a_width {width})"),
           "b_width": (width, f"{dtype} operands are {width} bits wide (b_width {width})")} if two_operands else \
        {"width": (width, f"{dtype} operands are {width} bits wide (width {width}, or leave it out) "
                          f"and products and sums are {ACC_DTYPE}")}
    acc = {"acc_width": (ACC_WIDTH, f"{dtype} operands accumulate in {ACC_DTYPE} (acc_width {ACC_WIDTH})")} \
        if two_operands else {}
    return {**ops, **acc, "signed": (signed, sign_why)}


class FPOperandParams(BlockParams):
    """Parameters of a multiply-accumulate block with a ``dtype`` field (MAC, systolic array,
    Flex-DPE, TensorDash PE): a floating-point ``dtype`` implies the operand widths, the fp32
    accumulator and ``signed`` (:func:`fp_operand_implied`). They are filled in when left out; a
    contradicting value is rejected naming the field, the value and what the dtype allows. Any
    other data (``"int"``, or a bad dtype that field validation reports) passes unchanged."""

    #: the ``signed`` an fp dtype implies (False: not used, the ports carry bit patterns)
    fp_signed: ClassVar[bool] = False
    #: operands ``a_width``/``b_width`` and ``acc_width`` (else one operand ``width``, no accumulator)
    fp_two_operands: ClassVar[bool] = True

    @model_validator(mode="before")
    @classmethod
    def _fill_fp_operands(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not is_fp(data.get("dtype")):
            return data
        dtype = data["dtype"]
        return fill_implied(data, dtype, fp_operand_implied(dtype, cls.fp_signed, two_operands=cls.fp_two_operands))


#: DAZ + FTZ of a floating-point datapath (MAC, systolic array, TensorDash PE), declared once; a block with this
#: field calls :func:`check_flush_subnormals` in its after-validator
FlushSubnormals = Annotated[bool, Field(description="fp dtypes only: subnormal operands and results of the multipliers "
                                                    "and adders are flushed to zero of the same sign (DAZ+FTZ)")]


def check_flush_subnormals(params: Any) -> None:
    """``flush_subnormals`` is a property of floating-point arithmetic: true with ``dtype='int'`` is rejected."""
    if params.flush_subnormals and not is_fp(params.dtype):
        raise ValueError(f"flush_subnormals: true is not allowed with dtype={params.dtype!r}; it needs a "
                         "floating-point dtype ('fp16', 'bf16' or 'fp32')")


#: datatypes of a multiply-accumulate block: integers, or the floating-point formats of
#: :data:`accelgen.fpformat.FP_DTYPES` (fp32 products and accumulation). A pydantic ``Literal`` is
#: static, so the names are listed here; ``tests/test_fpformat.py`` checks them against the table.
MacDtype = Literal["int", "fp16", "bf16", "fp32"]

# Operand and accumulator fields of a multiply-accumulate datapath (MAC, TensorDash PE), declared
# once: ``a_width: AWidth = 8``.
AWidth = Annotated[int, Field(ge=1, le=32, description="width of operand a in bits")]
BWidth = Annotated[int, Field(ge=1, le=32, description="width of operand b in bits")]
AccWidth = Annotated[int, Field(ge=2, le=64, description="accumulator width in bits; must be >= a_width + b_width")]
Signed = Annotated[bool, Field(description="two's-complement operands and accumulator (else unsigned)",
                               json_schema_extra={"cli_negative": "unsigned"})]

# Pipelining of the arithmetic units (issue 19), declared once for every block: the number of register
# stages inside each multiplier (:class:`~accelgen.rtl.fp.FPMultiplier`,
# :class:`~accelgen.rtl.intarith.PipelinedMultiplier`) and inside each adder (``FPAdder``,
# ``PipelinedAdder``); 0 is the combinational unit, at most :data:`MAX_STAGES`.
MulStages = Annotated[int, Field(ge=0, le=MAX_STAGES,
                                 description="register stages inside each multiplier (0: combinational)")]
AddStages = Annotated[int, Field(ge=0, le=MAX_STAGES,
                                 description="register stages inside each adder (0: combinational)")]
