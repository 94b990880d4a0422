"""Host side of FAN / linear-chain / adder-tree co-simulation: cluster layouts and expected slots."""

from __future__ import annotations

import numpy as np

from .models.fan import dot_sum, segmented_sums
from .vectors import CycleTable, to_bits


def fan_slot(start: int, end: int) -> int:
    """The FAN output slot of cluster ``start..end``: the singleton's own index, else the
    adder with the most trailing one bits among ``start..end-1`` (the cluster's highest adder)."""
    if start == end:
        return start

    def ones(i):
        t = 0
        while i >> t & 1:
            t += 1
        return t

    return max(range(start, end), key=ones)


def linear_slot(start: int, end: int) -> int:
    """The linear chain's output slot of cluster ``start..end``: its last input."""
    return end


def _sizes_to_ids(sizes, id_width: int, rng) -> np.ndarray:
    offset = int(rng.integers(0, 1 << id_width))
    return np.concatenate([np.full(s, (c + offset) % (1 << id_width)) for c, s in enumerate(sizes)])


def _random_sizes(n: int, rng, p_cut: float) -> list[int]:
    cuts = np.flatnonzero(rng.random(n - 1) < p_cut) + 1
    edges = np.concatenate([[0], cuts, [n]])
    return [int(s) for s in np.diff(edges)]


def fan_stimulus(params, vectors: int, seed: int) -> dict:
    """Vectors of ``(values, vec_ids, valid)``: directed layouts first, then ``vectors`` random ones.

    Directed: all singletons; one cluster spanning all inputs (with the extreme
    values, so the exact output width is exercised); the same with all inputs
    invalid (an idle vector); power-of-two aligned blocks of every size;
    clusters of sizes 1, 2, 3, ...; unaligned clusters of size 3 straddling
    subtrees. Random: cut probability drawn from {0.05, 0.2, 0.5, 0.9}, values
    uniform with 15% extremes, 10% invalid inputs, 3% idle vectors, and 10% of
    the vectors label clusters alternately 0/1 (an id that recurs after a
    different one starts a new cluster).
    """
    n, w, signed = params.n, params.width, params.signed
    idw = params.id_width
    rng = np.random.default_rng(seed)
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed else (0, (1 << w) - 1)
    vecs, sections = [], {}

    def values(extreme=None):
        if extreme is not None:
            return np.full(n, extreme, dtype=np.int64)
        x = rng.integers(lo, hi, n, endpoint=True)
        pick = rng.random(n)
        x[pick < 0.075] = lo
        x[(pick >= 0.075) & (pick < 0.15)] = hi
        return x

    def add(name, sizes, x=None, valid=None, ids=None):
        assert sum(sizes) == n
        ids = _sizes_to_ids(sizes, idw, rng) if ids is None else ids
        vecs.append((values() if x is None else x, ids, np.ones(n, bool) if valid is None else valid))
        sections[name] = sections.get(name, 0) + 1

    add("all_singletons", [1] * n)
    add("one_cluster", [n], x=values(lo))
    add("one_cluster", [n], x=values(hi))
    add("one_cluster", [n])
    add("idle", [n], valid=np.zeros(n, bool))
    add("all_singletons", [1] * n, valid=np.zeros(n, bool))
    b = 1
    while b <= n:
        add("aligned_blocks", [b] * (n // b))
        b *= 2
    sizes, s = [], 1
    while sum(sizes) + s <= n:
        sizes.append(s)
        s += 1
    add("growing", sizes + ([n - sum(sizes)] if n > sum(sizes) else []))
    if n >= 4:
        add("straddling", [1] + [3] * ((n - 1) // 3) + ([(n - 1) % 3] if (n - 1) % 3 else []))
    for _ in range(vectors):
        sizes = _random_sizes(n, rng, float(rng.choice([0.05, 0.2, 0.5, 0.9])))
        valid = rng.random(n) >= 0.1
        if rng.random() < 0.03:
            valid[:] = False
        ids = None
        if rng.random() < 0.1:
            ids = np.concatenate([np.full(sz, c % 2) for c, sz in enumerate(sizes)])
        add("random", sizes, valid=valid, ids=ids)
    return {"vectors": vecs, "sections": sections}


def _inputs(params, vecs, total, with_ids=True):
    n = params.n
    ins = {}
    for i in range(n):
        col = np.zeros(total, dtype=np.uint64)
        col[:len(vecs)] = to_bits([x[i] for x, _, _ in vecs], params.width)
        ins[f"value__{i}"] = col
        col = np.zeros(total, dtype=np.uint64)
        col[:len(vecs)] = [int(v[i]) for _, _, v in vecs]
        ins[f"valid__{i}"] = col
        if with_ids:
            col = np.zeros(total, dtype=np.uint64)
            col[:len(vecs)] = [int(ids[i]) for _, ids, _ in vecs]
            ins[f"vec_id__{i}"] = col
    return ins


def _slot_table(params, vectors: int, seed: int, slot_of) -> CycleTable:
    stim = fan_stimulus(params, vectors, seed)
    vecs = stim["vectors"]
    n, lat = params.n, params.latency
    total = len(vecs) + lat
    expect, check = {}, {}
    for j in range(n):
        expect[f"sum_valid__{j}"] = np.zeros(total, dtype=np.uint64)  # checked in every cycle
        for name in (f"sum__{j}", f"sum_id__{j}"):
            expect[name] = np.zeros(total, dtype=np.uint64)
            check[name] = np.zeros(total, dtype=bool)
    clusters = 0
    for t, (x, ids, valid) in enumerate(vecs):
        row = t + lat
        for c in segmented_sums(x, ids, valid):
            if not c.valid:
                continue
            clusters += 1
            j = slot_of(c.start, c.end)
            expect[f"sum_valid__{j}"][row] = 1
            expect[f"sum__{j}"][row] = to_bits([c.total], params.sum_width)[0]
            expect[f"sum_id__{j}"][row] = c.vec_id
            check[f"sum__{j}"][row] = check[f"sum_id__{j}"][row] = True
    return CycleTable(inputs=_inputs(params, vecs, total), expect=expect, check=check,
                      info={"vectors": len(vecs), "clusters": clusters, "sections": stim["sections"],
                            "latency": lat})


def fan_table(params, vectors: int = 1024, seed: int = 1) -> CycleTable:
    """Cycle table for :class:`~accelgen.rtl.FAN`: a new vector every cycle; every slot's
    valid flag is checked in every cycle (so the latency is exact), sums and ids where valid."""
    return _slot_table(params, vectors, seed, fan_slot)


def fan_linear_table(params, vectors: int = 1024, seed: int = 1) -> CycleTable:
    """Cycle table for :class:`~accelgen.rtl.FanLinear` (clusters reported at their last input)."""
    return _slot_table(params, vectors, seed, linear_slot)


def adder_tree_table(params, vectors: int = 1024, seed: int = 1) -> CycleTable:
    """Cycle table for :class:`~accelgen.rtl.AdderTree`: the whole vector is one dot product."""
    stim = fan_stimulus(params, vectors, seed)
    vecs = stim["vectors"]
    lat = params.latency
    total = len(vecs) + lat
    s = np.zeros(total, dtype=np.uint64)
    sv = np.zeros(total, dtype=np.uint64)
    chk = np.zeros(total, dtype=bool)
    for t, (x, _, valid) in enumerate(vecs):
        tot, any_valid = dot_sum(x, valid)
        sv[t + lat] = int(any_valid)
        if any_valid:
            s[t + lat] = to_bits([tot], params.sum_width)[0]
            chk[t + lat] = True
    return CycleTable(inputs=_inputs(params, vecs, total, with_ids=False), expect={"sum": s, "sum_valid": sv},
                      check={"sum": chk}, info={"vectors": len(vecs), "sections": stim["sections"], "latency": lat})
