"""The multi-operand fp32 sum with one rounding (:func:`accelgen.golden.fp.fp_sum`, the model of
:class:`accelgen.rtl.fp_sum.FPSum`): two operands are the fp32 adder's sum; more are checked against exact
rational sums (Python fractions) for what the algorithm guarantees, and special values by hand."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from accelgen.golden.fp import fp_add, fp_sum, recording, special_values

NAN, INF, NEG_INF, NEG_ZERO = 0x7FC00000, 0x7F800000, 0xFF800000, 0x80000000


def f32(*values) -> np.ndarray:
    return np.array(values, dtype=np.float32).view(np.uint32)


def _value(bits) -> Fraction:
    return Fraction(float(np.uint32(bits).view(np.float32)))


def _rne32(x: Fraction) -> int:
    """fp32 bits nearest to ``x`` (ties to even, gradual underflow), ``x`` in the finite range."""
    if x == 0:
        return 0
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    e -= Fraction(2) ** e > a
    quantum = Fraction(2) ** (max(e, -126) - 23)
    k, rest = divmod(a, quantum)
    k += rest > quantum / 2 or (rest == quantum / 2 and k % 2 == 1)
    return int(np.float32(float(k * quantum)).view(np.uint32)) | ((x < 0) << 31)


def _operands(rng, n: int, count: int, spread: int, same_sign: bool) -> np.ndarray:
    """``count`` sums of ``n`` random normal operands, exponents within ``spread`` below a random top."""
    top = rng.integers(spread + 1, 240, count)
    exps = top - rng.integers(0, spread + 1, (n, count))
    signs = np.repeat(rng.integers(0, 2, (1, count)), n, 0) if same_sign else rng.integers(0, 2, (n, count))
    return ((signs << 31) | (exps << 23) | rng.integers(0, 1 << 23, (n, count))).astype(np.uint32)


@pytest.mark.parametrize("flush", [False, True])
def test_two_operands_are_the_adder(flush):
    """Every pair of special values, random bit patterns and near-cancelling pairs: fp_sum of two is fp_add."""
    rng = np.random.default_rng(1)
    s = special_values("fp32")
    a, b = np.repeat(s, len(s)), np.tile(s, len(s))
    u = rng.integers(0, 1 << 32, 50_000, dtype=np.uint64).astype(np.uint32)
    v = rng.integers(0, 1 << 32, 50_000, dtype=np.uint64).astype(np.uint32)
    close = (u & np.uint32(0xFF800000)) ^ rng.integers(0, 1 << 26, 50_000).astype(np.uint32)
    near = (u + rng.integers(-4, 5, 50_000).astype(np.uint32)) ^ np.uint32(0x80000000)
    for x, y in ((a, b), (u, v), (u, close), (u, near)):
        assert np.array_equal(fp_sum([x, y], flush), fp_add(x, y, flush))


@pytest.mark.parametrize("n", [3, 5, 9])
def test_close_exponents_are_correctly_rounded(n):
    """Exponents at most 3 apart shift no bit out of the window: the integer sum is exact, rounded once."""
    ops = _operands(np.random.default_rng(n), n, 1500, 3, same_sign=False)
    got = fp_sum(list(ops))
    assert [int(g) for g in got] == [_rne32(sum(_value(o) for o in col)) for col in ops.T]


@pytest.mark.parametrize("n", [3, 5, 9])
@pytest.mark.parametrize("same_sign", [True, False])
def test_error_bound_against_exact_sums(n, same_sign):
    """Exponents up to 40 apart: the error is below half an ulp of the result plus ``n - 1`` units of the
    window's last bit (``2**(E - 153)``); with one sign and ``n <= 5`` below one ulp (the module docstring of
    rtl/fp_sum.py). Also: not always correctly rounded (else the bound would say nothing)."""
    ops = _operands(np.random.default_rng(10 * n + same_sign), n, 1500, 40, same_sign)
    got = fp_sum(list(ops))
    worst_ulps, misrounded = Fraction(0), 0
    for col, g in zip(ops.T, got):
        exact = sum(_value(o) for o in col)
        ulp = Fraction(2) ** (max(int(g) >> 23 & 0xFF, 1) - 150)
        unit = Fraction(2) ** (int(max(col >> 23 & 0xFF)) - 153)
        err = abs(_value(g) - exact)
        assert err < ulp / 2 + (n - 1) * unit, hex(int(g))
        worst_ulps = max(worst_ulps, err / ulp)
        misrounded += int(g) != _rne32(exact)
    if same_sign:
        assert worst_ulps < (n - 1) / Fraction(8) + Fraction(1, 2)
        if n <= 5:
            assert worst_ulps < 1
    assert misrounded > 0


def test_special_values():
    one, two = f32(1.0), f32(2.0)
    assert fp_sum([one, f32(np.inf), two]) == INF
    assert fp_sum([f32(-np.inf), one, f32(-np.inf)]) == NEG_INF
    assert fp_sum([f32(np.inf), one, f32(-np.inf)]) == NAN                  # +Inf and -Inf
    assert fp_sum([one, np.uint32(0x7F800001), f32(np.inf)]) == NAN          # a signalling NaN, canonical
    assert fp_sum([f32(3e38), f32(3e38), f32(-1.0)]) == INF                  # overflow
    assert fp_sum([f32(-3e38), f32(-3e38), one]) == NEG_INF


def test_signed_zeros():
    nz = np.uint32(NEG_ZERO)
    assert fp_sum([nz, nz, nz, nz, nz]) == NEG_ZERO                          # all -0: -0 (the identity)
    assert fp_sum([nz, np.uint32(0), nz]) == 0
    assert fp_sum([f32(1.5), f32(-1.0), f32(-0.5)]) == 0                     # exact cancellation: +0
    # x + (-0) + (-0) + ... is x for every x: -0 is the identity of the sum
    s = special_values("fp32")
    assert np.array_equal(fp_sum([s, nz, nz, nz, nz]), fp_add(s, nz))


def test_subnormals_and_flushing():
    tiny = np.uint32(1)                                                       # 2**-149
    assert fp_sum([tiny, tiny, tiny]) == 3                                    # gradual underflow: exact
    assert fp_sum([tiny, tiny, tiny], flush_subnormals=True) == 0             # DAZ
    # normal operands whose sum, 2**-128, is subnormal: exact without flushing, a zero of its sign with FTZ
    below = [f32(1.5 * 2.0 ** -126), f32(-1.25 * 2.0 ** -126), f32(0.0)]
    assert fp_sum(below) == f32(2.0 ** -128)
    assert fp_sum(below, flush_subnormals=True) == 0
    assert fp_sum([x ^ np.uint32(NEG_ZERO) for x in below], flush_subnormals=True) == NEG_ZERO
    # DAZ: subnormal operands are zeros, so 2**-126 - 2**-127 - 2**-128 is 2**-126
    assert fp_sum([f32(2.0 ** -126), f32(-(2.0 ** -127)), f32(-(2.0 ** -128))], flush_subnormals=True) == \
        f32(2.0 ** -126)


def test_broadcasts_and_records():
    a = f32(1.0, 2.0, 3.0)
    with recording() as ops:
        out = fp_sum([a, f32(1.0), np.uint32(NEG_ZERO)])
    assert list(out) == list(f32(2.0, 3.0, 4.0))
    (operands, results, flush), = ops.fused
    assert operands.shape == (3, 3) and list(results) == list(out) and flush is False
    assert ops.add == [] and ops.count == 3


@pytest.mark.parametrize("bad", [[], [f32(1.0)]])
def test_needs_two_operands(bad):
    with pytest.raises(ValueError, match="at least two operands"):
        fp_sum(bad)
