"""SIGMA's sparsity controller (Qin et al., HPCA 2020, sect. IV): bitmap-compressed operands and the plan
of a GEMM on one Flex-DPE.

Operand format (:class:`BitmapMatrix`): a ``rows x cols`` bool bitmap (1 =
non-zero) and the non-zero values packed in row-major order — SIGMA's bitmap
compression. :meth:`BitmapMatrix.from_dense` / :meth:`~BitmapMatrix.to_dense`
convert from and to numpy.

The controller (:func:`plan_gemm`) follows SIGMA's walkthrough on the
bitmaps: OR over the streaming bitmap's vectors, AND with the stationary
bitmap, and the row-major placement of the useful stationary non-zeros into
``k`` multipliers per fold — all in :func:`accelgen.golden.flexdpe.map_gemm`,
the cycle model — then, per fold, the vecIDs (cluster ordinal of each
multiplier's row) and, per streamed vector, the SRC-DEST table built with
counters: each streamed non-zero ``T[v, c]`` needed by the fold is a source;
its fan-out is the number of multipliers holding a stationary value of
column ``c``; it is placed on the Flex-DPE port where its run of copies
begins (prefix sum of the fan-outs, marked by a ``head`` bit) and the copy
network makes the copies; copy ``i`` of it goes to the ``i``-th such
multiplier. The Benes routing bits for that one-pass permutation come from
:func:`accelgen.cosim.benes_router.route_permutation`. Both stationary choices
are evaluated and the faster one taken (``stationary="auto"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..golden.flexdpe import GemmMap, SigmaCycles, sigma_cycles
from ..golden.fp import fp_mul, is_zero
from .benes_router import route_permutation
from .vectors import operand_range

__all__ = ["BitmapMatrix", "StreamStep", "FoldPlan", "GemmPlan", "plan_gemm"]


# --------------------------------------------------------------------------- bitmap format

@dataclass(frozen=True)
class BitmapMatrix:
    """A bitmap-compressed matrix: ``bitmap[r, c]`` is 1 where the entry is non-zero and
    ``values`` holds those entries in row-major order (``len(values) == bitmap.sum()``)."""

    bitmap: np.ndarray
    values: np.ndarray

    def __post_init__(self):
        bm = np.asarray(self.bitmap)
        if bm.ndim != 2 or bm.dtype != bool:
            raise ValueError(f"bitmap must be a 2-D bool array, got {bm.dtype} with shape {bm.shape}")
        vals = np.asarray(self.values)
        if vals.ndim != 1 or len(vals) != int(bm.sum()):
            raise ValueError(f"values has {vals.size} entries; the bitmap has {int(bm.sum())} non-zeros")
        if np.any(vals == 0):
            raise ValueError("values holds a zero; a bitmap-compressed matrix stores non-zeros only")

    @classmethod
    def from_dense(cls, dense, dtype: str = "int") -> "BitmapMatrix":
        """Compress a dense integer matrix; with an fp ``dtype`` its entries are bit patterns and
        +0 and -0 (zero exponent and fraction) are the zeros."""
        d = np.asarray(dense)
        if d.ndim != 2 or not np.issubdtype(d.dtype, np.integer):
            raise ValueError(f"expected a 2-D integer matrix, got {d.dtype} with shape {d.shape}")
        bm = d != 0 if dtype == "int" else ~is_zero(d, dtype)
        return cls(bm, d[bm].astype(np.int64))

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.bitmap.shape)

    @property
    def nnz(self) -> int:
        return len(self.values)

    def to_dense(self) -> np.ndarray:
        out = np.zeros(self.shape, dtype=np.int64)
        out[self.bitmap] = self.values
        return out

    @property
    def T(self) -> "BitmapMatrix":
        """The transpose, still bitmap-compressed (values re-packed in the new row-major order)."""
        index = np.full(self.shape, -1, dtype=np.int64)
        index[self.bitmap] = np.arange(self.nnz)
        return BitmapMatrix(self.bitmap.T.copy(), self.values[index.T[self.bitmap.T]])

    def value_at(self, rows, cols) -> np.ndarray:
        """The entries at ``(rows[i], cols[i])`` (0 where the bitmap is 0), from the packed values."""
        rank = np.cumsum(self.bitmap.ravel()) - 1
        flat = np.asarray(rows) * self.shape[1] + np.asarray(cols)
        hit = self.bitmap.ravel()[flat]
        return np.where(hit, self.values[np.where(hit, rank[flat], 0)] if self.nnz else 0, 0)


# --------------------------------------------------------------------------- controller

@dataclass
class StreamStep:
    """One streamed vector ``v`` of a fold: Flex-DPE port words and the routing for them."""

    v: int
    words: np.ndarray        # k port words (streamed non-zeros at their head ports)
    valid: np.ndarray        # k bools
    head: np.ndarray         # k bools
    sources: np.ndarray      # k: copy port delivered to multiplier j, -1 = none (SRC-DEST table)
    settings: np.ndarray     # Benes switch settings (one pass)
    products: np.ndarray     # k expected products (0 where invalid)
    product_valid: np.ndarray
    cycle: int = -1          # table row of this vector (set by the driver)
    expect: dict = field(default_factory=dict)  # FAN slot -> (sum, vecID) expected L cycles later


@dataclass
class FoldPlan:
    """One Flex-DPE fold: the stationary words, vecIDs, the row of each cluster, the streamed vectors."""

    stationary: np.ndarray   # k words (0 past the mapped ones)
    mapped: int
    vec_ids: np.ndarray      # k
    cluster_rows: list[int]  # row of S reduced by vecID i
    load_settings: np.ndarray
    steps: list[StreamStep]


@dataclass
class GemmPlan:
    A: np.ndarray
    B: np.ndarray
    k: int
    model: SigmaCycles
    mapping: GemmMap
    folds: list[FoldPlan]
    start: int = 0
    cycles: int = 0

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.A.shape[0], self.B.shape[1], self.A.shape[1]


def _check_operands(params, A: np.ndarray, B: np.ndarray) -> None:
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[0] or 0 in A.shape or 0 in B.shape:
        raise ValueError(f"GEMM operands have shapes A{A.shape} and B{B.shape}; "
                         "allowed: A[M,K] and B[K,N] with M, N, K >= 1")
    fp = is_fp_params(params)
    lo, hi = operand_range(params.width, params.signed and not fp)
    for name, X in (("A", A), ("B", B)):
        if X.min() < lo or X.max() > hi:
            kind = (f"{params.dtype} bit patterns" if fp else
                    f"{'signed' if params.signed else 'unsigned'} {params.width}-bit")
            raise ValueError(f"operand {name} has values in {int(X.min())}..{int(X.max())}; allowed for "
                             f"{kind}: {lo}..{hi}")


def is_fp_params(params) -> bool:
    return getattr(params, "dtype", "int") != "int"


def plan_gemm(params, A, B, stationary: str = "auto", *, max_cycles: int | None = None) -> GemmPlan:
    """The sparsity controller: everything the Flex-DPE needs, fold by fold, for ``A @ B``. ``max_cycles``: plan
    only the folds and streamed vectors of the first that many input cycles (a load cycle per fold, a cycle per
    vector), which are the same as the whole plan's (an activity stimulus needs no more)."""
    A, B = np.asarray(A, dtype=np.int64), np.asarray(B, dtype=np.int64)
    _check_operands(params, A, B)
    k = params.k
    dtype = getattr(params, "dtype", "int")
    a_bm, b_bm = BitmapMatrix.from_dense(A, dtype), BitmapMatrix.from_dense(B, dtype)
    model, gm = sigma_cycles(a_bm.bitmap, b_bm.bitmap, k, stationary, params.benes_pipeline_every, with_map=True,
                             mul_stages=params.mul_stages, add_stages=params.add_stages)
    S_bm, T_bm = (b_bm.T, a_bm) if gm.stationary == "weights" else (a_bm, b_bm.T)
    ident = route_permutation(np.arange(k))
    folds = []
    budget = float("inf") if max_cycles is None else max_cycles
    for fm in gm.folds:
        if budget <= 0:
            break
        budget -= 1                                                  # the fold's load cycle
        u = len(fm.rows)
        stat = np.zeros(k, dtype=np.int64)
        stat[:u] = S_bm.value_at(fm.rows, fm.cols)
        # vecIDs: cluster ordinal of each multiplier's row; the unmapped tail is one more cluster
        new = np.ones(u, dtype=bool)
        new[1:] = fm.rows[1:] != fm.rows[:-1]
        ordinal = np.cumsum(new) - 1
        n_clusters = int(ordinal[-1]) + 1
        vec_ids = np.full(k, n_clusters, dtype=np.int64)
        vec_ids[:u] = ordinal
        cluster_rows = [int(r) for r in fm.rows[new]]
        steps = []
        for v in fm.vectors.tolist():
            if budget <= 0:
                break
            budget -= 1
            tv = T_bm.value_at(np.full(u, v), fm.cols)           # streamed word each multiplier needs
            need = tv != 0
            words = np.zeros(k, dtype=np.int64)
            valid = np.zeros(k, dtype=bool)
            head = np.zeros(k, dtype=bool)
            sources = np.full(k, -1, dtype=np.int64)
            port = 0
            for c in np.unique(fm.cols[need]).tolist():           # SRC table: one source per needed column
                dests = np.flatnonzero(need & (fm.cols == c))       # DEST: multipliers holding column c
                words[port], valid[port], head[port] = tv[dests[0]], True, True
                sources[dests] = port + np.arange(len(dests))       # counter: copy i -> i-th destination
                port += len(dests)
            if port < k:
                head[port] = True                                    # ports past the copies carry no word
            products = np.zeros(k, dtype=np.int64)
            if dtype == "int":
                products[:u] = stat[:u] * tv
            else:    # fp32 products of the pairs that meet (only they are multiplied); an absent one is +0.0
                products[:u][need] = fp_mul(stat[:u][need], np.broadcast_to(tv, need.shape)[need], dtype)
            pvalid = np.zeros(k, dtype=bool)
            pvalid[:u] = need
            steps.append(StreamStep(v, words, valid, head, sources, route_permutation(sources), products, pvalid))
        folds.append(FoldPlan(stat, u, vec_ids, cluster_rows, ident, steps))
    return GemmPlan(A, B, k, model, gm, folds, cycles=model.cycles)
