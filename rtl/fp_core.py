"""What the floating-point units of :mod:`accelgen.rtl.fp` and :mod:`accelgen.rtl.fp_sum` share: the fp32
constants, operand unpacking, leading-zero count, the pipeline registers at named cut points, the exact
packing of a flushed fp16/bf16 product, and the cut points each number of stages places (the module
docstring of :mod:`accelgen.rtl.fp`, *Pipelining*, says how they were chosen). The rounding and packing
(``_round_pack``) stays beside the units that use it.
"""

from __future__ import annotations

from types import SimpleNamespace

from amaranth import Cat, Module, Mux, Signal, Value, signed

from ..fpformat import FIELD_BITS, format_of

#: (exponent bits, fraction bits) of each floating-point dtype (a view of :data:`accelgen.fpformat.FORMATS`);
#: ``FP_DTYPES`` and ``fp_width`` are :mod:`accelgen.fpformat`'s, re-exported
FP_FORMATS = FIELD_BITS

#: the one NaN the primitives produce (fp32 quiet NaN, sign 0, no payload)
CANONICAL_NAN = 0x7FC00000
#: fp32 +Inf (the magnitude bits of +-Inf)
FP32_INF = 0x7F800000
#: fp32 -0.0: the identity of RNE addition (``x + -0 = x`` for every x, +0 and -0 included)
FP32_NEG_ZERO = 0x80000000

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


class _Pipeline:
    """Free-running pipeline registers at the enabled cut points of a datapath.

    :meth:`stage` hands back the values of a namespace unchanged when its cut point is not enabled,
    and otherwise registers of the same shapes (domain ``sync``, no reset, no enable; named
    ``<point>_<field>``) that take them every cycle, so that everything after the cut sees them one
    cycle later. A value the rest of the datapath needs must be in the namespace at every cut after
    which it is used.
    """

    def __init__(self, m: Module, cuts):
        self.m = m
        self.cuts = frozenset(cuts)

    def stage(self, point: str, values: SimpleNamespace) -> SimpleNamespace:
        if point not in self.cuts:
            return values
        regs = SimpleNamespace()
        for field, value in vars(values).items():
            value = Value.cast(value)
            reg = Signal(value.shape(), name=f"{point}_{field}", reset_less=True)
            self.m.d.sync += reg.eq(value)
            setattr(regs, field, reg)
        return regs


def _result(m: Module, pipe: _Pipeline, port: Signal) -> Signal:
    """What the unit's result is assigned to: the output ``port`` itself, or with the ``result`` cut a signal
    registered into it (the output register of a unit that feeds another unit directly)."""
    if "result" not in pipe.cuts:
        return port
    value = Signal(port.shape(), name="result_value")
    m.d.comb += port.eq(pipe.stage("result", SimpleNamespace(out=value)).out)
    return value


def _fields(v: SimpleNamespace, names, **new) -> SimpleNamespace:
    """The fields ``names`` of ``v`` and the ``new`` ones."""
    return SimpleNamespace(**{k: getattr(v, k) for k in names}, **new)


def _pack_exact_ftz(m: Module, pipe: _Pipeline, v: SimpleNamespace, rest):
    """fp32 magnitude bits of an exact product of two normal (or flushed) significands, under DAZ + FTZ.

    With subnormal operands taken as zeros, ``v.sig`` is 0 (``v.zero``) or has its leading one in one of its top
    two bits, and an fp16 or bf16 product fits fp32's 24 bits exactly: normalizing is a one-bit shift and nothing
    is rounded. A product below the normal range becomes a zero: below 2**-126 and exactly representable on the
    subnormal grid (or, far below, rounding to it cannot reach 2**-126), it is subnormal after rounding. The cut
    points are :func:`_round_pack`'s, so every ``stages`` keeps its latency."""
    sig, width = v.sig, len(v.sig)
    top = sig[width - 1]
    frac = Signal(23, name="ftz_frac")      # fraction bits below the leading one
    m.d.comb += frac.eq(Mux(top, sig[:width - 1] << (24 - width), sig[:width - 2] << (25 - width)))
    v = pipe.stage("lz", _fields(v, rest, frac=frac, top=top, e_lsb=v.e_lsb, zero=v.zero))
    be = Signal(_EXP_SHAPE, name="ftz_be")  # biased fp32 exponent of the leading one
    m.d.comb += be.eq(v.e_lsb + (width - 2 + 127) + v.top)
    v = pipe.stage("exponent", _fields(v, rest, frac=v.frac, be=be, zero=v.zero))
    v = pipe.stage("normalized", _fields(v, rest, frac=v.frac, exp=v.be[:8], zero=v.zero | (v.be < 1),
                                         overflow=v.be >= 255))
    v = pipe.stage("rounded", _fields(v, rest, frac=v.frac, exp=v.exp, zero=v.zero, overflow=v.overflow))
    mag = Signal(31, name="ftz_mag")
    with m.If(v.zero):
        m.d.comb += mag.eq(0)
    with m.Elif(v.overflow):
        m.d.comb += mag.eq(FP32_INF)
    with m.Else():
        m.d.comb += mag.eq(Cat(v.frac, v.exp))
    return mag, _fields(v, rest)


#: the cut points of each number of stages of :class:`FPMultiplier`, per operand dtype (module docstring)
MUL_CUTS = {
    "fp16": {0: (), 1: ("partial",), 2: ("partial", "product"), 3: ("operands", "partial", "product")},
    "bf16": {0: (), 1: ("lz",), 2: ("product", "exponent"), 3: ("partial", "exponent", "rounded")},
    "fp32": {0: (), 1: ("exponent",), 2: ("partial", "normalized"), 3: ("partial", "exponent", "rounded")},
}


def context_cuts(table: dict[int, tuple[str, ...]], stages: int, input_registered: bool = True,
                 output_registered: bool = True) -> tuple[str, ...]:
    """The cut points of ``stages`` registers for a unit in its context (module docstring, "In a datapath").

    ``table`` holds the best sets of a unit whose ends are registered by its block. An end its context leaves
    unregistered gets a register of its own (``result`` at the output first, then ``operands`` at the input) as
    long as one register is left for the inside, which takes the table's set of that many stages."""
    ends = []
    budget = stages - 1
    if not output_registered and budget > 0:
        ends.append("result")
        budget -= 1
    if not input_registered and budget > 0:
        ends.append("operands")
    inner = table[stages - len(ends)]      # (only a table's 3-stage sets hold ``operands``; inner has fewer)
    return (("operands",) if "operands" in ends else ()) + inner + (("result",) if "result" in ends else ())


#: the cut points of each number of stages of :class:`FPAdder`
ADD_CUTS = {0: (), 1: ("summed",), 2: ("aligned", "exponent"), 3: ("aligned", "summed", "normalized")}
