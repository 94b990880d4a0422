"""Host-side GEMM driver for the systolic arrays: tiling, skew, schedule, de-skew.

:func:`gemm_schedule` maps any ``C[M,N] = A[M,K] @ B[K,N]`` onto a
``rows x cols`` array (folds over the stationary dimensions, zero padding at
ragged edges, skewed edge streams) and returns the cycle table the cosim
testbench drives, with the expected output in every cycle. Its timing is built
from :func:`accelgen.golden.systolic.systolic_cycles`, so a passing cosim
proves that model on the emitted Verilog. :func:`assemble` rebuilds ``C`` from
the outputs the simulator really produced (de-skew, host accumulation of
K-folds for WS) and measures each GEMM's cycle count from the ``out_valid`` bits.

Floating-point arrays (``params.dtype`` fp16 / bf16 / fp32): operands are bit
patterns of the dtype (unsigned integers), outputs fp32 bit patterns. Every
partial sum in the table is the bit-exact golden value
(:mod:`accelgen.golden.systolic`, NaN as the canonical 0x7FC00000 the
hardware produces). The host combines a WS output's K-fold partial sums in fold
order in fp32: ``C = ((fold_0 + fold_1) + fold_2) + ...`` (folds over rows
``0..rows-1``, ``rows..2*rows-1``, ...); OS needs no combination. Together with
the PEs' order (WS: ``+0.0`` at the top of each column, rows top to bottom, or with ``sum_group = G``
groups of ``G`` rows top to bottom, each summed with the partial sum by one multi-operand adder; OS:
``+0.0``, then k in order) this fixes every rounding, so :func:`verify` compares
``C`` bit for bit with :func:`~accelgen.golden.systolic.fp_gemm_reference`.
Stimulus: :func:`random_operands` (``random_fp_bits`` plus sprinkled special
values) and, without ``--gemm``, the directed special-value GEMMs of
:func:`fp_directed_gemms`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ..golden.fp import (bits_equal, from_float32, random_fp_bits, special_values, to_float32)
from ..golden.systolic import (fold_partial_sums, fp_combine_folds, fp_gemm_reference, fp_os_tile, fp_ws_fold,
                               os_capture_spacing, required_acc_width, systolic_cycles)
from .stimulus import Activity, sparse_ints
from .vectors import CycleTable, from_bits, operand_range, parse_gemm


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


def directed_shapes(rows: int, cols: int) -> list[tuple[int, int, int]]:
    """GEMM shapes ``(M, N, K)`` smaller than, equal to and larger than the array in each dimension."""
    big = max(rows, cols)
    shapes = [
        (1, 1, 1), (rows, cols, rows), (cols, cols, rows), (5, 3, 7),
        (1, cols + 1, 2 * rows + 1), (2 * big + 3, 1, 1), (3, 2 * cols + 3, rows + 2),
        (7, 3 * cols, 2), (4 * big + 1, 2, 3), (2, 3, 3 * rows + 2), (11, cols - 1 or 1, rows + 1),
    ]
    seen, out = set(), []
    for s in shapes:
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def random_operands(params, shape, rng, zero_fraction: float = 0.15, special_fraction: float = 0.04):
    """Random ``A[M,K]``, ``B[K,N]``: integers uniform over their range, or for a floating-point array
    bit patterns of ``random_fp_bits`` (normal(0, 1) values rounded to the dtype) with
    ``special_fraction`` of the operands replaced by special values (+-0, subnormals, extremes,
    +-Inf, NaNs, tie makers); zero with probability ``zero_fraction`` either way."""
    M, N, K = shape
    dtype = getattr(params, "dtype", "int")
    if dtype != "int":
        specials = np.asarray(special_values(dtype)).astype(np.int64)
        out = []
        for dims in ((M, K), (K, N)):
            X = np.asarray(random_fp_bits(rng, dims, dtype, density=1.0 - zero_fraction)).astype(np.int64)
            pick = rng.random(dims) < special_fraction
            X[pick] = rng.choice(specials, int(pick.sum()))
            out.append(X)
        return tuple(out)
    lo_a, hi_a = operand_range(params.a_width, params.signed)
    lo_b, hi_b = operand_range(params.b_width, params.signed)
    A = rng.integers(lo_a, hi_a, (M, K), endpoint=True)
    B = rng.integers(lo_b, hi_b, (K, N), endpoint=True)
    A[rng.random(A.shape) < zero_fraction] = 0
    B[rng.random(B.shape) < zero_fraction] = 0
    return A, B


def fp_directed_gemms(params, rng) -> list[tuple[np.ndarray, np.ndarray]]:
    """Directed special-value GEMMs (bit patterns of ``params.dtype``) for a floating-point array.

    * every product of two special values (``A`` a column of the specials, ``B`` a row, K = 1);
    * every sum of two special values (``A[i] = [s_i, 1]``, ``B[:, j] = [1, s_j]``, K = 2);
    * cancellation across K-folds: ``A[m] = [x_0 .. x_h, -x_0 .. -x_h]``, ``B[:, n] = [y, y]``, terms
      whose exact sum is 0 (the fp32 result is the order-dependent rounding residue, or +0.0 when it
      cancels exactly), magnitudes 2**-10..2**10 side by side; odd rows get every fifth term
      replaced so they do not cancel; K = 2*rows + 2 (three folds);
    * ties: unit products mixed with 2**-24-sized ones (half an fp32 ulp of 1), whose sums round at
      exact ties to even, K = rows + 5.
    """
    dtype = params.dtype
    R = params.rows
    S = np.asarray(special_values(dtype)).astype(np.int64)
    n = len(S)

    def bits(x):
        return np.asarray(from_float32(np.asarray(x, dtype=np.float32), dtype)).astype(np.int64)

    one = int(bits([1.0])[0])
    gemms = [(S[:, None].copy(), S[None, :].copy())]
    A2 = np.stack([S, np.full(n, one)], axis=1)
    B2 = np.stack([np.full(n, one), S], axis=0)
    gemms.append((A2, B2))

    # cancellation: x_0..x_h then -x_0..-x_h (times y), big and small magnitudes interleaved
    K = 2 * R + 2
    h = K // 2
    M, N = R + 1, max(2, params.cols - 1)
    mags = np.float32(2.0) ** rng.integers(-10, 11, (M, h)).astype(np.float32)
    x = to_float32(bits(rng.standard_normal((M, h)).astype(np.float32) * mags), dtype)
    Ac = np.concatenate([x, -x], axis=1)[:, :K]
    Ac[1::2, ::5] = to_float32(bits(rng.standard_normal(Ac[1::2, ::5].shape).astype(np.float32)), dtype)
    By = to_float32(bits(rng.standard_normal((h, N)).astype(np.float32)), dtype)
    Bc = np.concatenate([By, By], axis=0)[:K]
    gemms.append((bits(Ac), bits(Bc)))

    # ties: products of 1-sized and 2**-12-sized operands; 1 + 2**-24 is an exact tie in fp32
    K = R + 5
    vals = np.array([1.0, -1.0, 1.5, 2.0 ** -12, -(2.0 ** -12), 3 * 2.0 ** -12, 1.0 + 2.0 ** -7], dtype=np.float32)
    At = rng.choice(vals, (R + 2, K))
    Bt = rng.choice(vals, (K, params.cols + 1))
    gemms.append((bits(At), bits(Bt)))
    return gemms




def systolic_table(params, vectors: int, seed: int, gemm: tuple = ()) -> tuple[CycleTable, list[GemmRun]]:
    """The GEMMs for one cosim run: the ``gemm`` shapes if given, else the directed shapes
    plus ``vectors`` random shapes; random operands from ``seed``."""
    rng = np.random.default_rng(seed)
    shapes = [parse_gemm(g) if isinstance(g, str) else tuple(g) for g in gemm]
    if not shapes:
        shapes = directed_shapes(params.rows, params.cols)
        lim = 3 * max(params.rows, params.cols)
        shapes += [tuple(int(x) for x in rng.integers(1, lim, 3, endpoint=True)) for _ in range(vectors)]
    gemms = [random_operands(params, s, rng) for s in shapes]
    if getattr(params, "dtype", "int") != "int" and not gemm:
        gemms = fp_directed_gemms(params, rng) + gemms
    return gemm_schedule(params, gemms)


def verify(params, table: CycleTable, runs: list[GemmRun], recorded: dict) -> list[str]:
    """Host-side checks on recorded outputs: ``C`` equals numpy (floating point: bit-equal to
    :func:`~accelgen.golden.systolic.fp_gemm_reference`, all NaNs equal), measured cycles equal
    the model."""
    problems = []
    dtype = getattr(params, "dtype", "int")
    for run, (Cm, measured) in zip(runs, assemble(params, runs, recorded)):
        M, N, K = run.shape
        if dtype != "int":
            expect = fp_gemm_reference(run.A, run.B, dtype, params.rows, params.dataflow, params.flush_subnormals,
                                       params.sum_group)
            bad = np.argwhere(~bits_equal(Cm, expect))
            if len(bad):
                i = tuple(int(v) for v in bad[0])
                got, exp = int(Cm[i]), int(expect[i])
                problems.append(f"GEMM {M}x{N}x{K}: C{i} = 0x{got:08x} ({_f32(got)!r}), golden gives "
                                f"0x{exp:08x} ({_f32(exp)!r}); {len(bad)} of {M * N} outputs differ")
        else:
            # sums that may wrap are not compared: the per-cycle table already checks the wrapped values
            if params.acc_width >= required_acc_width(params.a_width, params.b_width, params.signed, K):
                problems += int_gemm_problems(Cm, run.A, run.B)
        problems += cycle_problems(run.shape, measured, run.cycles)
    return problems


def int_gemm_problems(C: np.ndarray, A: np.ndarray, B: np.ndarray) -> list[str]:
    """The integer check of a GEMM host: ``C`` equals the exact ``A @ B`` (else the first entry that differs)."""
    expect = A.astype(object) @ B.astype(object)
    if np.array_equal(C, expect):
        return []
    (M, K), N = A.shape, B.shape[1]
    bad = tuple(int(i) for i in np.argwhere(C != expect)[0])
    return [f"GEMM {M}x{N}x{K}: C{bad} = {C[bad]}, numpy gives {expect[bad]}"]


def cycle_problems(shape: tuple[int, int, int], measured: int, predicted: int) -> list[str]:
    """The timing check of a GEMM host: the measured cycles equal the model's prediction."""
    if measured == predicted:
        return []
    M, N, K = shape
    return [f"GEMM {M}x{N}x{K}: measured {measured} cycles, model predicts {predicted}"]


def _f32(bits: int) -> float:
    return float(np.array([bits], dtype=np.uint32).view(np.float32)[0])


# --------------------------------------------------------------------------- activity stimulus

def systolic_activity(params, density: float, cycles: int, seed: int) -> Activity:
    """Steady state of a GEMM on the array: ``cycles`` counted cycles during which every PE performs
    a MAC. The streamed dimension (WS: M, with K = rows, N = cols; OS: K, with M = rows, N = cols)
    is long enough that after the weight load (WS) and the input skew (not counted: warm-up; a pipelined WS
    array's rows, or groups of ``sum_group`` rows, are ``row_hop`` cycles apart and its products ``mul_stages``
    late) the whole array is busy for
    the counted window; the drain after it is not simulated. Operands are zero with probability ``1 - density``, else
    uniform over their range (``int``) or ``random_fp_bits`` values (fp16/bf16/fp32: normal(0, 1)
    rounded to the dtype, so exponents and significands switch as in real data). One
    operation is one MAC (dense count: zero operands still count), ``rows * cols`` per counted cycle,
    so the energy is the steady-state energy per MAC of a large GEMM (fill and drain amortized away)."""
    rng = np.random.default_rng(seed)
    R, C = params.rows, params.cols
    ws = params.dataflow == "ws"
    if ws:
        # the weight load (R cycles, one more to settle a double buffer); row r's activations enter
        # (r // sum_group) * row_hop cycles after row 0's (a partial sum spends row_hop cycles in a pipelined PE, and
        # the rows of a group start together), take C - 1 more to cross the row, and their products come mul_stages
        # later: only then is every PE busy. Row 0's PEs stay busy while the stream lasts, so it runs to the end of
        # the counted window.
        load = R + (params.weight_load == "double")
        warm = load + params.row_groups * params.row_hop + C + 1 + params.mul_stages
        stream = max(R + C + cycles + 2, warm + cycles + 1 - load)
    else:
        # OS: PE (r, c) starts r + c cycles after PE (0, 0) whatever the stages (its accumulator threads
        # interleave, one operand pair a cycle), and PE (0, 0) runs for the whole stream
        warm = R + C + 1
        stream = R + C + cycles + 2
    M, N, K = (stream, C, R) if ws else (R, C, stream)
    dtype = getattr(params, "dtype", "int")
    if dtype != "int":
        # realistic fp operands: normal(0, 1) rounded to the dtype, zero (+-0) with probability 1 - density
        A = random_fp_bits(rng, (M, K), dtype, density=density).astype(np.int64)
        B = random_fp_bits(rng, (K, N), dtype, density=density).astype(np.int64)
    else:
        A = np.stack([sparse_ints(rng, K, params.a_width, params.signed, density) for _ in range(M)])
        B = np.stack([sparse_ints(rng, N, params.b_width, params.signed, density) for _ in range(K)])
    table, _ = gemm_schedule(params, [(A, B)])
    ins = {k: np.asarray(v, dtype=object)[:warm + cycles] for k, v in table.inputs.items()}
    return Activity(ins, ops=R * C * cycles, per="MAC (steady state: every PE busy, dense count)", warmup=warm,
                    info={"gemm": [M, N, K]})
