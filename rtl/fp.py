"""Floating-point arithmetic primitives: an fp16/bf16/fp32 multiplier with an fp32 product and an fp32 adder.

Both are combinational :class:`amaranth.lib.wiring.Component` s (latency 0: the
output settles in the same cycle as the inputs); blocks put them between the
registers their integer datapath already has, so that the floating-point
versions have the integer versions' latency and cycle counts.

Arithmetic (IEEE 754-2008 binary formats, round to nearest, ties to even):

* formats (:data:`accelgen.fpformat.FORMATS`): fp16 = binary16 (1 sign, 5
  exponent, 10 fraction bits), bf16 = bfloat16 (1/8/7), fp32 = binary32 (1/8/23);
* the product is the fp32 value nearest to the exact product of the two
  operands (ties to even). fp16 x fp16 is always exact in fp32; bf16 x bf16 has
  an exact 16-bit significand but can overflow (-> +-Inf) or underflow into the
  fp32 subnormal range (rounded, possibly to +-0); fp32 x fp32 rounds;
* the sum is the fp32 value nearest to the exact sum (ties to even);
* special values: a NaN operand, Inf x 0 and Inf + (-Inf) give the canonical
  quiet NaN ``0x7FC00000`` (no payload propagation); the product's sign is the
  XOR of the operands' signs, also for zeros and infinities; an exact zero sum
  is +0 except ``(-0) + (-0) = -0`` (so ``x + (-x) = +0``); overflow gives
  +-Inf (round to nearest never gives the largest finite number instead);
* subnormal operands and results are exact (gradual underflow) by default.
  With ``flush_subnormals`` (DAZ + FTZ) every subnormal operand is taken as a
  zero of its sign, and a result that is subnormal *after rounding* becomes a
  zero of its sign (a result that rounds up to the smallest normal stays).

Implementation: unpack (hidden bit; a subnormal has exponent ``1 - bias``
and no hidden bit), form the exact product of the significands, or align the
smaller addend to the larger one with three extra bits (guard, round, sticky:
the bits shifted out are ORed into the lowest bit); then one shared
:func:`_round_pack`: normalize with a leading-zero count, shift right into the
subnormal range with sticky when the exponent is below the normal range, round
to nearest even, pack (a carry out of the significand increments the
exponent, which also turns the largest subnormal into the smallest normal and
the largest normal into Inf).

The golden reference is :mod:`accelgen.golden.fp` (numpy float32, which is
exactly this arithmetic).
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..fpformat import FIELD_BITS, FP_DTYPES, format_of, width as fp_width

__all__ = ["FP_FORMATS", "FP_DTYPES", "fp_width", "FPMultiplier", "FPAdder", "CANONICAL_NAN", "FP32_INF"]

#: (exponent bits, fraction bits) of each floating-point dtype (a view of :data:`accelgen.fpformat.FORMATS`);
#: ``FP_DTYPES`` and ``fp_width`` are :mod:`accelgen.fpformat`'s, re-exported
FP_FORMATS = FIELD_BITS

#: the one NaN the primitives produce (fp32 quiet NaN, sign 0, no payload)
CANONICAL_NAN = 0x7FC00000
#: fp32 +Inf (the magnitude bits of +-Inf)
FP32_INF = 0x7F800000

_EXP_SHAPE = signed(13)  # internal unbiased exponents (fp32 x fp32 products need about +-450)


def _clz(m: Module, x, name: str) -> Signal:
    """Number of leading zeros of ``x`` (``len(x)`` when ``x`` is 0)."""
    n = len(x)
    lz = Signal(range(n + 1), name=name)
    m.d.comb += lz.eq(n)
    for i in range(n):  # later assignments win: the highest set bit decides
        with m.If(x[i]):
            m.d.comb += lz.eq(n - 1 - i)
    return lz


class _Unpacked:
    """Fields of one operand: sign, significand (hidden bit included), exponent of its LSB, classes."""

    def __init__(self, m: Module, bits, dtype: str, flush: bool, name: str):
        fmt = format_of(dtype)
        e_bits, f_bits, bias = fmt.exponent_bits, fmt.fraction_bits, fmt.bias
        self.sign = bits[e_bits + f_bits]
        self.exp = bits[f_bits:f_bits + e_bits]
        frac = bits[:f_bits]
        exp_max = self.exp == (1 << e_bits) - 1
        sub = self.exp == 0
        self.nan = exp_max & (frac != 0)
        self.inf = exp_max & (frac == 0)
        self.zero = sub if flush else sub & (frac == 0)
        #: the operand's magnitude bits with a subnormal flushed to 0 under DAZ
        self.mag = Signal(e_bits + f_bits, name=f"{name}_mag")
        m.d.comb += self.mag.eq(Mux(sub, 0, bits[:e_bits + f_bits]) if flush else bits[:e_bits + f_bits])
        #: significand with hidden bit (0 for subnormals / flushed operands)
        self.sig = Signal(f_bits + 1, name=f"{name}_sig")
        m.d.comb += self.sig.eq(Mux(self.zero, 0, Cat(frac, ~sub)))
        #: biased exponent a normal number with this significand would have (subnormals: 1)
        self.exp_eff = Signal(e_bits, name=f"{name}_exp_eff")
        m.d.comb += self.exp_eff.eq(Mux(sub, 1, self.exp))
        #: exponent of the significand's LSB: value = sig * 2**e_lsb
        self.e_lsb = Signal(_EXP_SHAPE, name=f"{name}_e_lsb")
        m.d.comb += self.e_lsb.eq(self.exp_eff - (bias + f_bits))


def _round_pack(m: Module, sig, e_lsb, flush: bool, name: str = "rp") -> Signal:
    """fp32 magnitude bits (31) nearest to ``sig * 2**e_lsb`` (RNE, gradual underflow, overflow to Inf).

    ``sig`` is an unsigned significand of any width; bits below the rounding
    point that are not present must have been ORed into its lowest bit by the
    caller (sticky). With ``flush`` a subnormal result becomes 0.
    """
    width = len(sig)
    if width < 26:  # room for 24 kept bits, a guard and a sticky bit
        pad = 26 - width
        sig, e_lsb, width = Cat(Const(0, pad), sig), e_lsb - pad, 26
    sig_w = Signal(width, name=f"{name}_sig")
    m.d.comb += sig_w.eq(sig)
    lz = _clz(m, sig_w, f"{name}_lz")
    norm = Signal(width, name=f"{name}_norm")  # MSB set (unless sig is 0)
    m.d.comb += norm.eq((sig_w << lz)[:width])
    # biased fp32 exponent of the leading bit
    be = Signal(_EXP_SHAPE, name=f"{name}_be")
    m.d.comb += be.eq(e_lsb + (width - 1 + 127) - lz)
    # below the normal range: shift right so that the leading bit has weight 2**-126 (biased exponent 1)
    rshift = Signal(range(width + 1), name=f"{name}_rshift")
    with m.If(be < 1):
        m.d.comb += rshift.eq(Mux(1 - be > width, width, 1 - be))
    denorm = Signal(width, name=f"{name}_denorm")
    m.d.comb += denorm.eq(norm >> rshift)
    shifted_out = ((denorm << rshift)[:width]) != norm
    keep = denorm[width - 24:]
    guard = denorm[width - 25]
    sticky = (denorm[:width - 25] != 0) | shifted_out
    round_up = guard & (sticky | keep[0])
    # normal: (be - 1) << 23 plus the significand with its hidden bit adds up to the packed number;
    # subnormal: exponent field 0 and no hidden bit. A rounding carry moves into the exponent field.
    exp_base = Signal(8, name=f"{name}_exp_base")
    m.d.comb += exp_base.eq(Mux(be < 1, 0, be - 1))
    packed = Signal(32, name=f"{name}_packed")
    m.d.comb += packed.eq((exp_base << 23) + keep + round_up)
    mag = Signal(31, name=f"{name}_mag")
    with m.If(sig_w == 0):
        m.d.comb += mag.eq(0)
    with m.Elif(be >= 255):
        m.d.comb += mag.eq(FP32_INF)
    if flush:  # FTZ: a result that is subnormal after rounding (exponent field 0) becomes 0
        with m.Elif(packed[23:31] == 0):
            m.d.comb += mag.eq(0)
    with m.Else():
        m.d.comb += mag.eq(packed[:31])
    return mag


class FPMultiplier(wiring.Component):
    """Combinational floating-point multiplier with an fp32 product.

    Parameters
    ----------
    in_dtype : str
        Operand format: ``"fp16"``, ``"bf16"`` or ``"fp32"`` (:data:`FP_FORMATS`).
    flush_subnormals : bool
        DAZ + FTZ: subnormal operands count as zeros of their sign; a product
        that is subnormal after rounding becomes a zero of its sign.

    Ports
    -----
    a, b : In(w)
        Operand bits, ``w = fp_width(in_dtype)`` (16 or 32).
    product : Out(32)
        fp32 bits of the product, rounded to nearest even (exact for fp16; for
        bf16 exact unless it under- or overflows fp32). Sign = XOR of the
        operand signs (also for zeros and infinities); NaN operand or Inf x 0
        -> ``0x7FC00000``; Inf x finite nonzero -> +-Inf; overflow -> +-Inf.

    Latency
    -------
    0 (combinational).
    """

    latency = 0

    def __init__(self, in_dtype: str, flush_subnormals: bool = False):
        self.in_dtype = in_dtype
        self.flush_subnormals = bool(flush_subnormals)
        w = fp_width(in_dtype)
        super().__init__({"a": In(w), "b": In(w), "product": Out(32)})

    def elaborate(self, platform):
        m = Module()
        flush = self.flush_subnormals
        a = _Unpacked(m, self.a, self.in_dtype, flush, "a")
        b = _Unpacked(m, self.b, self.in_dtype, flush, "b")
        sign = a.sign ^ b.sign
        sig = Signal(2 * len(a.sig), name="sig_product")  # exact product of the significands
        m.d.comb += sig.eq(a.sig * b.sig)
        e_lsb = Signal(_EXP_SHAPE, name="e_lsb_product")
        m.d.comb += e_lsb.eq(a.e_lsb + b.e_lsb)
        mag = _round_pack(m, sig, e_lsb, flush)
        nan = a.nan | b.nan | (a.inf & b.zero) | (b.inf & a.zero)
        with m.If(nan):
            m.d.comb += self.product.eq(CANONICAL_NAN)
        with m.Elif(a.inf | b.inf):
            m.d.comb += self.product.eq(Cat(Const(FP32_INF, 31), sign))
        with m.Else():
            m.d.comb += self.product.eq(Cat(mag, sign))
        return m


class FPAdder(wiring.Component):
    """Combinational fp32 adder.

    Parameters
    ----------
    flush_subnormals : bool
        DAZ + FTZ: subnormal operands count as zeros of their sign; a sum that
        is subnormal after rounding becomes a zero of its sign. (Without
        flushing, sums of subnormals are exact.)

    Ports
    -----
    a, b : In(32)
        fp32 operand bits.
    sum : Out(32)
        fp32 bits of ``a + b`` rounded to nearest even. NaN operand or
        Inf + (-Inf) -> ``0x7FC00000``; Inf + finite -> that Inf; overflow ->
        +-Inf; an exact zero sum is +0 unless both operands are (-0 or, under
        DAZ, negative subnormals), which gives -0.

    Latency
    -------
    0 (combinational).
    """

    latency = 0

    def __init__(self, flush_subnormals: bool = False):
        self.flush_subnormals = bool(flush_subnormals)
        super().__init__({"a": In(32), "b": In(32), "sum": Out(32)})

    def elaborate(self, platform):
        m = Module()
        flush = self.flush_subnormals
        a = _Unpacked(m, self.a, "fp32", flush, "a")
        b = _Unpacked(m, self.b, "fp32", flush, "b")
        a_big = a.mag >= b.mag  # order by magnitude: the result has the larger one's sign
        sig_big, sig_small = Signal(24, name="sig_big"), Signal(24, name="sig_small")
        exp_big, exp_small = Signal(8, name="exp_big"), Signal(8, name="exp_small")
        sign_big = Signal(name="sign_big")
        m.d.comb += [
            sig_big.eq(Mux(a_big, a.sig, b.sig)), sig_small.eq(Mux(a_big, b.sig, a.sig)),
            exp_big.eq(Mux(a_big, a.exp_eff, b.exp_eff)), exp_small.eq(Mux(a_big, b.exp_eff, a.exp_eff)),
            sign_big.eq(Mux(a_big, a.sign, b.sign)),
        ]
        # align with 3 extra bits; everything shifted out further is ORed into the lowest bit (sticky)
        diff = Signal(8, name="exp_diff")
        m.d.comb += diff.eq(exp_big - exp_small)
        shift = Signal(range(28), name="align_shift")
        m.d.comb += shift.eq(Mux(diff > 27, 27, diff))
        big_x = Cat(Const(0, 3), sig_big)
        small_x = Cat(Const(0, 3), sig_small)
        small_sh = Signal(27, name="small_aligned")
        m.d.comb += small_sh.eq(small_x >> shift)
        small_sticky = ((small_sh << shift)[:27]) != small_x
        small_al = Cat(small_sh[0] | small_sticky, small_sh[1:])
        subtract = a.sign ^ b.sign
        s = Signal(28, name="sig_sum")  # |big| >= |small|: the difference is not negative
        m.d.comb += s.eq(Mux(subtract, big_x - small_al, big_x + small_al))
        e_lsb = Signal(_EXP_SHAPE, name="e_lsb_sum")
        m.d.comb += e_lsb.eq(exp_big - (127 + 23 + 3))
        mag = _round_pack(m, s, e_lsb, flush)
        sign = Mux(s == 0, a.sign & b.sign, sign_big)
        with m.If(a.nan | b.nan | (a.inf & b.inf & subtract)):
            m.d.comb += self.sum.eq(CANONICAL_NAN)
        with m.Elif(a.inf):
            m.d.comb += self.sum.eq(Cat(Const(FP32_INF, 31), a.sign))
        with m.Elif(b.inf):
            m.d.comb += self.sum.eq(Cat(Const(FP32_INF, 31), b.sign))
        with m.Else():
            m.d.comb += self.sum.eq(Cat(mag, sign))
        return m
