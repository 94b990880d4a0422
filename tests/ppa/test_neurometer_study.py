"""NeuroMeter's datacenter study as published (Tang et al., HPCA 2021, sect. III): the space against Table I, the
NASNet-A Large table against Table II, the paper-style means and the optimum table, and a small end-to-end run.
The full study (126 design points, minutes) runs in tests/ppa/test_studies.py under -m slow."""

import json

import numpy as np
import pandas as pd
import pytest
import yaml

from accelgen import shipped
from accelgen.ppa.dse import load_space, resolve
from accelgen.ppa.dse.sampling import sample
from accelgen.ppa.studies import neurometer, neurometer_paper as paper
from accelgen.ppa.workload import load_workload, lower, resolve_workload_path


@pytest.fixture(scope="module")
def plan():
    return load_space(shipped.resolve("dse", "neurometer_datacenter"))


def test_space_is_table_i(plan):
    # Table I: X in 4..256, N in 1, 2, 4; 500 mm^2 and 300 W; sect. III-A-2: the three networks;
    # sect. III-B-2: batch 1, the largest batch within 10 ms, batch 256
    values = {p.name: list(p.values) for p in plan.params}
    assert values["X"] == [4, 8, 16, 32, 64, 128, 256] and values["N"] == [1, 2, 4]
    assert {c.metric: c.max for c in plan.constraints} == {"area_mm2": 500, "tdp_w": 300}
    assert [w.name for w in plan.workloads] == ["resnet50", "inception_v3", "nasnet_a_large"]
    assert [(r.name, r.batch, r.latency_ms) for r in plan.regimes] == [
        ("batch1", 1, None), ("latency", None, 10.0), ("large", 256, None)]
    base = plan.bases["base"].description
    assert (base["node_nm"], base["clock_mhz"]) == (28, 700)
    assert base["chip"]["noc"]["bisection_gbps"] == 256 and base["chip"]["offchip"]["bandwidth_gbps"] == 700
    assert base["core"]["memories"][0]["capacity_bytes"] == 32 * 2 ** 20
    points = {tuple(r) for r in sample(plan)[["X", "N", "Tx", "Ty"]].itertuples(index=False)}
    # the paper's named designs are in the grid: 65536 MACs (91.75 TOPS) is within the 92-TOPS bound
    assert {(64, 2, 2, 4), (64, 4, 1, 2), (8, 4, 4, 8), (128, 4, 1, 1)} <= points
    # Tx = Ty or Ty / 2, and 131072 MACs (183.5 TOPS) is over the bound
    assert all(ty in (tx, 2 * tx) for _, _, tx, ty in points)
    assert (256, 2, 1, 1) not in points and (64, 4, 2, 4) not in points
    assert len(points) == 126


def test_nasnet_a_large_is_table_ii():
    wl = load_workload(resolve_workload_path("nasnet_a_large"))
    g = lower(wl, 1)
    conv = np.array([k == "conv" for k in g.kinds])
    # Zoph et al., CVPR 2018, Table 2 and NeuroMeter Table II: 23.8 G mult-adds; within 0.5%
    assert g.macs.sum() / 1e9 == pytest.approx(23.8, rel=5e-3)
    # Table II: 84.9 M parameters without the classifier (batch-norm and the auxiliary head are not listed); 1%
    assert g.b_elems[conv].sum() / 1e6 == pytest.approx(84.9, rel=1e-2)
    first, last = wl.layers[0], wl.layers[-1]
    assert (first.H, first.K) == (331, 96) and (last.type, last.K, last.N) == ("gemm", 4032, 1000)


def test_table_ii_rows(plan):
    rows = {r["workload"]: r for r in neurometer.table_ii_rows(plan)}
    assert set(rows) == set(paper.TABLE_II)
    assert rows["inception_v3"]["macs_g"] == pytest.approx(5.7, rel=5e-3)   # Table II, within 0.5%
    assert rows["resnet50"]["macs_g"] == pytest.approx(4.09, rel=5e-3)      # v1.5 at 224x224, not Table II's 7.8


def test_paper_optimum_agreement_and_label():
    full = paper.OPTIMA[("batch1", "tops_per_tco")]
    assert full.label() == "(64, 4, 1, 2)" and full.complete
    assert full.agreement({"X": 64, "N": 4, "Tx": 1, "Ty": 2}) == "yes"
    assert full.agreement({"X": 64, "N": 2, "Tx": 2, "Ty": 2}) == "X only"
    assert full.agreement({"X": 32, "N": 4, "Tx": 1, "Ty": 2}) == "no"
    part = paper.OPTIMA[("large", "tops_per_tco")]
    assert part.label() == "X=64, <= 4 cores" and not part.complete
    assert part.agreement({"X": 64, "N": 4, "Tx": 2, "Ty": 2}) == "yes"
    assert part.agreement({"X": 64, "N": 2, "Tx": 2, "Ty": 4}) == "X only"     # 8 cores: not fewer


def _table(plan, runs: dict, area=(100.0, 100.0, 600.0)):
    """A points table of three designs with the given per-run values (same for every regime and metric)."""
    rows = []
    for i, (point, a) in enumerate(zip([(64, 2, 2, 4), (64, 4, 1, 2), (8, 4, 4, 8)], area)):
        row = dict(zip(("X", "N", "Tx", "Ty"), point), area_mm2=a, tdp_w=50.0, peak_tops=10.0)
        for w in plan.workloads:
            for regime, _ in paper.REGIMES:
                for metric, _ in paper.TARGETS:
                    row[f"{w.name}.{regime}.{metric}"] = runs[w.name][i]
        rows.append(row)
    return pd.DataFrame(rows)


def test_paper_means_arithmetic_for_throughput_geometric_for_ratios(plan):
    runs = {"resnet50": [1.0, 2.0, 5.0], "inception_v3": [4.0, 8.0, 5.0], "nasnet_a_large": [16.0, np.nan, 5.0]}
    t = neurometer.paper_means(plan, _table(plan, runs))
    assert t["mean.batch1.achieved_tops"][0] == pytest.approx(7.0, rel=1e-12)       # (1 + 4 + 16) / 3
    assert t["mean.large.tops_per_w"][0] == pytest.approx(4.0, rel=1e-12)           # (1 * 4 * 16) ** (1/3)
    assert np.isnan(t["mean.batch1.achieved_tops"][1])       # a network without a run: not ranked
    assert np.isnan(t["mean.batch1.achieved_tops"][2])       # 600 mm^2: over the budget
    assert list(t["within_budget"]) == [True, True, False]
    rows = {(r["regime"], r["target"]): r for r in neurometer.optima_rows(t)}
    r = rows[("bs=1", "throughput")]
    assert (r["accelgen"], r["paper"], r["agrees"], r["designs"]) == ("(64, 2, 2, 4)", "(64, 2, 2, 4)", "yes", 1)
    assert r["paper_point_rank"] == 1 and r["paper_point_value"] == pytest.approx(7.0, rel=1e-12)
    assert rows[("bs=1", "TOPS/TCO")]["agrees"] == "X only"          # the paper's (64, 4, 1, 2) did not run
    assert "paper_point_rank" not in rows[("bs=1", "TOPS/TCO")]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """The study on the paper's two named 64x64 designs and their neighbours (8 design points)."""
    data = yaml.safe_load(shipped.resolve("dse", "neurometer_datacenter").read_text())
    data["parameters"] = [{"name": "X", "values": [64]}, {"name": "N", "values": [2, 4]},
                          {"name": "Tx", "values": [1, 2]}, {"name": "Ty", "values": [2, 4]}]
    small = resolve(data, root=shipped.folder("dse"))
    return neurometer.run_datacenter(tmp_path_factory.mktemp("nm"), small)


def test_small_run_prints_the_paper_beside_accelgen(small_run):
    doc = json.loads(json.dumps(small_run.to_json(), default=str))
    assert doc["study"] == "neurometer-datacenter"
    assert [(r["regime"], r["target"]) for r in doc["rows"]] == [
        (label, target) for _, label in paper.REGIMES for _, target in paper.TARGETS]
    assert all(r["paper"] and r["agrees"] in ("yes", "X only", "no") for r in doc["rows"])
    assert {"points", "table_ii", "fig9", "tradeoff", "peak_optimum", "by_x"} <= set(doc)
    # (1, 2), (2, 2) and (2, 4) grids of N = 2 and 4 (Ty = 2 Tx or Tx = Ty): (4, 2, 4) is over 92 TOPS
    assert len(doc["points"]) == 5
    # the trade-off's two designs are in this grid, so accelgen's ratios are there beside the paper's
    trade = doc["tradeoff"][0]
    assert trade["paper_tops_per_tco"] == 2.1 and trade["tops_per_tco"] > 0 and trade["achieved_tops"] > 0
    assert {r["workload"]: r["paper_batch"] for r in doc["fig9"]} == {"resnet50": 16, "nasnet_a_large": 4,
                                                                      "inception_v3": 32}
    assert any(n.startswith("Fig. 9, largest batch within 10 ms at (64, 2, 2, 4)") for n in doc["notes"])
    assert all(f.exists() for f in small_run.files)


def test_progress_is_one_line_per_report(capsys):
    report = neurometer._progress("neurometer-datacenter")
    report(16, 126, 0)
    report(126, 126, 16)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(",")[0] for line in lines] == ["neurometer-datacenter: 16/126 design points (0 reused)",
                                                      "neurometer-datacenter: 126/126 design points (16 reused)"]
