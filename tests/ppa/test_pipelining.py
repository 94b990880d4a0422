"""The estimator's choice of pipelining: least stages meeting the clock, clock_mhz: auto, given stages, failures."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from accelgen.errors import ConfigError
from accelgen.golden.art import art_latency
from accelgen.golden.linear_reduction import linear_reduction_latency
from accelgen.ppa import estimate, parse_arch
from accelgen.ppa.pipelining import added_latency

sys.path.insert(0, str(Path(__file__).parent))
import ppa_models

STAGES = {"kind": "int", "default": 0, "range": [0, 3]}


def _piped_systolic() -> dict:
    """A systolic fixture whose delay falls with the stages: 4.0 - 0.8 mul_stages - 0.4 add_stages ns at 45 nm
    (fixture numbers, not fitted ones), and whose area grows by 10 um^2 per stage per PE."""
    m = json.loads(json.dumps(ppa_models.MODELS["systolic"]))
    m["inputs"].update(mul_stages=STAGES, add_stages=STAGES)
    names = list(m["inputs"])
    m["targets"]["delay_ns"] = ppa_models._target("ns", ["1", "mul_stages", "add_stages"], [4.0, -0.8, -0.4], names)
    m["targets"]["area_um2"] = ppa_models._target("um^2", ["rows*cols", "rows*cols*(mul_stages+add_stages)"],
                                                  [100.0, 10.0], names)
    return m


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("models")
    paths = ppa_models.write_models(d)
    (d / "systolic.json").write_text(json.dumps(_piped_systolic()))
    return paths


def _arch(**over) -> dict:
    a = {"name": "t", "node_nm": 45, "clock_mhz": 400, "core": {"tensor_units": [{"rows": 8, "cols": 8}]}}
    a.update(over)
    return a


def _unit(est, path="core.tensor_units[0]") -> dict:
    return next(c for c in est.pipelining if c["component"] == path)


def test_least_stages_that_meet_the_clock(models):
    # 400 MHz = 2.5 ns: 0.8 m + 0.4 a >= 1.5; two stages suffice only as (2, 0) (1.6 ns less); (1, 1) saves 1.2
    est = estimate(_arch(), model_paths=models)
    c = _unit(est)
    assert (c["mode"], c["mul_stages"], c["add_stages"]) == ("auto", 2, 0)
    assert c["delay_ns"] == pytest.approx(2.4) and c["meets_clock"] and est.meets_timing
    assert c["latency_cycles"] == 2 and c["options"] == 16
    assert c["area_um2_cost"] == pytest.approx(64 * 10.0 * 2)     # two stages in each of 64 PEs
    tu = next(n for n in _walk(est.breakdown) if n["name"] == "tensor_unit0")
    assert tu["params"]["mul_stages"] == 2 and tu["params"]["add_stages"] == 0
    # a slower clock needs no pipelining at all
    assert _unit(estimate(_arch(clock_mhz=200), model_paths=models))["mul_stages"] == 0


def test_clock_auto_is_the_fastest_pipelining_reaches(models):
    est = estimate(_arch(clock_mhz="auto"), model_paths=models)
    c = _unit(est)
    assert (c["mul_stages"], c["add_stages"]) == (3, 3) and c["delay_ns"] == pytest.approx(0.4)
    assert est.clock_mhz == pytest.approx(est.achievable_clock_mhz) and est.meets_timing


def test_given_stages_are_kept(models):
    arch = _arch(core={"tensor_units": [{"rows": 8, "cols": 8, "pipeline": {"mul_stages": 1, "add_stages": 1}}]})
    est = estimate(arch, model_paths=models)
    c = _unit(est)
    assert (c["mode"], c["mul_stages"], c["add_stages"]) == ("given", 1, 1)
    assert c["delay_ns"] == pytest.approx(2.8) and c["meets_clock"] is False and not est.meets_timing
    assert any("core.tensor_units[0]" in w and "does not meet 400 MHz" in w for w in est.warnings)


def test_a_unit_that_cannot_meet_the_clock_says_so(models):
    with pytest.warns(UserWarning, match=r"core\.tensor_units\[0\] \(systolic\) cannot meet 5000 MHz at any "
                                         r"supported pipelining: its slowest stage is .* at mul_stages=3, "
                                         r"add_stages=3"):
        est = estimate(_arch(clock_mhz=5000), model_paths=models)
    assert not est.meets_timing and _unit(est)["meets_clock"] is False


def test_models_without_stage_inputs_are_costed_unpipelined(models):
    est = estimate(_arch(core={"tensor_units": [{"rows": 8, "cols": 8}], "vector_unit": {"width": 8}}),
                   model_paths=models)
    v = _unit(est, "core.vector_unit")
    assert (v["mode"], v["mul_stages"], v["add_stages"], v["options"]) == ("fixed", 0, 0, 1)


@pytest.mark.parametrize("patch, match", [
    ({"core": {"tensor_units": [{"rows": 4, "cols": 4, "pipeline": {"mul_stages": 4}}]}},
     r"core\.tensor_units\[0\]\.pipeline.*mul_stages: 4 is not allowed"),
    ({"core": {"reduction_trees": [{"inputs": 8, "pipeline": {"mul_stages": 1}}]}},
     r"core\.reduction_trees\[0\]\.pipeline.*mul_stages: unknown field"),
    ({"core": {"tensor_units": [{"rows": 4, "cols": 4, "pipeline": "fast"}]}},
     r"core\.tensor_units\[0\]\.pipeline"),
    ({"clock_mhz": -5}, r"clock_mhz: -5(\.0)? is not allowed; expected a number in \(0, 10000\] MHz or 'auto'"),
])
def test_bad_pipelining_is_one_error_naming_the_field(patch, match):
    with pytest.raises(ConfigError, match=match):
        parse_arch(_arch(**patch))


def _walk(node):
    yield node
    for c in node.get("children", []):
        yield from _walk(c)


@pytest.mark.parametrize("n", [2, 16, 512])
@pytest.mark.parametrize("add_stages", [0, 1, 3])
def test_added_latency_of_the_reduction_baselines_is_their_golden_latency(n, add_stages):
    assert added_latency("art", {"n": n}, 0, add_stages) == art_latency(n, add_stages) - art_latency(n)
    assert (added_latency("linear_reduction", {"n": n}, 0, add_stages)
            == linear_reduction_latency(n, add_stages) - linear_reduction_latency(n))
