"""``accelgen.ppa.sigma_report``: the SIGMA efficiency study from Python (``accelgen sigma-report`` prints it)."""

import pytest

from accelgen.ppa.sigma_report import DEFAULT_GEMMS, DEFAULT_SPARSITY_PAIRS, benes_stages, sigma_report


def test_sigma_report_has_one_row_per_shape_and_pair_and_is_seeded():
    gemms, pairs = [(8, 8, 8), (1, 16, 4)], [(0.0, 0.0), (0.9, 0.5), (1.0, 0.0)]
    rows = sigma_report(8, gemms, pairs, seed=5)
    assert [(r["M"], r["N"], r["K"], r["sparsity_a"], r["sparsity_b"]) for r in rows] == \
        [(*g, *p) for g in gemms for p in pairs]
    dense = rows[0]
    assert dense["cycles"] == 8 + 64 + 7 and dense["compute_efficiency"] == 1.0 and dense["dense_macs"] == 512
    assert rows[2]["cycles"] == 0 and rows[2]["useful_macs"] == 0   # all of A zero: nothing to compute
    assert sigma_report(8, gemms, pairs, seed=5) == rows


def test_sigma_report_defaults():
    assert len(DEFAULT_GEMMS) * len(DEFAULT_SPARSITY_PAIRS) == 49
    assert sigma_report(4, DEFAULT_GEMMS[:1], DEFAULT_SPARSITY_PAIRS[:1])[0]["k"] == 4


def test_sigma_report_rejects_more_benes_pipelining_than_stages():
    assert (benes_stages(4), benes_stages(32), benes_stages(256)) == (3, 9, 15)
    assert sigma_report(4, [(4, 4, 4)], [(0.0, 0.0)], benes_pipeline_every=3)[0]["add_cycles"] == 2 + 4 + 1
    with pytest.raises(ValueError, match=r"benes_pipeline_every=4 is not allowed; expected 0\.\.3 "
                                         r"\(the Benes stages of k=4\)"):
        sigma_report(4, benes_pipeline_every=4)
