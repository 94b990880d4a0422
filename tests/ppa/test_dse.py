"""Design-space exploration (issue 11): sampling, aliases, point evaluation against the perf model, resume,
Dask, Pareto fronts, the chip-level vectorized path, and bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from accelgen.errors import ConfigError
from accelgen.ppa import dse
from accelgen.ppa.arch import load_arch, parse_arch
from accelgen.ppa.batch import evaluate_batch
from accelgen.ppa.batch_rest import Rest
from accelgen.ppa.dse.plan import core_grid
from accelgen.ppa.estimate import estimate
from accelgen.ppa.perf import evaluate

ROOT = Path(__file__).resolve().parents[2]
BASE = str(ROOT / "examples" / "dse" / "neurometer_base.yaml")
SMALL_WL = {"name": "tiny", "layers": [
    {"name": "fc1", "type": "gemm", "M": 4, "N": 256, "K": 512},
    {"name": "conv", "type": "conv", "C": 16, "H": 14, "W": 14, "K": 32, "R": 3, "padding": 1}]}


def _space(**over):
    sp = {"name": "t", "base": BASE,
          "parameters": [{"name": "X", "values": [8, 16]}, {"name": "N", "values": [1, 2]},
                         {"name": "Tx", "values": [1, 2]}, {"name": "Ty", "values": [1, 2, 4]}],
          "where": ["Tx == Ty or 2 * Tx == Ty"],
          "set": {"core.memories.0.capacity_bytes": "4194304 // cores"},
          "workloads": [SMALL_WL],
          "regimes": [{"name": "b1", "batch": 1}, {"name": "big", "batch": 16}],
          "constraints": {"area_mm2": {"max": 400}},
          "objectives": ["achieved_tops", "tops_per_w", "b1.latency_ms"],
          "chunk_points": 3}
    sp.update(over)
    return sp


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "accelgen.cli", *args], capture_output=True, text=True,
                          cwd=cwd)


# --------------------------------------------------------------------------- sampling and aliases

def test_grid_where_and_neurometer_aliases():
    plan = dse.resolve(_space(), root=ROOT)
    df = dse.sample(plan)
    # X x N x (Tx, Ty) in {(1,1), (1,2), (2,2), (2,4)}
    assert len(df) == 2 * 2 * 4
    assert set(map(tuple, df[["Tx", "Ty"]].drop_duplicates().to_numpy())) == {(1, 1), (1, 2), (2, 2), (2, 4)}
    a, _ = dse.arch_for_point(plan, {"X": 16, "N": 2, "Tx": 1, "Ty": 2})
    assert (a.core.tensor_units[0].rows, a.core.tensor_units[0].cols, a.core.tensor_units[0].count) == (16, 16, 2)
    assert (a.cores, a.chip.noc.topology, a.chip.noc.tx) == (2, "ring", 2)
    assert a.core.memories[0].capacity_bytes == 4194304 // 2
    a, _ = dse.arch_for_point(plan, {"X": 8, "N": 1, "Tx": 2, "Ty": 4})
    assert (a.cores, a.chip.noc.topology, a.chip.noc.tx, a.chip.noc.ty) == (8, "mesh", 2, 4)


def test_random_and_lhs_sampling_are_seeded_and_stratified():
    sp = _space(parameters=[{"name": "X", "values": [4, 8, 16, 32]},
                            {"name": "clock", "path": "clock_mhz", "range": [300, 900], "continuous": True}],
                where=[], set={}, sampling={"method": "lhs", "samples": 20, "seed": 7})
    plan = dse.resolve(sp, root=ROOT)
    a, b = dse.sample(plan), dse.sample(plan)
    pd.testing.assert_frame_equal(a, b)
    # Latin hypercube: each of the 20 equal strata of the continuous range holds exactly one sample
    strata = np.floor((a["clock"].to_numpy() - 300) / 600 * 20).astype(int)
    assert sorted(strata) == list(range(20))
    # and each of the 4 discrete values is drawn 5 times
    assert a["X"].value_counts().to_dict() == {4: 5, 8: 5, 16: 5, 32: 5}
    sp["sampling"] = {"method": "random", "samples": 30, "seed": 1}
    r = dse.sample(dse.resolve(sp, root=ROOT))
    assert len(r) == 30 and r["clock"].between(300, 900).all() and set(r["X"]) <= {4, 8, 16, 32}


# --------------------------------------------------------------------------- one point = the perf model

def test_point_metrics_equal_the_performance_model():
    plan = dse.resolve(_space(), root=ROOT)
    point = {"X": 16, "N": 2, "Tx": 2, "Ty": 2}
    row = dse.evaluate_point(plan, point)
    arch, _ = dse.arch_for_point(plan, point)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r1 = evaluate(arch, SMALL_WL, batch=1).total
        r16 = evaluate(arch, SMALL_WL, batch=16).total
    assert row["feasible"], row["reason"]
    assert row["tiny.b1.achieved_tops"] == pytest.approx(r1["achieved_tops"], rel=1e-12)
    assert row["tiny.big.tops_per_w"] == pytest.approx(r16["tops_per_w"], rel=1e-12)
    assert row["b1.latency_ms"] == pytest.approx(r1["latency_ms"], rel=1e-12)
    # the aggregate is the geometric mean over workloads x regimes
    assert row["achieved_tops"] == pytest.approx(np.sqrt(r1["achieved_tops"] * r16["achieved_tops"]), rel=1e-12)
    # peak: 2 tensor units of 16x16 plus the 16-lane vector unit, per core, x 4 cores at 700 MHz
    assert row["peak_tops"] == pytest.approx(2 * (16 * 16 * 2 + 16) * 4 * 700e-6)


def test_constraint_violations_are_infeasible_with_their_reason():
    plan = dse.resolve(_space(constraints={"peak_tops": {"max": 1.0}}), root=ROOT)
    big = dse.evaluate_point(plan, {"X": 16, "N": 2, "Tx": 2, "Ty": 4})
    small = dse.evaluate_point(plan, {"X": 8, "N": 1, "Tx": 1, "Ty": 1})
    assert not big["feasible"] and big["reason"].startswith("peak_tops ") and "> 1" in big["reason"]
    assert "tiny.b1.achieved_tops" not in big          # workloads are not run for a chip that does not fit
    assert small["feasible"]


def test_latency_regime_uses_the_largest_batch_meeting_the_bound():
    sp = _space(regimes=[{"name": "lat", "latency_ms": 0.05}], objectives=["lat.achieved_tops"])
    plan = dse.resolve(sp, root=ROOT)
    row = dse.evaluate_point(plan, {"X": 16, "N": 2, "Tx": 2, "Ty": 2})
    b = int(row["tiny.lat.batch"])
    arch, _ = dse.arch_for_point(plan, {"X": 16, "N": 2, "Tx": 2, "Ty": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert evaluate(arch, SMALL_WL, batch=b).total["latency_ms"] <= 0.05
        assert evaluate(arch, SMALL_WL, batch=b + 1).total["latency_ms"] > 0.05


# --------------------------------------------------------------------------- Pareto fronts

def _naive_front(v, goals):
    s = v * np.array([1 if g == "max" else -1 for g in goals])
    return np.array([not any(np.all(s[j] >= s[i]) and np.any(s[j] > s[i]) for j in range(len(s)))
                     for i in range(len(s))])


@pytest.mark.parametrize("goals", [["max", "max"], ["max", "min"], ["min", "max", "max"]])
def test_pareto_mask_equals_the_naive_definition(goals):
    rng = np.random.default_rng(len(goals))
    v = rng.integers(0, 12, size=(300, len(goals))).astype(float)  # many ties
    assert np.array_equal(dse.pareto_mask(v, goals), _naive_front(v, goals))


# --------------------------------------------------------------------------- runs: resume, outputs, Dask

def test_killed_run_resumes_without_recomputing(tmp_path, monkeypatch):
    plan = dse.resolve(_space(), root=ROOT)
    calls = []
    real = dse.evaluate_point
    # the runner's chunks call evaluate_point of accelgen.ppa.dse.evaluate
    monkeypatch.setattr(dse.evaluate, "evaluate_point", lambda p, pt: calls.append(dict(pt)) or real(p, pt))
    with pytest.raises(KeyboardInterrupt):
        dse.run(plan, tmp_path / "a", stop_after_chunks=2, plots=False)
    assert len(calls) == 6 and len(list((tmp_path / "a" / "chunks").glob("*.csv"))) == 2
    assert not (tmp_path / "a" / "points.csv").exists()
    calls.clear()
    res = dse.run(plan, tmp_path / "a", plots=False)
    assert (res.reused_chunks, res.computed_chunks) == (2, 4) and len(calls) == 16 - 6
    calls.clear()
    again = dse.run(plan, tmp_path / "a", plots=False)
    assert calls == [] and again.computed_chunks == 0
    fresh = dse.run(plan, tmp_path / "b", plots=False)
    pd.testing.assert_frame_equal(res.table, fresh.table)
    # a changed space gets new chunk keys (nothing stale is reused)
    plan2 = dse.resolve(_space(constraints={"area_mm2": {"max": 300}}), root=ROOT)
    assert dse.plan_key(plan2) != dse.plan_key(plan)


def test_outputs_best_and_fronts(tmp_path):
    plan = dse.resolve(_space(pareto=[["achieved_tops", "tops_per_w"], ["achieved_tops", "tops_per_w",
                                                                         "b1.latency_ms"]]), root=ROOT)
    res = dse.run(plan, tmp_path, plots=True)
    t = res.table
    feas = t[t["feasible"]]
    assert 0 < len(feas) <= len(t) == 16
    best = res.best["achieved_tops"]
    assert best["achieved_tops"] == pytest.approx(feas["achieved_tops"].max())
    assert res.best["b1.latency_ms"]["b1.latency_ms"] == pytest.approx(feas["b1.latency_ms"].min())
    assert {"X", "N", "Tx", "Ty", "area_mm2", "tdp_w", "peak_tops"} <= set(best)
    front = t[t["pareto:achieved_tops|tops_per_w"]]
    assert np.array_equal(_naive_front(feas[["achieved_tops", "tops_per_w"]].to_numpy(), ["max", "max"]),
                          feas["pareto:achieved_tops|tops_per_w"].to_numpy())
    assert len(front) == len(res.fronts[0]["points"]) >= 1
    names = {f.name for f in res.files}
    assert {"points.csv", "best.json", "pareto_achieved_tops_vs_tops_per_w.png",
            "pareto_achieved_tops_vs_tops_per_w_vs_b1-latency_ms.png"} <= names
    for f in res.files:
        assert f.exists() and f.stat().st_size > 0
        if f.suffix == ".png":
            assert f.read_bytes()[:4] == b"\x89PNG"


def test_dask_local_cluster_gives_the_local_results(tmp_path):
    distributed = pytest.importorskip("dask.distributed", reason="the Dask path needs dask[distributed]")
    plan = dse.resolve(_space(), root=ROOT)
    local = dse.run(plan, tmp_path / "local", plots=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        remote = dse.run(plan, tmp_path / "dask", scheduler=cluster.scheduler_address, plots=False)
    assert remote.computed_chunks == 6
    pd.testing.assert_frame_equal(local.table, remote.table)
    assert (tmp_path / "local" / "points.csv").read_text() == (tmp_path / "dask" / "points.csv").read_text()


# --------------------------------------------------------------------------- several architectures, sizing, baseline

def test_equal_area_sizing_and_baseline(tmp_path):
    sp = {"name": "sz", "archs": {
        "tu": {"path": BASE, "size": {"path": "core.tensor_units.0.count", "area_mm2": 200}}},
        "parameters": [{"name": "bd", "path": "workload.b_density", "values": [1.0, 0.5]}],
        "workloads": [SMALL_WL], "regimes": [{"name": "b1", "batch": 1}],
        "objectives": ["tops_per_w"], "baseline": {"bd": 1.0}}
    plan = dse.resolve(sp, root=ROOT)
    res = dse.run(plan, tmp_path, plots=False)
    t = res.table
    n = int(t["sized_count"].iloc[0])
    assert (t["sized_count"] == n).all() and (t["area_mm2"] <= 200).all()
    arch, _ = dse.arch_for_point(plan, {"arch": "tu", "bd": 1.0})
    d = arch.model_dump(mode="json", exclude_none=True)
    d["core"]["tensor_units"][0]["count"] = n + 1
    from accelgen.ppa import estimate
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert estimate(d).area_mm2 > 200
    assert t.loc[t["bd"] == 1.0, "tops_per_w_vs_baseline"].iloc[0] == pytest.approx(1.0)
    assert t.loc[t["bd"] == 0.5, "tops_per_w_vs_baseline"].iloc[0] == pytest.approx(
        t.loc[t["bd"] == 0.5, "tops_per_w"].iloc[0] / t.loc[t["bd"] == 1.0, "tops_per_w"].iloc[0])


# --------------------------------------------------------------------------- chip level, vectorized

def test_chip_level_space_equals_the_batch_estimator():
    sp = _space(workloads=[], objectives=["peak_tops_per_w", "area_mm2"], constraints={"tdp_w": {"max": 250}},
                chunk_points=None)
    plan = dse.resolve(sp, root=ROOT)
    df = dse.sample(plan)
    out = dse.evaluate_chip_points(plan, df)
    cores, topology, tx, ty = core_grid(df["Tx"].to_numpy(), df["Ty"].to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = evaluate_batch(rows=df["X"].to_numpy(), cols=df["X"].to_numpy(), units=df["N"].to_numpy(), cores=cores,
                             tx=tx, ty=ty, topology=topology, sram_bytes=4194304 // cores, node_nm=28,
                             clock_mhz=700, block_bytes=64, sram_banks=16, white_space_fraction=0.1,
                             rest=Rest.of(load_arch(BASE)))
    np.testing.assert_allclose(out["area_mm2"], ref["area_mm2"], rtol=1e-12)
    np.testing.assert_allclose(out["tdp_w"], ref["tdp_w"], rtol=1e-12)
    assert (out["feasible"] == (ref["tdp_w"] <= 250)).all()


def test_chip_level_space_costs_the_bases_datatype_and_refuses_what_it_cannot_cost():
    """The batch estimator takes the base tensor unit's dtype (a bf16 base is costed by systolic-bf16, not as int8);
    a base field it does not model is a one-line error naming it, not a silently different chip."""
    base = yaml.safe_load(Path(BASE).read_text())
    base["core"]["tensor_units"][0] = {"count": 1, "rows": 128, "cols": 128, "dataflow": "ws", "dtype": "bf16"}
    sp = _space(base=base, workloads=[], objectives=["peak_tops_per_w"], constraints={}, chunk_points=None)
    df = dse.sample(dse.resolve(sp, root=ROOT))
    out = dse.evaluate_chip_points(dse.resolve(sp, root=ROOT), df)
    cores, topology, tx, ty = core_grid(df["Tx"].to_numpy(), df["Ty"].to_numpy())
    kw = dict(rows=df["X"].to_numpy(), cols=df["X"].to_numpy(), units=df["N"].to_numpy(), cores=cores,
              tx=tx, ty=ty, topology=topology, sram_bytes=4194304 // cores, node_nm=28,
              clock_mhz=700, block_bytes=64, sram_banks=16, white_space_fraction=0.1, rest=Rest.of(parse_arch(base)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref, as_int = evaluate_batch(dtype="bf16", **kw), evaluate_batch(**kw)
    np.testing.assert_allclose(out["tdp_w"], ref["tdp_w"], rtol=1e-12)
    assert (out["tdp_w"] != as_int["tdp_w"]).all()
    base["core"]["tensor_units"][0].update(weight_load="double", flush_subnormals=True, sum_group=4)
    with pytest.raises(ConfigError, match=r"core\.tensor_units\[0\]\.weight_load: 'double' is not modelled by the "
                                          r"chip-level batch estimator"):
        dse.resolve(_space(base=base, workloads=[], objectives=["peak_tops_per_w"], constraints={}), root=ROOT)
    # one read/write port is the batch estimator's memory however it is written; two ports are not
    base["core"]["tensor_units"][0].update(weight_load="shift", flush_subnormals=False, sum_group=1)
    base["core"]["memories"][0]["ports"] = "1RW"
    dse.resolve(_space(base=base, workloads=[], objectives=["peak_tops_per_w"], constraints={}), root=ROOT)
    base["core"]["memories"][0]["ports"] = "1r1w"
    with pytest.raises(ConfigError, match=r"core\.memories\[0\]\.ports: '1r1w' is not modelled by the chip-level"):
        dse.resolve(_space(base=base, workloads=[], objectives=["peak_tops_per_w"], constraints={}), root=ROOT)


def test_chip_level_points_are_the_estimators_chips_rings_meshes_and_invalid_memories():
    """Every point of a chip-level space is the chip the estimator builds for the same description: a ring up to
    4 cores and a mesh beyond (the Tx/Ty aliases), the base's vector unit, NoC and I/O, and a point whose split
    memory is too shallow for an SRAM is invalid with the estimator's own reason."""
    sp = _space(workloads=[], objectives=["peak_tops_per_w"], constraints={}, chunk_points=None,
                parameters=[{"name": "X", "values": [8, 32]}, {"name": "Tx", "values": [1, 2, 4, 32]},
                            {"name": "Ty", "values": [1, 2, 4, 64]}], where=["Tx == Ty or 2 * Tx == Ty"],
                set={"core.memories.0.capacity_bytes": "33554432 // cores"})
    plan = dse.resolve(sp, root=ROOT)
    df = dse.sample(plan)
    out = dse.evaluate_chip_points(plan, df)
    assert set(df["Tx"] * df["Ty"]) >= {1, 2, 8, 16, 2048}       # rings of 1 and 2 cores, meshes beyond
    for i, point in enumerate(df.to_dict("records")):
        try:
            arch, _ = dse.arch_for_point(plan, point)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                e = estimate(arch)
        except ConfigError as exc:
            where, msg = exc.problems[0]
            assert out["reason"][i] == f"invalid: {where}: {msg}" and not out["feasible"][i]
            assert np.isnan(out["area_mm2"][i])
            continue
        assert out["area_mm2"][i] == pytest.approx(e.area_mm2, rel=1e-9)
        assert out["tdp_w"][i] == pytest.approx(e.tdp_w, rel=1e-9)
        assert out["peak_tops"][i] == pytest.approx(e.peak_tops, rel=1e-12)
    assert out["reason"].str.startswith("invalid").sum() == 2      # 32 x 64 cores: 16 kB in 16 banks of 64 B


def test_chip_level_point_whose_mesh_cannot_hold_its_cores_is_invalid_as_in_the_full_path():
    """Varying ``cores`` on a base whose mesh is 1 x 1 makes points the description's validation refuses; the batch
    path says so in the same words, not a chip of four cores without a NoC."""
    sp = {"name": "t", "base": BASE, "parameters": [{"name": "c", "path": "cores", "values": [1, 4]}],
          "objectives": ["peak_tops_per_w"]}
    plan = dse.resolve(sp, root=ROOT)
    df = dse.sample(plan)
    out = dse.evaluate_chip_points(plan, df)
    with pytest.raises(ConfigError) as exc:
        dse.arch_for_point(plan, df.to_dict("records")[1])
    where, msg = exc.value.problems[0]
    assert list(out["feasible"]) == [True, False]
    assert out["reason"][1] == f"invalid: {where + ': ' if where else ''}{msg}" and np.isnan(out["area_mm2"][1])


@pytest.mark.parametrize("edit, field", [
    (lambda b: b["core"]["memories"][0].update(bandwidth_gbps=100), "core.memories[0].bandwidth_gbps: 100"),
    (lambda b: b["core"]["memories"][0].update(cell="dff"), "core.memories[0].cell: 'dff'"),
    (lambda b: b["core"].update(reduction_trees=[{"inputs": 16}]), "core.reduction_trees: [{'inputs': 16}]"),
    (lambda b: b["chip"].update(die_budget_mm2=300), "chip.die_budget_mm2: 300"),
    (lambda b: b.update(activity={"switching": "zero_delay"}), "activity.switching: 'zero_delay'"),
    (lambda b: b.update(activity={"profile": "dnn"}), "activity.profile: 'dnn'"),
    (lambda b: (b.pop("clock_mhz"), b.update(target_tops=10)), "clock_mhz: None"),
])
def test_chip_level_space_refuses_a_base_field_the_batch_estimator_would_not_cost(edit, field):
    """Beside its tensor unit and memory the batch path costs what the estimator costs of a base (vector unit,
    register file, scalar core, NoC, I/O, supply, density); anything else is a one-line error naming the field,
    not a chip costed without it."""
    base = yaml.safe_load(Path(BASE).read_text())
    edit(base)
    with pytest.raises(ConfigError, match=r"base: " + re.escape(field) + r" is not modelled by the chip-level batch "
                                          r"estimator"):
        dse.resolve(_space(base=base, workloads=[], objectives=["peak_tops_per_w"], constraints={}), root=ROOT)


# --------------------------------------------------------------------------- bad input and the CLI

@pytest.mark.parametrize("change, field", [
    ({"parameters": [{"name": "rows", "path": "core.tensor_unit.0.rows", "values": [8]}], "where": []},
     "parameters[0].path"),
    ({"parameters": [{"name": "X", "range": [64, 8], "pow2": True}], "where": []}, "parameters[0].range"),
    ({"parameters": [{"name": "X", "values": []}], "where": []}, "parameters[0].values"),
    ({"objectives": ["tops_per_watt"]}, "objectives[0]"),
    ({"constraints": {"area": {"max": 3}}}, "constraints.area"),
    ({"where": ["Z > 1"]}, "where[0]"),
    ({"parameters": [{"name": "X", "values": [8, 4096]}], "where": []}, "parameters[0].values"),
])
def test_bad_space_is_one_line_exit_2_and_nothing_written(tmp_path, change, field):
    sp = _space(**change)
    p = tmp_path / "space.yaml"
    p.write_text(yaml.safe_dump(sp))
    out = tmp_path / "out"
    r = _cli("dse", str(p), "--out", str(out))
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and field in lines[0], r.stderr
    assert not out.exists()


def test_cli_json_keeps_neurometer_names(tmp_path):
    p = tmp_path / "space.yaml"
    p.write_text(yaml.safe_dump(_space()))
    r = _cli("dse", str(p), "--out", str(tmp_path / "out"), "--json", "--no-plots")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["points"] == 16 and 0 < d["feasible"] <= 16
    assert set(d["best"]) == {"achieved_tops", "tops_per_w", "b1.latency_ms"}
    for rec in d["best"].values():
        assert {"X", "N", "Tx", "Ty", "area_mm2", "peak_tops"} <= set(rec)
