"""The MAC family's host side: stimulus and expected response as a cycle table, coverage, activity stimulus."""

from __future__ import annotations

import numpy as np

from ..fpformat import format_of
from ..golden import fp as fpm
from ..golden.mac import mac_reference, mac_reference_fp
from .coverage import Coverage, signed_values
from .fp_coverage import fp16_product_sums, plus_zero_start
from .stimulus import Activity, operand_fp_bits, operand_ints
from .vectors import CycleTable, operand_range, to_bits

#: Directed overflow runs are included when they wrap the accumulator within this many cycles. An int8 MAC with a
#: 32-bit accumulator needs 131,074 cycles of the largest products per direction: at the old limit of 2**18 its
#: directed runs were 263k vectors, 64x the 4,096 a build asked for (issue 51). Above the limit the bin is reported
#: as not reachable in a run of this length, with the cycles it needs.
OVERFLOW_CYCLE_LIMIT = 1 << 12


def _corner_values(width: int, signed: bool) -> list[int]:
    lo, hi = operand_range(width, signed)
    vals = {lo, lo + 1, hi - 1, hi, 0, 1, -1 if signed else 2}
    return sorted(v for v in vals if lo <= v <= hi)


_EN_CLEAR = [(e, c) for e in (0, 1) for c in (0, 1)]
#: every ordered pair of the four ``(en, clear)`` combinations, one cycle each
_EN_CLEAR_SEQUENCE = [x for p in _EN_CLEAR for q in _EN_CLEAR for x in (p, q)]


class _Stimulus:
    """A MAC stimulus being built section by section: operands, ``en``, ``clear`` and the cycles
    of each section. ``threads`` is the number of interleaved sums of the MAC (``add_stages + 1``):
    pair ``t`` goes to sum ``t mod threads``, so a directed sequence meant for one sum is laid out
    with :meth:`emit_threads`."""

    def __init__(self, threads: int = 1):
        self.threads = threads
        self.a, self.b, self.en, self.clear, self.sections = [], [], [], [], {}

    def emit(self, name: str, xs, ys, es, cs) -> None:
        self.sections[name] = self.sections.get(name, 0) + len(xs)
        self.a.extend(int(x) for x in xs)
        self.b.extend(int(y) for y in ys)
        self.en.extend(int(e) for e in es)
        self.clear.extend(int(c) for c in cs)

    def emit_threads(self, name: str, runs) -> None:
        """Section ``name`` from ``runs``, each ``(xs, ys, es, cs)`` meant for one sum: run ``i`` goes to
        the section's ``i mod threads``-th cycle slot (slot ``j`` owns the cycles ``start + k*threads + j``,
        one sum each), runs of one slot follow each other, and a slot that runs out of pairs idles
        (``en`` and ``clear`` low: its sum holds). With one thread the runs are simply concatenated."""
        slots = [[] for _ in range(self.threads)]
        for i, run in enumerate(runs):
            slots[i % self.threads].extend(zip(*run))
        length = max(len(slot) for slot in slots)
        rows = [slot[k] if k < len(slot) else (0, 0, 0, 0) for k in range(length) for slot in slots]
        if rows:
            self.emit(name, *zip(*rows))

    def emit_each_thread(self, name: str, xs, ys, es, cs) -> None:
        """Section ``name``: every sum sees the sequence ``(xs, ys, es, cs)`` (each pair once per thread)."""
        self.emit_threads(name, [(xs, ys, es, cs)] * self.threads)

    def emit_en_clear(self, xs, ys) -> None:
        """Section ``en_clear``: operands ``xs``, ``ys`` (``len(_EN_CLEAR_SEQUENCE)`` each) under
        :data:`_EN_CLEAR_SEQUENCE`, in every sum."""
        self.emit_each_thread("en_clear", xs, ys, [e for e, _ in _EN_CLEAR_SEQUENCE],
                              [c for _, c in _EN_CLEAR_SEQUENCE])

    def columns(self, operand_dtype) -> dict:
        """``a``, ``b`` (as ``operand_dtype`` arrays), ``en``, ``clear`` and ``sections``."""
        return {"a": np.array(self.a, dtype=operand_dtype), "b": np.array(self.b, dtype=operand_dtype),
                "en": np.array(self.en), "clear": np.array(self.clear), "sections": self.sections}


def mac_stimulus(params, vectors: int, seed: int) -> dict[str, np.ndarray]:
    """Operand pairs with ``en`` and ``clear``: directed sections first, then ``vectors`` random pairs.

    Directed sections: every pair of corner values (extremes, sign boundaries,
    0 and +-1); every ordered pair of the four ``(en, clear)`` combinations;
    accumulator overflow in the positive and (if signed) negative direction when
    it can be reached within :data:`OVERFLOW_CYCLE_LIMIT` pairs. With interleaved
    sums (``params.threads`` > 1) every sum sees the ``(en, clear)`` sequence, and the
    overflow directions run in different sums side by side (:meth:`_Stimulus.emit_threads`).
    """
    rng = np.random.default_rng(seed)
    aw, bw, signed = params.a_width, params.b_width, params.signed
    a_lo, a_hi = operand_range(aw, signed)
    b_lo, b_hi = operand_range(bw, signed)
    st = _Stimulus(params.threads)

    # corners: all pairs, accumulated from a clear
    ca, cb = _corner_values(aw, signed), _corner_values(bw, signed)
    pairs = [(x, y) for x in ca for y in cb]
    st.emit("corners", [x for x, _ in pairs], [y for _, y in pairs], [1] * len(pairs),
         [1] + [0] * (len(pairs) - 1))

    # every ordered pair of (en, clear) combinations, with random operands
    n_seq = len(_EN_CLEAR_SEQUENCE)
    st.emit_en_clear(rng.integers(a_lo, a_hi, n_seq, endpoint=True), rng.integers(b_lo, b_hi, n_seq, endpoint=True))

    # accumulator overflow: the largest positive (and, if signed, negative) products until the sum wraps
    acc_w = params.acc_width
    extremes = [(x, y) for x in (a_lo, a_hi) for y in (b_lo, b_hi)]
    directions = [max(extremes, key=lambda p: p[0] * p[1])]
    if signed:
        directions.append(min(extremes, key=lambda p: p[0] * p[1]))
    runs = []
    for x, y in directions:
        prod = abs(x * y)
        if prod == 0:
            continue
        limit = (1 << (acc_w - 1)) if signed else (1 << acc_w)
        n = limit // prod + 2
        if n <= OVERFLOW_CYCLE_LIMIT:
            runs.append(([x] * n, [y] * n, [1] * n, [1] + [0] * (n - 1)))
        else:
            st.sections["overflow_skipped_needs_cycles"] = n
    st.emit_threads("overflow", runs)

    # random pairs: uniform values with extra zeros and extremes
    def rand_operands(lo, hi, n):
        v = rng.integers(lo, hi, n, endpoint=True)
        pick = rng.random(n)
        v[pick < 0.10] = 0
        v[(pick >= 0.10) & (pick < 0.13)] = lo
        v[(pick >= 0.13) & (pick < 0.16)] = hi
        return v

    st.emit("random", rand_operands(a_lo, a_hi, vectors), rand_operands(b_lo, b_hi, vectors),
         rng.random(vectors) < 0.9, rng.random(vectors) < 0.03)
    stim = st.columns(object)
    if params.addend_input:
        n = len(st.a)
        c_lo, c_hi = operand_range(params.acc_width, signed)
        c_in = [int(v) for v in rng.integers(c_lo, c_hi, n, endpoint=True, dtype=np.int64)] \
            if params.acc_width < 64 else [int(v) for v in rng.integers(-(1 << 62), 1 << 62, n)]
        stim["c_in"] = np.array(c_in, dtype=object)
    return stim


def mac_fp_stimulus(params, vectors: int, seed: int) -> dict[str, np.ndarray]:
    """Floating-point operand pairs (bit patterns) with ``en`` and ``clear``: directed sections, then
    ``vectors`` random pairs.

    Directed sections: ``specials`` (every ordered pair of :func:`~accelgen.golden.fp.special_values`,
    accumulated, with a clear every few cycles so that NaN and Inf do not stick), ``en_clear`` (every ordered
    pair of the four ``(en, clear)`` combinations), ``signed_zero`` (products that cancel, -0 products after
    a clear, -0 addends), ``ties`` (1 + 2**-24 and (1 + 2**-23) + 2**-24 built from products; the small
    terms are fp16 subnormals), ``overflow`` (the largest products accumulated until Inf); with interleaved
    sums (``params.threads`` > 1) each sum sees every ``en_clear``, ``signed_zero`` and ``ties`` sequence, and
    the two overflow directions run in different sums (:meth:`_Stimulus.emit_threads`). Random pairs:
    realistic values (:func:`~accelgen.golden.fp.random_fp_bits`, scales 1e-3..1e3) with 10% special
    values and 5% uniformly random bit patterns (any exponent, NaNs, subnormals); ``en`` 90%, ``clear`` 3%.
    With ``addend_input``, ``c_in`` is random fp32 (realistic, 25% special values).
    """
    rng = np.random.default_rng(seed)
    dt = params.dtype
    bt = fpm.bits_dtype(dt)
    one = int(fpm.from_float32(np.float32(1.0), dt))
    fmt = format_of(dt)
    neg = 1 << (fmt.width - 1)
    st = _Stimulus(params.threads)

    sv = fpm.special_values(dt)
    xs, ys = np.repeat(sv, len(sv)), np.tile(sv, len(sv))
    st.emit("specials", xs, ys, [1] * len(xs), rng.random(len(xs)) < 0.25)

    n_seq = len(_EN_CLEAR_SEQUENCE)
    st.emit_en_clear(fpm.random_fp_bits(rng, n_seq, dt), fpm.random_fp_bits(rng, n_seq, dt))

    # x*y then x*(-y): the sum cancels to +0; -0 products added to +0 give +0 (the accumulator can only
    # become -0 from a -0 c_in, see the addend_input stimulus); every sequence in every interleaved sum
    x, y = fpm.random_fp_bits(rng, 8, dt), fpm.random_fp_bits(rng, 8, dt)
    for xi, yi in zip(x, y):
        st.emit_each_thread("signed_zero", [xi, xi, 0, neg], [yi, int(yi) ^ neg, neg, one], [1, 1, 1, 1],
                            [1, 0, 0, 0])
    st.emit_each_thread("signed_zero", [0, neg, 0], [one, one, neg], [0, 1, 1], [1, 1, 0])

    small = [int(fpm.from_float32(np.float32(v), dt)) for v in (2.0 ** -23, 2.0 ** -24, 3 * 2.0 ** -24)]
    # 1 + 2**-24 (tie -> 1), again, + 3 * 2**-24 (-> 1 + 2**-22); 1 + 2**-23, + 2**-24 (tie -> up to even), again
    st.emit_each_thread("ties", [one, small[1], small[1], small[2], one, small[0], small[1], small[1]],
                        [one] * 8, [1] * 8, [1, 0, 0, 0, 1, 0, 0, 0])

    # products near the top of fp32 whose sum overflows to +-Inf in the adder (bf16, fp32); fp16 products
    # cannot get there: the largest fp16 products are accumulated instead
    e_bits, f_bits = fmt.exponent_bits, fmt.fraction_bits
    if e_bits == 8:
        x, y = fpm.from_float32(np.float32([2.0 ** 64, 1.75 * 2.0 ** 63]), dt)
    else:
        x = y = ((1 << e_bits) - 2) << f_bits | ((1 << f_bits) - 1)
    n_over = 6
    st.emit_threads("overflow", [([int(x) | sign] * n_over, [y] * n_over, [1] * n_over, [1] + [0] * (n_over - 1))
                                 for sign in (0, neg)])

    scale = 10.0 ** rng.uniform(-3, 3, vectors)
    ra = fpm.from_float32((rng.normal(0, 1, vectors) * scale).astype(np.float32), dt)
    rb = fpm.random_fp_bits(rng, vectors, dt, density=0.9)
    for r in (ra, rb):
        pick = rng.random(vectors)
        r[pick < 0.10] = rng.choice(sv, int(np.count_nonzero(pick < 0.10)))
        uni = (pick >= 0.10) & (pick < 0.15)
        r[uni] = rng.integers(0, 1 << fmt.width, int(np.count_nonzero(uni)), dtype=np.uint64).astype(bt)
    st.emit("random", ra, rb, rng.random(vectors) < 0.9, rng.random(vectors) < 0.03)

    stim = st.columns(np.uint64)
    if params.addend_input:
        n = len(st.a)
        c = fpm.random_fp_bits(rng, n, "fp32", scale=10.0).astype(np.uint32)
        pick = rng.random(n) < 0.25
        c[pick] = rng.choice(fpm.special_values("fp32"), int(np.count_nonzero(pick)))
        stim["c_in"] = c.astype(np.uint64)
    return stim


def mac_table(params, vectors: int = 4096, seed: int = 1) -> CycleTable:
    """The cycle table for one MAC cosim run (the RTL latency comes from the spec).

    Row ``t`` presents pair ``t`` (row 0 is the first cycle after reset); ``acc`` in row ``t + latency``
    is the golden value of sum ``t mod params.threads`` after pair ``t`` (``latency = 1 + input_reg +
    mul_stages + add_stages + output_reg``), 0 in the first ``latency`` rows.
    """
    latency, threads = params.latency, params.threads
    if getattr(params, "is_fp", False):
        stim = mac_fp_stimulus(params, vectors, seed)
        acc = mac_reference_fp(stim["a"], stim["b"], stim["en"], stim["clear"], dtype=params.dtype,
                               flush_subnormals=params.flush_subnormals, zero_gating=params.zero_gating,
                               c_in=stim.get("c_in"), threads=threads)
    else:
        stim = mac_stimulus(params, vectors, seed)
        acc = mac_reference(stim["a"], stim["b"], stim["en"], stim["clear"],
                            acc_width=params.acc_width, signed=params.signed, c_in=stim.get("c_in"),
                            threads=threads)
    n = len(stim["a"])
    pad = latency  # idle cycles at the end so the last pair reaches the output
    total = n + pad

    def col(values, width):
        bits = np.zeros(total, dtype=np.uint64)
        bits[:n] = to_bits(values, width)
        return bits

    expect = np.zeros(total, dtype=np.uint64)
    # acc after reset is 0; the value for input row t appears in row t + latency
    expect[latency:] = to_bits(acc, params.acc_width)
    inputs = {"a": col(stim["a"], params.a_width), "b": col(stim["b"], params.b_width),
              "en": col(stim["en"], 1), "clear": col(stim["clear"], 1)}
    if "c_in" in stim:
        inputs["c_in"] = col(stim["c_in"], params.acc_width)
    return CycleTable(
        inputs=inputs,
        expect={"acc": expect},
        info={"vectors": n, "sections": stim["sections"], "latency": latency, "threads": threads},
    )


# --------------------------------------------------------------------------- activity stimulus

def mac_activity(params, density: float, cycles: int, seed: int, profile: str | None = None) -> Activity:
    """MAC doing dot products of length 32 (``clear`` every 32nd pair of each interleaved sum: the first
    ``params.threads`` cycles of every ``32 * threads``), ``en`` always on.

    Operands ``a`` (an activation) and ``b`` (a weight) are independently zero with probability ``1 - density``,
    else drawn by the stimulus ``profile`` (:mod:`accelgen.operand_profiles`; by default uniform over their range
    for ``int``, normal(0, 1) rounded to the dtype for fp; an fp zero is +0 or -0). One operation is one MAC (one
    cycle with ``en``).

    The counted window starts once the first pair has gone through every register (``params.latency``) and
    every stage works on the stream: 4 cycles for the unpipelined cells, ``latency + 1`` for deeper ones (a
    fixed 4 counted the pipeline's fill as idle stages: up to 5 of 156 cycles at 3+3 stages).
    """
    rng = np.random.default_rng(seed)
    warm = max(4, params.latency + 1)
    dtype = getattr(params, "dtype", "int")
    if dtype != "int":
        a = operand_fp_bits(rng, cycles, dtype, density, profile, "activation").astype(np.int64)
        b = operand_fp_bits(rng, cycles, dtype, density, profile, "weight").astype(np.int64)
    else:
        a = operand_ints(rng, cycles, params.a_width, params.signed, density, profile, "activation")
        b = operand_ints(rng, cycles, params.b_width, params.signed, density, profile, "weight")
    clear = ((np.arange(cycles) // getattr(params, "threads", 1)) % 32 == 0).astype(np.int64)
    ins = {"a": a, "b": b, "en": np.ones(cycles, dtype=np.int64), "clear": clear}
    if getattr(params, "addend_input", False):
        ins["c_in"] = np.zeros(cycles, dtype=np.int64)
    return Activity(ins, ops=cycles - warm, per="MAC", warmup=warm)


# --------------------------------------------------------------------------- coverage

def mac_coverage(params, table: CycleTable, context) -> Coverage:
    """Operand classes of ``a`` x ``b`` (zero, min, max, other) on enabled cycles, the four ``(en, clear)``
    combinations, accumulator overflow reached (integer runs; a floating-point run's operand and result classes
    are the fp bins of :mod:`accelgen.cosim.fp_coverage`)."""
    cov = Coverage()
    aw, bw, signed = params.a_width, params.b_width, params.signed
    n = int(table.info.get("vectors", table.cycles))
    a = signed_values(table.inputs["a"][:n], aw, signed)
    b = signed_values(table.inputs["b"][:n], bw, signed)
    en = table.inputs["en"][:n].astype(bool)
    clear = table.inputs["clear"][:n].astype(bool)

    def classes(v, w):
        lo, hi = ((-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed else (0, (1 << w) - 1))
        return np.select([v == 0, v == lo, v == hi], ["zero", "min", "max"], "other")

    ca, cb = classes(a, aw), classes(b, bw)
    names = ("zero", "min", "max", "other")
    fp = getattr(params, "dtype", "int") != "int"   # fp: operand classes from the fp bins (fp_coverage)
    for x in names if not fp else ():
        for y in names:
            cov.hit(f"a={x} x b={y}", int(np.count_nonzero(en & (ca == x) & (cb == y))))
    if not signed:  # unsigned: min is zero, so these bins cannot be told apart
        cov.bins -= {f"a={x} x b={y}" for x in names for y in names if "min" in (x, y)}
        cov.hits = {k: v for k, v in cov.hits.items() if k in cov.bins}
    for e in (0, 1):
        for c in (0, 1):
            cov.hit(f"en={e} clear={c}", int(np.count_nonzero((en == e) & (clear == c))))
    sections = table.info.get("sections", {})
    if not fp and not sections.get("overflow") and sections.get("overflow_skipped_needs_cycles"):
        cov.unreachable["accumulator overflow"] = (
            f"a directed run would need {int(sections['overflow_skipped_needs_cycles']):,} cycles of the largest "
            f"products, above the limit of {OVERFLOW_CYCLE_LIMIT:,}")
    elif not fp:
        cov.hit("accumulator overflow", int(sections.get("overflow", 0)))
    return cov


def mac_fp_unreachable(params) -> dict[str, str]:
    """A MAC without ``addend_input`` clears to +0.0: its adder never sees or makes -0.0, and in fp16 it only sums
    products."""
    if params.addend_input:
        return {}
    return {**plus_zero_start(params), **fp16_product_sums(params)}
