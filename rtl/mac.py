"""Multiply-accumulate cell.

The MAC is the processing element that systolic arrays, the Flex-DPE and the
TensorDash PE are built from. It multiplies two operands and adds the product
into an accumulator register that wraps around modulo ``2**acc_width``
(two's complement when ``signed``).
"""

from __future__ import annotations

from typing import Literal

from amaranth import Module, Mux, Shape, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from pydantic import Field, model_validator

from ._params import BlockParams

__all__ = ["MACParams", "MAC"]

#: datatypes the MAC generator knows; floating point ("fp16", "bf16") is planned
MAC_DTYPES = ("int",)


class MACParams(BlockParams):
    """Parameters of :class:`MAC` (see there for their meaning)."""

    block = "mac"

    a_width: int = Field(8, ge=1, le=32, description="width of operand a in bits")
    b_width: int = Field(8, ge=1, le=32, description="width of operand b in bits")
    acc_width: int = Field(32, ge=2, le=64, description="accumulator width in bits; must be >= a_width + b_width")
    signed: bool = Field(True, description="two's-complement operands and accumulator (else unsigned)",
                         json_schema_extra={"cli_negative": "unsigned"})
    dtype: Literal["int"] = Field("int", description="operand datatype; only 'int' so far")
    input_reg: bool = Field(False, description="register a, b, en and clear before the multiplier")
    product_reg: bool = Field(False, description="register the product before the adder")
    output_reg: bool = Field(False, description="register the accumulator output once more")
    zero_gating: bool = Field(False, description="hold the multiplier inputs when either operand is zero (needs input_reg)")
    addend_input: bool = Field(False, description="add a c_in port: clear loads c_in instead of 0 (partial-sum chains)")

    @model_validator(mode="after")
    def _check_cross_fields(self) -> "MACParams":
        product_width = self.a_width + self.b_width
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
        """Cycles from an operand pair entering to its product being visible in ``acc``."""
        return 1 + int(self.input_reg) + int(self.product_reg) + int(self.output_reg)

    @property
    def product_width(self) -> int:
        return self.a_width + self.b_width


class MAC(wiring.Component):
    """Multiply-accumulate cell with clear and enable.

    Parameters
    ----------
    a_width, b_width : int
        Operand widths in bits, 1..32 each.
    acc_width : int
        Accumulator width in bits, ``a_width + b_width`` .. 64. The accumulator
        wraps around modulo ``2**acc_width``; nothing saturates.
    signed : bool
        Both operands and the accumulator are two's complement (else unsigned).
    dtype : str
        Operand datatype. Only ``"int"`` today; floating point is a later extension.
    input_reg : bool
        Register ``a``, ``b``, ``en`` and ``clear`` in front of the multiplier.
    product_reg : bool
        Pipeline register between multiplier and adder.
    output_reg : bool
        Extra register after the accumulator.
    zero_gating : bool
        When ``en`` is low or either operand is zero, the input registers keep
        their previous value, so the multiplier sees no switching, and the pair
        contributes nothing. Requires ``input_reg``.
    addend_input : bool
        Add a ``c_in`` port; ``clear`` loads ``c_in`` (instead of 0) plus the
        product. With ``clear`` held high the cell computes ``c_in + a*b`` every
        cycle: the processing element of a partial-sum chain (weight-stationary
        systolic column).

    Ports
    -----
    a : In(a_width), signed if ``signed``
        Operand a, sampled every cycle.
    b : In(b_width), signed if ``signed``
        Operand b, sampled every cycle.
    en : In(1)
        The pair ``(a, b)`` of this cycle is accumulated.
    clear : In(1)
        Start a new sum: the accumulator is loaded with this cycle's product
        (or 0 when ``en`` is low) instead of adding to the old value.
    c_in : In(acc_width), only with ``addend_input``
        Addend taken instead of 0 when ``clear`` is high; travels with ``clear``.
    acc : Out(acc_width), signed if ``signed``
        The running sum.

    Latency
    -------
    ``1 + input_reg + product_reg + output_reg`` cycles: a pair presented in
    cycle ``t`` is included in ``acc`` from cycle ``t + latency`` on. ``en`` and
    ``clear`` travel with their operands through the pipeline. After reset
    ``acc`` is 0. One new pair per cycle.
    """

    def __init__(self, *, a_width: int = 8, b_width: int = 8, acc_width: int = 32, signed: bool = True,
                 dtype: str = "int", input_reg: bool = False, product_reg: bool = False,
                 output_reg: bool = False, zero_gating: bool = False, addend_input: bool = False):
        self.params = MACParams.validate_kwargs(dict(
            a_width=a_width, b_width=b_width, acc_width=acc_width, signed=signed, dtype=dtype,
            input_reg=input_reg, product_reg=product_reg, output_reg=output_reg, zero_gating=zero_gating,
            addend_input=addend_input))
        p = self.params
        members = {
            "a": In(Shape(p.a_width, p.signed)),
            "b": In(Shape(p.b_width, p.signed)),
            "en": In(1),
            "clear": In(1),
        }
        if p.addend_input:
            members["c_in"] = In(Shape(p.acc_width, p.signed))
        members["acc"] = Out(Shape(p.acc_width, p.signed))
        super().__init__(members)

    @classmethod
    def from_params(cls, params: MACParams) -> "MAC":
        return cls(**params.model_dump())

    @property
    def latency(self) -> int:
        return self.params.latency

    def elaborate(self, platform):
        p = self.params
        m = Module()

        a, b, en, clear = self.a, self.b, self.en, self.clear
        c_in = self.c_in if p.addend_input else 0
        if p.input_reg:
            a_q = Signal.like(a, name="a_q")
            b_q = Signal.like(b, name="b_q")
            en_q = Signal(name="en_q")
            clear_q = Signal(name="clear_q")
            m.d.sync += clear_q.eq(clear)
            if p.addend_input:
                c_q = Signal.like(self.c_in, name="c_in_q")
                m.d.sync += c_q.eq(c_in)
                c_in = c_q
            if p.zero_gating:
                effectual = en & (a != 0) & (b != 0)
                m.d.sync += en_q.eq(effectual)
                # Holding the registers (not zeroing them) keeps the multiplier
                # inputs static, which is what saves the switching energy.
                with m.If(effectual):
                    m.d.sync += [a_q.eq(a), b_q.eq(b)]
            else:
                m.d.sync += [a_q.eq(a), b_q.eq(b), en_q.eq(en)]
            a, b, en, clear = a_q, b_q, en_q, clear_q

        product = Signal(Shape(p.product_width, p.signed), name="product")
        m.d.comb += product.eq(a * b)
        if p.product_reg:
            product_q = Signal.like(product, name="product_q")
            en_p = Signal(name="en_p")
            clear_p = Signal(name="clear_p")
            m.d.sync += [product_q.eq(product), en_p.eq(en), clear_p.eq(clear)]
            product, en, clear = product_q, en_p, clear_p
            if p.addend_input:
                c_p = Signal.like(self.c_in, name="c_in_p")
                m.d.sync += c_p.eq(c_in)
                c_in = c_p

        acc = Signal(Shape(p.acc_width, p.signed), name="acc_q")
        with m.If(en | clear):
            # Assigning the wider sum to acc truncates: wrap-around modulo 2**acc_width.
            m.d.sync += acc.eq(Mux(clear, c_in, acc) + Mux(en, product, 0))

        if p.output_reg:
            m.d.sync += self.acc.eq(acc)
        else:
            m.d.comb += self.acc.eq(acc)
        return m
