"""The FAN, linear-chain and adder-tree families' host side: cluster layouts, expected slots, coverage, activity.

With ``dtype="fp32"`` the values are fp32 bit patterns and the expected sums are
computed in each network's documented association order
(:mod:`accelgen.golden.fan`), so every output is compared bit-exactly.
"""

from __future__ import annotations

import numpy as np

from ..golden.fan import dot_sum, fan_latency, fan_top_adder, linear_latency, segmented_sums, tree_latency
from ..golden.fp import random_fp_bits, special_values
from .coverage import Coverage
from .stimulus import Activity, cosim_activity
from .vectors import CycleTable, to_bits


def fan_slot(start: int, end: int) -> int:
    """The FAN output slot of cluster ``start..end``: the singleton's own index, else the
    adder with the most trailing one bits among ``start..end-1`` (the cluster's highest adder)."""
    return start if start == end else fan_top_adder(start, end)


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


FP32_SIGN, FP32_MAX, FP32_INF, FP32_QNAN = 0x8000_0000, 0x7F7F_FFFF, 0x7F80_0000, 0x7FC0_0000

#: kinds of fp32 value vectors (:func:`fp32_values`)
FP_KINDS = ("random", "scales", "special", "ties", "cancel", "subnormal", "overflow")

_TIE_VALUES = np.array([2.0 ** 24, -2.0 ** 24, 2.0 ** 25, 1.0, 3.0, 5.0, -1.0, -3.0, 0.5, 1.5, 2.0 ** -24,
                        1 + 2.0 ** -23, 2.0 ** -25, 1.0], dtype=np.float32).view(np.uint32)


def fp32_values(rng, n: int, kind: str | None = None) -> np.ndarray:
    """``n`` fp32 bit patterns (as ``int64``) of one ``kind`` (drawn at random when None):

    * ``random``: :func:`~accelgen.golden.fp.random_fp_bits` (normal values, scale 10**-3..10**3,
      10% zeros), 5% of them replaced by :func:`~accelgen.golden.fp.special_values`;
    * ``scales``: normal values times 2**-140..2**120 (mixed magnitudes: absorption, rounding);
    * ``special``: 40% special values (+-0, subnormals, +-Inf, NaNs incl. a signalling one, extremes);
    * ``ties``: integers around 2**24 and 1 with 2**-24 .. (sums that round at a tie, both ways);
    * ``cancel``: large values each followed by its negation, small ones between (catastrophic
      cancellation; x + (-x) = +0);
    * ``subnormal``: random subnormals (both signs) and the smallest normals;
    * ``overflow``: values near the largest normal, both signs (sums overflow to +-Inf, Inf - Inf = NaN).
    """

    kind = kind or str(rng.choice(["random", "random", "random", *FP_KINDS[1:]]))
    if kind == "random":
        x = np.asarray(random_fp_bits(rng, n, "fp32", density=0.9, scale=float(10.0 ** rng.uniform(-3, 3))),
                       dtype=np.int64)
        sp = np.asarray(special_values("fp32"), dtype=np.int64)
        pick = rng.random(n) < 0.05
        x[pick] = rng.choice(sp, int(pick.sum()))
        return x
    if kind == "scales":
        v = rng.standard_normal(n) * 2.0 ** rng.integers(-140, 121, n)
        with np.errstate(all="ignore"):
            return v.astype(np.float32).view(np.uint32).astype(np.int64)
    if kind == "special":
        x = fp32_values(rng, n, "random")
        sp = np.asarray(special_values("fp32"), dtype=np.int64)
        pick = rng.random(n) < 0.4
        x[pick] = rng.choice(sp, int(pick.sum()))
        return x
    if kind == "ties":
        return rng.choice(_TIE_VALUES, n).astype(np.int64)
    if kind == "cancel":
        v = (rng.standard_normal(n) * 2.0 ** rng.integers(20, 60, n)).astype(np.float32)
        small = rng.random(n) < 0.3
        v[small] = rng.standard_normal(int(small.sum())).astype(np.float32)
        x = v.view(np.uint32).astype(np.int64)
        for i in range(1, n):
            if rng.random() < 0.5 and not small[i - 1]:
                x[i] = x[i - 1] ^ FP32_SIGN
        return x
    if kind == "subnormal":
        x = rng.integers(1, 1 << 23, n) | (rng.integers(0, 2, n) << 31)
        norm = rng.random(n) < 0.2
        x[norm] = (1 << 23) | (rng.integers(0, 2, int(norm.sum())) << 31)
        return x.astype(np.int64)
    if kind == "overflow":
        x = FP32_MAX - rng.integers(0, 1 << 20, n)
        x = x | (rng.integers(0, 2, n) * (rng.random(n) < 0.3) << 31)
        return x.astype(np.int64)
    raise ValueError(f"kind={kind!r} is not allowed; allowed: {', '.join(FP_KINDS)}")


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

    fp32 (``params.dtype == "fp32"``): the values are fp32 bit patterns from
    :func:`fp32_values` (the extremes are -/+ the largest normal, so a whole
    cluster of them overflows to -/+Inf), and one cluster spanning all inputs
    plus two random layouts of every kind in :data:`FP_KINDS` are added to the
    directed vectors.
    """
    n, w, signed = params.n, params.width, params.signed
    idw = params.id_width
    fp = getattr(params, "dtype", "int") != "int"
    rng = np.random.default_rng(seed)
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed else (0, (1 << w) - 1)
    if fp:
        lo, hi = FP32_MAX | FP32_SIGN, FP32_MAX     # -max normal, +max normal (sums overflow to -Inf / +Inf)
    vecs, sections = [], {}

    def values(extreme=None):
        if extreme is not None:
            return np.full(n, extreme, dtype=np.int64)
        if fp:
            return fp32_values(rng, n)
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
    if fp:
        for kind in FP_KINDS:
            add(f"fp_{kind}", [n], x=fp32_values(rng, n, kind))
            for p_cut in (0.2, 0.5):
                add(f"fp_{kind}", _random_sizes(n, rng, p_cut), x=fp32_values(rng, n, kind))
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


def slot_expectations(n: int, total: int) -> tuple[dict, dict]:
    """``(expect, check)`` of ``total`` rows for the ``n`` output slots of a vecID reduction network: every
    ``sum_valid`` is checked in every row (0 unless a cluster is expected), ``sum`` and ``sum_id`` only where
    a cluster is expected (the caller sets them and their ``check``)."""
    expect, check = {}, {}
    for j in range(n):
        expect[f"sum_valid__{j}"] = np.zeros(total, dtype=np.uint64)
        for name in (f"sum__{j}", f"sum_id__{j}"):
            expect[name] = np.zeros(total, dtype=np.uint64)
            check[name] = np.zeros(total, dtype=bool)
    return expect, check


def _slot_table(params, vectors: int, seed: int, slot_of, order: str, lat: int) -> CycleTable:
    stim = fan_stimulus(params, vectors, seed)
    vecs = stim["vectors"]
    n = params.n
    total = len(vecs) + lat
    expect, check = slot_expectations(n, total)
    clusters = 0
    for t, (x, ids, valid) in enumerate(vecs):
        row = t + lat
        for c in segmented_sums(x, ids, valid, dtype=getattr(params, "dtype", "int"), order=order):
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


def fan_table(params, vectors: int = 1024, seed: int = 1, order: str = "fan") -> CycleTable:
    """Cycle table for :class:`~accelgen.rtl.FAN`: a new vector every cycle; every slot's
    valid flag is checked in every cycle (so the latency is exact), sums and ids where valid.
    The results of a vector are expected :func:`~accelgen.golden.fan.fan_latency` cycles after it.
    fp32 sums are expected in the FAN's association ``order`` (another order is a mutant)."""
    return _slot_table(params, vectors, seed, fan_slot, order, fan_latency(params.n, params.add_stages))


def fan_linear_table(params, vectors: int = 1024, seed: int = 1, order: str = "linear") -> CycleTable:
    """Cycle table for :class:`~accelgen.rtl.FanLinear` (clusters reported at their last input;
    fp32 sums left to right; :func:`~accelgen.golden.fan.linear_latency` cycles after the vector)."""
    lat = linear_latency(params.n, params.stage_adders, params.add_stages)
    return _slot_table(params, vectors, seed, linear_slot, order, lat)


def adder_tree_table(params, vectors: int = 1024, seed: int = 1) -> CycleTable:
    """Cycle table for :class:`~accelgen.rtl.AdderTree`: the whole vector is one dot product
    (fp32: summed level by level), :func:`~accelgen.golden.fan.tree_latency` cycles after it."""
    stim = fan_stimulus(params, vectors, seed)
    vecs = stim["vectors"]
    lat = tree_latency(params.n, params.add_stages)
    total = len(vecs) + lat
    s = np.zeros(total, dtype=np.uint64)
    sv = np.zeros(total, dtype=np.uint64)
    chk = np.zeros(total, dtype=bool)
    for t, (x, _, valid) in enumerate(vecs):
        tot, any_valid = dot_sum(x, valid, dtype=getattr(params, "dtype", "int"))
        sv[t + lat] = int(any_valid)
        if any_valid:
            s[t + lat] = to_bits([tot], params.sum_width)[0]
            chk[t + lat] = True
    return CycleTable(inputs=_inputs(params, vecs, total, with_ids=False), expect={"sum": s, "sum_valid": sv},
                      check={"sum": chk}, info={"vectors": len(vecs), "sections": stim["sections"], "latency": lat})


# --------------------------------------------------------------------------- activity stimulus

def reduction_activity(params, density: float, cycles: int, seed: int) -> Activity:
    """FAN, linear chain and adder tree. ``dtype="int"``: the cosim stimulus (random vecID layouts and
    values, density ignored; one operation = one cycle), as before. ``dtype="fp32"``: one vector per
    cycle, all inputs valid, values from :func:`~accelgen.golden.fp.random_fp_bits` (normal(0, 1)
    rounded to fp32; a zero, +0 or -0, with probability ``1 - density``), clusters cut at each boundary
    with probability 0.2 (mean cluster ~5 inputs, as dot products mapped onto a Flex-DPE). One
    operation is one vector (``n`` inputs reduced); the pipeline fill is warm-up."""
    block = type(params).block
    if params.dtype == "int":
        table = {"fan": fan_table, "fan_linear": fan_linear_table, "adder_tree": adder_tree_table}[block]
        return cosim_activity(table, params, 1.0, cycles, seed)
    rng = np.random.default_rng(seed)
    n = params.n
    values = random_fp_bits(rng, (cycles, n), "fp32", density=density).astype(np.int64)
    ins = {f"value__{i}": values[:, i] for i in range(n)}
    ins |= {f"valid__{i}": np.ones(cycles, dtype=np.int64) for i in range(n)}
    if block != "adder_tree":
        ids = np.stack([_sizes_to_ids(_random_sizes(n, rng, 0.2), params.id_width, rng) for _ in range(cycles)])
        ins |= {f"vec_id__{i}": ids[:, i].astype(np.int64) for i in range(n)}
    warm = params.latency + 1
    return Activity(ins, ops=cycles - warm, per="vector (n fp32 inputs reduced in one cycle)", warmup=warm)


# --------------------------------------------------------------------------- coverage

def size_class(size: int) -> str:
    """The power-of-two class of a cluster size: ``1``, ``2``, ``3-4``, ``5-8``, ..."""
    if size <= 2:
        return str(size)
    hi = 1 << (size - 1).bit_length()
    return f"{hi // 2 + 1}-{hi}"


def size_classes(n: int) -> list[str]:
    """Every :func:`size_class` of a cluster of ``1 .. n`` inputs."""
    out, s = ["1"], 2
    if n >= 2:
        out.append("2")
    while s < n:
        out.append(f"{s + 1}-{2 * s}")
        s *= 2
    return out


def fan_layouts(params, table: CycleTable) -> Coverage:
    """The cluster layouts of every valid vector of a vecID reduction network: number of clusters (1, 2..n/4,
    more, all singletons), cluster sizes (power-of-two size classes up to ``n``), clusters aligned to or
    straddling a subtree boundary, idle vectors and partly invalid vectors."""
    cov = Coverage()
    n = params.n
    rows = int(table.info.get("vectors", table.cycles))
    ids = np.stack([table.inputs[f"vec_id__{i}"][:rows] for i in range(n)], axis=1)
    valid = np.stack([table.inputs[f"valid__{i}"][:rows] for i in range(n)], axis=1).astype(bool)
    cov.declare(*(f"cluster size {s}" for s in size_classes(n)))
    cov.declare("clusters: 1", "clusters: all singletons", "vectors: idle", "vectors: partly invalid")
    if n >= 4:
        cov.declare("clusters: > n/4", "cluster aligned to a subtree", "cluster straddles a subtree boundary")
    if n >= 8:
        cov.declare("clusters: 2..n/4")
    for t in range(rows):
        if not valid[t].any():
            cov.hit("vectors: idle")
            continue
        if not valid[t].all():
            cov.hit("vectors: partly invalid")
        starts = [0] + [i for i in range(1, n) if ids[t, i] != ids[t, i - 1]]
        ends = starts[1:] + [n]
        k = len(starts)
        cov.hit("clusters: 1" if k == 1 else "clusters: all singletons" if k == n else
                "clusters: 2..n/4" if k <= n // 4 else "clusters: > n/4")
        for s, e in zip(starts, ends):
            size = e - s
            cov.hit(f"cluster size {size_class(size)}")
            if size > 1 and n >= 4:
                block = 1 << (size - 1).bit_length()
                aligned = s % block == 0 and size == block
                cov.hit("cluster aligned to a subtree" if aligned else "cluster straddles a subtree boundary")
    return cov


def fan_coverage(params, table: CycleTable, context) -> Coverage:
    """FAN and the linear chain: cluster layouts (sizes, counts, positions) seen in the run (:func:`fan_layouts`)."""
    return fan_layouts(params, table)


def adder_tree_coverage(params, table: CycleTable, context) -> Coverage:
    """The adder tree: valid patterns of its vectors (all, some, none)."""
    cov = Coverage()
    n = params.n
    rows = int(table.info.get("vectors", table.cycles))
    valid = np.stack([table.inputs[f"valid__{i}"][:rows] for i in range(n)], axis=1).astype(bool)
    cov.hit("valid: all", int(np.count_nonzero(valid.all(axis=1))))
    cov.hit("valid: some", int(np.count_nonzero(valid.any(axis=1) & ~valid.all(axis=1))))
    cov.hit("valid: none", int(np.count_nonzero(~valid.any(axis=1))))
    return cov
