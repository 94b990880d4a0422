"""Closed-form cycle model of the systolic arrays, and their golden GEMM.

numpy only (no Amaranth, no cocotb): the PPA estimator imports this module, and
the cosim driver's schedule is built from the same formulas, so the cycle counts
that cosim proves on the emitted Verilog are the ones the estimator uses.

Cycle accounting (one GEMM ``C[M,N] = A[M,K] @ B[K,N]`` on ``rows x cols`` PEs;
all functions accept numpy arrays for ``M, N, K`` and broadcast). ``mul_stages`` (``m``) and
``add_stages`` (``s``) are the register stages inside each PE's multiplier and adder; ``h = s + 1``
is the cycles a partial sum spends in a PE, so the host skews row ``r``'s stream by ``r * h``.
With ``sum_group = G`` (WS/IS) a PE is a group of ``G`` rows summed by one adder: the rows of group ``i``
take their activations in the same cycle, ``i * h`` after group 0's, and a partial sum passes ``P = rows / G``
PEs; below, ``P = rows`` when ``G = 1``, and ``rows`` stays the length of the weight chain (the load).

Weight-stationary, ``weight_load="shift"``
    ``K`` maps to rows, ``N`` to columns: ``folds = ceil(K/rows) * ceil(N/cols)``.
    Each fold loads its weights (``rows`` cycles), streams the ``M`` activation
    rows (``M`` cycles) and fills the skew (``(P-1)*h + cols - 1`` cycles); the
    next load starts in the cycle of the last product's multiplier input:
    ``fold_cycles = rows + M + (P-1)*h + cols - 2``. The last result leaves
    ``h + m + 1`` cycles after the last fold's period: ``cycles = folds *
    fold_cycles + h + m + 1`` (with ``m = s = 0``, ``G = 1``: ``folds * (M + 2*rows + cols - 3)
    + 2``). Partial sums of K-folds are accumulated by the host.
Weight-stationary, ``weight_load="double"`` (TPU-style)
    Each PE has a shadow weight register: the next fold's weights shift down the
    shadow chain (``rows`` cycles) while the current fold computes, and a swap bit
    that travels with the first activation of a fold (one cycle ahead of it)
    copies shadow to active weight in each PE as the wavefront passes. A fold's
    stream may follow the previous one directly; the shared shadow chain must not
    shift before the last PE of the previous fold has swapped, which bounds the
    period from below: ``fold_cycles = max(M, rows + (P-1)*h + cols - 1)``.
    The first load takes ``rows + 1`` cycles before the first stream:
    ``cycles = (folds-1) * fold_cycles + rows + 1 + P*h + m + cols + M - 1``.
Input-stationary (``dataflow="is"``)
    The weight-stationary array with the roles of the operands swapped: ``A``
    is held in the PEs (``K`` rows, ``M`` columns) and ``B`` streams (``N``
    steps), producing ``C`` transposed. Its cycles are those of the
    weight-stationary array for the GEMM ``(N, M, K)``.
Output-stationary
    ``M`` maps to rows, ``N`` to columns. With ``s = 0`` each fold streams ``K``
    steps and fills the skew (``rows + cols - 2``); its sums are captured in the
    cycle the next fold starts (``m`` cycles later with ``m`` multiplier stages) and drain
    (``rows`` cycles) while the next fold streams: ``fold_cycles = K + rows + cols - 2``,
    ``cycles = folds * fold_cycles + rows + 1 + m``.
    With ``s > 0`` each accumulator loop is ``L = s + 1`` cycles long and a PE
    keeps ``L`` interleaved sums (C-slow; see :class:`accelgen.rtl.mac.MAC`): a
    fold covers ``rows * L`` rows of ``C`` (row ``m0 + j*rows + r`` is thread ``j``
    of PE row ``r``), streams ``L*K`` cycles (``B[k]`` repeated for the ``L``
    threads), and drains with ``L`` captures ``D`` cycles apart (``D``: the least
    ``>= rows`` with ``D mod L = 1``, so that successive captures see every
    thread of every PE), all before the next fold's first sum: ``fold_cycles =
    L*K + rows + cols - 2 + (L-1)*D``, ``cycles = folds * fold_cycles + rows + 1 + m + s``
    with ``folds = ceil(M/(rows*L)) * ceil(N/cols)``. (Overlapping the captures
    with the next fold's stream would hide the ``(L-1)*D`` term; not built.)

Utilization is ``M*N*K / (rows * cols * cycles)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..fpformat import FP_DTYPES
from ..params.systolic import SUM_GROUPS, systolic_timing_problems
from .fp import canonical, float32_bits, fp_sum, from_float32, is_recording, record_add, record_mul, to_float32

DATAFLOWS = ("ws", "os", "is")
WEIGHT_LOADS = ("shift", "double")
# SUM_GROUPS: WS/IS rows whose products one multi-operand adder sums (:func:`~accelgen.golden.fp.fp_sum`)


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


def os_capture_spacing(rows: int, add_stages: int) -> int:
    """Cycles between the ``add_stages + 1`` captures of an output-stationary fold: the least
    ``D >= rows`` (the drain chain is empty again) with ``D mod L == 1`` (each capture meets the next
    thread of every PE)."""
    threads = add_stages + 1
    spacing = rows
    while threads > 1 and spacing % threads != 1:
        spacing += 1
    return spacing


def systolic_cycles(rows: int, cols: int, M, N, K, dataflow: str = "ws", *, mul_stages: int = 0,
                    add_stages: int = 0, weight_load: str = "shift", sum_group: int = 1) -> SystolicCycles:
    """Exact cycle count of ``C[M,N] = A[M,K] @ B[K,N]`` on a ``rows x cols`` array (see module doc);
    ``sum_group``: WS/IS rows per multi-operand adder (a partial sum passes ``rows / sum_group`` PEs)."""
    if dataflow not in DATAFLOWS:
        raise ValueError(f"dataflow={dataflow!r} is not allowed; allowed: {', '.join(DATAFLOWS)}")
    if weight_load not in WEIGHT_LOADS:
        raise ValueError(f"weight_load={weight_load!r} is not allowed; allowed: {', '.join(WEIGHT_LOADS)}")
    # the array's timing rules, as its parameter schema declares them (the cycle model does not depend on dtype)
    group = sum_group if sum_group in SUM_GROUPS else 1   # any other value is rejected below
    broken = {problem.split(":")[0] for problem in systolic_timing_problems(dataflow, rows, weight_load, group)}
    if "weight_load" in broken:
        raise ValueError("weight_load='double' is not allowed with dataflow='os'; allowed with 'ws' or 'is'")
    if rows < 1 or cols < 1:
        raise ValueError(f"array size {rows}x{cols} is not allowed; rows and cols must be >= 1")
    for name, v in (("mul_stages", mul_stages), ("add_stages", add_stages)):
        if not 0 <= v <= 3:
            raise ValueError(f"{name}={v!r} is not allowed; allowed: an integer in 0..3")
    if sum_group not in SUM_GROUPS or "sum_group" in broken:
        raise ValueError(f"sum_group={sum_group!r} is not allowed with rows={rows}, dataflow={dataflow!r}; allowed: "
                         "1, or with 'ws' or 'is' 2, 4 or 8 dividing rows")
    M, N, K = (np.asarray(x, dtype=np.int64) for x in (M, N, K))
    if np.any(M < 1) or np.any(N < 1) or np.any(K < 1):
        raise ValueError("GEMM dimensions M, N, K must all be >= 1")
    if dataflow == "is":  # the WS array on the transposed GEMM: A stationary, B streamed
        M, N = N, M
    hop = add_stages + 1
    if dataflow in ("ws", "is"):
        stages = rows // sum_group   # the PEs a partial sum passes: its own cycles of skew
        skew = (stages - 1) * hop + cols - 1
        folds = _ceil_div(K, rows) * _ceil_div(N, cols)
        stream = M
        if weight_load == "shift":
            load = np.full_like(M, rows)
            fold_cycles = load + stream + skew - 1
            tail = np.full_like(M, hop + mul_stages + 1)
        else:
            load = np.zeros_like(M)  # hidden behind the previous fold (the first load is in the tail)
            fold_cycles = np.maximum(stream, rows + skew)
            tail = rows + 1 + stages * hop + mul_stages + cols + stream - 1 - fold_cycles
    else:
        threads = add_stages + 1
        skew = rows + cols - 2
        folds = _ceil_div(M, rows * threads) * _ceil_div(N, cols)
        load, stream = np.zeros_like(M), threads * K
        fold_cycles = stream + skew + (threads - 1) * os_capture_spacing(rows, add_stages)
        tail = np.full_like(M, rows + 1 + mul_stages + add_stages)
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
#   WS, sum_group = G > 1: per K-fold, psum = +0.0, then psum = fp_sum(psum, p[iG], ..., p[iG + G - 1]) for the
#               groups i top to bottom, one rounding each (golden.fp.fp_sum, the multi-operand adder); the
#               padded rows' +0 products are operands too; the host combines the folds as above;
#   OS          acc = +0.0, then acc = fp32(acc + p[k]) for k = 0..K-1 (no host combination).
# numpy float32 arithmetic is IEEE binary32 with round to nearest even and subnormals, i.e. exactly
# the hardware's adder and multiplier; every NaN is reported as the canonical 0x7FC00000.

def _f32(bits, dtype: str, flush_subnormals: bool = False) -> np.ndarray:
    return to_float32(np.asarray(bits), dtype, flush_subnormals)


def _unflushed(A_bits, B_bits, dtype: str, flush_subnormals: bool) -> tuple | None:
    """The operands before DAZ, for a recording to report as the multipliers' inputs (None: not flushing, or no
    recording: the converted operands are the same)."""
    if not (flush_subnormals and is_recording()):
        return None
    return _f32(A_bits, dtype), _f32(B_bits, dtype)


def _pad_k(A: np.ndarray, B: np.ndarray, pad: int) -> tuple[np.ndarray, np.ndarray]:
    """``A[M, K]`` and ``B[K, N]`` with ``pad`` more zero columns / rows (the last fold's rows past K)."""
    return (np.concatenate([A, np.zeros((A.shape[0], pad), np.float32)], axis=1),
            np.concatenate([B, np.zeros((pad, B.shape[1]), np.float32)], axis=0))


def _finish(x: np.ndarray, flush_subnormals: bool) -> np.ndarray:
    """Rounded float32 results, with ``flush_subnormals`` FTZ'd: a subnormal becomes a zero of its sign."""
    return to_float32(float32_bits(x), "fp32", flush_subnormals=True) if flush_subnormals else x


def _canonical_bits(x: np.ndarray) -> np.ndarray:
    """float32 values -> uint32 bit patterns, every NaN as ``CANONICAL_NAN`` (0x7FC00000)."""
    return canonical(float32_bits(x))


def fp_dot_chain(A32: np.ndarray, B32: np.ndarray, dtype: str = "fp32", flush_subnormals: bool = False,
                 raw: tuple | None = None) -> np.ndarray:
    """``C[m, n]``: ``+0.0`` then ``acc = fp32(acc + fp32(A[m, k] * B[k, n]))`` for ``k`` in order (float32;
    ``dtype``: the operands' format, for an active :func:`~accelgen.golden.fp.recording`). With
    ``flush_subnormals`` every product and sum that is subnormal after rounding becomes a zero of its sign (the
    operands were flushed when they were converted: DAZ). ``raw``: the operands before DAZ, which a recording
    reports as the multipliers' inputs (default: ``A32``, ``B32``)."""
    M, K = A32.shape
    acc = np.zeros((M, B32.shape[1]), dtype=np.float32)
    record = is_recording()
    A_in, B_in = raw or (A32, B32)
    with np.errstate(all="ignore"):
        for k in range(K):
            p = _finish(A32[:, k, None] * B32[None, k, :], flush_subnormals)
            new = _finish(acc + p, flush_subnormals)
            if record:
                a, b = np.broadcast_arrays(A_in[:, k, None], B_in[None, k, :])
                record_mul(from_float32(a, dtype), from_float32(b, dtype), _canonical_bits(p), dtype, flush_subnormals)
                record_add(_canonical_bits(acc), _canonical_bits(p), _canonical_bits(new), flush_subnormals)
            acc = new
    return acc


def fp_group_chain(A32: np.ndarray, B32: np.ndarray, dtype: str, sum_group: int,
                   flush_subnormals: bool = False, raw: tuple | None = None) -> np.ndarray:
    """``C[m, n]`` (fp32 bits) of the grouped column: ``+0.0``, then for each group of ``sum_group`` rows
    ``acc = fp_sum(acc, p[kG], ..., p[kG + G - 1])`` in group order, ``p[k] = fp32(A[m, k] * B[k, n])``, one
    rounding per group (:func:`~accelgen.golden.fp.fp_sum`; ``K`` a multiple of ``sum_group``). ``raw``: as
    :func:`fp_dot_chain`'s."""
    M, K = A32.shape
    acc = np.zeros((M, B32.shape[1]), dtype=np.uint32)
    record = is_recording()
    A_in, B_in = raw or (A32, B32)
    with np.errstate(all="ignore"):
        for k0 in range(0, K, sum_group):
            products = []
            for k in range(k0, k0 + sum_group):
                p = _canonical_bits(_finish(A32[:, k, None] * B32[None, k, :], flush_subnormals))
                if record:
                    a, b = np.broadcast_arrays(A_in[:, k, None], B_in[None, k, :])
                    record_mul(from_float32(a, dtype), from_float32(b, dtype), p, dtype, flush_subnormals)
                products.append(p)
            acc = fp_sum([acc, *products], flush_subnormals)
    return acc


def fp_ws_fold(A_bits: np.ndarray, W_bits: np.ndarray, dtype: str, flush_subnormals: bool = False,
               sum_group: int = 1) -> np.ndarray:
    """One WS fold: the partial sums (fp32 bits, canonical NaN) leaving the bottom of the columns for
    activations ``A[M, rows]`` and stationary weights ``W[rows, cols]`` (already zero-padded); ``sum_group``
    rows per multi-operand adder."""
    f = flush_subnormals
    A32, W32 = _f32(A_bits, dtype, f), _f32(W_bits, dtype, f)
    raw = _unflushed(A_bits, W_bits, dtype, f)
    if sum_group > 1:
        return fp_group_chain(A32, W32, dtype, sum_group, f, raw)
    return _canonical_bits(fp_dot_chain(A32, W32, dtype, f, raw))


def fp_os_tile(A_bits: np.ndarray, B_bits: np.ndarray, dtype: str, flush_subnormals: bool = False) -> np.ndarray:
    """One OS tile: every PE's accumulator (fp32 bits, canonical NaN) for ``A[rows, K]``, ``B[K, cols]``."""
    f = flush_subnormals
    return _canonical_bits(fp_dot_chain(_f32(A_bits, dtype, f), _f32(B_bits, dtype, f), dtype, f,
                                        _unflushed(A_bits, B_bits, dtype, f)))


def fp_combine_folds(parts: list[np.ndarray], flush_subnormals: bool = False) -> np.ndarray:
    """Host combination of WS K-fold partial sums (fp32 bits) in fold order: ``((p0 + p1) + p2) + ...`` (with
    ``flush_subnormals`` in the array's arithmetic: its sums are never subnormal, and neither is the host's)."""
    acc = np.asarray(parts[0], dtype=np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        for p in parts[1:]:
            new = _finish(acc + np.asarray(p, dtype=np.uint32).view(np.float32), flush_subnormals)
            record_add(_canonical_bits(acc), np.asarray(p, dtype=np.uint32), _canonical_bits(new), flush_subnormals)
            acc = new
    return _canonical_bits(acc)


def fp_gemm_reference(A_bits: np.ndarray, B_bits: np.ndarray, dtype: str, rows: int, dataflow: str,
                      flush_subnormals: bool = False, sum_group: int = 1) -> np.ndarray:
    """Golden ``C = A @ B`` (fp32 bit patterns, NaN canonical) of a ``dtype`` GEMM on an array with
    ``rows`` rows, in the array's association order (see above): WS folds K in chunks of ``rows`` and
    the host adds the chunks' sums in order; OS sums each output over k in order. (``cols`` and the
    M/N folds do not change any result.) ``flush_subnormals``: DAZ + FTZ in every operation. ``sum_group``
    (WS/IS): each chunk's rows are summed in groups of that many with one rounding each (:func:`fp_group_chain`)."""
    if dtype not in FP_DTYPES:
        raise ValueError(f"dtype={dtype!r} is not allowed; allowed: {', '.join(FP_DTYPES)}")
    if dataflow not in DATAFLOWS:
        raise ValueError(f"dataflow={dataflow!r} is not allowed; allowed: {', '.join(DATAFLOWS)}")
    f = flush_subnormals
    A32, B32 = _f32(A_bits, dtype, f), _f32(B_bits, dtype, f)
    raw = _unflushed(A_bits, B_bits, dtype, f)
    K = A32.shape[1]
    if dataflow == "os":
        return _canonical_bits(fp_dot_chain(A32, B32, dtype, f, raw))
    # the last fold's rows past K hold +0 weights and activations: their +0 products turn a chain's -0 into +0.
    # Only FTZ makes a -0 (a negative sum flushed); an IEEE chain from +0 is never -0, so it is the same either way.
    pad = -K % rows
    A32, B32 = _pad_k(A32, B32, pad)
    raw = raw and _pad_k(*raw, pad)
    K += pad

    def chunk(k0):
        return raw and (raw[0][:, k0:k0 + rows], raw[1][k0:k0 + rows])
    # WS, and IS (the WS order on the transposed GEMM: the same chains, products commute)
    if sum_group > 1:
        parts = [fp_group_chain(A32[:, k0:k0 + rows], B32[k0:k0 + rows], dtype, sum_group, f, chunk(k0))
                 for k0 in range(0, K, rows)]
    else:
        parts = [_canonical_bits(fp_dot_chain(A32[:, k0:k0 + rows], B32[k0:k0 + rows], dtype, f, chunk(k0)))
                 for k0 in range(0, K, rows)]
    return fp_combine_folds(parts, f)
