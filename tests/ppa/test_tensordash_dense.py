"""The performance model at TensorDash's dense baseline (``depth=1``): speedup 1 by definition, every MAC
executed (zeros included), the dense schedule's cycles plus the PE latency per output group."""

import numpy as np

from accelgen.ppa.mapping import tensordash_exact_cycles, tensordash_map, tensordash_speedup
from accelgen.ppa.workload import lower, parse_workload


def _gemms(shapes, a_d=1.0, b_d=1.0):
    wl = parse_workload({"layers": [{"name": f"g{i}", "type": "gemm", "M": m, "N": n, "K": k, "batched": False,
                                     "a_density": a_d, "b_density": b_d} for i, (m, n, k) in enumerate(shapes)]})
    return lower(wl)


def test_dense_speedup_is_one_at_any_sparsity():
    for side, rows in (("b", 4), ("both", 1)):
        for d in (1.0, 0.5, 0.05):
            assert tensordash_speedup(d, d, 4, 1, side, 64) == 1.0
    assert tensordash_speedup(1.0, 1.0, 4, 1, "b", 64, nm=(2, 4)) == 1.0


def test_dense_map_is_the_dense_schedule_and_executes_every_mac():
    shapes = [(64, 32, 256), (10, 7, 30)]
    sparse_g, dense_g = _gemms(shapes, a_d=0.4, b_d=0.3), _gemms(shapes)
    for rows in (4, 1):
        kw = {"lanes": 4, "depth": 1, "rows": rows, "cols": 4, "tiles": 2, "mul_stages": 2, "add_stages": 1}
        mp, ref = tensordash_map(sparse_g, **kw), tensordash_map(dense_g, **kw)
        assert mp.cycles.tolist() == ref.cycles.tolist()
        assert (mp.detail["speedup"] == 1.0).all()
        macs = np.array([m * n * k for m, n, k in shapes], float)
        assert mp.executed_macs.tolist() == macs.tolist()  # no zero skipping
        # busy cycles: every output group (ceil(M / R) x N) streams its ceil(K / L) rows
        assert mp.actions.tolist() == [-(-m // rows) * n * -(-k // 4) for m, n, k in shapes]
    # TensorDash (depth 4) on the same sparse layers: fewer cycles, only the effectual MACs
    td = tensordash_map(sparse_g, lanes=4, depth=4, rows=4, cols=4, tiles=2)
    dense = tensordash_map(sparse_g, lanes=4, depth=1, rows=4, cols=4, tiles=2)
    assert (td.cycles < dense.cycles).all() and (td.executed_macs < dense.executed_macs).all()


def test_dense_exact_cycles_are_the_rows():
    rng = np.random.default_rng(1)
    a, b = rng.random((8, 22)) < 0.3, rng.random((22, 3)) < 0.3
    for rows in (1, 4):
        assert tensordash_exact_cycles(a, b, lanes=4, depth=1, rows=rows) == (8 // rows) * 3 * 6  # ceil(22 / 4)
