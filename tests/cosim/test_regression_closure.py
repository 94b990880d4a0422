"""Coverage-driven closure (``--until-covered``, :mod:`accelgen.cosim.regression.closure`) on a stand-in runner: the
rounds add one random test per design of the families with open bins, and stop when every reachable bin is hit,
when the budget is spent, or when fresh seeds stop hitting new bins, each open bin reported with why."""

from __future__ import annotations

import json

from accelgen.cosim.coverage import Coverage
from accelgen.cosim.regression import RegressionResult, TestResult, load_regression, run_until_covered
from accelgen.registry import FAMILIES


def _reg(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text(json.dumps({"name": "r", "modes": ["directed"], "seeds": [1],
                                "blocks": [{"block": "mac", "matrix": {"a_width": [4, 8]}},
                                           {"block": "fan", "params": {"n": 4}}]}))
    reg = load_regression(path, FAMILIES)
    for i, t in enumerate(reg.tests):
        t.design = f"design{i}"
    return reg


def _runner(hits_by_seed, calls):
    """A run whose mac tests hit bin ``x`` from seed ``hits_by_seed`` on (``y`` never; ``u`` is unreachable) and
    whose fan tests cover everything."""
    def run(reg, out_dir, **kw):
        calls.append(len(reg.tests))
        results = []
        for t in reg.tests:
            cov = Coverage({"x", "y"}, {"y": 0}, {"u": "not with these parameters"}) if t.family == "mac" \
                else Coverage({"z"}, {"z": 1})
            if t.family == "mac" and hits_by_seed is not None and t.seed >= hits_by_seed:
                cov.hit("x")
            results.append(TestResult.of(t, "passed", "run", coverage=cov.to_dict()))
        return RegressionResult("r", None, str(out_dir), results, 0.0, "run", "stand-in")
    return run


def test_closure_adds_seeds_until_new_bins_stop_coming(tmp_path):
    calls = []
    res = run_until_covered(_reg(tmp_path), tmp_path, max_tests=50, run=_runner(3, calls))
    c = res.closure
    # seed 2 hits nothing new (stall 1), seed 3 hits x, then y stays open: two rounds without progress end it
    assert c["stopped"].startswith("2 rounds of fresh random seeds hit no new bin")
    assert c["families"]["mac"]["covered"] == 1 and list(c["families"]["mac"]["open"]) == ["y"]
    assert "not hit by" in c["families"]["mac"]["open"]["y"]
    assert c["families"]["mac"]["unreachable"] == {"u": "not with these parameters"}
    assert c["families"]["fan"]["open"] == {}
    # only the open family gets tests: one random test per mac design (2) per round
    assert calls == [3, 5, 7, 9, 11] and c["tests_added"] == 8 and c["rounds"] == 4
    added = [t for t in res.results if t.seed > 1]
    assert {t.family for t in added} == {"mac"} and {t.mode for t in added} == {"random"}
    assert json.loads((tmp_path / "results.json").read_text())["closure"]["rounds"] == 4


def test_closure_stops_at_the_budget(tmp_path):
    res = run_until_covered(_reg(tmp_path), tmp_path, max_tests=3, run=_runner(None, []))
    assert res.closure["tests_added"] == 3 and "budget of 3" in res.closure["stopped"]


def test_closure_with_nothing_open_runs_once(tmp_path):
    calls = []
    reg = _reg(tmp_path)
    reg.tests = [t for t in reg.tests if t.family == "fan"]
    res = run_until_covered(reg, tmp_path, max_tests=10, run=_runner(None, calls))
    assert calls == [1] and res.closure["stopped"] == "every reachable bin hit" and res.closure["tests_added"] == 0
