"""The performance model charges a compute unit's clock network per cycle it is busy with a layer (issue 52): the
fitted ``clock_energy_pj`` x the actions a cycle does at full activity x the mapping's cycles, the rest of the
energy per action per action."""

from __future__ import annotations

import json

import numpy as np
import pytest

from accelgen.fit.api import FIT_DIR
from accelgen.fit.model import load_model
from accelgen.ppa import estimate
from accelgen.ppa.mapping import reduction_map, row_stationary_map, sigma_map, systolic_map, tensordash_map
from accelgen.ppa.perf import evaluate
from accelgen.ppa.workload import lower, parse_workload

#: the generated int8 accelerator's array (examples/accel/int8_ws16.yaml), on its own
ARCH = {"name": "t", "node_nm": 45, "vdd_v": 1.1, "clock_mhz": 500,
        "core": {"tensor_units": [{"rows": 16, "cols": 16, "dataflow": "ws", "weight_load": "shift", "a_width": 8,
                                   "b_width": 8, "acc_width": 32, "pipeline": {"mul_stages": 0, "add_stages": 0}}]}}
GEMM = {"name": "g", "layers": [{"name": "gemm_37x29x45", "type": "gemm", "M": 37, "N": 29, "K": 45}]}


def _models(tmp_path):
    """The shipped systolic model as a user's file (not relaxed, so the two runs differ only in the clock), with and
    without its clock target."""
    data = json.loads((FIT_DIR / "models" / "systolic.json").read_text())
    with_clock, without = tmp_path / "with.json", tmp_path / "without.json"
    with_clock.write_text(json.dumps(data))
    del data["targets"]["clock_energy_pj"]
    without.write_text(json.dumps(data))
    return {"systolic": str(with_clock)}, {"systolic": str(without)}


def test_idle_cycles_tick_the_clock(tmp_path):
    clocked, per_action = _models(tmp_path)
    layer = evaluate(ARCH, GEMM, batch=1, model_paths=clocked).layers[0]
    ref = evaluate(ARCH, GEMM, batch=1, model_paths=per_action).layers[0]
    # by hand: the model's clock per cycle (16 x 16 MACs' worth) on every cycle without a MAC
    clock_pj = float(load_model("systolic", path=clocked["systolic"])["clock_energy_pj"].predict(
        rows=16, cols=16, dataflow="ws", a_width=8, b_width=8, acc_width=32, weight_load="shift", mul_stages=0,
        add_stages=0, density=1.0, node_nm=45))
    idle = layer["cycles"] - layer["macs"] / 256
    assert 0.3 < layer["macs"] / 256 / layer["cycles"] < 0.5   # the fold overhead of a small GEMM
    added = (layer["energy_breakdown_j"]["compute_j"] - ref["energy_breakdown_j"]["compute_j"]) * 1e12
    assert added == pytest.approx(clock_pj * 256 * idle, rel=1e-9)
    # nothing else moves; the estimate (full activity) is the same with or without the target
    others = {k: v for k, v in layer["energy_breakdown_j"].items() if k != "compute_j"}
    assert others == pytest.approx({k: v for k, v in ref["energy_breakdown_j"].items() if k != "compute_j"})
    assert estimate(ARCH, model_paths=clocked).tdp_w == pytest.approx(estimate(ARCH, model_paths=per_action).tdp_w)


def test_full_activity_charges_what_the_action_energy_says(tmp_path):
    clocked, per_action = _models(tmp_path)
    wl = {"name": "g", "layers": [{"name": "big", "type": "gemm", "M": 4096, "N": 256, "K": 256}]}
    layer = evaluate(ARCH, wl, batch=1, model_paths=clocked).layers[0]
    ref = evaluate(ARCH, wl, batch=1, model_paths=per_action).layers[0]
    busy = layer["macs"] / 256 / layer["cycles"]
    assert busy > 0.9
    extra = layer["energy_breakdown_j"]["compute_j"] / ref["energy_breakdown_j"]["compute_j"] - 1
    assert 0 < extra < (1 - busy)   # only the idle share's clock is added


@pytest.mark.parametrize("mapping", [
    lambda g: systolic_map(g, rows=16, cols=16, dataflow="ws", units=2),
    lambda g: row_stationary_map(g, rows=12, cols=14, dataflow="os", units=1),
    lambda g: sigma_map(g, k=64, flexdpes=4),
    lambda g: tensordash_map(g, lanes=4, depth=3, rows=4, cols=4, tiles=8),
    lambda g: tensordash_map(g, lanes=16, depth=1, rows=1, cols=4, tiles=8),
    lambda g: reduction_map(g, inputs=64, kind="fan", trees=4),
    lambda g: reduction_map(g, inputs=64, kind="linear", trees=4),
], ids=["systolic", "row_stationary", "sigma", "tensordash_tile", "tensordash_pe", "fan", "linear"])
def test_peak_actions_bound_the_actions_and_a_large_layer_reaches_them(mapping):
    g = lower(parse_workload({"name": "w", "layers": [
        {"name": "big", "type": "gemm", "M": 1024, "N": 1024, "K": 1024},
        {"name": "small", "type": "gemm", "M": 37, "N": 29, "K": 45}]}))
    mp = mapping(g)
    busy = mp.actions / (mp.cycles * mp.peak_actions_per_cycle)
    assert np.all(busy <= 1.0 + 1e-9)
    assert busy[0] > 0.95
