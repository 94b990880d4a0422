"""The systolic arrays' GEMM schedule: tiling, skew, timing and de-skew of any GEMM on a ``rows x cols`` array.

:func:`gemm_schedule` maps any ``C[M,N] = A[M,K] @ B[K,N]`` onto a
``rows x cols`` array (folds over the stationary dimensions, zero padding at
ragged edges, skewed edge streams) and returns the cycle table the cosim
testbench drives, with the expected output in every cycle. Its timing is built
from :func:`accelgen.golden.systolic.systolic_cycles`, so a passing cosim
proves that model on the emitted Verilog. :func:`assemble` rebuilds ``C`` from
the outputs the simulator really produced (de-skew, host accumulation of
K-folds for WS) and measures each GEMM's cycle count from the ``out_valid`` bits.
The family's host (stimulus, check, coverage) is :mod:`accelgen.cosim.systolic`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ..golden.systolic import (fold_partial_sums, fp_combine_folds, fp_os_tile, fp_ws_fold, os_capture_spacing,
                               required_acc_width, systolic_cycles)
from .vectors import CycleTable, from_bits, operand_range


@dataclass
class GemmRun:
    """One GEMM inside a schedule: operands, where it starts, and where each fold's outputs appear."""

    A: np.ndarray
    B: np.ndarray
    start: int
    cycles: int
    #: per fold, in schedule order: ``(cycle, port_column, m, n)`` arrays of the outputs it produces
    #: (positions in this GEMM's C; a WS/IS output split over K-folds appears once per fold)
    outputs: list = field(default_factory=list)

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.A.shape[0], self.B.shape[1], self.A.shape[1]


def check_operands(params, A: np.ndarray, B: np.ndarray) -> None:
    """Raise ``ValueError`` for operands of the wrong shape or out of range; warn if sums may overflow."""
    A, B = np.asarray(A), np.asarray(B)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[0] or 0 in A.shape or 0 in B.shape:
        raise ValueError(f"GEMM operands have shapes A{A.shape} and B{B.shape}; "
                         "allowed: A[M,K] and B[K,N] with M, N, K >= 1")
    fp = getattr(params, "dtype", "int") != "int"
    for name, X, width in (("A", A, params.a_width), ("B", B, params.b_width)):
        if fp:
            if X.min() < 0 or X.max() >= 1 << width:
                raise ValueError(f"operand {name} has values in {int(X.min())}..{int(X.max())}; allowed for "
                                 f"{params.dtype}: bit patterns 0..{(1 << width) - 1}")
            continue
        lo, hi = operand_range(width, params.signed)
        if X.min() < lo or X.max() > hi:
            raise ValueError(f"operand {name} has values in {int(X.min())}..{int(X.max())}; allowed for "
                             f"{'signed' if params.signed else 'unsigned'} {width}-bit: {lo}..{hi}")
    need = required_acc_width(params.a_width, params.b_width, params.signed, A.shape[1])
    if not fp and params.acc_width < need:
        warnings.warn(f"acc_width={params.acc_width} cannot hold a K={A.shape[1]}-long dot product of "
                      f"{params.a_width}x{params.b_width}-bit operands; it must be at least {need} bits wide "
                      "(results will wrap around)", stacklevel=3)


def _padded(X: np.ndarray, rows: slice, cols: slice, shape: tuple[int, int]) -> np.ndarray:
    """``X[rows, cols]`` in the top-left corner of an int64 zero array of ``shape`` (one fold's operands)."""
    out = np.zeros(shape, dtype=np.int64)
    part = X[rows, cols]
    out[:part.shape[0], :part.shape[1]] = part
    return out


def _folds(outer: int, outer_step: int, inner: int, inner_step: int):
    """``(o0, o1, i0, i1)`` of every fold in schedule order (the outer dimension slowest); the last
    fold along a dimension may be partial."""
    for o0 in range(0, outer, outer_step):
        for i0 in range(0, inner, inner_step):
            yield o0, min(o0 + outer_step, outer), i0, min(i0 + inner_step, inner)


def _fold_sums(params, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """The sums one fold leaves in the array for its zero-padded operands, ``X @ Y``: exact and
    wrapped to ``acc_width`` (int), or the fp32 chains in k order (the golden WS fold / OS tile)."""
    dtype = getattr(params, "dtype", "int")
    if dtype == "int":
        return fold_partial_sums(X, Y, 0, X.shape[1], params.acc_width, params.signed)
    flush = params.flush_subnormals
    return fp_ws_fold(X, Y, dtype, flush, params.sum_group) if params.stationary else fp_os_tile(X, Y, dtype, flush)


def _skewed(columns: list[np.ndarray], valid: list[np.ndarray] | None, start: int, X: np.ndarray, *,
            hop: int = 1, step: int = 1, group: int = 1) -> None:
    """Stream column ``i`` of ``X`` on edge port ``columns[i]`` from cycle ``start + (i // group) * hop`` on, one
    row of ``X`` every ``step`` cycles (the array's input skew: the ``group`` rows of one multi-operand adder
    together), with ``valid[i]`` high with each."""
    length = X.shape[0]
    for i in range(X.shape[1]):
        at = start + i // group * hop + step * np.arange(length)
        columns[i][at] = X[:, i]
        if valid is not None:
            valid[i][at] = 1


def _stationary_fold(cols: dict, params, f: int, period: int, A: np.ndarray, W: np.ndarray) -> tuple:
    """Drive one WS fold (activations ``A[M, rows]``, weights ``W[rows, cols]``, zero-padded) from
    cycle ``f * period``; returns ``(first output cycle of column 0, sums)``."""
    R, C, hop, group = params.rows, params.cols, params.row_hop, params.sum_group
    load = f * period
    cols["w_load"][load:load + R] = 1
    for c in range(C):
        cols[f"w_in__{c}"][load:load + R] = W[::-1, c]
    start = load + R
    if params.weight_load == "double":  # the shadow chain settles a cycle before the first swap
        start += 1
        for r in range(R):
            cols[f"a_swap__{r}"][start + r // group * hop - 1] = 1
    _skewed([cols[f"a_in__{r}"] for r in range(R)], [cols[f"a_valid__{r}"] for r in range(R)], start, A, hop=hop,
            group=group)
    return start + params.row_groups * hop + params.mul_stages, _fold_sums(params, A, W)


def gemm_schedule(params, gemms: list[tuple[np.ndarray, np.ndarray]]) -> tuple[CycleTable, list[GemmRun]]:
    """Schedule ``gemms`` back to back on the array described by ``params`` (a SystolicParams).

    Operands are integers, or bit patterns of ``params.dtype`` for a floating-point array."""
    R, C, df = params.rows, params.cols, params.dataflow
    runs: list[GemmRun] = []
    pieces: list[dict[str, np.ndarray]] = []
    base = 0
    for A, B in gemms:
        A, B = np.asarray(A, dtype=np.int64), np.asarray(B, dtype=np.int64)
        check_operands(params, A, B)
        M, K = A.shape
        N = B.shape[1]
        timing = systolic_cycles(R, C, M, N, K, df, mul_stages=params.mul_stages, add_stages=params.add_stages,
                                 weight_load=params.weight_load, sum_group=params.sum_group)
        T, P = int(timing.cycles), int(timing.fold_cycles)
        run = GemmRun(A, B, base, T)
        cols = {name: np.zeros(T, dtype=object) for name in _port_widths(params)}
        if df in ("ws", "is"):
            # IS: the WS schedule of the transposed GEMM, C^T = B^T @ A^T (B streams, A is held)
            X, Y = (B.T, A.T) if df == "is" else (A, B)
            for f, (n0, n1, k0, k1) in enumerate(_folds(Y.shape[1], C, K, R)):
                W = _padded(Y, slice(k0, k1), slice(n0, n1), (R, C))
                Xf = _padded(X, slice(None), slice(k0, k1), (X.shape[0], R))
                first, part = _stationary_fold(cols, params, f, P, Xf, W)
                at = first + np.arange(X.shape[0])
                for c in range(C):  # padded columns too: their valid bits follow the rows' activations
                    cols[f"psum_out__{c}"][at + c] = part[:, c]
                    cols[f"out_valid__{c}"][at + c] = 1
                t, c = np.meshgrid(at, np.arange(n1 - n0), indexing="ij")
                i, n = np.meshgrid(np.arange(X.shape[0]), n0 + np.arange(n1 - n0), indexing="ij")
                t, c = (t + c).ravel() + base, c.ravel()
                rows_, cols_ = (n.ravel(), i.ravel()) if df == "is" else (i.ravel(), n.ravel())
                run.outputs.append((t, c, rows_, cols_))
        else:
            _os_schedule(cols, params, run, P, base)
        pieces.append(cols)
        runs.append(run)
        base += T

    widths = _port_widths(params)
    names = list(pieces[0])
    inputs, expect, check = {}, {}, {}
    for name in names:
        full = np.concatenate([p[name] for p in pieces])
        bits = np.array([int(v) & ((1 << widths[name]) - 1) for v in full], dtype=np.uint64)
        if name.startswith(("psum_out", "c_out")):
            expect[name] = bits
            valid_col = np.concatenate([p["out_valid__" + name.split("__")[1]] for p in pieces])
            check[name] = valid_col.astype(bool)
        elif name.startswith("out_valid"):
            expect[name] = bits
            check[name] = np.ones(len(bits), dtype=bool)
        else:
            inputs[name] = bits
    record = [n for n in names if n.startswith(("psum_out", "c_out", "out_valid"))]
    table = CycleTable(inputs, expect, check, info={
        "vectors": len(gemms), "unit": "GEMMs", "gemms": [r.shape for r in runs], "record": record,
        "predicted_cycles": [r.cycles for r in runs]})
    return table, runs


def _port_widths(params) -> dict[str, int]:
    """Width of every edge port of the array, in the order of its signature."""
    R, C = params.rows, params.cols
    if params.dataflow == "os":
        w = {f"a_in__{r}": params.a_width for r in range(R)}
        w |= {f"{name}__{r}": 1 for name in ("a_valid", "a_first") for r in range(R)}
        w |= {f"b_in__{c}": params.b_width for c in range(C)} | {"capture": 1}
        w |= {f"c_out__{c}": params.acc_width for c in range(C)}
    else:
        stream, held = (params.b_width, params.a_width) if params.dataflow == "is" else (params.a_width,
                                                                                        params.b_width)
        w = {f"a_in__{r}": stream for r in range(R)} | {f"a_valid__{r}": 1 for r in range(R)}
        if params.weight_load == "double":
            w |= {f"a_swap__{r}": 1 for r in range(R)}
        w |= {f"w_in__{c}": held for c in range(C)} | {"w_load": 1}
        w |= {f"psum_out__{c}": params.acc_width for c in range(C)}
    return w | {f"out_valid__{c}": 1 for c in range(C)}


def _os_schedule(cols: dict, params, run: GemmRun, period: int, base: int) -> None:
    """Drive an output-stationary GEMM: each fold covers ``rows * L`` rows of C (``L = add_stages + 1``
    interleaved sums per PE; thread ``j`` of PE row ``r`` is row ``m0 + j*rows + r``) and ``cols``
    columns; ``B[k]`` is streamed once per thread. The ``L`` captures, ``D`` cycles apart
    (:func:`~accelgen.golden.systolic.os_capture_spacing`), each take from every PE the sum its
    accumulator shows then, which the host works out from the PE's thread phase."""
    R, C = params.rows, params.cols
    A, B = run.A, run.B
    M, K = A.shape
    L = params.add_stages + 1
    latency = 1 + params.mul_stages + params.add_stages
    spacing = os_capture_spacing(R, params.add_stages)
    for f, (m0, m1, n0, n1) in enumerate(_folds(M, R * L, B.shape[1], C)):
        start = f * period
        Bf = _padded(B, slice(None), slice(n0, n1), (K, C))
        sums = []
        for j in range(L):
            Af = _padded(A, slice(min(m0 + j * R, m1), min(m0 + (j + 1) * R, m1)), slice(None), (R, K))
            _skewed([cols[f"a_in__{r}"] for r in range(R)], [cols[f"a_valid__{r}"] for r in range(R)], start + j,
                    Af.T, step=L)
            for r in range(R):
                cols[f"a_first__{r}"][start + j + r] = 1
            _skewed([cols[f"b_in__{c}"] for c in range(C)], None, start + j, Bf, step=L)
            sums.append(_fold_sums(params, Af, Bf))
        first_capture = start + L * K + R + C - 3 + latency
        out = []
        for i in range(L):
            x = first_capture + i * spacing
            cols["capture"][x] = 1
            for c in range(C):
                for jj in range(R):
                    r = R - 1 - jj
                    thread = (x - latency - start - r - c) % L
                    cols[f"c_out__{c}"][x + 1 + jj] = sums[thread][r, c]
                    cols[f"out_valid__{c}"][x + 1 + jj] = 1
                    m = m0 + thread * R + r
                    if m < m1 and c < n1 - n0:
                        out.append((base + x + 1 + jj, c, m, n0 + c))
        run.outputs.append(tuple(np.array(v, dtype=np.int64) for v in zip(*out)))


def assemble(params, runs: list[GemmRun], recorded: dict[str, np.ndarray]) -> list[tuple[np.ndarray, int]]:
    """Rebuild each GEMM's ``C`` from recorded outputs; return ``(C, measured_cycles)`` per GEMM.

    ``measured_cycles`` runs from the GEMM's first input cycle to the last cycle in
    which any ``out_valid`` was high, inclusive. For a floating-point array ``C`` is
    a ``uint32`` array of fp32 bit patterns, WS/IS K-folds added in fold order in fp32.
    """
    fp = getattr(params, "dtype", "int") != "int"
    data_port = "c_out" if params.dataflow == "os" else "psum_out"
    valid_any = np.zeros(len(next(iter(recorded.values()))), dtype=bool)
    for c in range(params.cols):
        valid_any |= recorded[f"out_valid__{c}"].astype(bool)
    out = []
    for run in runs:
        M, N, K = run.shape
        Cm = np.zeros((M, N), dtype=np.uint32 if fp else object)
        seen = np.zeros((M, N), dtype=bool)
        for t, c, m, n in run.outputs:  # folds in schedule order: K-fold partial sums in k order
            vals = np.array([int(recorded[f"{data_port}__{ci}"][ti]) for ti, ci in zip(t, c)], dtype=object)
            if fp:
                vals = vals.astype(np.uint32)
                again = seen[m, n]
                Cm[m, n] = np.where(again, fp_combine_folds([Cm[m, n], vals], params.flush_subnormals), vals)
            else:
                Cm[m, n] += np.array([from_bits(v, params.acc_width, params.signed) for v in vals], dtype=object)
            seen[m, n] = True
        # look a little past the predicted end (a late output must be seen), but not as far as the
        # first output the next GEMM can produce
        margin = params.rows + params.mul_stages + (params.row_groups * params.row_hop if params.stationary
                                                    else 1 + params.add_stages)
        window = np.nonzero(valid_any[run.start: run.start + run.cycles + margin])[0]
        measured = int(window[-1]) + 1 if len(window) else 0
        out.append((Cm, measured))
    return out
