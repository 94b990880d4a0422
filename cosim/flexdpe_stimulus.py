"""SIGMA's Flex-DPE stimulus: sparse GEMM operands (integers or fp bit patterns) and the directed GEMMs.

The family's host (driver, check, coverage, activity) is :mod:`accelgen.cosim.flexdpe`.
"""

from __future__ import annotations

import numpy as np

from ..golden.fp import from_float32, is_zero, random_fp_bits, special_values
from .flexdpe_controller import is_fp_params
from .vectors import operand_range


def fp_operand_values(dtype: str, shape, rng, kind: str = "random") -> np.ndarray:
    """Non-zero ``dtype`` bit patterns (``int64``) of one ``kind``:

    * ``random``: :func:`~accelgen.golden.fp.random_fp_bits` (scale 10**-2..10**2), 5% replaced by
      :func:`~accelgen.golden.fp.special_values` (subnormals, extremes, +-Inf, NaNs, values near 1);
    * ``special``: 40% special values;
    * ``ties``: 1, 3, 2**-8, 2**-9, 2**-24, 2**-25, 1.5, ... (fp16: scaled into range), both signs —
      products whose fp32 sums round at a tie;
    * ``huge`` / ``tiny``: magnitudes near the top / bottom of the format (fp32 products overflow to
      +-Inf, Inf - Inf = NaN / products underflow into fp32 subnormals or to zero; bf16 and fp32 only
      reach these, fp16 products stay normal).
    Zeros drawn here are replaced by 1.0, so the caller controls sparsity.
    """

    one = int(from_float32(np.float32(1.0), dtype))
    if kind == "random":
        x = np.asarray(random_fp_bits(rng, shape, dtype, scale=float(10.0 ** rng.uniform(-2, 2))), dtype=np.int64)
        pick = rng.random(shape) < 0.05
        x[pick] = rng.choice(np.asarray(special_values(dtype), dtype=np.int64), int(pick.sum()))
    elif kind == "special":
        x = fp_operand_values(dtype, shape, rng, "random")
        pick = rng.random(shape) < 0.4
        x[pick] = rng.choice(np.asarray(special_values(dtype), dtype=np.int64), int(pick.sum()))
    elif kind == "ties":
        base = np.array([1.0, 3.0, 1.5, 2.0 ** -8, 2.0 ** -9, 2.0 ** -24, 2.0 ** -25, 0.75, 5.0, 2.0 ** 8],
                        dtype=np.float32)
        v = rng.choice(base, shape) * np.where(rng.random(shape) < 0.3, -1, 1).astype(np.float32)
        x = np.asarray(from_float32(v, dtype), dtype=np.int64)
    elif kind in ("huge", "tiny"):
        e = 120 if kind == "huge" else -100
        if dtype == "fp16":
            e = 14 if kind == "huge" else -14
        v = rng.uniform(1, 2, shape) * 2.0 ** (e + rng.integers(-3, 4, shape))
        v *= np.where(rng.random(shape) < 0.5, -1, 1)
        x = np.asarray(from_float32(v.astype(np.float32), dtype), dtype=np.int64)
    else:
        raise ValueError(f"kind={kind!r} is not allowed; allowed: random, special, ties, huge, tiny")
    x[np.asarray(is_zero(x, dtype))] = one
    return x


def _fp_sparse(params, shape, sparsity: float, rng, kind: str = "random") -> np.ndarray:
    x = fp_operand_values(params.dtype, shape, rng, kind)
    sign = 1 << (params.width - 1)
    zero = rng.random(shape) < sparsity
    x[zero] = np.where(rng.random(int(zero.sum())) < 0.5, 0, sign)     # +0 and -0
    return x


def sparse_operands(params, shape, sparsity_a: float, sparsity_b: float, rng, kind: str = "random"):
    """Random ``A[M,K]``, ``B[K,N]`` with the given fractions of zeros (non-zeros uniform, 15% extremes;
    fp dtypes: bit patterns from :func:`fp_operand_values` of ``kind``, zeros +0 or -0 at random)."""
    M, N, K = shape
    if is_fp_params(params):
        return _fp_sparse(params, (M, K), sparsity_a, rng, kind), _fp_sparse(params, (K, N), sparsity_b, rng, kind)
    lo, hi = operand_range(params.width, params.signed)

    def draw(sh, s):
        x = rng.integers(lo, hi, sh, endpoint=True)
        pick = rng.random(sh)
        x[pick < 0.075] = lo
        x[(pick >= 0.075) & (pick < 0.15)] = hi
        x[x == 0] = hi
        x[rng.random(sh) < s] = 0
        return x

    return draw((M, K), sparsity_a), draw((K, N), sparsity_b)


def directed_gemms(params, rng) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Dense regular, dense irregular, sparse irregular and adversarial GEMMs for a ``k``-multiplier Flex-DPE
    (fp dtypes: also special values, ties, cancellation, overflow and underflow)."""
    k = params.k
    out = []

    def add(name, shape, sa=0.0, sb=0.0, kind="random"):
        A, B = sparse_operands(params, shape, sa, sb, rng, kind)
        out.append((name, A, B))
        return A, B

    if is_fp_params(params):
        for kind in ("special", "ties", "huge", "tiny"):
            add(f"fp_{kind}", (k + 3, k // 2 + 1, 2 * k + 1), 0.3, 0.3, kind)
        A, B = add("fp_cancel", (5, 6, 2 * k), 0.0, 0.0)       # B's rows pairwise negated: x + (-x) = +0
        B[1::2] = B[0::2] ^ (1 << (params.width - 1))
        A[:, 1::2] = A[:, 0::2]
        if params.dtype != "fp16":   # fp16 products stay below 2**32: their sums never overflow
            # finite products of 1.5 * 2**126 each: the FAN's first sum of two overflows to Inf (the "huge" GEMM's
            # products overflow in the multipliers already)
            A, B = add("fp_sum_overflow", (3, 2, 4), 0.0, 0.0)
            A[:], B[:] = (int(from_float32(np.float32(v), params.dtype)) for v in (1.5 * 2.0 ** 63, 2.0 ** 63))

    add("dense_regular", (k, k, k))
    add("dense_k_small", (k, k, 2))
    add("dense_k_large", (3, 2, 4 * k + 3))
    add("dense_m1", (1, k + 3, k - 1))
    add("dense_n1", (2 * k + 1, 1, k + 2))
    add("dense_1x1x1", (1, 1, 1))
    for sa, sb in ((0.5, 0.0), (0.0, 0.8), (0.6, 0.6), (0.95, 0.3), (0.2, 0.95), (0.9, 0.9)):
        add(f"sparse_{sa}_{sb}", (k + 5, k // 2 + 3, 2 * k - 3), sa, sb)
    A, B = add("zero_row_a", (7, 9, k + 1), 0.3, 0.3)
    A[3] = 0
    A, B = add("zero_col_b", (7, 9, k + 1), 0.3, 0.3)
    B[:, 4] = 0
    A, B = add("zero_row_b_col_a", (6, 5, 2 * k), 0.2, 0.2)
    B[5] = 0
    A[:, 5] = 0
    A, B = add("all_zero_a", (4, 3, 5))
    A[:] = 0
    A, B = add("single_nonzero", (5, 6, 7), 1.0, 1.0)
    if is_fp_params(params):
        A[2, 3], B[3, 1] = (int(from_float32(np.float32(v), params.dtype)) for v in (1.5, -3.0))
    else:
        A[2, 3], B[3, 1] = operand_range(params.width, params.signed)[1], 1
    A, B = add("one_dense_row", (6, 4, 3 * k), 0.95, 0.0)
    A[1] = sparse_operands(params, (1, 1, 3 * k), 0.0, 0.0, rng)[0][0]
    A, B = add("diagonal", (k, k, k))
    A[:] = np.diag(np.diag(A))
    return out
