"""Eyeriss's row-stationary schedule (``schedule: row_stationary``): its folding rule, worked by hand on AlexNet."""

from __future__ import annotations

import numpy as np
import pytest

from accelgen.ppa.mapping import row_stationary_map, systolic_map
from accelgen.ppa.workload import load_workload, lower, parse_workload


def _map(g, rows=12, cols=14, units=1):
    return row_stationary_map(g, rows=rows, cols=cols, dataflow="os", units=units)


def test_alexnet_on_eyeriss_array_by_hand():
    """Eyeriss's 12 x 14 array at batch 4 (Chen et al., JSSC 2017, sect. IV). conv1: one 11-row set, E = 55 in
    four strips of <= 14; conv2 (2 groups): two 5-row sets stacked, E = 27 in two strips; conv3-5: four 3-row
    sets stacked, 13 of 14 columns. Each pass is one row convolution per PE: Q x S cycles."""
    g = lower(load_workload("alexnet_conv"), 4)
    mp = _map(g)
    # passes = samples x groups x filters/group x channels/group x strips / sets side by side
    passes = [4 * 1 * 96 * 3 * 4 // 1, 4 * 2 * 128 * 48 * 2 // 2, 4 * 1 * 384 * 256 // 4, 4 * 2 * 192 * 192 // 4,
              4 * 2 * 128 * 192 // 4]
    assert mp.detail["passes"].tolist() == passes
    assert mp.cycles.tolist() == [p * q for p, q in zip(passes, [55 * 11, 27 * 5, 13 * 3, 13 * 3, 13 * 3])]
    assert mp.detail["set_slots"].tolist() == [1, 2, 4, 4, 4]
    # mean busy PEs of a pass: conv1 11 x 55/4, conv2 2 x 5 x 27/2, conv3-5 4 x 3 x 13
    assert np.allclose(mp.detail["active_pes"], [151.25, 135, 156, 156, 156])
    # every MAC is done once: busy PE-cycles equal the layer's MACs
    assert np.allclose(mp.detail["active_pes"] * mp.cycles, g.macs)
    # the traffic and actions are the OS array's own
    os_map = systolic_map(g, rows=12, cols=14, dataflow="os", units=1)
    assert np.array_equal(mp.onchip_a_reads, os_map.onchip_a_reads) and np.array_equal(mp.actions, os_map.actions)


def test_tall_sets_fold_and_small_sets_replicate():
    wl = parse_workload({"batch": 1, "layers": [
        {"name": "tall", "type": "conv", "C": 2, "H": 20, "W": 20, "K": 3, "R": 7, "S": 7},        # R 7 > 4 rows
        {"name": "small", "type": "conv", "C": 2, "H": 5, "W": 5, "K": 8, "R": 2, "S": 2}]})       # E 4 < 8 cols
    g = lower(wl)
    mp = _map(g, rows=4, cols=8)
    # tall: R = 7 in two pieces of 4 rows, one per pass; E = 14 in two strips of 8; 1 sample x 3 x 2 x 2 x 2 jobs
    # small: 2-row sets, two stacked and two side by side (E = 4 of 8 columns): 1 x 8 x 2 jobs over 4 slots
    assert mp.detail["set_slots"].tolist() == [1, 4]
    assert mp.detail["passes"].tolist() == [24, 4]
    assert mp.cycles.tolist() == [24 * 14 * 7, 4 * 4 * 2]


def test_gemm_runs_as_one_by_one_convolution():
    wl = parse_workload({"layers": [{"name": "fc", "type": "gemm", "M": 10, "N": 100, "K": 84, "batched": False}]})
    mp = _map(lower(wl))
    # 100 x 84 one-PE jobs of M = 10 cycles each, 168 at a time
    assert mp.cycles.tolist() == [int(np.ceil(100 * 84 / 168)) * 10]


@pytest.mark.parametrize("units", [1, 3])
def test_units_share_the_passes(units):
    g = lower(load_workload("alexnet_conv"), 1)
    one, many = _map(g), _map(g, units=units)
    assert (many.cycles <= one.cycles).all()
    assert np.array_equal(many.detail["passes"], -(-one.detail["passes"] // units))
