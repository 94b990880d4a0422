"""Functional coverage bins per block family, collected from the stimulus a cosim run really drove.

A family's collector (``BlockFamily.coverage``, e.g. :func:`mac_coverage`) looks at one run's cycle table (and the family's host context, e.g.
the GEMMs of a systolic run) and returns a :class:`Coverage`: the bins this run
*could* hit for its parameters (``bins``) and how often it hit each
(``hits``). A regression merges the coverage of its tests per family with
:meth:`Coverage.merge` and reports, per family, the fraction of bins hit and
the bins never hit.

Bins per family (numpy only; no Amaranth or cocotb import):

* ``mac``: operand classes of ``a`` x ``b`` (zero, min, max, other) on enabled
  cycles, the four ``(en, clear)`` combinations, accumulator overflow reached
  (integer runs; a floating-point run's operand and result classes are the fp
  bins of :mod:`accelgen.cosim.fp_coverage`, collected for every fp family).
* ``fan`` / ``fan_linear`` / ``linear_reduction`` (de-skewed): cluster layouts of every valid vector: number of
  clusters (1, 2..n/4, more, all singletons), cluster sizes (power-of-two size
  classes up to ``n``), clusters aligned to or straddling a subtree boundary,
  idle vectors and partly invalid vectors.
* ``art``: the ``fan`` layout bins, and every switch operation of MAERI's ART used at least once
  (2-input add, 3-input add over a forwarding link, 2-input add over a link, a cluster split at a
  link, a finished cluster riding up to a free output).
* ``adder_tree``: valid patterns (all, some, none) and sum extremes.
* ``dot_product``: operand classes of ``a`` x ``b`` (zero, min, max, other; those the widths
  have) over the lanes of valid vectors, sums (largest, smallest, zero, negative, positive),
  valid and idle vectors and bubbles (an idle vector between valid ones).
* ``benes``: per pass, the permutation class (identity, reversal, bit
  reversal, rotation, perfect shuffle, other full permutation, partial
  permutation with don't-cares), broadcast fan-out classes of raw switch
  settings, and multicast requests by number of passes.
* ``tensordash_sched``: effectual density of ``Z`` (5 bins), ``AS`` values
  ``0..D``, and per lane whether its dense slot was effectual.
* ``tensordash_pe`` / ``tensordash_tile``: stream sparsity bins (empty, 0,
  <25%, <50%, <75%, <95%, >=95% ineffectual pairs), lane patterns (effectual
  pairs in all lanes / one lane / some lanes), and every scheduler option
  (lookahead / lookaside movement) used at least once.
* ``systolic`` / ``flexdpe``: GEMM shape classes, smaller / equal / larger than
  the array per dimension (systolic: ``M`` and ``K`` against ``rows``, ``N``
  against ``cols``; Flex-DPE: each of ``M``, ``N``, ``K`` against ``k``), and
  for the Flex-DPE the operand sparsity bins of ``A`` and ``B``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..golden.art import art_plan
from ..golden.benes import benes_reference
from ..golden.dot_product import dot_products
from ..golden.fp import is_zero
from ..golden.tensordash import pattern_options
from .benes_router import CTRL_WORD_SWITCHES
from .tensordash import pe_streams
from .vectors import CycleTable, operand_range


@dataclass
class Coverage:
    """Bins a run could hit and the hits per bin (``hits`` keys are a subset of ``bins``); ``unreachable``: bins
    these parameters cannot reach, with the reason (not bins: never counted as missed)."""

    bins: set[str] = field(default_factory=set)
    hits: dict[str, int] = field(default_factory=dict)
    unreachable: dict[str, str] = field(default_factory=dict)

    def hit(self, name: str, count: int = 1) -> None:
        self.bins.add(name)
        if count:
            self.hits[name] = self.hits.get(name, 0) + int(count)

    def declare(self, *names: str) -> None:
        self.bins.update(names)

    @property
    def covered(self) -> int:
        return sum(1 for b in self.bins if self.hits.get(b, 0) > 0)

    @property
    def fraction(self) -> float:
        return self.covered / len(self.bins) if self.bins else 1.0

    @property
    def missed(self) -> list[str]:
        return sorted(b for b in self.bins if not self.hits.get(b))

    def merge(self, other: "Coverage") -> "Coverage":
        """Both runs' bins and hits; a bin unreachable in one run but a bin of the other is a bin."""
        out = Coverage(set(self.bins) | set(other.bins), dict(self.hits))
        for k, v in other.hits.items():
            out.hits[k] = out.hits.get(k, 0) + v
        out.unreachable = {k: v for k, v in {**other.unreachable, **self.unreachable}.items() if k not in out.bins}
        return out

    def to_dict(self) -> dict:
        d = {"bins": sorted(self.bins), "hits": dict(sorted(self.hits.items()))}
        if self.unreachable:
            d["unreachable"] = dict(sorted(self.unreachable.items()))
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Coverage":
        return cls(set(d.get("bins", ())), {k: int(v) for k, v in d.get("hits", {}).items()},
                   dict(d.get("unreachable", {})))


def _signed(bits: np.ndarray, width: int, signed: bool) -> np.ndarray:
    v = bits.astype(np.int64) if width < 64 else bits.view(np.int64)
    if signed and width < 64:
        v = np.where(v >> (width - 1) & 1, v - (1 << width), v)
    return v


def _size_class(size: int) -> str:
    if size <= 2:
        return str(size)
    hi = 1 << (size - 1).bit_length()
    return f"{hi // 2 + 1}-{hi}"


def _size_classes(n: int) -> list[str]:
    out, s = ["1"], 2
    if n >= 2:
        out.append("2")
    while s < n:
        out.append(f"{s + 1}-{2 * s}")
        s *= 2
    return out


# --------------------------------------------------------------------------- per family

def mac_coverage(params, table: CycleTable, context) -> Coverage:
    cov = Coverage()
    aw, bw, signed = params.a_width, params.b_width, params.signed
    n = int(table.info.get("vectors", table.cycles))
    a = _signed(table.inputs["a"][:n], aw, signed)
    b = _signed(table.inputs["b"][:n], bw, signed)
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
    if not fp:
        cov.hit("accumulator overflow", int(table.info.get("sections", {}).get("overflow", 0)))
    return cov


def _fan_layouts(params, table: CycleTable) -> Coverage:
    cov = Coverage()
    n = params.n
    rows = int(table.info.get("vectors", table.cycles))
    ids = np.stack([table.inputs[f"vec_id__{i}"][:rows] for i in range(n)], axis=1)
    valid = np.stack([table.inputs[f"valid__{i}"][:rows] for i in range(n)], axis=1).astype(bool)
    size_bins = _size_classes(n)
    cov.declare(*(f"cluster size {s}" for s in size_bins))
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
            cov.hit(f"cluster size {_size_class(size)}")
            if size > 1 and n >= 4:
                block = 1 << (size - 1).bit_length()
                aligned = s % block == 0 and size == block
                cov.hit("cluster aligned to a subtree" if aligned else "cluster straddles a subtree boundary")
    return cov


def adder_tree_coverage(params, table: CycleTable, context) -> Coverage:
    cov = Coverage()
    n = params.n
    rows = int(table.info.get("vectors", table.cycles))
    valid = np.stack([table.inputs[f"valid__{i}"][:rows] for i in range(n)], axis=1).astype(bool)
    cov.hit("valid: all", int(np.count_nonzero(valid.all(axis=1))))
    cov.hit("valid: some", int(np.count_nonzero(valid.any(axis=1) & ~valid.all(axis=1))))
    cov.hit("valid: none", int(np.count_nonzero(~valid.any(axis=1))))
    return cov


def _operand_classes(width: int, signed: bool) -> list[str]:
    """The classes of zero, min, max, other that an operand's values fall in (no min when it is 0, ...)."""
    lo, hi = operand_range(width, signed)
    names = ["zero"] + (["min"] if lo else []) + (["max"] if hi else [])
    return names + (["other"] if hi - lo + 1 > len(names) else [])


def dot_product_coverage(params, table: CycleTable, context) -> Coverage:
    cov = Coverage()
    n, aw, bw, signed = params.n, params.a_width, params.b_width, params.signed
    rows = int(table.info.get("vectors", table.cycles))
    valid = table.inputs["valid"][:rows].astype(bool)
    a = np.stack([_signed(table.inputs[f"a__{i}"][:rows], aw, signed) for i in range(n)], axis=1)[valid]
    b = np.stack([_signed(table.inputs[f"b__{i}"][:rows], bw, signed) for i in range(n)], axis=1)[valid]
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


def _decode_settings(params, table: CycleTable, t: int) -> np.ndarray:
    per_stage = params.ctrl_words_per_stage
    half = params.n // 2
    settings = np.zeros((params.stages, half), dtype=np.uint8)
    for s in range(params.stages):
        for c in range(per_stage):
            word = int(table.inputs[f"ctrl__{s * per_stage + c}"][t])
            for i in range(min(CTRL_WORD_SWITCHES, half - c * CTRL_WORD_SWITCHES)):
                settings[s, c * CTRL_WORD_SWITCHES + i] = word >> (2 * i) & 3
    return settings


def benes_coverage(params, table: CycleTable, context) -> Coverage:

    cov = Coverage()
    n = params.n
    k = n.bit_length() - 1
    idx = np.arange(n)
    named = {"identity": idx, "reversal": idx[::-1],
             "bit reversal": np.array([int(format(i, f"0{k}b")[::-1], 2) for i in idx]),
             "rotation": np.roll(idx, 1), "perfect shuffle": np.concatenate([idx[0::2], idx[1::2]])}
    cov.declare(*(f"permutation: {name}" for name in named), "permutation: other",
                "partial permutation (don't-care outputs)", "broadcast fan-out 2", "multicast: 2 passes")
    if n >= 4:
        cov.declare("broadcast fan-out 3-4", "multicast: 3+ passes")
    if n >= 8:
        cov.declare("broadcast fan-out 5+")
    lat = params.latency
    rows = int(table.info.get("vectors", table.cycles))
    for t in range(rows):
        src = np.array(benes_reference(_decode_settings(params, table, t), list(range(n))))
        checked = np.array([bool(table.check[f"data_out__{d}"][t + lat]) for d in range(n)])
        used = src[checked]
        if len(set(used.tolist())) == len(used):
            if checked.all():
                name = next((nm for nm, p in named.items() if np.array_equal(src, p)), "other")
                cov.hit(f"permutation: {name}")
            else:
                cov.hit("partial permutation (don't-care outputs)")
        else:
            fan = int(np.bincount(used).max())
            cov.hit("broadcast fan-out 2" if fan == 2 else "broadcast fan-out 3-4" if fan <= 4
                    else "broadcast fan-out 5+")
    for passes, count in table.info.get("multicast_passes", {}).items():
        passes = int(passes)
        cov.hit("multicast: 1 pass" if passes == 1 else "multicast: 2 passes" if passes == 2
                else "multicast: 3+ passes", count)
    return cov


def _density_bin(frac: float) -> str:
    edges = [(0.2, "0-20%"), (0.4, "20-40%"), (0.6, "40-60%"), (0.8, "60-80%")]
    return next((name for hi, name in edges if frac < hi), "80-100%")


def sched_coverage(params, table: CycleTable, context) -> Coverage:
    cov = Coverage()
    lanes, depth = params.lanes, params.depth
    cov.declare(*(f"effectual density {b}" for b in ("0-20%", "20-40%", "40-60%", "60-80%", "80-100%")))
    # the current row always drains (only a lane's own +0 option reaches it), so AS >= 1
    cov.declare(*(f"AS={a}" for a in range(1, depth + 1)))
    cov.declare(*(f"lane {l} dense slot effectual" for l in range(lanes)))
    z = np.stack([table.inputs[f"z__{s}"] for s in range(depth)], axis=1)  # rows x depth, bit l = lane l zero
    live = ~((z[:, :, None] >> np.arange(lanes, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    for frac in live.reshape(len(z), -1).mean(axis=1):
        cov.hit(f"effectual density {_density_bin(float(frac))}")
    for a, c in zip(*np.unique(table.expect["as_rows"], return_counts=True)):
        cov.hit(f"AS={int(a)}", int(c))
    for l in range(lanes):
        cov.hit(f"lane {l} dense slot effectual", int(np.count_nonzero(live[:, 0, l])))
    return cov


def _sparsity_bin(frac: float) -> str:
    if frac == 0:
        return "0%"
    edges = [(0.25, "<25%"), (0.5, "25-50%"), (0.75, "50-75%"), (0.95, "75-95%")]
    return next((name for hi, name in edges if frac < hi), ">=95%")


SPARSITY_BINS = ("0%", "<25%", "25-50%", "50-75%", "75-95%", ">=95%")


def _tensordash(params, table: CycleTable, context, *, tile: bool) -> Coverage:

    cov = Coverage()
    lanes, depth = params.lanes, params.depth
    options = pattern_options(params.pattern, lanes, depth)
    cov.declare("stream: empty", *(f"stream sparsity {b}" for b in SPARSITY_BINS),
                "lanes: all effectual", "lanes: one lane effectual", "lanes: some lanes effectual",
                *(f"option {k} (+{s}, lane {'+' if o >= 0 else ''}{o})" for k, (s, o) in enumerate(options)))
    # the streams are a pure function of (params, vectors, seed): regenerate what the table was built from
    streams = pe_streams(params, int(context["vectors"]), int(context["seed"]), tile=tile)
    for st in streams:
        if st.rows == 0:
            cov.hit("stream: empty")
            continue
        eff = st.b != 0
        if not tile:
            eff &= st.a != 0
        cov.hit(f"stream sparsity {_sparsity_bin(1.0 - float(eff.mean()))}")
        lanes_on = eff.reshape(-1, lanes).any(axis=0)
        if lanes_on.any():
            cov.hit("lanes: all effectual" if lanes_on.all() else
                    "lanes: one lane effectual" if lanes_on.sum() == 1 else "lanes: some lanes effectual")
    names = [f"option {k} (+{s}, lane {'+' if o >= 0 else ''}{o})" for k, (s, o) in enumerate(options)]
    for l in range(lanes):
        sel = table.expect[f"sel__{l}"]
        busy = table.expect["done"] == 0
        for k, c in zip(*np.unique(sel[busy], return_counts=True)):
            if int(k) < len(names):
                cov.hit(names[int(k)], int(c))
    return cov


def _shape_class(value: int, size: int) -> str:
    return "smaller" if value < size else "equal" if value == size else "larger"


def systolic_coverage(params, table: CycleTable, runs) -> Coverage:
    cov = Coverage()
    dims = (("M", params.rows, "rows"), ("N", params.cols, "cols"), ("K", params.rows, "rows"))
    for d, _, what in dims:
        cov.declare(*(f"{d} {c} than {what}" if c != "equal" else f"{d} equal to {what}"
                      for c in ("smaller", "equal", "larger")))
    for d, size, what in dims:
        if size == 1:  # nothing is smaller than 1
            cov.bins.discard(f"{d} smaller than {what}")
    for run in runs or ():
        M, N, K = run.shape
        for (d, size, what), v in zip(dims, (M, N, K)):
            c = _shape_class(v, size)
            cov.hit(f"{d} {c} than {what}" if c != "equal" else f"{d} equal to {what}")
    return cov


def flexdpe_coverage(params, table: CycleTable, plans) -> Coverage:
    cov = Coverage()
    k = params.k
    for d in "MNK":
        cov.declare(f"{d} smaller than k", f"{d} equal to k", f"{d} larger than k")
    cov.declare(*(f"{op} sparsity {b}" for op in "AB" for b in SPARSITY_BINS))
    for plan in plans or ():
        for d, v in zip("MNK", plan.shape):
            c = _shape_class(v, k)
            cov.hit(f"{d} {c} than k" if c != "equal" else f"{d} equal to k")
        for op, x in (("A", plan.A), ("B", plan.B)):
            cov.hit(f"{op} sparsity {_sparsity_bin(_zero_fraction(np.asarray(x), params.dtype))}")
    return cov


def _zero_fraction(x: np.ndarray, dtype: str) -> float:
    """The fraction of zeros among ``dtype`` operands (fp: +0 and -0; -0's bit pattern is not 0)."""
    if not x.size:
        return 0.0
    return float((x == 0).mean() if dtype == "int" else is_zero(x, dtype).mean())


def fan_coverage(params, table: CycleTable, context) -> Coverage:
    """FAN and the linear chain: cluster layouts (sizes, counts, positions) seen in the run."""
    return _fan_layouts(params, table)


def art_coverage(params, table: CycleTable, context) -> Coverage:
    """MAERI's ART: the ``fan`` layout bins, and the switch operations (:func:`accelgen.golden.art.art_plan`)
    its vectors made (the operations a size allows: no links below n = 8)."""
    cov = _fan_layouts(params, table)
    kinds = ["add2"] + (["add3", "add2 over link", "split at link"] if params.n >= 8 else []) + \
        (["ride up"] if params.n >= 4 else [])
    cov.declare(*(f"switch: {kind}" for kind in kinds))
    rows = int(table.info.get("vectors", table.cycles))
    ids = np.stack([table.inputs[f"vec_id__{i}"][:rows] for i in range(params.n)], axis=1)
    for t in range(rows):
        for kind, count in art_plan(ids[t]).ops.items():
            cov.hit(f"switch: {kind}", count)
    return cov


def linear_reduction_coverage(params, table: CycleTable, context) -> Coverage:
    """The linear reduction: the ``fan`` layout bins, read from its vectors de-skewed (input ``i`` of
    vector ``t`` is in row ``t + i * info["skew"]``)."""
    rows, skew = int(table.info["vectors"]), int(table.info["skew"])
    cols = {f"{port}__{i}": table.inputs[f"{port}__{i}"][i * skew:i * skew + rows]
            for i in range(params.n) for port in ("vec_id", "valid")}
    return _fan_layouts(params, CycleTable(inputs=cols, expect={}, info={"vectors": rows}))


def pe_coverage(params, table: CycleTable, context) -> Coverage:
    return _tensordash(params, table, context, tile=False)


def tile_coverage(params, table: CycleTable, context) -> Coverage:
    return _tensordash(params, table, context, tile=True)
