"""Host side of MAC co-simulation: stimulus and expected response as a cycle table."""

from __future__ import annotations

import numpy as np

from .models.mac import mac_reference
from .vectors import CycleTable, operand_range, to_bits

#: directed overflow runs are included when they wrap the accumulator within this many cycles
OVERFLOW_CYCLE_LIMIT = 1 << 18


def _corner_values(width: int, signed: bool) -> list[int]:
    lo, hi = operand_range(width, signed)
    vals = {lo, lo + 1, hi - 1, hi, 0, 1, -1 if signed else 2}
    return sorted(v for v in vals if lo <= v <= hi)


def mac_stimulus(params, vectors: int, seed: int) -> dict[str, np.ndarray]:
    """Operand pairs with ``en`` and ``clear``: directed sections first, then ``vectors`` random pairs.

    Directed sections: every pair of corner values (extremes, sign boundaries,
    0 and +-1); every ordered pair of the four ``(en, clear)`` combinations;
    accumulator overflow in the positive and (if signed) negative direction when
    it can be reached within :data:`OVERFLOW_CYCLE_LIMIT` cycles.
    """
    rng = np.random.default_rng(seed)
    aw, bw, signed = params.a_width, params.b_width, params.signed
    a_lo, a_hi = operand_range(aw, signed)
    b_lo, b_hi = operand_range(bw, signed)
    a, b, en, clear, sections = [], [], [], [], {}

    def emit(name, xs, ys, es, cs):
        sections[name] = sections.get(name, 0) + len(xs)
        a.extend(int(x) for x in xs)
        b.extend(int(y) for y in ys)
        en.extend(int(e) for e in es)
        clear.extend(int(c) for c in cs)

    # corners: all pairs, accumulated from a clear
    ca, cb = _corner_values(aw, signed), _corner_values(bw, signed)
    pairs = [(x, y) for x in ca for y in cb]
    emit("corners", [x for x, _ in pairs], [y for _, y in pairs], [1] * len(pairs),
         [1] + [0] * (len(pairs) - 1))

    # every ordered pair of (en, clear) combinations, with random operands
    combos = [(e, c) for e in (0, 1) for c in (0, 1)]
    seq = [x for p in combos for q in combos for x in (p, q)]
    emit("en_clear", rng.integers(a_lo, a_hi, len(seq), endpoint=True),
         rng.integers(b_lo, b_hi, len(seq), endpoint=True), [e for e, _ in seq], [c for _, c in seq])

    # accumulator overflow: the largest positive (and, if signed, negative) products until the sum wraps
    acc_w = params.acc_width
    extremes = [(x, y) for x in (a_lo, a_hi) for y in (b_lo, b_hi)]
    directions = [max(extremes, key=lambda p: p[0] * p[1])]
    if signed:
        directions.append(min(extremes, key=lambda p: p[0] * p[1]))
    for x, y in directions:
        prod = abs(x * y)
        if prod == 0:
            continue
        limit = (1 << (acc_w - 1)) if signed else (1 << acc_w)
        n = limit // prod + 2
        if n <= OVERFLOW_CYCLE_LIMIT:
            emit("overflow", [x] * n, [y] * n, [1] * n, [1] + [0] * (n - 1))
        else:
            sections["overflow_skipped_needs_cycles"] = n

    # random pairs: uniform values with extra zeros and extremes
    def rand_operands(lo, hi, n):
        v = rng.integers(lo, hi, n, endpoint=True)
        pick = rng.random(n)
        v[pick < 0.10] = 0
        v[(pick >= 0.10) & (pick < 0.13)] = lo
        v[(pick >= 0.13) & (pick < 0.16)] = hi
        return v

    emit("random", rand_operands(a_lo, a_hi, vectors), rand_operands(b_lo, b_hi, vectors),
         rng.random(vectors) < 0.9, rng.random(vectors) < 0.03)
    stim = {"a": np.array(a, dtype=object), "b": np.array(b, dtype=object),
            "en": np.array(en), "clear": np.array(clear), "sections": sections}
    if params.addend_input:
        c_lo, c_hi = operand_range(params.acc_width, signed)
        c_in = [int(v) for v in rng.integers(c_lo, c_hi, len(a), endpoint=True, dtype=np.int64)] \
            if params.acc_width < 64 else [int(v) for v in rng.integers(-(1 << 62), 1 << 62, len(a))]
        stim["c_in"] = np.array(c_in, dtype=object)
    return stim


def mac_table(params, vectors: int = 4096, seed: int = 1) -> CycleTable:
    """The cycle table for one MAC cosim run (the RTL latency comes from the spec)."""
    stim = mac_stimulus(params, vectors, seed)
    n = len(stim["a"])
    latency = params.latency
    acc = mac_reference(stim["a"], stim["b"], stim["en"], stim["clear"],
                        acc_width=params.acc_width, signed=params.signed, c_in=stim.get("c_in"))
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
        info={"vectors": n, "sections": stim["sections"], "latency": latency},
    )
