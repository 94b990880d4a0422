"""Closed-form cycle model of the systolic arrays, and their golden GEMM.

numpy only (no Amaranth, no cocotb): the PPA estimator imports this module, and
the cosim driver's schedule is built from the same formulas, so the cycle counts
that cosim proves on the emitted Verilog are the ones the estimator uses.

Cycle accounting (one GEMM ``C[M,N] = A[M,K] @ B[K,N]`` on ``rows x cols`` PEs;
all functions accept numpy arrays for ``M, N, K`` and broadcast):

Weight-stationary, ``weight_load="shift"``
    ``K`` maps to rows, ``N`` to columns: ``folds = ceil(K/rows) * ceil(N/cols)``.
    Each fold loads its weights (``rows`` cycles), streams the ``M`` activation
    rows (``M`` cycles) and fills/drains the skew (``rows + cols - 2`` cycles).
    Consecutive folds overlap by one cycle (the next load may start while the
    last product is being registered) and the last result needs one more cycle
    to appear: ``cycles = folds * (M + 2*rows + cols - 3) + 2``. Partial sums of
    K-folds are accumulated by the host.
Output-stationary
    ``M`` maps to rows, ``N`` to columns: ``folds = ceil(M/rows) * ceil(N/cols)``.
    Each fold streams ``K`` steps and fills the skew (``rows + cols - 2``); its
    sums are captured in the cycle the next fold starts, and drain (``rows``
    cycles) while the next fold streams: ``cycles = folds * (K + rows + cols - 2)
    + rows + 1``.

Utilization is ``M*N*K / (rows * cols * cycles)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..fpformat import FP_DTYPES
from .fp import canonical, float32_bits, to_float32

DATAFLOWS = ("ws", "os")


def _ceil_div(a, b):
    return -(-np.asarray(a) // b)


@dataclass(frozen=True)
class SystolicCycles:
    """Cycle breakdown of one GEMM on one array (fields are ints or numpy arrays)."""

    dataflow: str
    rows: int
    cols: int
    folds: object
    fold_cycles: object   # cycles between the starts of consecutive folds
    load_cycles: object   # per fold (WS weight load; 0 for OS)
    stream_cycles: object  # per fold
    skew_cycles: object   # per fold: fill + drain of the skewed wavefront
    tail_cycles: object   # once, after the last fold
    cycles: object        # total
    macs: object          # useful multiply-accumulates, M*N*K
    utilization: object   # macs / (rows * cols * cycles)


def systolic_cycles(rows: int, cols: int, M, N, K, dataflow: str = "ws") -> SystolicCycles:
    """Exact cycle count of ``C[M,N] = A[M,K] @ B[K,N]`` on a ``rows x cols`` array (see module doc)."""
    if dataflow not in DATAFLOWS:
        raise ValueError(f"dataflow={dataflow!r} is not allowed; allowed: {', '.join(DATAFLOWS)}")
    if rows < 1 or cols < 1:
        raise ValueError(f"array size {rows}x{cols} is not allowed; rows and cols must be >= 1")
    M, N, K = (np.asarray(x, dtype=np.int64) for x in (M, N, K))
    if np.any(M < 1) or np.any(N < 1) or np.any(K < 1):
        raise ValueError("GEMM dimensions M, N, K must all be >= 1")
    skew = rows + cols - 2
    if dataflow == "ws":
        folds = _ceil_div(K, rows) * _ceil_div(N, cols)
        load, stream = np.full_like(M, rows), M
        fold_cycles = load + stream + skew - 1
        tail = np.full_like(M, 2)
    else:
        folds = _ceil_div(M, rows) * _ceil_div(N, cols)
        load, stream = np.zeros_like(M), K
        fold_cycles = stream + skew
        tail = np.full_like(M, rows + 1)
    cycles = folds * fold_cycles + tail
    macs = M * N * K
    util = macs / (rows * cols * cycles)

    def out(x):
        return x.item() if np.ndim(x) == 0 else x

    return SystolicCycles(dataflow, rows, cols, out(folds), out(fold_cycles), out(load), out(stream),
                          out(np.full_like(M, skew)), out(tail), out(cycles), out(macs), out(util))


def required_acc_width(a_width: int, b_width: int, signed: bool, K: int) -> int:
    """Smallest accumulator width that holds any K-long dot product of such operands exactly."""
    if signed:
        a_lo, a_hi = -(1 << (a_width - 1)), (1 << (a_width - 1)) - 1
        b_lo, b_hi = -(1 << (b_width - 1)), (1 << (b_width - 1)) - 1
    else:
        a_lo, a_hi, b_lo, b_hi = 0, (1 << a_width) - 1, 0, (1 << b_width) - 1
    prods = [x * y for x in (a_lo, a_hi) for y in (b_lo, b_hi)]
    lo, hi = K * min(prods), K * max(prods)
    if signed:
        width = 1
        while not (-(1 << (width - 1)) <= lo and hi <= (1 << (width - 1)) - 1):
            width += 1
        return width
    return max(1, int(hi).bit_length())


def wrap_array(x: np.ndarray, width: int, signed: bool) -> np.ndarray:
    """Reduce an ``object`` or int64 array of ints modulo ``2**width`` (two's complement if signed)."""
    mod = 1 << width
    out = np.array([int(v) % mod for v in np.ravel(x)], dtype=object).reshape(np.shape(x))
    if signed:
        half = 1 << (width - 1)
        out = np.array([v - mod if v >= half else v for v in np.ravel(out)], dtype=object).reshape(np.shape(x))
    return out


def fold_partial_sums(A: np.ndarray, B: np.ndarray, k0: int, k1: int, acc_width: int, signed: bool) -> np.ndarray:
    """Exact ``A[:, k0:k1] @ B[k0:k1, :]`` wrapped to ``acc_width`` (what one fold's hardware produces)."""
    part = A[:, k0:k1].astype(object) @ B[k0:k1, :].astype(object)
    return wrap_array(part, acc_width, signed)


# --------------------------------------------------------------------------- floating-point golden GEMM
#
# Association order (the hardware's, documented in rtl/systolic.py and cosim/systolic.py):
#   products    p = fp32_RNE(a * b) of the operands widened exactly to fp32 (exact for fp16/bf16);
#   WS          per K-fold of ``rows`` rows: psum = +0.0, then psum = fp32(psum + p[r]) for r top to
#               bottom (rows padded with zero operands add fp32(+0 * +0) = +0.0, which leaves every
#               chain value unchanged: a chain that starts at +0.0 is never -0.0); the host combines
#               the folds of one output in fold (k) order: C = ((fold_0 + fold_1) + fold_2) + ...;
#   OS          acc = +0.0, then acc = fp32(acc + p[k]) for k = 0..K-1 (no host combination).
# numpy float32 arithmetic is IEEE binary32 with round to nearest even and subnormals, i.e. exactly
# the hardware's adder and multiplier; every NaN is reported as the canonical 0x7FC00000.

def _f32(bits, dtype: str) -> np.ndarray:
    return to_float32(np.asarray(bits), dtype)


def _canonical_bits(x: np.ndarray) -> np.ndarray:
    """float32 values -> uint32 bit patterns, every NaN as ``CANONICAL_NAN`` (0x7FC00000)."""
    return canonical(float32_bits(x))


def fp_dot_chain(A32: np.ndarray, B32: np.ndarray) -> np.ndarray:
    """``C[m, n]``: ``+0.0`` then ``acc = fp32(acc + fp32(A[m, k] * B[k, n]))`` for ``k`` in order (float32)."""
    M, K = A32.shape
    acc = np.zeros((M, B32.shape[1]), dtype=np.float32)
    with np.errstate(all="ignore"):
        for k in range(K):
            acc = acc + A32[:, k, None] * B32[None, k, :]
    return acc


def fp_ws_fold(A_bits: np.ndarray, W_bits: np.ndarray, dtype: str) -> np.ndarray:
    """One WS fold: the partial sums (fp32 bits, canonical NaN) leaving the bottom of the columns for
    activations ``A[M, rows]`` and stationary weights ``W[rows, cols]`` (already zero-padded)."""
    return _canonical_bits(fp_dot_chain(_f32(A_bits, dtype), _f32(W_bits, dtype)))


def fp_os_tile(A_bits: np.ndarray, B_bits: np.ndarray, dtype: str) -> np.ndarray:
    """One OS tile: every PE's accumulator (fp32 bits, canonical NaN) for ``A[rows, K]``, ``B[K, cols]``."""
    return _canonical_bits(fp_dot_chain(_f32(A_bits, dtype), _f32(B_bits, dtype)))


def fp_combine_folds(parts: list[np.ndarray]) -> np.ndarray:
    """Host combination of WS K-fold partial sums (fp32 bits) in fold order: ``((p0 + p1) + p2) + ...``."""
    acc = np.asarray(parts[0], dtype=np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        for p in parts[1:]:
            acc = acc + np.asarray(p, dtype=np.uint32).view(np.float32)
    return _canonical_bits(acc)


def fp_gemm_reference(A_bits: np.ndarray, B_bits: np.ndarray, dtype: str, rows: int, dataflow: str) -> np.ndarray:
    """Golden ``C = A @ B`` (fp32 bit patterns, NaN canonical) of a ``dtype`` GEMM on an array with
    ``rows`` rows, in the array's association order (see above): WS folds K in chunks of ``rows`` and
    the host adds the chunks' sums in order; OS sums each output over k in order. (``cols`` and the
    M/N folds do not change any result.)"""
    if dtype not in FP_DTYPES:
        raise ValueError(f"dtype={dtype!r} is not allowed; allowed: {', '.join(FP_DTYPES)}")
    if dataflow not in DATAFLOWS:
        raise ValueError(f"dataflow={dataflow!r} is not allowed; allowed: {', '.join(DATAFLOWS)}")
    A32, B32 = _f32(A_bits, dtype), _f32(B_bits, dtype)
    K = A32.shape[1]
    if dataflow == "os":
        return _canonical_bits(fp_dot_chain(A32, B32))
    parts = [_canonical_bits(fp_dot_chain(A32[:, k0:k0 + rows], B32[k0:k0 + rows])) for k0 in range(0, K, rows)]
    return fp_combine_folds(parts)
