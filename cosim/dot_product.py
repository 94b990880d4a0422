"""The dot-product unit's host side: operand vectors, expected sums, coverage, activity stimulus."""

from __future__ import annotations

import numpy as np

from ..golden.dot_product import dot_product_latency, dot_products
from .coverage import Coverage, signed_values
from .stimulus import Activity, operand_ints
from .vectors import CycleTable, operand_range, to_bits

#: valid pattern of the directed ``idle`` section: single and double bubbles between valid vectors
IDLE_PATTERN = (1, 0, 1, 0, 0, 1, 1, 0)


def _corners(width: int, signed: bool) -> np.ndarray:
    """The corner values of an operand: the extremes, their neighbours, 0 and +-1 (those in range)."""
    lo, hi = operand_range(width, signed)
    return np.array(sorted(v for v in {lo, lo + 1, hi - 1, hi, 0, 1, -1} if lo <= v <= hi), dtype=np.int64)


def _nonzero(width: int, signed: bool) -> int:
    """A non-zero operand value of the largest magnitude (``hi``; ``lo`` for a 1-bit signed operand, whose hi is 0)."""
    lo, hi = operand_range(width, signed)
    return hi if hi else lo


def dot_product_stimulus(params, vectors: int, seed: int) -> dict:
    """Operand vectors ``a``, ``b`` (``(rows, n)`` int64) with ``valid`` per row: directed sections first,
    then ``vectors`` random rows.

    Directed: ``extremes`` (every lane the same extreme value: min or max of ``a`` times min or max
    of ``b``, so the largest and, signed, the most negative sums reach the exact output width);
    ``zeros`` (both vectors zero, and either one zero against a random other); ``corners`` (every
    lane a random corner value: extremes, their neighbours, 0, +-1); ``one_hot`` (for each lane, the
    only non-zero ``a``, against a random ``b``: every lane's product reaches the sum from its own
    ``b``); ``idle`` (random operands under :data:`IDLE_PATTERN`: bubbles must not report a sum).
    Random rows: uniform values with 10% zeros, 7.5% min and 7.5% max per element, valid with
    probability 0.95.
    """
    n, aw, bw, signed = params.n, params.a_width, params.b_width, params.signed
    rng = np.random.default_rng(seed)
    (a_lo, a_hi), (b_lo, b_hi) = operand_range(aw, signed), operand_range(bw, signed)
    rows_a, rows_b, valid, sections = [], [], [], {}

    def uniform(lo, hi, size):
        return rng.integers(lo, hi, size, endpoint=True)

    def add(name, a, b, ok=1):
        rows_a.append(np.broadcast_to(np.asarray(a, dtype=np.int64), (n,)))
        rows_b.append(np.broadcast_to(np.asarray(b, dtype=np.int64), (n,)))
        valid.append(int(ok))
        sections[name] = sections.get(name, 0) + 1

    for x in (a_lo, a_hi):
        for y in (b_lo, b_hi):
            add("extremes", x, y)
    add("zeros", 0, 0)
    add("zeros", 0, uniform(b_lo, b_hi, n))
    add("zeros", uniform(a_lo, a_hi, n), 0)
    ca, cb = _corners(aw, signed), _corners(bw, signed)
    for _ in range(4):
        add("corners", rng.choice(ca, n), rng.choice(cb, n))
    for i in range(n):
        a = np.zeros(n, dtype=np.int64)
        a[i] = _nonzero(aw, signed)
        add("one_hot", a, uniform(b_lo, b_hi, n))
    for ok in IDLE_PATTERN:
        add("idle", uniform(a_lo, a_hi, n), uniform(b_lo, b_hi, n), ok)

    def operands(lo, hi):
        x = uniform(lo, hi, (vectors, n))
        pick = rng.random((vectors, n))
        x[pick < 0.10] = 0
        x[(pick >= 0.10) & (pick < 0.175)] = lo
        x[(pick >= 0.175) & (pick < 0.25)] = hi
        return x

    ra, rb, rv = operands(a_lo, a_hi), operands(b_lo, b_hi), rng.random(vectors) < 0.95
    for t in range(vectors):
        add("random", ra[t], rb[t], rv[t])
    return {"a": np.array(rows_a, dtype=np.int64).reshape(-1, n), "b": np.array(rows_b, dtype=np.int64).reshape(-1, n),
            "valid": np.array(valid, dtype=bool), "sections": sections}


def dot_product_table(params, vectors: int = 1024, seed: int = 1) -> CycleTable:
    """Cycle table for :class:`~accelgen.rtl.DotProduct`: a new pair of vectors in every cycle (row ``t``);
    ``sum_valid`` is checked in every cycle (so the latency is exact and bubbles report nothing), ``sum``
    where a valid vector's result is due, :func:`~accelgen.golden.dot_product.dot_product_latency` cycles
    after it, as the exact dot product."""
    stim = dot_product_stimulus(params, vectors, seed)
    a, b, valid = stim["a"], stim["b"], stim["valid"]
    rows, n = len(valid), params.n
    lat = dot_product_latency(n, params.mul_stages, params.add_stages)
    total = rows + lat

    def column(values, width):
        col = np.zeros(total, dtype=np.uint64)
        col[:rows] = to_bits(values, width)
        return col

    inputs = {f"a__{i}": column(a[:, i], params.a_width) for i in range(n)}
    inputs |= {f"b__{i}": column(b[:, i], params.b_width) for i in range(n)}
    inputs["valid"] = column(valid, 1)
    sums = dot_products(a, b)
    expect_sum = np.zeros(total, dtype=np.uint64)
    expect_valid = np.zeros(total, dtype=np.uint64)
    check_sum = np.zeros(total, dtype=bool)
    for t in np.flatnonzero(valid):
        expect_sum[t + lat] = to_bits([sums[t]], params.sum_width)[0]
        expect_valid[t + lat] = 1
        check_sum[t + lat] = True
    return CycleTable(inputs=inputs, expect={"sum": expect_sum, "sum_valid": expect_valid}, check={"sum": check_sum},
                      info={"vectors": rows, "dot_products": int(valid.sum()), "sections": stim["sections"],
                            "latency": lat})


# --------------------------------------------------------------------------- activity stimulus

def dot_product_activity(params, density: float, cycles: int, seed: int, profile: str | None = None) -> Activity:
    """One valid pair of vectors per cycle; every operand of ``a`` and ``b`` independently zero with
    probability ``1 - density``, else drawn by the stimulus ``profile`` (``a`` activations, ``b`` weights; by
    default uniform over its range). One operation is one dot product (``n``
    MACs in one cycle); the pipeline fill (``latency + 1`` cycles) is warm-up."""
    rng = np.random.default_rng(seed)
    n = params.n
    a = operand_ints(rng, (cycles, n), params.a_width, params.signed, density, profile, "activation")
    b = operand_ints(rng, (cycles, n), params.b_width, params.signed, density, profile, "weight")
    ins = {f"a__{i}": a[:, i] for i in range(n)} | {f"b__{i}": b[:, i] for i in range(n)}
    ins["valid"] = np.ones(cycles, dtype=np.int64)
    warm = params.latency + 1
    return Activity(ins, ops=cycles - warm, per="dot product (n MACs in one cycle)", warmup=warm)


# --------------------------------------------------------------------------- coverage

def _operand_classes(width: int, signed: bool) -> list[str]:
    """The classes of zero, min, max, other that an operand's values fall in (no min when it is 0, ...)."""
    lo, hi = operand_range(width, signed)
    names = ["zero"] + (["min"] if lo else []) + (["max"] if hi else [])
    return names + (["other"] if hi - lo + 1 > len(names) else [])


def dot_product_coverage(params, table: CycleTable, context) -> Coverage:
    """Operand classes of ``a`` x ``b`` (zero, min, max, other; those the widths have) over the lanes of valid
    vectors, sums (largest, smallest, zero, negative, positive), valid and idle vectors and bubbles (an idle
    vector between valid ones)."""
    cov = Coverage()
    n, aw, bw, signed = params.n, params.a_width, params.b_width, params.signed
    rows = int(table.info.get("vectors", table.cycles))
    valid = table.inputs["valid"][:rows].astype(bool)
    a = np.stack([signed_values(table.inputs[f"a__{i}"][:rows], aw, signed) for i in range(n)], axis=1)[valid]
    b = np.stack([signed_values(table.inputs[f"b__{i}"][:rows], bw, signed) for i in range(n)], axis=1)[valid]
    (a_lo, a_hi), (b_lo, b_hi) = operand_range(aw, signed), operand_range(bw, signed)

    def classes(v, lo, hi):
        return np.select([v == 0, v == lo, v == hi], ["zero", "min", "max"], "other")

    ca, cb = classes(a, a_lo, a_hi), classes(b, b_lo, b_hi)
    for x in _operand_classes(aw, signed):
        for y in _operand_classes(bw, signed):
            cov.hit(f"a={x} x b={y}", int(np.count_nonzero((ca == x) & (cb == y))))
    extremes = [x * y for x in (a_lo, a_hi) for y in (b_lo, b_hi)]
    largest, smallest = n * max(extremes), n * min(extremes)
    sums = dot_products(a, b) if len(a) else np.zeros(0, dtype=object)
    cov.hit("sum: largest", int(np.count_nonzero(sums == largest)))
    cov.hit("sum: zero", int(np.count_nonzero(sums == 0)))
    cov.hit("sum: positive", int(np.count_nonzero(sums > 0)))
    if smallest < 0:
        cov.hit("sum: smallest", int(np.count_nonzero(sums == smallest)))
        cov.hit("sum: negative", int(np.count_nonzero(sums < 0)))
    cov.hit("vectors: valid", int(np.count_nonzero(valid)))
    cov.hit("vectors: idle", int(np.count_nonzero(~valid)))
    bubbles = ~valid[1:-1] & valid[:-2] & valid[2:]
    cov.hit("vectors: bubble between valid ones", int(np.count_nonzero(bubbles)))
    return cov
