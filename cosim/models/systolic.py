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
