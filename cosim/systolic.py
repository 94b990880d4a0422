"""The systolic family's host side: GEMM stimulus, the host check, coverage, activity stimulus.

:func:`~accelgen.cosim.systolic_schedule.gemm_schedule` maps any ``C[M,N] = A[M,K] @ B[K,N]`` onto a
``rows x cols`` array (folds over the stationary dimensions, zero padding at
ragged edges, skewed edge streams) and returns the cycle table the cosim
testbench drives, with the expected output in every cycle. Its timing is built
from :func:`accelgen.golden.systolic.systolic_cycles`, so a passing cosim
proves that model on the emitted Verilog. :func:`~accelgen.cosim.systolic_schedule.assemble` rebuilds ``C`` from
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

import numpy as np

from ..golden.fp import bits_equal, from_float32, random_fp_bits, special_values, to_float32
from ..golden.systolic import fp_gemm_reference, required_acc_width
from .coverage import Coverage, shape_class
from .fp_coverage import FP16_SUMS, FP16_SUMS_OVERFLOW, fp16_product_sums, plus_zero_start
from .stimulus import Activity, operand_fp_bits, operand_ints, sparse_ints
from .systolic_schedule import GemmRun, assemble, check_operands, gemm_schedule
from .vectors import CycleTable, operand_range, parse_gemm

#: the schedule's names, imported from here by the hosts and tests that drive an array
__all__ = ["GemmRun", "assemble", "check_operands", "cycle_problems", "directed_shapes", "fp_directed_gemms",
           "gemm_schedule", "int_gemm_problems", "parse_gemm", "random_operands", "systolic_activity",
           "systolic_coverage", "systolic_fp_unreachable", "systolic_table", "verify"]


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

def systolic_activity(params, density: float, cycles: int, seed: int, profile: str | None = None) -> Activity:
    """Steady state of a GEMM on the array: ``cycles`` counted cycles during which every PE performs
    a MAC. The streamed dimension (WS: M, with K = rows, N = cols; OS: K, with M = rows, N = cols)
    is long enough that after the weight load (WS) and the input skew (not counted: warm-up; a pipelined WS
    array's rows, or groups of ``sum_group`` rows, are ``row_hop`` cycles apart and its products ``mul_stages``
    late) the whole array is busy for
    the counted window; the drain after it is not simulated. Operands (A activations, B weights) are zero with probability
    ``1 - density``, else drawn by the stimulus ``profile`` (:mod:`accelgen.operand_profiles`; by default uniform
    over their range for ``int``, normal(0, 1) rounded to the dtype for fp16/bf16/fp32). One
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
        A = operand_fp_bits(rng, (M, K), dtype, density, profile, "activation").astype(np.int64)
        B = operand_fp_bits(rng, (K, N), dtype, density, profile, "weight").astype(np.int64)
    elif profile in (None, "uniform"):
        # row by row, as the stimulus always was drawn (the shipped int models' streams stay the same)
        A = np.stack([sparse_ints(rng, K, params.a_width, params.signed, density) for _ in range(M)])
        B = np.stack([sparse_ints(rng, N, params.b_width, params.signed, density) for _ in range(K)])
    else:
        A = operand_ints(rng, (M, K), params.a_width, params.signed, density, profile, "activation")
        B = operand_ints(rng, (K, N), params.b_width, params.signed, density, profile, "weight")
    table, _ = gemm_schedule(params, [(A, B)])
    ins = {k: np.asarray(v, dtype=object)[:warm + cycles] for k, v in table.inputs.items()}
    return Activity(ins, ops=R * C * cycles, per="MAC (steady state: every PE busy, dense count)", warmup=warm,
                    info={"gemm": [M, N, K]})


# --------------------------------------------------------------------------- coverage

def systolic_coverage(params, table: CycleTable, runs) -> Coverage:
    """GEMM shape classes: ``M`` and ``K`` smaller than, equal to or larger than ``rows``, ``N`` than ``cols``."""
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
            c = shape_class(v, size)
            cov.hit(f"{d} {c} than {what}" if c != "equal" else f"{d} equal to {what}")
    return cov


def systolic_fp_unreachable(params) -> dict[str, str]:
    """Every PE chain and the host's fold combination start at +0.0 (:mod:`accelgen.golden.systolic`) and sum
    products only; so do the multi-operand sums of grouped columns (``sum_group``)."""
    out = {**plus_zero_start(params), **fp16_product_sums(params)}
    fp16 = getattr(params, "dtype", None) == "fp16"
    if fp16:
        out |= {"sum operand: subnormal": FP16_SUMS, "sum result: subnormal": FP16_SUMS,
                "sum: underflow to subnormal": FP16_SUMS, "sum: overflow to inf": FP16_SUMS_OVERFLOW}
    elif getattr(params, "flush_subnormals", False):
        out["sum operand: subnormal"] = "flush_subnormals: the operands are flushed products and partial sums"
    return out | plus_zero_start(params, ("sum result: -0",))
