"""Golden and cycle model of TensorDash's dense baseline (``depth=1``) against plain numpy.

Integers: the numpy dot product. Floating point: numpy float32 arithmetic (IEEE RNE, independent of
:mod:`accelgen.golden.fp`) in the hardware's order: per busy cycle the in-order pairwise lane tree, into
thread ``j mod T``, the threads folded by the pairwise tree in the order the loop presents them. Every pair is
multiplied, zeros included, and a stream of ``S`` rows takes ``S`` busy cycles.
"""

import numpy as np
import pytest

from accelgen.golden.fp import random_fp_bits
from accelgen.golden.tensordash import cycle_counts, ideal_speedup, simulate_pe

NAN = 0x7FC0_0000


def _to_f32(bits, dtype):
    bits = np.asarray(bits, dtype=np.int64)
    if dtype == "fp16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float32)
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)  # bf16


def _pairwise(values):
    """The in-order pairwise tree over the last axis: (v0 + v1), (v2 + v3), ...; an odd last value moves up."""
    vals = [values[..., i] for i in range(values.shape[-1])]
    while len(vals) > 1:
        vals = [vals[i] + vals[i + 1] if i + 1 < len(vals) else vals[i] for i in range(0, len(vals), 2)]
    return vals[0]


def _numpy_dense(a, b, dtype, threads, length):
    """Dense fp dot products of a tile ``a`` (R, N, L) with ``b`` (N, L) in numpy float32."""
    x, y = _to_f32(a, dtype), _to_f32(b, dtype)
    acc = np.zeros((a.shape[0], threads), np.float32)
    with np.errstate(all="ignore"):
        for k in range(length):
            acc[:, (k + 1) % threads] += _pairwise(x[:, k, :] * y[None, k, :])
        order = [(length + 1 + i) % threads for i in range(threads)]
        out = _pairwise(acc[:, order])
    bits = out.view(np.uint32).astype(np.int64)
    return [NAN if np.isnan(v) else int(b_) for v, b_ in zip(out, bits)]


@pytest.mark.parametrize("tile", [False, True])
def test_dense_int_is_the_numpy_dot_product(tile):
    rng = np.random.default_rng(5)
    for n, length in ((0, 0), (1, 1), (9, 9), (13, 7)):
        a = rng.integers(-128, 128, (3, n, 4) if tile else (n, 4))
        b = rng.integers(-128, 128, (n, 4))
        b[rng.random(b.shape) < 0.5] = 0
        a[rng.random(a.shape) < 0.3] = 0
        b[:min(n, 2)] = 0  # whole zero rows: not skipped
        for pattern, side in (("default", "both"), ("lookahead", "b")):  # neither matters at depth 1
            tr = simulate_pe(a, b, depth=1, pattern=pattern, side=side, length=length)
            want = np.einsum("...nl,nl->...", a[..., :length, :], b[:length]).reshape(-1)
            assert tr.result == [int(v) for v in want]
            assert tr.cycles == length and tr.pairs_used == 4 * length
            assert (tr.sel == 1).all() and tr.sel.shape == (length, 4) and (tr.as_rows == 1).all()
            # the running sum after each busy cycle (what acc shows without interleaving)
            sums = np.cumsum(np.einsum("...nl,nl->...n", a[..., :length, :], b[:length]), axis=-1)
            assert [list(map(int, np.atleast_1d(sums[..., t]))) for t in range(length)] == tr.acc


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("threads", [1, 2, 3, 4])
def test_dense_fp_is_numpy_float32_in_hardware_order(dtype, threads):
    rng = np.random.default_rng(threads)
    for n, lanes in ((11, 4), (7, 3), (1, 2)):
        a = np.asarray(random_fp_bits(rng, (2, n, lanes), dtype, density=0.7), np.int64)
        b = np.asarray(random_fp_bits(rng, (n, lanes), dtype, density=0.7), np.int64)
        tr = simulate_pe(a, b, depth=1, dtype=dtype, threads=threads, side="b", summation="tree")
        assert tr.result == _numpy_dense(a, b, dtype, threads, n)
        assert tr.cycles == n
        pe = simulate_pe(a[0], b, depth=1, dtype=dtype, threads=threads, summation="tree")
        assert pe.result == tr.result[:1]


def test_dense_fp_multiplies_zero_pairs():
    """Inf x 0 is NaN in the dense baseline; TensorDash (depth 2) never forms it (the PE skips the pair)."""
    inf, one, zero = 0x7C00, 0x3C00, 0x0000  # fp16
    a = np.array([[inf, one], [one, one]])
    b = np.array([[zero, one], [one, one]])
    assert simulate_pe(a, b, depth=1, dtype="fp16").result == [NAN]
    assert simulate_pe(a, b, depth=2, dtype="fp16").result == [int(np.float32(3).view(np.uint32))]


def test_cycle_model_depth_one_is_the_stream_length():
    rng = np.random.default_rng(2)
    eff = rng.random((40, 12, 4)) < 0.3
    eff[:5] = False  # all-zero streams still take one cycle per row
    lengths = rng.integers(0, 13, 40)
    got = cycle_counts(eff, lengths, depth=1)
    assert got.tolist() == lengths.tolist()
    for s in range(0, 40, 7):
        tr = simulate_pe(eff[s].astype(int), np.ones((12, 4), int), depth=1, length=int(lengths[s]))
        assert tr.cycles == got[s]
    assert cycle_counts(eff[0], depth=1).tolist() == [12]
    assert ideal_speedup([0.0, 0.5, 0.99], 1).tolist() == [1.0, 1.0, 1.0]
