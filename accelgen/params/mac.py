"""Parameters of the multiply-accumulate cell (:class:`accelgen.rtl.MAC`)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from ..fpformat import ACC_WIDTH
from .base import (AccWidth, AddStages, AWidth, BWidth, FlushSubnormals, FPOperandParams, MacDtype, MulStages, Signed,
                   check_flush_subnormals)

__all__ = ["MACParams"]


class MACParams(FPOperandParams):
    """Parameters of :class:`~accelgen.rtl.mac.MAC`.

    With a floating-point ``dtype`` the operand widths (16 for fp16/bf16, 32 for fp32), ``acc_width`` 32
    and ``signed`` are implied (filled in when left out; ``signed`` is not used, fp values carry their sign
    bit). An integer accumulator wraps around modulo ``2**acc_width``; nothing saturates.

    ``product_reg`` and ``mul_stages`` describe the same registers: left out (``None``) ``product_reg``
    follows ``mul_stages`` (true iff ``mul_stages > 0``); true with ``mul_stages`` left out is
    ``mul_stages=1``; a value that contradicts a given ``mul_stages`` is rejected. One stage is the
    register *after* the multiplier (not the unit's balanced inner cut) because the product goes straight
    into the accumulator adder; 2-3 stages are the pipelined multipliers, which keep that register and
    place the others inside. With ``add_stages > 0`` the cell holds ``add_stages + 1`` interleaved sums
    (the generator's *Interleaved sums*).

    ``zero_gating``: when ``en`` is low or either operand is zero (fp: +0 or -0; a subnormal is not gated
    even with ``flush_subnormals``), the input registers keep their previous value, so the multiplier sees
    no switching, and the pair is skipped: the accumulator holds (or, with ``clear``, is loaded with +0 /
    ``c_in``). So with gating ``Inf x 0`` never makes a NaN and a -0 accumulator stays -0, unlike without
    gating, where the product (NaN, +-0) is added. With ``add_stages`` the gated pair is skipped for its
    own sum (thread).

    ``addend_input``: a ``c_in`` port; ``clear`` loads ``c_in`` (instead of 0) plus the product. With
    ``clear`` held high the cell computes ``c_in + a*b`` every cycle: the processing element of a
    partial-sum chain (weight-stationary systolic column).
    """

    block = "mac"

    a_width: AWidth = 8
    b_width: BWidth = 8
    acc_width: AccWidth = 32
    signed: Signed = True
    dtype: MacDtype = Field(
        "int", description="operand datatype: 'int' (widths and signed as given) or fp16/bf16/fp32 operands "
                           "with fp32 products and accumulation (widths implied)")
    flush_subnormals: FlushSubnormals = False
    input_reg: bool = Field(False, description="register a, b, en and clear before the multiplier")
    product_reg: bool = Field(False, description="register the product before the adder: the one-stage "
                                                 "multiplier, the same as mul_stages=1 (left out: true iff "
                                                 "mul_stages > 0)")
    mul_stages: MulStages = 0
    add_stages: AddStages = 0
    output_reg: bool = Field(False, description="register the accumulator output once more")
    zero_gating: bool = Field(False, description="hold the multiplier inputs when either operand is zero "
                                                 "(needs input_reg)")
    addend_input: bool = Field(False, description="add a c_in port: clear loads c_in instead of 0 (partial-sum chains)")

    @model_validator(mode="before")
    @classmethod
    def _fill_product_reg(cls, data: Any) -> Any:
        """``product_reg`` and ``mul_stages`` describe the same registers: one left out (or ``None``)
        follows from the other (``product_reg`` = ``mul_stages > 0``; ``product_reg=true`` alone is
        ``mul_stages=1``). Two given values that disagree are reported by ``_check_cross_fields``;
        a wrongly typed value is left to field validation."""
        if not isinstance(data, dict):
            return data
        out = {k: v for k, v in data.items() if not (k in ("product_reg", "mul_stages") and v is None)}
        product_reg, mul_stages = out.get("product_reg"), out.get("mul_stages")
        if product_reg is None and isinstance(mul_stages, int) and not isinstance(mul_stages, bool):
            out["product_reg"] = mul_stages > 0
        elif mul_stages is None and product_reg is True:
            out["mul_stages"] = 1
        return out

    @model_validator(mode="after")
    def _check_cross_fields(self) -> "MACParams":
        if self.product_reg and not self.mul_stages:
            raise ValueError(
                "product_reg: true is not allowed with mul_stages=0 (product_reg is the one-stage multiplier); "
                "allowed: product_reg=true with mul_stages >= 1, or leave one of the two out"
            )
        if not self.product_reg and self.mul_stages:
            raise ValueError(
                f"product_reg: false is not allowed with mul_stages={self.mul_stages} (a pipelined multiplier "
                f"registers its product); allowed: product_reg=false with mul_stages=0, or leave product_reg out"
            )
        check_flush_subnormals(self)
        product_width = self.product_width
        if self.acc_width < product_width:
            raise ValueError(
                f"acc_width={self.acc_width} is too narrow for a {self.a_width}x{self.b_width}-bit product; "
                f"allowed: acc_width >= a_width + b_width = {product_width}"
            )
        if self.zero_gating and not self.input_reg:
            raise ValueError(
                "zero_gating=true requires input_reg=true: the held multiplier operands are the input registers"
            )
        return self

    @property
    def latency(self) -> int:
        """Cycles from an operand pair entering to its product being visible in ``acc``:
        ``1 + input_reg + mul_stages + add_stages + output_reg`` (``product_reg`` is ``mul_stages=1``)."""
        return 1 + int(self.input_reg) + self.pipeline_latency + int(self.output_reg)

    @property
    def threads(self) -> int:
        """Independent running sums interleaved in the accumulator loop, ``add_stages + 1`` (see :class:`~accelgen.rtl.mac.MAC`)."""
        return self.add_stages + 1

    @property
    def is_fp(self) -> bool:
        """Floating-point operands (fp32 products and accumulation)."""
        return self.dtype != "int"

    @property
    def product_width(self) -> int:
        """Width of the product: ``a_width + b_width`` (int), 32 (fp32 bits, fp dtypes)."""
        return ACC_WIDTH if self.is_fp else self.a_width + self.b_width
