"""TensorDash operand streams: the directed and random dot products a PE or tile co-simulation runs.

:func:`pe_streams` gives the directed streams (sparsity patterns, lanes, extremes, one stream per scheduler
option) and then random ones, integers or floating-point bit patterns. The family's host (cycle tables,
coverage, activity) is :mod:`accelgen.cosim.tensordash`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..golden.fp import from_float32, random_fp_bits, special_values
from ..golden.tensordash import fp_nonzero, pattern_options
from .vectors import operand_range

#: sparsities (fraction of zero operands on the chosen side) cycled through by the random streams
SPARSITIES = (0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 0.999)
#: random streams have 1 .. this many rows times D (ragged: the last row may be part padding)
MAX_ROWS_PER_DEPTH = 6


@dataclass
class Stream:
    """One dot product: ``a`` is ``(N, L)`` (PE) or ``(R, N, L)`` (tile), ``b`` is ``(N, L)``."""

    section: str
    a: np.ndarray
    b: np.ndarray

    @property
    def rows(self) -> int:
        return self.b.shape[0]


def nonzero_ints(rng, shape, width: int, signed: bool) -> np.ndarray:
    """Random nonzero operands, with extremes now and then."""
    lo, hi = operand_range(width, signed)
    v = rng.integers(lo, hi, size=shape, endpoint=True, dtype=np.int64)
    pick = rng.random(shape)
    v[pick < 0.05] = lo
    v[(pick >= 0.05) & (pick < 0.10)] = hi
    v[v == 0] = 1
    return v


def _sparse(rng, shape, width, signed, zero_frac: float) -> np.ndarray:
    v = nonzero_ints(rng, shape, width, signed)
    v[rng.random(shape) < zero_frac] = 0
    return v


# --------------------------------------------------------------------------- floating-point operands

def is_fp(params) -> bool:
    return getattr(params, "dtype", "int") != "int"


def _fp_specials(dtype: str) -> np.ndarray:
    """The special values of ``dtype`` that are not zero (zeros are sparsity here)."""
    v = np.asarray(special_values(dtype), dtype=np.int64)
    return v[fp_nonzero(v, dtype)]


def _fp_one(dtype: str, value: float) -> int:
    return int(np.asarray(from_float32(np.array([value], np.float32), dtype)).reshape(-1)[0])


def _fp_zeros(rng, shape, dtype: str) -> np.ndarray:
    """Zeros of random sign (+0 and -0 are both zero for the detectors)."""
    sign = 1 << (32 if dtype == "fp32" else 16) - 1  # the sign bit
    return np.where(rng.random(shape) < 0.5, sign, 0).astype(np.int64)


def _fp_nonzero(rng, shape, dtype: str, special_frac: float = 0.03) -> np.ndarray:
    """Realistic nonzero fp operands (``random_fp_bits``), a fraction replaced by non-zero special values."""
    v = np.asarray(random_fp_bits(rng, shape, dtype, density=1.0), dtype=np.int64).reshape(shape)
    v = np.where(fp_nonzero(v, dtype), v, _fp_one(dtype, 1.0))
    specials = _fp_specials(dtype)
    pick = rng.random(shape) < special_frac
    return np.where(pick, specials[rng.integers(0, specials.size, shape)], v).astype(np.int64)


def _fp_sparse(rng, shape, dtype: str, zero_frac: float, special_frac: float = 0.03) -> np.ndarray:
    v = _fp_nonzero(rng, shape, dtype, special_frac)
    return np.where(rng.random(shape) < zero_frac, _fp_zeros(rng, shape, dtype), v)


class _Operands:
    """Operand factory for one side (A or B) of a PE: integers or fp bit patterns."""

    def __init__(self, rng, params, width: int):
        self.rng, self.width, self.signed = rng, width, params.signed
        self.dtype = getattr(params, "dtype", "int")

    def nonzero(self, shape, special_frac: float = 0.03) -> np.ndarray:
        if self.dtype == "int":
            return nonzero_ints(self.rng, shape, self.width, self.signed)
        return _fp_nonzero(self.rng, shape, self.dtype, special_frac)

    def sparse(self, shape, zero_frac: float, special_frac: float = 0.03) -> np.ndarray:
        if self.dtype == "int":
            return _sparse(self.rng, shape, self.width, self.signed, zero_frac)
        return _fp_sparse(self.rng, shape, self.dtype, zero_frac, special_frac)

    def zeros(self, shape) -> np.ndarray:
        if self.dtype == "int":
            return np.zeros(shape, np.int64)
        return _fp_zeros(self.rng, shape, self.dtype)


def _fp_directed(params, rng, a_shape, add, tile: bool) -> None:
    """Directed floating-point streams: specials, Inf x 0, cancellation, ties, extremes."""
    dtype, lanes, depth = params.dtype, params.lanes, params.depth
    f = lambda x: _fp_one(dtype, x)  # noqa: E731
    specials = np.concatenate([_fp_specials(dtype), [0, 1 << (params.a_width - 1)]])
    n = 6 * depth
    # every operand a special value (zeros included): NaN, Inf, subnormal, extreme products
    add("fp_specials", specials[rng.integers(0, specials.size, a_shape(n))],
        specials[rng.integers(0, specials.size, (n, lanes))])
    # Inf opposite a zero: skipped in the PE (no NaN); the tile multiplies zero A operands
    ops = _Operands(rng, params, params.a_width)
    a, b = ops.nonzero(a_shape(n)), ops.nonzero((n, lanes))
    inf, ninf = f(np.inf), f(-np.inf)
    for k in range(n):
        l = k % lanes
        if k % 2:
            a[..., k, l], b[k, l] = rng.choice([inf, ninf]), rng.choice([0, 1 << (params.b_width - 1)])
        else:
            a[..., k, l], b[k, l] = rng.choice([0, 1 << (params.a_width - 1)]), rng.choice([inf, ninf])
    add("fp_inf_times_zero", a, b)
    # cancellation: +x*y and -x*y in one row, huge terms cancelling around small ones; exact zero sums
    a, b = ops.nonzero(a_shape(n)), ops.nonzero((n, lanes))
    sign = 1 << (params.a_width - 1)
    for k in range(n):
        big = f(float(rng.choice([2.0 ** 14, 60000.0, 3.0e38 if dtype != "fp16" else 65504.0])))
        a[..., k, 0], a[..., k, 1 % lanes] = big, big ^ sign
        b[k, 0] = b[k, 1 % lanes] = f(1.0)
        if lanes > 3 and k % 2:
            a[..., k, 2], a[..., k, 3] = a[..., k, 3] ^ sign, a[..., k, 3]
            b[k, 2] = b[k, 3]
    add("fp_cancellation", a, b)
    # ties: 1 + 2**-24 rounds to even (1), 1 + 2**-23 + 2**-24 rounds up; products 2**-12 * 2**-12 = 2**-24
    one, tiny = f(1.0), f(2.0 ** -12)
    a = np.full(a_shape(n), tiny, np.int64)
    b = np.full((n, lanes), tiny, np.int64)
    a[..., ::3, 0] = one
    b[::3, 0] = one
    a[..., 1::3, lanes - 1] = f(1.0 + 2.0 ** -7)
    b[1::3, lanes - 1] = f(1.0 + 2.0 ** -7)
    add("fp_ties", a, b)
    # extremes: largest normals (bf16: products overflow to Inf), smallest subnormals (products underflow)
    big, small = f(3.3e38 if dtype != "fp16" else 65504.0), int(specials[specials > 0].min())
    a = np.where(rng.random(a_shape(n)) < 0.5, big, small)
    b = np.where(rng.random((n, lanes)) < 0.5, big, small) ^ np.where(rng.random((n, lanes)) < 0.5, sign, 0)
    add("fp_extremes", a.astype(np.int64), b.astype(np.int64))
    # underflow: smallest normals times 0.5 .. 0.9 (bf16 / fp32: fp32 subnormal products and sums)
    tiny_n = int(specials[(specials > 0) & (specials < sign)].min())  # smallest positive subnormal
    low = np.array([f(v) for v in (2.0 ** -126, 1.5 * 2.0 ** -126, 2.0 ** -125)] if dtype != "fp16"
                   else [f(2.0 ** -14), f(1.5 * 2.0 ** -14), tiny_n], np.int64)
    half = np.array([f(v) for v in (0.5, 0.75, 0.875, 0.25)], np.int64)
    a = low[rng.integers(0, low.size, a_shape(n))] ^ np.where(rng.random(a_shape(n)) < 0.5, sign, 0)
    b = half[rng.integers(0, half.size, (n, lanes))]
    add("fp_underflow", a, b)


def pe_streams(params, vectors: int, seed: int, *, tile: bool = False) -> list[Stream]:
    """Directed streams followed by ``vectors`` random ones.

    Directed (PE): empty stream; all zeros on A, on B, on both; no zeros; one
    effectual pair per row; effectual pairs only in lane 0 / lane L-1; the
    extreme values (accumulator wrap-around); for each option ``k`` a single
    effectual pair that lane 0 reaches only through option ``k``; streams of 1
    and D-1 rows.
    Random: sparsity cycling through :data:`SPARSITIES` on A, on B and on both;
    ragged lengths (1 .. ``6 D`` rows, the last row part zero padding). For the
    tile only B's zeros matter; A operands get their own random zeros.

    Floating point (``params.dtype`` fp16/bf16/fp32): operands are bit patterns,
    ``random_fp_bits`` values with 3% (random streams: none in every other
    stream, 2% in the others) replaced by non-zero special values
    (subnormals, largest/smallest normals, +-Inf, NaNs, values near 1); zeros
    are +0 or -0 at random. The integer extremes section is replaced by
    ``fp_specials`` (all operands special), ``fp_inf_times_zero``,
    ``fp_cancellation``, ``fp_ties``, ``fp_extremes`` and ``fp_underflow``.
    """
    rng = np.random.default_rng(seed)
    lanes, depth = params.lanes, params.depth
    aw, bw, signed = params.a_width, params.b_width, params.signed
    A, B = _Operands(rng, params, aw), _Operands(rng, params, bw)
    rows_r = params.rows if tile else None
    out: list[Stream] = []

    def a_shape(n):
        return (rows_r, n, lanes) if tile else (n, lanes)

    def add(section, a, b):
        out.append(Stream(section, np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)))

    n = 2 * depth + 1
    add("empty", np.zeros(a_shape(0), np.int64), np.zeros((0, lanes), np.int64))
    add("all_zero_a", A.zeros(a_shape(n)), B.nonzero((n, lanes)))
    add("all_zero_b", A.nonzero(a_shape(n)), B.zeros((n, lanes)))
    add("all_zero_both", A.zeros(a_shape(n)), B.zeros((n, lanes)))
    add("dense", A.nonzero(a_shape(n)), B.nonzero((n, lanes)))
    # one effectual pair per row, at a random lane; the other pairs have a zero on a random side
    n = 3 * depth
    a, b = A.nonzero(a_shape(n)), B.nonzero((n, lanes))
    za, zb = A.zeros(a_shape(n)), B.zeros((n, lanes))
    hit = rng.integers(0, lanes, n)
    for k in range(n):
        for l in range(lanes):
            if l != hit[k]:
                if tile or rng.random() < 0.5:
                    b[k, l] = zb[k, l]
                else:
                    a[k, l] = za[k, l]
    add("one_per_row", a, b)
    for lane in (0, lanes - 1):
        a, b = A.nonzero(a_shape(n)), B.nonzero((n, lanes))
        mask = np.arange(lanes) != lane
        b[:, mask] = B.zeros((n, lanes))[:, mask]
        add(f"only_lane{lane}", a, b)
    if is_fp(params):
        _fp_directed(params, rng, a_shape, add, tile)
    else:
        lo_a, hi_a = operand_range(aw, signed)
        lo_b, hi_b = operand_range(bw, signed)
        big = max(((x, y) for x in (lo_a, hi_a) for y in (lo_b, hi_b) if x and y),
                  key=lambda p: abs(p[0] * p[1]))
        n = 4 * depth
        add("extremes", np.full(a_shape(n), big[0], np.int64), np.full((n, lanes), big[1], np.int64))
    # one effectual pair that lane 0 (first level) can reach only through option k: every option is used
    for k, (step, offset) in enumerate(pattern_options(params.pattern, lanes, depth)):
        a, b = A.nonzero(a_shape(depth)), B.zeros((depth, lanes))
        b[step, offset] = B.nonzero((1,))[0]
        add(f"reach_option{k}", a, b)
    for n in (1, depth - 1):
        add(f"rows{n}", A.sparse(a_shape(n), 0.3), B.sparse((n, lanes), 0.3))

    for i in range(vectors):
        s = SPARSITIES[i % len(SPARSITIES)]
        side = ("a", "b", "both")[(i // len(SPARSITIES)) % 3]
        pairs = int(rng.integers(1, MAX_ROWS_PER_DEPTH * depth * lanes, endpoint=True))
        n = -(-pairs // lanes)
        # fp: every other random stream has no special values, so that long finite sums are checked too
        special = 0.02 * (i % 2)
        a = A.sparse(a_shape(n), s if side in ("a", "both") else 0.0, special)
        b = B.sparse((n, lanes), s if side in ("b", "both") else 0.0, special)
        pad = n * lanes - pairs
        if pad:
            b[n - 1, lanes - pad:] = B.zeros((pad,))
            a[..., n - 1, lanes - pad:] = A.zeros(a[..., n - 1, lanes - pad:].shape)
        add(f"random_{side}", a, b)
    return out
