"""The relaxed mapping (accelgen.ppa.relaxed): a shipped model's unit with slack at the chip's clock is costed as the
netlist mapped at that clock, with the measured ratios; without slack, or for a user's model, as fitted."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd
import pytest

from accelgen.cli import main
from accelgen.fit.model import shipped_families
from accelgen.ppa import estimate, relaxed
from accelgen.ppa.perf import evaluate
from accelgen.ppa.perf_layers import PerfContext

sys.path.insert(0, str(Path(__file__).parent))
import ppa_models  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RATIO = {"area_um2": 0.8, "leakage_uw": 0.7, "energy_zero_delay_pj": 0.75, "energy_pj": 0.9, "delay_ns": 1.4}


def _arch(clock_mhz):
    return {"name": "t", "node_nm": 45, "clock_mhz": clock_mhz,
            "core": {"tensor_units": [{"rows": 8, "cols": 8, "dataflow": "ws", "a_width": 8, "b_width": 8,
                                       "acc_width": 32, "pipeline": {"mul_stages": 0, "add_stages": 0}}]}}


@pytest.fixture
def table(monkeypatch):
    """A known ratio table for the shipped systolic model (the measured one is tested below)."""
    relaxed._table.cache_clear()
    curve = {"slack": [1.0, 2.0], "recovery": {t: [0.0, 1.0] for t in RATIO}}
    monkeypatch.setattr(relaxed, "_table", lambda: {"systolic": {"relaxed_mhz": 200.0, "ratio": RATIO,
                                                                 "curve": curve}})


def _unit(est):
    node = next(n for n in est.breakdown["children"][0]["children"][0]["children"] if n["name"] == "tensor_unit0")
    choice = next(c for c in est.pipelining if c["component"] == "core.tensor_units[0]")
    return node, choice


def test_slack_takes_the_relaxed_netlist_and_none_keeps_the_fitted(table, monkeypatch):
    slow = estimate(_arch(100))
    node, choice = _unit(slow)
    assert choice["mapping"] == "relaxed" and choice["mapping_ratio"] == RATIO
    monkeypatch.setattr(relaxed, "_table", lambda: {})
    fitted = estimate(_arch(100))
    ref, ref_choice = _unit(fitted)
    assert ref_choice["mapping"] == "speed" and ref_choice["mapping_ratio"] == {}
    assert node["area_mm2"] == pytest.approx(RATIO["area_um2"] * ref["area_mm2"])
    assert node["leakage_w"] == pytest.approx(RATIO["leakage_uw"] * ref["leakage_w"])
    assert node["tdp_w"] - node["leakage_w"] == pytest.approx(RATIO["energy_pj"] * (ref["tdp_w"] - ref["leakage_w"]))
    assert choice["delay_ns"] == pytest.approx(RATIO["delay_ns"] * ref_choice["delay_ns"])
    assert node["params"]["mapping"] == "relaxed" and "mapping" not in ref["params"]


def test_the_recovery_follows_the_slack(table):
    delay = _unit(estimate(_arch(100)))[1]["delay_ns"] / RATIO["delay_ns"]   # the 1 GHz netlist's delay
    half = _unit(estimate(_arch(1e3 / (1.5 * delay))))[1]        # slack 1.5: half the recovery (curve 1 -> 2)
    assert half["mapping"] == "relaxed"
    assert half["mapping_ratio"]["area_um2"] == pytest.approx(1 - 0.5 * (1 - RATIO["area_um2"]))
    assert half["mapping_ratio"]["energy_pj"] == pytest.approx(1 - 0.5 * (1 - RATIO["energy_pj"]))
    assert half["delay_ns"] == pytest.approx(1.2 * delay)          # 1 + 0.5 x 0.4, within the period
    for clock in (1e3 / delay, 1e3 / (0.8 * delay)):            # no slack, or the clock missed: the 1 GHz netlist
        assert _unit(estimate(_arch(clock)))[1]["mapping"] == "speed"
    assert _unit(estimate({**_arch(100), "clock_mhz": "auto"}))[1]["mapping"] == "speed"


def test_a_users_model_is_not_relaxed(table, tmp_path):
    models = ppa_models.write_models(tmp_path)
    est = estimate(_arch(100), model_paths=models)
    assert _unit(est)[1]["mapping"] == "speed"


def test_perf_energy_uses_the_relaxed_netlist(table, monkeypatch):
    """The relaxed netlist's energy per action is the fitted one x the ratio; its clock network, charged per cycle,
    keeps the fitted figure (area recovery does not touch the flip-flops)."""
    wl = {"layers": [{"name": "g", "type": "gemm", "M": 64, "N": 64, "K": 64}]}

    def compute_j():   # (relaxed, fitted)
        relaxed_run = evaluate(_arch(100), wl)
        with monkeypatch.context() as m:
            m.setattr(relaxed, "_table", lambda: {})
            fitted_run = evaluate(_arch(100), wl)
        return relaxed_run.total["energy_breakdown_j"]["compute_j"], fitted_run.total["energy_breakdown_j"]["compute_j"]

    e, ref = compute_j()
    energies = PerfContext.action_energies_pj
    monkeypatch.setattr(PerfContext, "action_energies_pj", lambda self, *a, **k: (energies(self, *a, **k)[0], None))
    per_action, ref_per_action = compute_j()   # a model without the clock target: everything charged per action
    assert per_action == pytest.approx(RATIO["energy_pj"] * ref_per_action)
    assert e - ref == pytest.approx(per_action - ref_per_action)   # the clock's charge is the same on both
    assert ref > ref_per_action   # the fold overhead's cycles tick the clock too


def test_cli_says_which_netlist(table, capsys):
    path = ROOT / "examples" / "arch" / "tpu_v1.yaml"
    assert main(["estimate", str(path)]) == 0
    assert "mapped at the clock's slack: area x" in capsys.readouterr().out


def test_the_shipped_ratios_are_the_measurements_summary():
    """ppa/data/relaxed_mapping.json is the summary of the measured pairs in relaxed_mapping.csv (the geometric mean
    of relaxed / 1 GHz over each model's points, and its curve point's recovery from 0 at 1 GHz to 1 at the relaxed
    target), and each ratio is physical: area recovery never grows area or leakage nor shortens the delay."""
    relaxed._table.cache_clear()
    data = pd.read_csv(ROOT / "ppa" / "data" / "relaxed_mapping.csv")
    for name, g in data.groupby("model"):
        m = relaxed.measured(name)
        assert m is not None, f"{name}: measured but not in relaxed_mapping.json"
        fast = g[g.clock_mhz == 1000].set_index("point")
        slow = g[g.clock_mhz == m["relaxed_mhz"]].set_index("point")
        for t in relaxed.TARGETS:
            want = math.exp(sum(math.log(slow.loc[p, t] / fast.loc[p, t]) for p in slow.index) / len(slow))
            assert m["ratio"][t] == pytest.approx(want, rel=1e-4), (name, t)
            rec = m["curve"]["recovery"][t]
            assert rec[0] == pytest.approx(0.0) and rec[-1] == pytest.approx(1.0), (name, t)
        assert m["curve"]["slack"] == sorted(m["curve"]["slack"])
        # <= and >=: a unit whose every module already meets 1 GHz with room maps the same everywhere (the int Flex-DPE)
        assert m["ratio"]["area_um2"] <= 1 and m["ratio"]["leakage_uw"] <= 1 and m["ratio"]["delay_ns"] >= 1, name


def test_the_reduction_study_takes_the_relaxed_netlists(monkeypatch):
    """sigma-reduction costs its networks through the estimator's choice (choose_netlist), not beside it."""
    from accelgen.ppa.studies import sigma_reduction

    monkeypatch.setattr(relaxed, "_table", lambda: {})
    fitted = sigma_reduction.network_row("fan", 16)
    curve = {"slack": [0.0, 0.01], "recovery": {t: [0.0, 1.0] for t in RATIO}}   # any slack >= 1: all of it
    monkeypatch.setattr(relaxed, "_table", lambda: {"fan-fp32": {"relaxed_mhz": 200.0, "ratio": RATIO,
                                                                 "curve": curve}})
    mapped = sigma_reduction.network_row("fan", 16)
    assert fitted["meets_clock"] and mapped["area_mm2"] == pytest.approx(RATIO["area_um2"] * fitted["area_mm2"])
    # the study compares post-layout power, which counts no glitches: the zero-delay energy's ratio
    assert mapped["energy_pj_per_vector"] == pytest.approx(RATIO["energy_zero_delay_pj"] * fitted["energy_pj_per_vector"])


def test_every_shipped_model_a_description_can_use_has_ratios():
    """A unit without measured ratios keeps its 1 GHz netlist whatever its clock, so every shipped model a description
    can instantiate has them (bench/relaxed_mapping.py). The TensorDash scheduler is costed inside the PE and tile
    models; no description unit is a scheduler alone."""
    relaxed._table.cache_clear()
    missing = {name for name in shipped_families() if relaxed.measured(name) is None}
    assert missing == {"tensordash_sched"}
