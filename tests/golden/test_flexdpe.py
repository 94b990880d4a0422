"""SIGMA host side without a simulator: bitmap format, mapping walkthrough, cycle model, controller routing.

The controller test replays every planned cycle through independent numpy models of the
Flex-DPE datapath (a naive copy-scan, the Benes reference, multiply, segmented sums) and
checks that host accumulation of the cluster sums gives numpy's ``A @ B``.
"""

import numpy as np
import pytest

from accelgen.golden.benes import benes_reference
from accelgen.golden.fan import segmented_sums
from accelgen.golden.flexdpe import (MAX_ADD_STAGES, MAX_MUL_STAGES, flexdpe_latency, map_gemm, random_bitmap,
                                     sigma_cycles)
from accelgen.cosim.flexdpe import (BitmapMatrix, directed_gemms, parse_gemm, parse_sparsity, parse_stationary,
                                  plan_gemm, sparse_operands)
from accelgen.rtl.flexdpe import FlexDPEParams
from accelgen.rtl.flexdpe import flexdpe_latency as rtl_latency


def test_bitmap_round_trip_and_transpose():
    rng = np.random.default_rng(0)
    d = rng.integers(-3, 4, (5, 7))
    bm = BitmapMatrix.from_dense(d)
    assert bm.nnz == np.count_nonzero(d) and np.array_equal(bm.bitmap, d != 0)
    assert np.array_equal(bm.values, d[d != 0])              # row-major packing
    assert np.array_equal(bm.to_dense(), d)
    assert np.array_equal(bm.T.to_dense(), d.T)
    r, c = np.nonzero(np.ones_like(d))
    assert np.array_equal(bm.value_at(r, c), d[r, c])
    with pytest.raises(ValueError, match="stores non-zeros only"):
        BitmapMatrix(np.ones((1, 2), bool), np.array([1, 0]))
    with pytest.raises(ValueError, match="the bitmap has 2 non-zeros"):
        BitmapMatrix(np.ones((1, 2), bool), np.array([1]))


def test_walkthrough_or_and_row_major_folds():
    # stationary = inputs: S = A, T = B^T; column 2 of K has no non-zero in B -> A[:, 2] is not mapped
    A = np.array([[1, 0, 5, 2], [0, 3, 4, 0], [6, 0, 0, 7]])
    B = np.array([[1, 0], [0, 2], [0, 0], [3, 0]])
    gm = map_gemm(A != 0, B != 0, 4, "inputs")
    assert gm.useful_k.tolist() == [True, True, False, True]
    assert gm.useful.sum() == 5                               # 7 non-zeros in A, 2 in the useless column
    f0, f1 = gm.folds
    assert list(zip(f0.rows, f0.cols)) == [(0, 0), (0, 3), (1, 1), (2, 0)]   # row 2 straddles the folds
    assert list(zip(f1.rows, f1.cols)) == [(2, 3)]
    assert f0.vectors.tolist() == [0, 1] and f1.vectors.tolist() == [0]      # B[3,1] = 0: vector 1 skipped
    c = sigma_cycles(A != 0, B != 0, 4, "inputs")
    L = flexdpe_latency(4)
    assert (c.folds, c.load_cycles, c.stream_cycles, c.add_cycles, c.cycles) == (2, 2, 3, L, 2 + 3 + L)
    assert c.useful_macs == sum(int(A[m, kk] != 0 and B[kk, n] != 0) for m in range(3) for n in range(2)
                                for kk in range(4))
    assert c.stationary_utilization == pytest.approx(5 / 8)


@pytest.mark.parametrize("k", [4, 8, 32])
def test_dense_regular_closed_form(k):
    one = np.ones((k, k), bool)
    c = sigma_cycles(one, one, k, "weights")
    assert (c.folds, c.stream_cycles, c.flexdpes) == (k, k * k, k)
    assert c.cycles == k + k * k + flexdpe_latency(k)
    assert c.compute_efficiency == 1.0 and c.stationary_utilization == 1.0
    assert c.overall_efficiency == pytest.approx(k ** 3 / (k * c.cycles))


def test_auto_picks_the_faster_and_all_zero_is_free():
    rng = np.random.default_rng(3)
    for _ in range(20):
        M, N, K = rng.integers(1, 40, 3)
        a, b = random_bitmap((M, K), rng.random(), rng), random_bitmap((K, N), rng.random(), rng)
        both = [sigma_cycles(a, b, 8, s).cycles for s in ("weights", "inputs")]
        assert sigma_cycles(a, b, 8, "auto").cycles == min(both)
    z = sigma_cycles(np.zeros((3, 4), bool), np.ones((4, 5), bool), 8)
    assert (z.cycles, z.folds, z.useful_macs, z.overall_efficiency) == (0, 0, 0, 0.0)


def test_k_much_smaller_than_kdim_splits_rows_and_m1():
    c = sigma_cycles(np.ones((1, 100), bool), np.ones((100, 1), bool), 8, "inputs")
    assert c.folds == 13 and c.stream_cycles == 13 and c.stationary_utilization == pytest.approx(100 / 104)


def test_rtl_and_model_latency_agree():
    for k in (4, 8, 16, 64, 256):
        for r in range(0, 2 * (k.bit_length() - 1)):
            assert rtl_latency(k, r) == flexdpe_latency(k, r) == FlexDPEParams(k=k, benes_pipeline_every=r).latency
            for s in range(MAX_MUL_STAGES + 1):
                assert rtl_latency(k, r, s) == flexdpe_latency(k, r, s) == flexdpe_latency(k, r) + s == \
                    FlexDPEParams(k=k, benes_pipeline_every=r, mul_stages=s).latency
    # the golden package imports no RTL: its bound on mul_stages is checked against the schema's here
    assert FlexDPEParams.allowed("mul_stages") == f"an integer in 0..{MAX_MUL_STAGES}"


def test_add_stages_latency_is_log2k_per_stage():
    """Each FAN level's adders gain ``add_stages`` registers: ``log2 k * add_stages`` more cycles, in the
    golden model, the RTL formula and the parameter set alike (and the mapping is unchanged)."""
    for k in (4, 8, 16, 64, 256):
        log2k = k.bit_length() - 1
        for r in (0, 1, 2 * log2k - 1):
            for s in (0, MAX_MUL_STAGES):
                for a in range(MAX_ADD_STAGES + 1):
                    want = flexdpe_latency(k, r, s) + log2k * a
                    assert flexdpe_latency(k, r, s, a) == flexdpe_latency(k, r, s, add_stages=a) == want == \
                        rtl_latency(k, r, s, a) == FlexDPEParams(k=k, benes_pipeline_every=r, mul_stages=s,
                                                                 add_stages=a).latency
    assert flexdpe_latency(16, 0, 2, 1) == 4 + 4 + 2 + 4 and flexdpe_latency(8, add_stages=2) == 3 + 4 + 6
    assert FlexDPEParams.allowed("add_stages") == f"an integer in 0..{MAX_ADD_STAGES}"
    rng = np.random.default_rng(5)
    a, b = random_bitmap((13, 29), 0.5, rng), random_bitmap((29, 7), 0.3, rng)
    flat, piped = (sigma_cycles(a, b, 16, mul_stages=2, add_stages=x) for x in (0, 3))
    assert piped.add_cycles == flat.add_cycles + 12 and piped.cycles == flat.cycles + 12
    assert (piped.stationary, piped.folds, piped.load_cycles, piped.stream_cycles) == \
        (flat.stationary, flat.folds, flat.load_cycles, flat.stream_cycles)
    for bad in (-1, 4, True, 2.0):
        with pytest.raises(ValueError, match=rf"^add_stages={bad!r} is not allowed; expected an integer in 0\.\.3$"):
            flexdpe_latency(8, 0, 0, bad)


def _copy_scan(words, heads):
    """Naive: every port takes the word of the nearest head at or before it (port 0's own if none)."""
    out, cur = [], words[0]
    for w, h in zip(words, heads):
        cur = w if h else cur
        out.append(cur)
    return out


@pytest.mark.parametrize("k", [4, 8, 16])
def test_controller_routes_every_word_and_host_sums_equal_numpy(k):
    params = FlexDPEParams(k=k, width=6)
    rng = np.random.default_rng(k)
    gemms = [(A, B) for _, A, B in directed_gemms(params, rng)]
    for _ in range(6):
        shape = tuple(int(x) for x in rng.integers(1, 3 * k, 3))
        gemms.append(sparse_operands(params, shape, rng.choice([0, .5, .9]), rng.choice([0, .5, .9]), rng))
    for A, B in gemms:
        for st in ("weights", "inputs", "auto"):
            plan = plan_gemm(params, A, B, st)
            S, T = (B.T, A) if plan.model.stationary == "weights" else (A, B.T)
            O = np.zeros(S.shape[0] * T.shape[0], dtype=object).reshape(S.shape[0], T.shape[0])
            for fold, fm in zip(plan.folds, plan.mapping.folds):
                u = fold.mapped
                loaded = benes_reference(fold.load_settings, list(zip(fold.stationary, np.arange(k) < u)))
                assert [w for w, v in loaded[:u]] == S[fm.rows, fm.cols].tolist()
                assert not any(v for _, v in loaded[u:])
                for step in fold.steps:
                    copies = _copy_scan(list(zip(step.words.tolist(), step.valid.tolist())), step.head.tolist())
                    got = benes_reference(step.settings, copies)
                    for j in range(k):
                        want = T[step.v, fm.cols[j]] if j < u else 0
                        assert got[j][1] == bool(want), (j, got[j], want)
                        if want:
                            assert got[j][0] == want
                    prods = [fold.stationary[j] * got[j][0] for j in range(k)]
                    for cl in segmented_sums(prods, fold.vec_ids, [g[1] for g in got]):
                        if cl.valid:
                            O[fold.cluster_rows[cl.vec_id], step.v] += cl.total
            C = O.T if plan.model.stationary == "weights" else O
            assert np.array_equal(C, A.astype(object) @ B.astype(object))


def test_validation_messages():
    with pytest.raises(ValueError, match="k=12 is not a power of two"):
        FlexDPEParams.validate_kwargs(dict(k=12))
    with pytest.raises(ValueError, match="benes_pipeline_every=6 exceeds the 5 Benes stages"):
        FlexDPEParams.validate_kwargs(dict(k=8, benes_pipeline_every=6))
    with pytest.raises(ValueError, match=r"k: 2 is not allowed; expected an integer in 4\.\.256"):
        FlexDPEParams.validate_kwargs(dict(k=2))
    with pytest.raises(ValueError, match="operand A has values in"):
        plan_gemm(FlexDPEParams(k=4, width=4), np.full((2, 2), 8), np.ones((2, 2), int))
    with pytest.raises(ValueError, match="expected M,N,K"):
        parse_gemm("3,4")
    with pytest.raises(ValueError, match="fraction of zeros in 0..1"):
        parse_sparsity("1.5")
    with pytest.raises(ValueError, match="allowed: weights, inputs, auto"):
        parse_stationary("outputs")
