"""The activation stage: every accumulator line on its way to external memory is scaled, rectified and brought back
to the operand type, one lane per column, two register stages.

Integer (``dtype='int'``): ``y = clamp(relu((acc * scale + round) >> shift))`` with ``scale`` the low 16 bits of the
CONFIG field (two's complement), ``round = 2**(shift - 1)`` (0 when ``shift`` is 0: round half up), an arithmetic
shift, ``relu`` replacing a negative value by 0 when set, and the clamp saturating to the operand width (signed or
not, as the array's operands). Floating point: ``y = to_operand(relu(acc * scale))`` with ``scale`` an fp32 value,
the product rounded to fp32 (nearest even, :class:`~accelgen.rtl.fp.FPMultiplier`), ``relu`` replacing a negative
number (not a NaN) by +0, and the conversion to bf16 rounding to nearest even (NaN -> 0x7FC0, overflow -> Inf; with
``flush_subnormals`` a subnormal result becomes a zero of its sign); fp32 operands keep the product.
The golden model is :func:`accelgen.golden.accel.activation`.
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...params.accel import AccelParams
from ..fp import FPMultiplier

__all__ = ["ACTIVATION_LATENCY", "BF16_NAN", "ActivationStage"]

#: register stages between an accumulator line and its results
ACTIVATION_LATENCY = 2
BF16_NAN = 0x7FC0
#: bits of the CONFIG scale an integer activation uses (the low half, two's complement)
INT_SCALE_BITS = 16


class ActivationStage(wiring.Component):
    """One line of ``cols`` sums in, one line of ``cols`` operands out, :data:`ACTIVATION_LATENCY` cycles later.

    Ports
    -----
    acc : In(cols * acc_width), valid_in : In(1) : a line of sums.
    relu : In(1), shift : In(6), scale : In(32) : the settings of the last CONFIG command.
    out : Out(cols * operand_bits), valid_out : Out(1) : the line of results.
    """

    def __init__(self, params: AccelParams):
        self.params = p = params
        cols = p.array.cols
        super().__init__({"acc": In(cols * p.acc_width), "valid_in": In(1), "relu": In(1), "shift": In(6),
                          "scale": In(32), "out": Out(cols * p.operand_bits), "valid_out": Out(1)})

    def elaborate(self, platform):
        m = Module()
        p = self.params
        valid_1 = Signal()
        m.d.sync += [valid_1.eq(self.valid_in), self.valid_out.eq(valid_1)]
        lanes = [self.acc[c * p.acc_width:(c + 1) * p.acc_width] for c in range(p.array.cols)]
        if p.array.is_fp:
            results = [self._fp_lane(m, c, x) for c, x in enumerate(lanes)]
        else:
            results = [self._int_lane(m, c, x) for c, x in enumerate(lanes)]
        m.d.sync += self.out.eq(Cat(*results))
        return m

    def _int_lane(self, m: Module, c: int, acc):
        a = self.params.array
        aw, w = a.acc_width, a.a_width
        product = Signal(signed(aw + INT_SCALE_BITS + 1), name=f"scaled_{c}")
        value = acc.as_signed() if a.signed else acc.as_unsigned()
        m.d.sync += product.eq(value * self.scale[:INT_SCALE_BITS].as_signed())
        half = Mux(self.shift == 0, 0, (Const(1, 64) << self.shift) >> 1)
        shifted = Signal(signed(aw + INT_SCALE_BITS + 2), name=f"shifted_{c}")
        m.d.comb += shifted.eq((product + half) >> self.shift)
        lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if a.signed else (0, (1 << w) - 1)
        rect = Mux(self.relu & (shifted < 0), 0, shifted)
        out = Signal(w, name=f"clamped_{c}")
        with m.If(rect < lo):
            m.d.comb += out.eq(Const(lo, signed(w + 1)))
        with m.Elif(rect > hi):
            m.d.comb += out.eq(hi)
        with m.Else():
            m.d.comb += out.eq(rect)
        return out

    def _fp_lane(self, m: Module, c: int, acc):
        a = self.params.array
        mul = FPMultiplier("fp32", a.flush_subnormals)
        m.submodules[f"scale_mul_{c}"] = mul
        m.d.comb += [mul.a.eq(acc), mul.b.eq(self.scale)]
        product = Signal(32, name=f"scaled_{c}")
        m.d.sync += product.eq(mul.product)
        is_nan = (product[23:31] == 0xFF) & (product[:23] != 0)
        rect = Signal(32, name=f"rectified_{c}")
        m.d.comb += rect.eq(Mux(self.relu & product[31] & ~is_nan, 0, product))
        if a.dtype == "fp32":
            return rect
        # bf16: round to nearest even on the 16 bits dropped; a carry moves into the exponent (to Inf at the top)
        rounded = Signal(33, name=f"rounded_{c}")
        m.d.comb += rounded.eq(rect + 0x7FFF + rect[16])
        out = Signal(16, name=f"bf16_{c}")
        with m.If(is_nan):
            m.d.comb += out.eq(BF16_NAN)
        with m.Else():
            m.d.comb += out.eq(rounded[16:32])
            if a.flush_subnormals:   # FTZ after rounding: a subnormal result is a zero of its sign
                with m.If(rounded[23:31] == 0):
                    m.d.comb += out.eq(Cat(Const(0, 15), rect[31]))
        return out
