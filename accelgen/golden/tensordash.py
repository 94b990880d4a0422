"""Golden models of the TensorDash scheduler, sparse-operand PE and tile.

Numpy, the standard library and the PE's declared latency (:mod:`accelgen.params.tensordash`) only (the
PPA estimator imports this module and never imports Amaranth). Nothing here knows the RTL; the connectivity patterns,
the priority order and the scheduling levels are re-derived from the design
brief (``docs/architecture.md``, "TensorDash"; Mahmoud et al., MICRO 2020, sect. III-A, Figs. 5-6).

Terms
-----
A *stream* is an ``(N, L)`` matrix of operand values: row ``k`` holds the ``L``
operands the ``L`` lanes multiply in dense cycle ``k``. A pair ``(a[k, l],
b[k, l])`` is *effectual* when neither operand is zero (for the tile: when the
B operand is not zero). The staging buffer holds ``D`` consecutive rows; row 0
is the current row. An *option* ``(step, offset)`` lets lane ``i`` take the pair
in buffer row ``step``, lane ``(i + offset) mod L``.

Three layers:

* :func:`pattern_options`, :func:`schedule_levels`, :func:`schedule_step`: the
  combinational scheduler (one decision, :mod:`accelgen.golden.tensordash_sched`).
* :func:`simulate_pe`: the cycle-accurate PE / tile, the obvious per-cycle loop
  giving schedule, cycle count and dot products.
* :func:`cycle_counts`: the same cycle count, vectorized over many streams with
  numpy, for the estimator on large tensors.

The dense baseline
------------------
``depth=1`` is the PE or tile without TensorDash (no staging rows beyond the
current one, no scheduler, no muxes): :func:`simulate_dense`, to which
:func:`simulate_pe` hands ``depth=1``. Every lane multiplies its own pair of
the current row in every busy cycle, zeros included (in floating point ``0 x
Inf`` is NaN and a zero product is the signed zero ``fp_mul`` gives, not the
-0.0 of an idle lane), so a stream of ``N`` rows takes ``N`` busy cycles and
the result is the plain dense dot product, summed in the same lane tree and
accumulator order (threads and fold included).

Pipelining
----------
With ``mul_stages`` registers inside every lane multiplier and ``add_stages``
inside every adder of the lane tree, the schedule and the busy cycles do not
change; what a busy cycle adds reaches the accumulator ``P = mul_stages +
levels * add_stages`` cycles later (``levels`` = :func:`lane_tree_levels`; the
fused sum of floating point has no tree: ``P = mul_stages``), so
the accumulator output is the unpipelined one delayed by ``P`` cycles
(:func:`delayed`) and a dot product of ``C`` busy cycles is done
:func:`pass_cycles` ``= C + pe_latency`` cycles after its start, with
:func:`pe_latency` ``= 1 + P`` (the accumulator register, then the pipeline).

The accumulator adder has ``add_stages`` registers too, so its loop holds
``T = add_stages + 1`` interleaved partial sums (*threads*): busy cycle ``j``
(``1 .. C``) goes to thread ``j mod T``, every thread starting at zero, and
after the last busy cycle the threads are folded by the in-order pairwise tree
over ``u[0] .. u[T-1]`` with ``u[i]`` = thread ``(C + 1 + i) mod T`` (the order
in which the loop presents them). The fold costs :func:`fold_cycles` more cycles,
so :func:`pe_latency` ``= 1 + P + fold_cycles``. Integer results do not depend
on the order; fp32 results do, and :func:`simulate_pe` (``threads``) follows it.

Floating point
--------------
With ``dtype`` ``"fp16"``, ``"bf16"`` or ``"fp32"`` the streams hold bit
patterns of that format and :func:`simulate_pe` accumulates in fp32 exactly as
the documented hardware does (``docs/architecture.md`` and the PE's docstring; fp_spec):

* an operand is zero when its exponent and fraction bits are 0 (+0 or -0); a
  pair with a zero operand (the tile: a zero B operand) is ineffectual and never
  multiplied, so it contributes nothing;
* every busy cycle each lane that the scheduler gives a pair forms
  ``p[l] = fp_mul(a, b)`` (fp32, RNE); a lane with nothing to multiply gives
  ``p[l] = -0.0`` (the exact identity of fp32 addition);
* ``summation="fused"`` (the paper's PE): the accumulator becomes
  ``fp_sum(acc, p[0], ..., p[L-1])`` (:func:`accelgen.golden.fp.fp_sum`: every
  operand aligned to the largest exponent, one rounding), starting from +0.0;
  a fold add of the interleaved threads is ``fp_sum(u, v, -0.0, ...)``, the
  unit's other ``L - 1`` operands idle;
* ``summation="tree"`` (the default): the ``L`` lane values are summed by the in-order pairwise tree
  (:func:`lane_tree_sum`: level by level ``(p0+p1), (p2+p3), ...``, an odd last
  value moves up unchanged) and the accumulator becomes ``acc + tree``
  (starting from +0.0); the fold adds with ``fp_add``.

The arithmetic is :mod:`accelgen.golden.fp` (numpy float32, bit views).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..fpformat import FP_DTYPES, is_fp
from ..params.tensordash import TensorDashPEParams, fold_cycles
from .fp import bits_dtype, canonical, fp_add, fp_mul, fp_sum, fp_width
from .tensordash_sched import TD_PATTERNS, pattern_options, schedule_levels, schedule_step

__all__ = [
    "TD_PATTERNS",
    "PETrace",
    "cycle_counts",
    "delayed",
    "dense_cycles",
    "fold_cycles",
    "fp_nonzero",
    "ideal_speedup",
    "lane_tree_levels",
    "lane_tree_sum",
    "pass_cycles",
    "pattern_options",
    "pe_latency",
    "schedule_levels",
    "schedule_step",
    "simulate_dense",
    "simulate_pe",
]

#: -0.0 in fp32: what an idle lane contributes (x + -0.0 == x bit for bit, for every x)
NEG_ZERO_FP32 = 0x8000_0000


def fp_nonzero(bits, dtype: str) -> np.ndarray:
    """The zero detector of the fp PE: True unless exponent and fraction bits are all 0 (+0 and -0 are zero)."""
    w = fp_width(dtype)
    return (np.asarray(bits, dtype=np.uint64) & np.uint64((1 << (w - 1)) - 1)) != 0


def lane_tree_sum(products, flush_subnormals: bool = False) -> np.ndarray:
    """Sum the lane products (``(..., L)`` fp32 bit patterns) by the PE's in-order pairwise tree.

    Level by level: ``(v0 + v1), (v2 + v3), ...``; an odd last value moves to the
    next level unchanged. ``L = 4``: ``(p0 + p1) + (p2 + p3)``; ``L = 3``:
    ``(p0 + p1) + p2``. fp32 RNE additions (:func:`accelgen.golden.fp.fp_add`).
    Returns ``(...)`` uint32 bit patterns.
    """

    vals = [np.asarray(products, dtype=np.uint32)[..., i] for i in range(np.shape(products)[-1])]
    while len(vals) > 1:
        vals = [fp_add(vals[i], vals[i + 1], flush_subnormals=flush_subnormals) if i + 1 < len(vals) else vals[i]
                for i in range(0, len(vals), 2)]
    return np.asarray(vals[0], dtype=np.uint32)

def lane_tree_levels(lanes: int) -> int:
    """Adder levels of the in-order pairwise tree over ``lanes`` values (an odd last value moves up a level
    without an adder): 2 lanes 1, 3 and 4 lanes 2, 5..8 lanes 3, 9..16 lanes 4."""
    levels = 0
    while lanes > 1:
        lanes, levels = (lanes + 1) // 2, levels + 1
    return levels


def pe_latency(lanes: int, mul_stages: int = 0, add_stages: int = 0, *, dtype: str = "int",
               summation: str = "tree") -> int:
    """Cycles from the last busy cycle of the PE (or tile) to its dot product in the accumulator output:
    the accumulator register, the pipeline in front of it and the fold of the threads, ``1 + mul_stages +
    lane_tree_levels(lanes) * add_stages + fold_cycles(add_stages)``, without the tree term for an fp
    ``dtype`` summed ``"fused"`` (:attr:`accelgen.params.tensordash.TensorDashPEParams.latency`)."""
    return TensorDashPEParams.model_construct(lanes=lanes, mul_stages=mul_stages, add_stages=add_stages,
                                              dtype=dtype, summation=summation).latency


def _check_summation(summation: str) -> None:
    if summation not in ("fused", "tree"):
        raise ValueError(f"summation={summation!r}; allowed: 'fused' or 'tree'")


def _accumulate(acc, products, fused: bool, flush_subnormals: bool) -> np.ndarray:
    """One busy cycle's update of the accumulator threads ``acc`` (``(R,)`` fp32 bits) by the lane products
    (``(R, L)``): ``fp_sum(acc, p0, ..., p[L-1])`` fused, else ``acc + lane_tree_sum(products)``."""
    if fused:
        return canonical(fp_sum([acc, *products.T], flush_subnormals=flush_subnormals))
    return canonical(fp_add(acc, lane_tree_sum(products, flush_subnormals), flush_subnormals=flush_subnormals))


def _fold(threads: np.ndarray, first: int, flush_subnormals: bool, fused_lanes: int = 0) -> np.ndarray:
    """The fold of ``threads`` (``(R, T)`` fp32 bits): the in-order pairwise tree over the threads in the order
    ``first, first + 1, ... (mod T)``; with ``fused_lanes`` each addition is the fused sum's, ``fp_sum`` of
    the two threads and ``fused_lanes - 1`` idle operands (-0.0)."""
    t = threads.shape[1]
    order = [(first + i) % t for i in range(t)]
    if not fused_lanes:
        return lane_tree_sum(threads[:, order], flush_subnormals)
    vals = [threads[:, k] for k in order]
    idle = [np.uint32(NEG_ZERO_FP32)] * (fused_lanes - 1)
    while len(vals) > 1:
        vals = [fp_sum([vals[i], vals[i + 1], *idle], flush_subnormals=flush_subnormals) if i + 1 < len(vals)
                else vals[i] for i in range(0, len(vals), 2)]
    return np.asarray(vals[0], dtype=np.uint32)


def pass_cycles(busy_cycles, latency: int = 1):
    """Cycles from a dot product's ``start`` to the first cycle its result is ``done``: the busy cycles,
    then :func:`pe_latency` (the cost of one dot product when the next starts at ``done``)."""
    return np.asarray(busy_cycles, dtype=np.int64) + latency


def delayed(values, cycles: int, init=0) -> list:
    """``values`` (one per clock cycle) as seen through ``cycles`` registers that start at ``init``:
    element ``t`` is ``values[t - cycles]``."""
    values = list(values)
    return ([init] * cycles + values)[:len(values)]


@dataclass
class PETrace:
    """What :func:`simulate_pe` found for one dot product (or one tile pass).

    ``sel[t]``, ``as_rows[t]`` and ``acc[t]`` belong to busy cycle ``t``
    (``acc[t]`` is the running sum after that cycle's products). ``result`` is
    the exact dot product (one per PE row for a tile; fp32 bit patterns in
    floating point); ``pairs_used`` counts the multiplications by a lane (each
    effectual pair exactly once).
    """

    cycles: int
    result: list[int]
    sel: np.ndarray
    as_rows: np.ndarray
    acc: list[list[int]] = field(default_factory=list)
    pairs_used: int = 0


def _operands(a, b, dtype: str, length: int | None):
    """The checked operands of a PE or tile run: ``(a_rows, b, tile, n, lanes, fp, length)`` (``a_rows``: a's rows
    with a leading output axis; ``length`` defaults to every stream row)."""
    b = np.asarray(b, dtype=object)
    a = np.asarray(a, dtype=object)
    tile = a.ndim == 3
    a_rows = a if tile else a[None]
    n, lanes = b.shape
    if a_rows.shape[1:] != (n, lanes):
        raise ValueError(f"a has shape {a.shape} but b has shape {b.shape}")
    fp = dtype != "int"
    if fp and not is_fp(dtype):
        raise ValueError(f"dtype={dtype!r}; allowed: " + ", ".join(repr(d) for d in ("int", *FP_DTYPES)))
    length = n if length is None else int(length)
    if not 0 <= length <= n:
        raise ValueError(f"length={length} outside 0..{n}")
    return a_rows, b, tile, n, lanes, fp, length


def simulate_pe(a, b, *, depth: int, pattern="default", length: int | None = None,
                side: str = "both", dtype: str = "int", flush_subnormals: bool = False,
                threads: int = 1, summation: str = "tree") -> PETrace:
    """Cycle-accurate model of a TensorDash PE (``a`` of shape ``(N, L)``) or tile (``(R, N, L)``).

    ``side="both"``: a pair is ineffectual when either operand is zero (the PE);
    ``side="b"``: only B's zeros count (the tile: one B-side schedule for all
    rows). ``length`` (default ``N``) is the number of stream rows; rows at and
    beyond it do not exist. The buffer starts with rows ``0..D-1``; each busy
    cycle the scheduler picks, the lanes multiply, the first ``AS`` rows leave
    and the next ``AS`` stream rows enter; the PE is busy while the stream row
    in buffer row 0 exists.

    ``dtype`` ``"int"``: exact integer sums (Python ints; the caller wraps).
    ``"fp16"``, ``"bf16"``, ``"fp32"``: ``a`` and ``b`` hold bit patterns; sums
    are fp32 bit patterns formed in the hardware's order (module docstring);
    ``flush_subnormals`` selects DAZ+FTZ multipliers and adders; ``summation`` (``"fused"`` or ``"tree"``)
    how the lane products reach the accumulator (module docstring; integers are exact either way).

    ``threads`` (``add_stages + 1``): the accumulator's interleaved partial sums (module docstring); the
    result is their fold, and ``acc`` per busy cycle holds the thread that cycle updated (in fp; integers:
    the running sum, which the fold does not change).

    ``depth=1`` is the dense baseline: :func:`simulate_dense` (``pattern`` and ``side`` do not matter).
    """
    if side not in ("both", "b"):
        raise ValueError(f"side={side!r}; allowed: 'both' or 'b'")
    if depth == 1:
        return simulate_dense(a, b, length=length, dtype=dtype, flush_subnormals=flush_subnormals,
                              threads=threads, summation=summation)
    _check_summation(summation)
    a_rows, b, tile, _, lanes, fp, length = _operands(a, b, dtype, length)
    fused = fp and summation == "fused"
    if fp:
        op_type = bits_dtype(dtype)
    options = pattern_options(pattern, lanes, depth)
    levels = schedule_levels(options, lanes)

    def effectual(row: int) -> np.ndarray:
        if row >= length:
            return np.zeros(lanes, dtype=bool)
        if fp:
            nz = fp_nonzero(b[row].astype(np.uint64), dtype)
            if side == "both":
                nz &= fp_nonzero(a_rows[0, row].astype(np.uint64), dtype)
            return nz
        nz = np.array([b[row, l] != 0 for l in range(lanes)])
        if side == "both":
            nz &= np.array([a_rows[0, row, l] != 0 for l in range(lanes)])
        return nz

    head = 0  # stream row in buffer row 0
    live = np.array([effectual(r) for r in range(depth)])
    n_out = a_rows.shape[0]
    sums = [0] * n_out
    if threads < 1:
        raise ValueError(f"threads={threads}; allowed: >= 1")
    fp_acc = np.zeros((n_out, threads), dtype=np.uint32)  # +0.0 in every thread
    sels, ases, accs = [], [], []
    used = 0
    while head < length:
        sel, after, as_rows = schedule_step(live, options, levels)
        products = np.full((n_out, lanes), NEG_ZERO_FP32, dtype=np.uint32)
        for lane in range(lanes):
            if sel[lane]:
                step, offset = options[sel[lane] - 1]
                row, col = head + step, (lane + offset) % lanes
                used += 1
                if fp:
                    x = a_rows[:, row, col].astype(op_type)
                    y = np.full(n_out, int(b[row, col]), dtype=op_type)
                    products[:, lane] = fp_mul(x, y, dtype, flush_subnormals=flush_subnormals)
                else:
                    for r in range(n_out):
                        sums[r] += int(a_rows[r, row, col]) * int(b[row, col])
        if fp:
            thread = (len(sels) + 1) % threads  # busy cycle j = 1, 2, ... goes to thread j mod T
            fp_acc[:, thread] = _accumulate(fp_acc[:, thread], products, fused, flush_subnormals)
            sums = [int(v) for v in fp_acc[:, thread]]
        sels.append(sel)
        ases.append(as_rows)
        accs.append(list(sums))
        head += as_rows
        live = np.concatenate([after[as_rows:], np.array([effectual(head + r) for r in range(depth - as_rows, depth)],
                                                         dtype=bool).reshape(as_rows, lanes)])
    if fp:
        sums = [int(v) for v in canonical(_fold(fp_acc, (len(sels) + 1) % threads, flush_subnormals,
                                                fused_lanes=lanes if fused else 0))]
    return PETrace(cycles=len(sels), result=sums if tile else sums[:1],
                   sel=np.array(sels, dtype=np.int64).reshape(len(sels), lanes),
                   as_rows=np.array(ases, dtype=np.int64), acc=accs, pairs_used=used)


def simulate_dense(a, b, *, length: int | None = None, dtype: str = "int", flush_subnormals: bool = False,
                   threads: int = 1, summation: str = "tree") -> PETrace:
    """The dense baseline (``depth=1``) of the PE (``a`` of shape ``(N, L)``) or tile (``(R, N, L)``).

    Busy cycle ``j = 1 .. length`` multiplies row ``j - 1``: every lane its own pair, zeros included,
    so ``sel`` is 1 (option 0, the dense slot) for every lane and ``as_rows`` 1 in every busy cycle and
    every pair is used. Integers: exact Python sums. Floating point: ``p[l] = fp_mul(a, b)``, then thread
    ``j mod threads`` becomes ``fp_sum(thread, p...)`` (``summation="fused"``) or ``thread + tree`` (the lane
    tree), folded at the end as in :func:`simulate_pe`.
    """
    _check_summation(summation)
    a_rows, b, tile, _, lanes, fp, length = _operands(a, b, dtype, length)
    fused = fp and summation == "fused"
    if threads < 1:
        raise ValueError(f"threads={threads}; allowed: >= 1")
    n_out = a_rows.shape[0]
    sums = [0] * n_out
    fp_acc = np.zeros((n_out, threads), dtype=np.uint32)  # +0.0 in every thread
    accs = []
    for k in range(length):
        if fp:
            x = a_rows[:, k, :].astype(bits_dtype(dtype))
            y = np.broadcast_to(b[k, :].astype(bits_dtype(dtype)), x.shape)
            products = fp_mul(x, y, dtype, flush_subnormals=flush_subnormals)
            thread = (k + 1) % threads
            fp_acc[:, thread] = _accumulate(fp_acc[:, thread], products, fused, flush_subnormals)
            sums = [int(v) for v in fp_acc[:, thread]]
        else:
            sums = [s + sum(int(a_rows[r, k, l]) * int(b[k, l]) for l in range(lanes)) for r, s in enumerate(sums)]
        accs.append(list(sums))
    if fp:
        sums = [int(v) for v in canonical(_fold(fp_acc, (length + 1) % threads, flush_subnormals,
                                                fused_lanes=lanes if fused else 0))]
    return PETrace(cycles=length, result=sums if tile else sums[:1], sel=np.ones((length, lanes), dtype=np.int64),
                   as_rows=np.ones(length, dtype=np.int64), acc=accs, pairs_used=length * lanes)


def dense_cycles(lengths) -> np.ndarray:
    """Cycles of the dense schedule: one row per cycle."""
    return np.asarray(lengths, dtype=np.int64)


def ideal_speedup(sparsity, depth: int):
    """``min(1 / (1 - s), D)``, with ``s`` the fraction of ineffectual pairs."""
    s = np.asarray(sparsity, dtype=float)
    with np.errstate(divide="ignore"):
        return np.minimum(np.where(s < 1, 1.0 / np.maximum(1.0 - s, 1e-300), np.inf), depth)


def cycle_counts(effectual, lengths=None, *, depth: int, pattern="default") -> np.ndarray:
    """Busy cycles of the PE for many streams at once (vectorized over streams).

    ``effectual`` is a boolean array ``(S, N, L)`` (or ``(N, L)`` for one stream):
    which pairs are effectual. ``lengths`` (default ``N`` each) gives the number
    of existing rows per stream; rows beyond are ignored. Returns an ``int64``
    array of ``S`` cycle counts, identical to :func:`simulate_pe`'s.
    The loop runs over cycles (at most ``N``); each cycle costs a few numpy
    operations per option and level on all unfinished streams.
    """
    eff = np.asarray(effectual, dtype=bool)
    single = eff.ndim == 2
    if single:
        eff = eff[None]
    if eff.ndim != 3:
        raise ValueError(f"effectual must have shape (S, N, L) or (N, L), got {eff.shape}")
    n_streams, n, lanes = eff.shape
    lengths = np.full(n_streams, n, dtype=np.int64) if lengths is None else np.asarray(lengths, dtype=np.int64)
    if lengths.shape != (n_streams,) or (lengths < 0).any() or (lengths > n).any():
        raise ValueError(f"lengths must be {n_streams} integers in 0..{n}")
    if depth == 1:  # the dense baseline: one row per busy cycle, zeros or not
        return dense_cycles(lengths)[0:1] if single else dense_cycles(lengths)
    options = pattern_options(pattern, lanes, depth)
    levels = [np.array(g) for g in schedule_levels(options, lanes)]
    # stream bitmaps padded with 2*depth empty rows so every refill index exists
    padded = np.zeros((n_streams, n + 2 * depth, lanes), dtype=bool)
    padded[:, :n] = eff & (np.arange(n)[None, :, None] < lengths[:, None, None])
    buf = padded[:, :depth].copy()
    head = np.zeros(n_streams, dtype=np.int64)
    cycles = np.zeros(n_streams, dtype=np.int64)
    rows = np.arange(depth)
    idx = np.nonzero(head < lengths)[0]
    while idx.size:
        live = buf[idx]
        for group in levels:
            pending = np.ones((idx.size, group.size), dtype=bool)
            for step, offset in options:
                cols = (group + offset) % lanes  # distinct within a level
                take = live[:, step, cols] & pending
                live[:, step, cols] &= ~take
                pending &= ~take
        nonempty = live.any(axis=2)
        as_rows = np.where(nonempty.any(axis=1), nonempty.argmax(axis=1), depth)
        src = as_rows[:, None] + rows[None, :]  # buffer row k <- old row k + AS
        kept = np.take_along_axis(live, np.minimum(src, depth - 1)[:, :, None], axis=1)
        fresh = padded[idx[:, None], head[idx][:, None] + src]
        buf[idx] = np.where((src < depth)[:, :, None], kept, fresh)
        cycles[idx] += 1
        head[idx] += as_rows
        idx = idx[head[idx] < lengths[idx]]
    return cycles[0:1] if single else cycles
