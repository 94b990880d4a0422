"""Multiply-accumulate cell.

The MAC is the processing element that systolic arrays, the Flex-DPE and the
TensorDash PE are built from. It multiplies two operands and adds the product
into an accumulator register. Integer MACs (``dtype="int"``) wrap around modulo
``2**acc_width`` (two's complement when ``signed``); floating-point MACs
(``dtype`` fp16, bf16 or fp32) form an fp32 product and accumulate in fp32
(IEEE round to nearest even, see :mod:`accelgen.rtl.fp`).
"""

from __future__ import annotations

from amaranth import Module, Mux, Shape, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from pydantic import Field, model_validator

from ..fpformat import ACC_WIDTH
from ._params import AccWidth, AWidth, BWidth, FPOperandParams, FromParams, MacDtype, Signed
from .fp import FPAdder, FPMultiplier

__all__ = ["MACParams", "MAC"]


class MACParams(FPOperandParams):
    """Parameters of :class:`MAC` (see there for their meaning)."""

    block = "mac"

    a_width: AWidth = 8
    b_width: BWidth = 8
    acc_width: AccWidth = 32
    signed: Signed = True
    dtype: MacDtype = Field(
        "int", description="operand datatype: 'int' (widths and signed as given) or fp16/bf16/fp32 operands "
                           "with fp32 products and accumulation (widths implied)")
    flush_subnormals: bool = Field(False, description="fp dtypes only: subnormal operands and results are "
                                                      "flushed to zero (DAZ+FTZ)")
    input_reg: bool = Field(False, description="register a, b, en and clear before the multiplier")
    product_reg: bool = Field(False, description="register the product before the adder")
    output_reg: bool = Field(False, description="register the accumulator output once more")
    zero_gating: bool = Field(False, description="hold the multiplier inputs when either operand is zero (needs input_reg)")
    addend_input: bool = Field(False, description="add a c_in port: clear loads c_in instead of 0 (partial-sum chains)")

    @model_validator(mode="after")
    def _check_cross_fields(self) -> "MACParams":
        if self.flush_subnormals and not self.is_fp:
            raise ValueError("flush_subnormals=true requires a floating-point dtype ('fp16', 'bf16' or 'fp32')")
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
        """Cycles from an operand pair entering to its product being visible in ``acc``."""
        return 1 + int(self.input_reg) + int(self.product_reg) + int(self.output_reg)

    @property
    def is_fp(self) -> bool:
        """Floating-point operands (fp32 products and accumulation)."""
        return self.dtype != "int"

    @property
    def product_width(self) -> int:
        """Width of the product: ``a_width + b_width`` (int), 32 (fp32 bits, fp dtypes)."""
        return ACC_WIDTH if self.is_fp else self.a_width + self.b_width


class MAC(FromParams, wiring.Component):
    """Multiply-accumulate cell with clear and enable.

    Parameters
    ----------
    a_width, b_width : int
        Operand widths in bits, 1..32 each (integer MACs; implied by an fp ``dtype``:
        16 for fp16/bf16, 32 for fp32). ``None`` = the schema default / implied value.
    acc_width : int
        Accumulator width in bits, ``a_width + b_width`` .. 64. An integer
        accumulator wraps around modulo ``2**acc_width``; nothing saturates.
        32 (fp32) with an fp ``dtype``.
    signed : bool
        Both operands and the accumulator are two's complement (else unsigned).
        Not used with an fp ``dtype`` (fp values carry their sign bit): it is
        implied ``False`` there and an explicit ``True`` is rejected.
    dtype : str
        ``"int"``, or ``"fp16"`` / ``"bf16"`` / ``"fp32"`` operands with an fp32
        product (:class:`~accelgen.rtl.fp.FPMultiplier`) added into an fp32
        accumulator (:class:`~accelgen.rtl.fp.FPAdder`), IEEE round to nearest
        even, every NaN produced is ``0x7FC00000``. Ports carry the bit patterns.
    flush_subnormals : bool
        fp only: subnormal operands (operand format, ``c_in`` and the
        accumulator) count as zeros of their sign, and subnormal products and
        sums become zeros of their sign (DAZ + FTZ, see :mod:`accelgen.rtl.fp`).
    input_reg : bool
        Register ``a``, ``b``, ``en`` and ``clear`` in front of the multiplier.
    product_reg : bool
        Pipeline register between multiplier and adder.
    output_reg : bool
        Extra register after the accumulator.
    zero_gating : bool
        When ``en`` is low or either operand is zero, the input registers keep
        their previous value, so the multiplier sees no switching, and the pair
        contributes nothing. Requires ``input_reg``. For fp dtypes "zero" is
        +0 or -0 (exponent and fraction bits zero; a subnormal is not gated
        even with ``flush_subnormals``); a gated pair is skipped, i.e. the
        accumulator holds (or, with ``clear``, is loaded with +0 / ``c_in``):
        so with gating ``Inf x 0`` never makes a NaN and a -0 accumulator
        stays -0, unlike without gating, where the product (NaN, +-0) is added.
    addend_input : bool
        Add a ``c_in`` port; ``clear`` loads ``c_in`` (instead of 0) plus the
        product. With ``clear`` held high the cell computes ``c_in + a*b`` every
        cycle: the processing element of a partial-sum chain (weight-stationary
        systolic column).

    Ports
    -----
    a : In(a_width), signed if ``signed``
        Operand a, sampled every cycle (fp: the operand's bit pattern).
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
        The running sum (fp: fp32 bits).

    Function
    --------
    Integer: ``acc <- (c_in if clear else acc) + (a*b if en else 0)`` when
    ``en | clear``, modulo ``2**acc_width``. Floating point (the association
    order is part of the spec): ``acc <- fp_add(c_in if clear else acc,
    fp_mul(a, b))`` when ``en``; ``acc <- c_in`` when ``clear`` without ``en``;
    ``c_in`` is +0.0 without ``addend_input`` (so ``clear`` with a -0 product
    gives +0, as ``+0 + -0 = +0``).

    Latency
    -------
    ``1 + input_reg + product_reg + output_reg`` cycles for every ``dtype`` (the
    fp multiplier and adder are combinational and sit where the integer ones
    do): a pair presented in cycle ``t`` is included in ``acc`` from cycle
    ``t + latency`` on. ``en`` and ``clear`` travel with their operands through
    the pipeline. After reset ``acc`` is 0 (+0.0). One new pair per cycle.
    """

    def __init__(self, *, a_width: int | None = None, b_width: int | None = None, acc_width: int | None = None,
                 signed: bool | None = None, dtype: str = "int", flush_subnormals: bool = False,
                 input_reg: bool = False, product_reg: bool = False, output_reg: bool = False,
                 zero_gating: bool = False, addend_input: bool = False):
        self.params = MACParams.from_arguments(
            a_width=a_width, b_width=b_width, acc_width=acc_width, signed=signed, dtype=dtype,
            flush_subnormals=flush_subnormals, input_reg=input_reg, product_reg=product_reg, output_reg=output_reg,
            zero_gating=zero_gating, addend_input=addend_input)
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
                if p.is_fp:  # +0 or -0: every bit but the sign is zero
                    effectual = en & (a[:-1] != 0) & (b[:-1] != 0)
                else:
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
        if p.is_fp:
            m.submodules.mul = mul = FPMultiplier(p.dtype, flush_subnormals=p.flush_subnormals)
            m.d.comb += [mul.a.eq(a), mul.b.eq(b), product.eq(mul.product)]
        else:
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
        if p.is_fp:
            m.submodules.add = add = FPAdder(flush_subnormals=p.flush_subnormals)
            m.d.comb += [add.a.eq(Mux(clear, c_in, acc)), add.b.eq(product)]
            with m.If(en):
                m.d.sync += acc.eq(add.sum)
            with m.Elif(clear):
                m.d.sync += acc.eq(c_in)
        else:
            with m.If(en | clear):
                # Assigning the wider sum to acc truncates: wrap-around modulo 2**acc_width.
                m.d.sync += acc.eq(Mux(clear, c_in, acc) + Mux(en, product, 0))

        if p.output_reg:
            m.d.sync += self.acc.eq(acc)
        else:
            m.d.comb += self.acc.eq(acc)
        return m
