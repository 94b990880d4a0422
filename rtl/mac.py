"""Multiply-accumulate cell.

The MAC is the processing element that systolic arrays, the Flex-DPE and the
TensorDash PE are built from. It multiplies two operands and adds the product
into an accumulator register. Integer MACs (``dtype="int"``) wrap around modulo
``2**acc_width`` (two's complement when ``signed``); floating-point MACs
(``dtype`` fp16, bf16 or fp32) form an fp32 product and accumulate in fp32
(IEEE round to nearest even, see :mod:`accelgen.rtl.fp`). The multiplier and
the accumulator adder can be pipelined (``mul_stages``, ``add_stages``); a
pipelined accumulator holds several interleaved sums (see :class:`MAC`).
"""

from __future__ import annotations

from amaranth import Const, Module, Mux, Shape, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..params.mac import MACParams
from ._generator import FromParams
from .fp import FP32_NEG_ZERO, FPAdder, FPMultiplier
from .intarith import PipelinedAdder, PipelinedMultiplier

__all__ = ["MACParams", "MAC"]

# FP32_NEG_ZERO (fp32 -0.0, from .fp): the addend that leaves every accumulator value of an fp MAC without
# ``addend_input`` unchanged


def _delay(m: Module, value, cycles: int, name: str) -> Value:
    """``value`` delayed by ``cycles`` registers that reset to 0 (control bits and values travelling beside
    a pipelined unit, whose own registers have no reset)."""
    value = Value.cast(value)
    for k in range(1, cycles + 1):
        reg = Signal(value.shape(), name=f"{name}_{k}")
        m.d.sync += reg.eq(value)
        value = reg
    return value


class MAC(FromParams, wiring.Component):
    """Multiply-accumulate cell with clear and enable.

    Parameters: :class:`~accelgen.params.mac.MACParams` (a parameter set, or its fields as keywords).
    Integer MACs wrap around modulo ``2**acc_width``. Floating-point MACs (``dtype`` fp16, bf16, fp32)
    multiply with an fp32-product :class:`~accelgen.rtl.fp.FPMultiplier` and add into an fp32 accumulator
    (:class:`~accelgen.rtl.fp.FPAdder`), IEEE round to nearest even, every NaN produced is ``0x7FC00000``;
    ``flush_subnormals`` makes subnormal operands (operand format, ``c_in`` and the accumulator) zeros of
    their sign and flushes subnormal products and sums (DAZ + FTZ, see :mod:`accelgen.rtl.fp`). Ports carry
    the bit patterns. ``mul_stages`` 2-3 and ``add_stages`` use the pipelined units
    (:class:`~accelgen.rtl.intarith.PipelinedMultiplier`, :class:`~accelgen.rtl.intarith.PipelinedAdder`, or
    the fp units with ``stages``); ``en``, ``clear`` and ``c_in`` are delayed alongside. The fp multiplier of
    2-3 stages keeps its result register (:func:`~accelgen.rtl.fp.context_cuts`) so that its rounding does not
    run into the adder's alignment (bf16 at 3+3 stages 2.17 ns at 45 nm, 1.36 ns with it).

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

    Interleaved sums (``add_stages > 0``)
    -------------------------------------
    The accumulator is a feedback loop: the adder's result is its next operand.
    A pipelined adder makes the loop ``L = add_stages + 1`` cycles long, so a
    sum is back at the adder's input only ``L`` cycles after it left: a
    pipelined adder cannot add a new pair into the *same* sum every cycle.
    Instead the cell holds ``L`` independent running sums ("threads") that
    circulate in the loop, and still takes one pair per cycle (the standard
    C-slow arrangement; an output-stationary systolic array uses it with ``L``
    output elements per PE). The pair presented in cycle ``t`` (counted from
    reset) belongs to thread ``t mod L``; that cycle's ``en``, ``clear`` and
    ``c_in`` act on that thread only, exactly as *Function* says for the one
    sum (same association order, bit-identical per thread). ``acc`` in cycle
    ``t`` shows thread ``(t - latency) mod L`` with every one of its pairs up
    to cycle ``t - latency`` included. ``add_stages=0`` (L = 1) is the plain MAC.

    The adder adds ``Mux(clear, c_in, acc)`` (the thread's sum, fed back) and
    the product; ``acc`` registers its result. Integer: the product operand is
    0 without ``en``, and ``x + 0 = x`` (modulo ``2**acc_width``), so a thread
    passes unchanged. Floating point without ``addend_input``: it is -0.0
    without ``en``; ``x + (-0) = x`` exactly for every value the loop can hold,
    which are adder results (NaN only as ``0x7FC00000``, no subnormal under
    ``flush_subnormals``) or +0 (reset; ``clear`` loads ``c_in`` = +0), and
    ``clear`` without ``en`` gives ``+0 + (-0) = +0`` = ``c_in``. With
    ``addend_input`` a ``c_in`` may be any fp32 pattern (a NaN payload, a
    subnormal under DAZ) that the adder would change, so the bypass value
    ``Mux(clear, c_in, acc)`` and ``en`` travel ``add_stages`` registers beside
    the adder and ``acc`` takes the sum only for an enabled pair (32 more
    flip-flops per stage). The adders' pipeline registers have no reset: for
    ``add_stages`` cycles after a reset ``acc`` keeps its reset value instead
    of the sums in flight (a reset delay line, or the reset bypass registers),
    so every thread starts at 0.

    Latency
    -------
    ``1 + input_reg + mul_stages + add_stages + output_reg`` cycles for every
    ``dtype`` (``product_reg`` is ``mul_stages=1``; with no stages the fp
    multiplier and adder are combinational and sit where the integer ones do):
    a pair presented in cycle ``t`` is included in ``acc`` (in its thread's
    sum) from cycle ``t + latency`` on. ``en``, ``clear`` and ``c_in`` travel
    with their operands through the pipeline. After reset ``acc`` is 0 (+0.0)
    in every thread. One new pair per cycle.
    """

    params_model = MACParams

    def __init__(self, params: MACParams | None = None, /, **kwargs):
        self.params = self.validated(params, kwargs)
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
        if p.mul_stages <= 1:  # the combinational multiplier, and for one stage the product register after it
            if p.is_fp:
                m.submodules.mul = mul = FPMultiplier(p.dtype, flush_subnormals=p.flush_subnormals)
                m.d.comb += [mul.a.eq(a), mul.b.eq(b), product.eq(mul.product)]
            else:
                m.d.comb += product.eq(a * b)
        else:
            if p.is_fp:
                # the product feeds the adder with no register between them: one of the stages is the
                # multiplier's result register (fp.context_cuts), as the one-stage multiplier's product
                # register is, so that its rounding does not run into the adder's alignment
                mul = FPMultiplier(p.dtype, flush_subnormals=p.flush_subnormals, stages=p.mul_stages,
                                   output_registered=False)
            else:
                mul = PipelinedMultiplier(Shape(p.a_width, p.signed), Shape(p.b_width, p.signed),
                                          stages=p.mul_stages)
            m.submodules.mul = mul
            m.d.comb += [mul.a.eq(a), mul.b.eq(b), product.eq(mul.product)]
            en, clear = _delay(m, en, p.mul_stages, "en_m"), _delay(m, clear, p.mul_stages, "clear_m")
            if p.addend_input:
                c_in = _delay(m, c_in, p.mul_stages, "c_in_m")
        if p.mul_stages == 1:
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
        base = Mux(clear, c_in, acc)  # the sum this cycle's pair adds to (its thread's, with add_stages)
        if p.add_stages == 0:
            if p.is_fp:
                m.submodules.add = add = FPAdder(flush_subnormals=p.flush_subnormals)
                m.d.comb += [add.a.eq(base), add.b.eq(product)]
                with m.If(en):
                    m.d.sync += acc.eq(add.sum)
                with m.Elif(clear):
                    m.d.sync += acc.eq(c_in)
            else:
                with m.If(en | clear):
                    # Assigning the wider sum to acc truncates: wrap-around modulo 2**acc_width.
                    m.d.sync += acc.eq(base + Mux(en, product, 0))
        elif p.is_fp and p.addend_input:
            # c_in may be any bit pattern: a pair without en bypasses the adder (class docstring)
            m.submodules.add = add = FPAdder(flush_subnormals=p.flush_subnormals, stages=p.add_stages)
            m.d.comb += [add.a.eq(base), add.b.eq(product)]
            en_a, keep = _delay(m, en, p.add_stages, "en_a"), _delay(m, base, p.add_stages, "keep")
            m.d.sync += acc.eq(Mux(en_a, add.sum, keep))
        else:
            # without en the operand is an exact identity: +0 (int), -0.0 (fp; class docstring)
            if p.is_fp:
                m.submodules.add = add = FPAdder(flush_subnormals=p.flush_subnormals, stages=p.add_stages)
                identity = FP32_NEG_ZERO
            else:
                m.submodules.add = add = PipelinedAdder(p.acc_width, signed=p.signed, stages=p.add_stages)
                identity = 0
            m.d.comb += [add.a.eq(base), add.b.eq(Mux(en, product, identity))]
            # the adder's registers have no reset: what leaves it in the first add_stages cycles after a
            # reset is not a thread's sum
            with m.If(_delay(m, Const(1, 1), p.add_stages, "live")):
                m.d.sync += acc.eq(add.sum)  # truncates the integer sum: modulo 2**acc_width

        if p.output_reg:
            m.d.sync += self.acc.eq(acc)
        else:
            m.d.comb += self.acc.eq(acc)
        return m
