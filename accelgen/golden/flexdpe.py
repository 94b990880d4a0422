"""SIGMA Flex-DPE mapping and cycle model (numpy only: ``ppa`` imports it, no Amaranth/cocotb).

This module *is* the schedule: :func:`map_gemm` decides which stationary
non-zero sits in which multiplier in which fold and which streamed vectors
each fold needs, and the cosim driver (:mod:`accelgen.cosim.flexdpe`) builds its
cycle table from that mapping; so a passing cosim proves these cycle counts on
the emitted Verilog.

Orientation. ``C[M,N] = A[M,K] @ B[K,N]``. The *stationary* matrix ``S`` has
``R`` rows of length ``K`` and the *streaming* matrix ``T`` has ``V`` vectors of
length ``K``; ``O[r, v] = sum_k S[r,k] T[v,k]``.

* ``stationary="weights"``: ``S = B^T`` (``R = N``), ``T = A`` (``V = M``), ``C = O^T``.
* ``stationary="inputs"``: ``S = A`` (``R = M``), ``T = B^T`` (``V = N``), ``C = O``.

Mapping (SIGMA's walkthrough). ``useful_k = OR over the streaming vectors of
T's bitmap`` (a ``K``-bit vector: some streamed word at ``k`` is non-zero);
``useful = S_bitmap AND useful_k`` (only stationary non-zeros that will meet a
non-zero are mapped). The ``U`` useful values are laid into multipliers in
row-major order, ``k`` per fold (a row may straddle two folds; its partial sums
are added by the host). A Flex-DPU that held everything at once would need
``ceil(U / k)`` Flex-DPEs; one Flex-DPE runs the folds one after the other.
Fold ``f`` streams only the vectors ``v`` that have a non-zero at one of the
fold's ``K`` indices (otherwise every product would be zero).

Cycles (one Flex-DPE of ``k`` multipliers):

* loading: 1 cycle per fold (``k`` stationary words enter in parallel through the Benes),
* streaming: 1 cycle per streamed vector per fold,
* add: the pipeline latency ``L = log2 k + 4 + benes_latency + mul_stages + log2 k * add_stages``
  after the last streamed vector (reduction tail; loads and streams are back to back),
  ``benes_latency = (2 log2 k - 1) // benes_pipeline_every`` (0 without Benes
  registers), ``mul_stages`` the registers inside each multiplier and ``add_stages``
  the registers inside each FAN adder (passed once in each of the ``log2 k`` FAN levels).

``cycles = loading + streaming + add`` (0 when no product is effectual).
Metrics as SIGMA defines them, normalized by the ``k`` multipliers:
``stationary_utilization = U / (k * folds)``; ``compute_efficiency = useful
MACs / (k * streaming)``; ``overall_efficiency = useful MACs / (k * cycles)``,
where useful MACs count the products whose operands are both non-zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..params.base import MAX_STAGES
from ..params.flexdpe import flexdpe_latency as _declared_latency
from .fan import fan_order_sum
from .fp import fp_add, fp_mul, is_zero

__all__ = ["STATIONARY", "MAX_MUL_STAGES", "MAX_ADD_STAGES", "FoldMap", "GemmMap", "SigmaCycles", "flexdpe_latency",
           "map_gemm", "sigma_cycles", "orient", "random_bitmap", "flexdpe_fp_reference"]

STATIONARY = ("weights", "inputs")


#: most register stages inside a multiplier / a FAN adder (the bound of ``accelgen.params.base.MulStages`` /
#: ``AddStages``)
MAX_MUL_STAGES = MAX_STAGES
MAX_ADD_STAGES = MAX_STAGES


def flexdpe_latency(k: int, benes_pipeline_every: int = 0, mul_stages: int = 0, add_stages: int = 0) -> int:
    """Pipeline latency of a Flex-DPE:
    ``log2 k + 4 + (2 log2 k - 1) // benes_pipeline_every + mul_stages + log2 k * add_stages``
    (input, copy, multiplier-operand and FAN-input registers, ``log2 k`` FAN levels, the Benes pipeline
    registers, the registers inside each multiplier and those inside the adders of each FAN level)."""
    _check_k(k)
    _check_stages("mul_stages", mul_stages, MAX_MUL_STAGES)
    _check_stages("add_stages", add_stages, MAX_ADD_STAGES)
    return _declared_latency(int(k), benes_pipeline_every, int(mul_stages), int(add_stages))


def _check_stages(name: str, value, most: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= most:
        raise ValueError(f"{name}={value!r} is not allowed; expected an integer in 0..{most}")


def _check_k(k) -> None:
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"k={k!r} is not an integer")
    if k < 2 or k & (k - 1):
        raise ValueError(f"k={k!r} is not allowed; expected a power of two >= 2")


def orient(A, B, stationary: str):
    """``(S, T)`` for a stationary choice: row ``r`` of ``S`` and vector ``v`` of ``T`` are both length ``K``."""
    if stationary == "weights":
        return np.asarray(B).T, np.asarray(A)
    if stationary == "inputs":
        return np.asarray(A), np.asarray(B).T
    raise ValueError(f"stationary={stationary!r} is not allowed; allowed: {', '.join(STATIONARY)}")


@dataclass(frozen=True)
class FoldMap:
    """One fold: multiplier ``j`` holds ``S[rows[j], cols[j]]`` (``j < len(rows)``); ``vectors`` are streamed."""

    rows: np.ndarray
    cols: np.ndarray
    vectors: np.ndarray


@dataclass(frozen=True)
class GemmMap:
    stationary: str
    k: int
    folds: list[FoldMap]
    useful_k: np.ndarray      # K bools: OR over the streaming bitmap
    useful: np.ndarray        # R x K bools: S bitmap AND useful_k
    useful_macs: int


def _check_bitmaps(a_bitmap, b_bitmap):
    a, b = np.asarray(a_bitmap, dtype=bool), np.asarray(b_bitmap, dtype=bool)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0] or 0 in a.shape or 0 in b.shape:
        raise ValueError(f"bitmaps have shapes A{a.shape} and B{b.shape}; allowed: A[M,K] and B[K,N] "
                         "with M, N, K >= 1")
    return a, b


def map_gemm(a_bitmap, b_bitmap, k: int, stationary: str) -> GemmMap:
    """SIGMA's mapping of a GEMM with operand bitmaps ``a_bitmap[M,K]``, ``b_bitmap[K,N]`` (see module doc)."""
    _check_k(k)
    a, b = _check_bitmaps(a_bitmap, b_bitmap)
    S, T = orient(a, b, stationary)
    useful_k = T.any(axis=0)
    useful = S & useful_k[None, :]
    rows, cols = np.nonzero(useful)          # row-major order
    useful_macs = int(S.sum(axis=0).astype(np.int64) @ T.sum(axis=0).astype(np.int64))
    folds = []
    for f0 in range(0, len(rows), k):
        r, c = rows[f0:f0 + k], cols[f0:f0 + k]
        kmask = np.zeros(S.shape[1], dtype=bool)
        kmask[c] = True
        vectors = np.flatnonzero(T[:, kmask].any(axis=1))
        folds.append(FoldMap(r, c, vectors))
    return GemmMap(stationary, k, folds, useful_k, useful, useful_macs)


@dataclass(frozen=True)
class SigmaCycles:
    """Cycle breakdown and SIGMA's efficiency metrics of one GEMM on one Flex-DPE."""

    stationary: str
    k: int
    M: int
    N: int
    K: int
    folds: int
    flexdpes: int              # Flex-DPU size that would hold all useful stationary values at once
    mapped: int                # useful stationary values (U)
    load_cycles: int
    stream_cycles: int
    add_cycles: int
    cycles: int
    useful_macs: int
    stationary_utilization: float
    compute_efficiency: float
    overall_efficiency: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _cycles_from_map(gm: GemmMap, shape, latency: int) -> SigmaCycles:
    M, N, K = shape
    k = gm.k
    folds = len(gm.folds)
    mapped = int(gm.useful.sum())
    stream = int(sum(len(f.vectors) for f in gm.folds))
    add = latency if folds else 0
    total = folds + stream + add
    return SigmaCycles(
        stationary=gm.stationary, k=k, M=M, N=N, K=K, folds=folds, flexdpes=-(-mapped // k), mapped=mapped,
        load_cycles=folds, stream_cycles=stream, add_cycles=add, cycles=total, useful_macs=gm.useful_macs,
        stationary_utilization=mapped / (k * folds) if folds else 0.0,
        compute_efficiency=gm.useful_macs / (k * stream) if stream else 0.0,
        overall_efficiency=gm.useful_macs / (k * total) if total else 0.0)


def sigma_cycles(a_bitmap, b_bitmap, k: int, stationary: str = "auto", benes_pipeline_every: int = 0,
                 with_map: bool = False, *, mul_stages: int = 0, add_stages: int = 0):
    """Cycles and efficiencies of ``A @ B`` (given by their non-zero bitmaps) on a ``k``-multiplier Flex-DPE
    (Benes registers every ``benes_pipeline_every`` stages, ``mul_stages`` registers in each multiplier,
    ``add_stages`` in each FAN adder; only the add/drain cycles depend on them).

    ``stationary="auto"`` evaluates both choices and returns the faster (ties: weights).
    With ``with_map`` returns ``(SigmaCycles, GemmMap)``.
    """
    if stationary not in (*STATIONARY, "auto"):
        raise ValueError(f"stationary={stationary!r} is not allowed; allowed: weights, inputs, auto")
    a, b = _check_bitmaps(a_bitmap, b_bitmap)
    shape = (a.shape[0], b.shape[1], a.shape[1])
    latency = flexdpe_latency(k, benes_pipeline_every, mul_stages, add_stages)
    best = None
    for choice in (STATIONARY if stationary == "auto" else (stationary,)):
        gm = map_gemm(a, b, k, choice)
        cyc = _cycles_from_map(gm, shape, latency)
        if best is None or cyc.cycles < best[0].cycles:
            best = (cyc, gm)
    return best if with_map else best[0]


def random_bitmap(shape, sparsity: float, rng: np.random.Generator) -> np.ndarray:
    """A bitmap with each entry non-zero with probability ``1 - sparsity``."""
    if not 0.0 <= sparsity <= 1.0:
        raise ValueError(f"sparsity={sparsity!r} is not allowed; expected a fraction in 0..1")
    return rng.random(shape) >= sparsity


def flexdpe_fp_reference(A_bits, B_bits, gm: GemmMap, dtype: str) -> np.ndarray:
    """Bit-exact floating-point ``C = A @ B`` of a Flex-DPE that runs the mapping ``gm``.

    ``A_bits`` / ``B_bits`` hold ``dtype`` (fp16 / bf16 / fp32) bit patterns; ``C`` holds fp32 bit
    patterns (``uint32``). The order of operations is the Flex-DPE's specification:

    * a zero is any pattern with zero exponent and fraction (+0, -0); only pairs of non-zeros are
      multiplied, each product is the fp32 RNE product (:func:`~accelgen.golden.fp.fp_mul`);
    * in each fold, row ``r`` of ``S`` occupies the consecutive multipliers ``a..b`` (its FAN
      cluster); for streamed vector ``v`` the cluster's products (+0.0 where ``T[v, c]`` is zero)
      are summed in the FAN's association order over the absolute positions ``a..b``
      (:func:`~accelgen.golden.fan.fan_order_sum`); no partial when none of them is non-zero;
    * the partials of one ``O[r, v]`` from several folds are added in fold order, left to right in
      fp32 (the first taken as it is); an entry without any partial is +0.0.
    """

    S, T = orient(np.asarray(A_bits, dtype=np.int64), np.asarray(B_bits, dtype=np.int64), gm.stationary)
    R, V = S.shape[0], T.shape[0]
    O = np.zeros((R, V), dtype=np.uint32)
    have = np.zeros((R, V), dtype=bool)
    add = lambda x, y: fp_add(x, y)  # noqa: E731  (vectorized over the V streamed vectors)
    for fm in gm.folds:
        rows, cols = np.asarray(fm.rows), np.asarray(fm.cols)
        a = 0
        while a < len(rows):
            b = a
            while b + 1 < len(rows) and rows[b + 1] == rows[a]:
                b += 1
            r = int(rows[a])
            t = T[:, cols[a:b + 1]]                                   # V x (b-a+1) streamed words
            need = ~is_zero(t, dtype)
            # only the non-zero pairs are multiplied (what the fp recording sees is what the multipliers do)
            prods = np.zeros(t.shape, dtype=np.uint32)
            prods[need] = fp_mul(np.broadcast_to(S[r, cols[a:b + 1]], t.shape)[need], t[need], dtype)
            values = {a + j: prods[:, j].astype(np.uint32) for j in range(b - a + 1)}
            part = fan_order_sum(values, a, b, add)
            got = need.any(axis=1)
            O[r] = np.where(got, np.where(have[r], fp_add(O[r], part), part), O[r])
            have[r] |= got
            a = b + 1
    return O.T if gm.stationary == "weights" else O
