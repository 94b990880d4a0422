"""Batch estimator (issue 9): the grouped fast path is the estimator's chip, point by point."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

from accelgen.fit.model import FitRangeWarning, load_model
from accelgen.ppa.arch import parse_arch
from accelgen.ppa.batch import evaluate_batch, group
from accelgen.ppa.batch_rest import Rest
from accelgen.ppa.components import noc_flit_bits, steady_state_energy
from accelgen.ppa.estimate import estimate


#: a base with every part the batch estimator costs beside the tensor units and the memory
FULL_BASE = {"name": "batch_base", "node_nm": 28, "clock_mhz": 700, "vdd_v": 0.85,
             "core": {"tensor_units": [{"rows": 8, "cols": 8, "dataflow": "ws"}],
                      "vector_unit": {"width": 32}, "scalar_unit": True,
                      "memories": [{"name": "sram", "capacity_bytes": 2 ** 20, "block_bytes": 64, "banks": 4}]},
             "chip": {"noc": {"topology": "mesh", "tx": 1, "ty": 1, "bisection_gbps": 128},
                      "offchip": {"type": "hbm2", "bandwidth_gbps": 400, "channels": 2}, "host": {"pcie_gen": 4,
                                                                                                  "lanes": 8},
                      "white_space_fraction": 0.1},
             "activity": {"density": 0.5}}
BARE_BASE = {"name": "bare", "node_nm": 28, "clock_mhz": 700,
             "core": {"tensor_units": [{"rows": 8, "cols": 8, "dataflow": "ws"}],
                      "memories": [{"name": "sram", "capacity_bytes": 2 ** 20, "block_bytes": 64, "banks": 4}]},
             "chip": {"white_space_fraction": 0.1}}


def _points(n, seed):
    rng = np.random.default_rng(seed)
    tx, ty = rng.choice([1, 2, 4], n), rng.choice([1, 2], n)
    return dict(rows=rng.choice([4, 8, 16, 64], n), cols=rng.integers(2, 33, n), units=rng.integers(1, 4, n),
                tx=tx, ty=ty, cores=tx * ty, sram_bytes=rng.choice([2.0 ** 16, 3 * 2.0 ** 17, 2.0 ** 20], n),
                node_nm=rng.choice([45.0, 28.0, 7.0], n), clock_mhz=rng.uniform(200, 800, n),
                acc_width=rng.choice([16, 24, 32], n), dataflow=rng.choice(["ws", "os"], n))


def _description(base, p, i):
    """Point ``i`` as a description for the full estimator."""
    d = copy.deepcopy(base)
    d.update(node_nm=float(p["node_nm"][i]), clock_mhz=float(p["clock_mhz"][i]), cores=int(p["cores"][i]))
    d["core"]["tensor_units"][0].update(rows=int(p["rows"][i]), cols=int(p["cols"][i]), count=int(p["units"][i]),
                                        acc_width=int(p["acc_width"][i]), dataflow=str(p["dataflow"][i]))
    d["core"]["memories"][0]["capacity_bytes"] = int(p["sram_bytes"][i])
    d["chip"]["noc"] = {**d["chip"].get("noc", {}), "tx": int(p["tx"][i]), "ty": int(p["ty"][i])}
    return d


@pytest.mark.parametrize("base", [FULL_BASE, BARE_BASE], ids=["vector-scalar-noc-io-supply-density", "bare"])
def test_each_point_is_the_estimators_chip(base):
    """The batch path costs the chip the estimator builds for the same description -- the tensor units, the SRAM,
    the data bus, the vector unit and its register file, the scalar core, the NoC's routers and links, the I/O, the
    supply and the operand density -- to the last digit, the tensor unit's pipelining chosen by the same rule
    (accelgen.ppa.pipelining.choose_many; some points' tensor units are pipelined)."""
    p = _points(120, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = evaluate_batch(**p, block_bytes=64, sram_banks=4, white_space_fraction=0.1,
                             rest=Rest.of(parse_arch(base)))
        compared = pipelined = 0
        for i in range(0, 120, 4):
            e = estimate(_description(base, p, i))
            tu = next(c for c in e.pipelining if c["component"] == "core.tensor_units[0]")
            pipelined += bool(tu["mul_stages"] or tu["add_stages"])
            compared += 1
            assert out["area_mm2"][i] == pytest.approx(e.area_mm2, rel=1e-9)
            assert out["tdp_w"][i] == pytest.approx(e.tdp_w, rel=1e-9)
            assert out["peak_tops"][i] == pytest.approx(e.peak_tops, rel=1e-12)
    assert compared >= 20 and pipelined >= 5


def test_grouped_batch_equals_ungrouped():
    """Grouping the points is exact: every point evaluated on its own gives the same figures."""
    p = _points(60, seed=5)
    rest = Rest.of(parse_arch(FULL_BASE))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitRangeWarning)
        out = evaluate_batch(**p, rest=rest)
        for i in range(0, 60, 7):
            one = evaluate_batch(**{k: v[i] for k, v in p.items()}, rest=rest)
            for k in ("area_mm2", "tdp_w", "peak_tops"):
                assert out[k][i] == pytest.approx(float(one[k]), rel=1e-12)


def test_batch_broadcasts_scalars_and_shapes():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitRangeWarning)
        one = evaluate_batch(rows=8, cols=8, sram_bytes=2**20, node_nm=28, clock_mhz=700, acc_width=24)
        grid = evaluate_batch(rows=np.array([[8], [16]]), cols=np.array([8, 8, 4]), sram_bytes=2**20, node_nm=28,
                              clock_mhz=700, acc_width=24)
    assert np.shape(one["area_mm2"]) == () and grid["area_mm2"].shape == (2, 3)
    assert grid["area_mm2"][0, 0] == pytest.approx(float(one["area_mm2"]))
    assert grid["area_mm2"][1, 0] > grid["area_mm2"][0, 0] > grid["area_mm2"][0, 2]


def test_group_codes_index_the_distinct_tuples():
    a = np.array([1.0, 2.0, 1.0, 2.0, 1.0])
    b = np.array(["x", "x", "y", "x", "x"])
    c = np.broadcast_to(np.float64(7.0), a.shape)
    codes, (ua, ub, uc) = group(a, b, c)
    assert len(set(codes.tolist())) == 3 and uc == 7.0
    assert np.array_equal(ua[codes], a) and np.array_equal(ub[codes], b)


def test_steady_state_energy_does_not_extrapolate_fill_drain():
    """A 256x256 array's per-MAC energy stays that of the largest fitted array (the fill/drain term of the
    fitted per-op definition is not extrapolated); within the fitted range it is the model's own value."""
    m = load_model("systolic")
    if "fill" not in str(m["energy_pj"].per):
        # the shipped model's energy is steady state already (issue 7): nothing is clamped, and a 256x256
        # array's per-MAC energy is the model's own, not blown up by an extrapolated fill/drain term
        assert steady_state_energy(m, {"rows": 256, "cols": 256}, 28) is None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FitRangeWarning)
            big, small = (float(m["energy_pj"].predict(node_nm=28, rows=n, cols=n)) for n in (256, 8))
        assert 0.5 < big / small < 1.5
        return
    hi = m.inputs["rows"]["range"][1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitRangeWarning)
        big = steady_state_energy(m, {"rows": 256, "cols": 256}, 28)[0]
        top = m["energy_pj"].predict(node_nm=28, rows=hi, cols=m.inputs["cols"]["range"][1])
        raw_big = m["energy_pj"].predict(node_nm=28, rows=256, cols=256)
    assert float(big) == pytest.approx(float(top)) and float(raw_big) > 3 * float(big)
    inside = steady_state_energy(m, {"rows": 4, "cols": 4}, 28)[0]
    assert float(inside) == pytest.approx(float(m["energy_pj"].predict(node_nm=28, rows=4, cols=4)))


@pytest.mark.parametrize("topology", ["mesh", "ring", "bus"])
def test_flit_width_of_many_points_is_each_points_own(topology):
    """The flits widened for each point's grid and clock at once equal the one-point widths (the exact doublings:
    needs that are powers of two, bisections of 6 flits, the 4096-bit cap, a base already wider)."""
    tx, ty, clock = (a.ravel().astype(float) for a in np.meshgrid([1, 2, 3, 4, 8, 16], [1, 2, 3, 7, 16],
                                                                   [100, 300, 333.3, 500, 1000, 1024, 2000]))
    for flit_bits in (16, 39, 4096, 8192):
        for bisection_gbps in (1, 256, 4096, 1e5):
            many = noc_flit_bits(topology, tx, ty, flit_bits, bisection_gbps, clock)
            one = [noc_flit_bits(topology, int(x), int(y), flit_bits, bisection_gbps, c) for x, y, c in
                   zip(tx, ty, clock)]
            assert many.tolist() == one == [_doubled_flit(topology, int(x), int(y), flit_bits, bisection_gbps, c)
                                            for x, y, c in zip(tx, ty, clock)]


def _doubled_flit(topology, tx, ty, flit_bits, bisection_gbps, clock_mhz):
    """The flit width as the NoC model states it, naively: doubled while the bisection misses the need."""
    need = bisection_gbps * 8e3 / clock_mhz
    per_flit = {"mesh": 2 * min(tx, ty), "ring": 4, "bus": 1}[topology]
    flit = flit_bits
    while per_flit * flit < need and flit < 4096:
        flit *= 2
    return flit
