"""Multi-operand fp32 adder with one rounding: the TPU v4i MXU's "four-input floating point adder".

Jouppi et al. (ISCA 2021) describe the v4i MXU as first summing groups of four products with a custom adder that
"eliminates the rounding and normalization logic for the intermediate results". :class:`FPSum` adds ``n`` fp32
operands that way: every operand is aligned to the largest exponent once, the aligned values are added as integers,
and only the total is normalized and rounded (the shared path of :class:`~accelgen.rtl.fp.FPAdder`).

Arithmetic (the golden model, :func:`accelgen.golden.fp.fp_sum`, mirrors it step by step):

* unpack each operand (hidden bit; a subnormal has exponent ``1 - bias`` and no hidden bit; with
  ``flush_subnormals`` a subnormal operand is a zero of its sign);
* a NaN operand, or +Inf and -Inf together, give the canonical NaN ``0x7FC00000``; otherwise an Inf operand
  gives that Inf;
* ``E`` is the largest biased exponent of the operands (a zero's significand is 0: it adds nothing);
* each 24-bit significand is shifted right by ``E - e_i`` into a window with 3 extra low bits (guard, round,
  sticky), the bits shifted out ORed into the lowest bit, as FPAdder aligns its smaller operand;
* the aligned values are added in two's complement (negated by their signs) in ``24 + 3 + ceil(log2 n) + 1``
  bits, which no sum overflows, giving the sign and the magnitude of the result;
* the magnitude is normalized, shifted into the subnormal range when below it, rounded to nearest even and
  packed (:func:`~accelgen.rtl.fp._round_pack`): overflow gives Inf, and with ``flush_subnormals`` a result
  that is subnormal after rounding becomes a zero of its sign;
* a zero magnitude is +0, or -0 when every operand is a zero of negative sign.

For ``n = 2`` this is :class:`~accelgen.rtl.fp.FPAdder` bit for bit (the larger operand is shifted by 0, the
smaller as FPAdder shifts it). For more operands it is not always the correctly rounded sum: each aligned operand
but the largest may lose bits, and its sticky bit stands for "some" of them, so the integer sum is off by less than
``n - 1`` units of the window's lowest bit (``2**(E - 153)``, ``E`` biased) before the rounding adds at most half an
ulp of the result. What follows (``tests/golden/test_fp_sum.py`` checks it against exact rational sums):
exponents at most 3 apart lose no bits, so the sum is correctly rounded; operands of one sign put the result at or
above ``2**(E - 127)``, whose ulp is 8 units, so the error is below ``(n - 1) / 8 + 1 / 2`` ulp (below one ulp up to
``n = 5``, the TPU's four products and a partial sum); operands of opposite signs that cancel can leave a result
many ulps off (the bound stays absolute).
"""

from __future__ import annotations

from types import SimpleNamespace

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .fp import _round_pack
from .fp_core import _EXP_SHAPE, ADD_CUTS, CANONICAL_NAN, FP32_INF, _Pipeline, _Unpacked
from .intarith import check_stages

__all__ = ["FPSum"]

#: the alignment window: 24 significand bits and 3 extra low bits (guard, round, sticky)
_WINDOW = 24 + 3


class FPSum(wiring.Component):
    """fp32 sum of ``n`` operands with a single rounding, combinational or pipelined (module docstring).

    Parameters
    ----------
    n : int
        Number of operands, >= 2.
    flush_subnormals : bool
        DAZ + FTZ: subnormal operands count as zeros of their sign; a sum that is subnormal after rounding
        becomes a zero of its sign.

    Ports
    -----
    operands : In(32).array(n)
        fp32 operand bits.
    sum : Out(32)
        fp32 bits of the sum (module docstring). NaN operand or +Inf with -Inf -> ``0x7FC00000``; Inf with finite
        operands -> that Inf; overflow -> +-Inf; a zero sum is +0 unless every operand is a negative zero.

    stages : int
        Pipeline registers, 0..:attr:`MAX_STAGES` (keyword only), at :class:`~accelgen.rtl.fp.FPAdder`'s cut
        points (:data:`~accelgen.rtl.fp.ADD_CUTS`: after the alignment, after the integer sum, inside the shared
        normalization and rounding): the same head (align to the largest exponent, add) and the same tail.

    Latency
    -------
    ``stages`` cycles (:attr:`latency`): 0, the sum settles in the cycle of the operands (blocks register it, as
    they register FPAdder's); else free-running registers as in FPAdder. :attr:`cuts` names the cut points used.
    """

    #: latency of the combinational unit; an instance's is its ``stages``
    latency = 0
    MAX_STAGES = 3

    def __init__(self, n: int, flush_subnormals: bool = False, *, stages: int = 0):
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"n must be an integer, not {n!r}")
        if n < 2:
            raise ValueError(f"n={n!r} is not allowed; allowed: an integer >= 2 (operands of one sum)")
        self.n = n
        self.flush_subnormals = bool(flush_subnormals)
        self.stages = check_stages(stages, self.MAX_STAGES)
        self.latency = self.stages
        self.cuts = ADD_CUTS[self.stages]
        super().__init__({"operands": In(32).array(n), "sum": Out(32)})

    def elaborate(self, platform):
        m = Module()
        n, flush = self.n, self.flush_subnormals
        pipe = _Pipeline(m, self.cuts)
        ops = [_Unpacked(m, self.operands[i], "fp32", flush, f"op{i}") for i in range(n)]
        exp_max = Signal(8, name="exp_max")
        m.d.comb += exp_max.eq(_maximum(m, [op.exp_eff for op in ops]))
        width = _WINDOW + (n - 1).bit_length() + 1   # magnitude of n window values, and a sign bit
        terms = []
        for i, op in enumerate(ops):
            shift = Signal(range(_WINDOW + 1), name=f"op{i}_shift")
            diff = exp_max - op.exp_eff
            m.d.comb += shift.eq(Mux(diff > _WINDOW, _WINDOW, diff))
            wide = Cat(Const(0, 3), op.sig)
            aligned = Signal(_WINDOW, name=f"op{i}_aligned")
            m.d.comb += aligned.eq(wide >> shift)
            sticky = ((aligned << shift)[:_WINDOW]) != wide
            term = Signal(signed(width), name=f"op{i}_term")
            value = Cat(aligned[0] | sticky, aligned[1:])
            m.d.comb += term.eq(Mux(op.sign, -value, value))
            terms.append(term)
        # what the result needs besides the sum: the special cases and the sign of a zero sum
        pos_inf, neg_inf = _any([op.inf & ~op.sign for op in ops]), _any([op.inf & op.sign for op in ops])
        v = pipe.stage("aligned", SimpleNamespace(
            nan=_any([op.nan for op in ops]) | (pos_inf & neg_inf), pos_inf=pos_inf, neg_inf=neg_inf,
            all_neg_zero=_all([op.zero & op.sign for op in ops]), exp_max=exp_max,
            **{f"term{i}": t for i, t in enumerate(terms)}))
        terms = [getattr(v, f"term{i}") for i in range(n)]
        total = Signal(signed(width), name="total")
        m.d.comb += total.eq(sum(terms[1:], terms[0]))
        mag = Signal(width - 1, name="sig_sum")
        m.d.comb += mag.eq(Mux(total < 0, -total, total))
        e_lsb = Signal(_EXP_SHAPE, name="e_lsb_sum")
        m.d.comb += e_lsb.eq(v.exp_max - (127 + 23 + 3))
        sign = Mux(mag == 0, v.all_neg_zero, total < 0)
        v = pipe.stage("summed", SimpleNamespace(nan=v.nan, pos_inf=v.pos_inf, neg_inf=v.neg_inf, sign=sign, sig=mag,
                                                 e_lsb=e_lsb))
        packed, v = _round_pack(m, pipe, v, flush)
        with m.If(v.nan):
            m.d.comb += self.sum.eq(CANONICAL_NAN)
        with m.Elif(v.pos_inf | v.neg_inf):
            m.d.comb += self.sum.eq(Cat(Const(FP32_INF, 31), v.neg_inf))
        with m.Else():
            m.d.comb += self.sum.eq(Cat(packed, v.sign))
        return m


def _maximum(m: Module, values):
    """The largest of ``values`` (unsigned), by a tree of comparisons."""
    while len(values) > 1:
        pairs = []
        for k in range(0, len(values) - 1, 2):
            a, b = values[k], values[k + 1]
            larger = Signal(len(a), name=f"exp_max_{len(values)}_{k // 2}")
            m.d.comb += larger.eq(Mux(a >= b, a, b))
            pairs.append(larger)
        values = pairs + values[len(values) - len(values) % 2:]
    return values[0]


def _any(bits):
    out = bits[0]
    for b in bits[1:]:
        out = out | b
    return out


def _all(bits):
    out = bits[0]
    for b in bits[1:]:
        out = out & b
    return out
