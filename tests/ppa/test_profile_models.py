"""A description's stimulus profile (activity.profile, issue 49) picks the models fitted on that profile's operands."""

from __future__ import annotations

import json
import warnings
from importlib import resources
from pathlib import Path

import pytest

from accelgen.errors import ConfigError
from accelgen.ppa import estimate

MODELS = Path(str(resources.files("accelgen.fit"))) / "models"


def _arch(**over):
    a = {"name": "t", "node_nm": 28, "clock_mhz": 500, "activity": {"profile": "dnn"},
         "core": {"tensor_units": [{"rows": 32, "cols": 32}], "vector_unit": {}},
         "chip": {"offchip": {"type": "ddr4", "bandwidth_gbps": 25.6}}}
    a.update(over)
    return a


def _copy(tmp_path, shipped: str, name: str, profile: str) -> str:
    """A shipped model file recorded as fitted on ``profile`` under ``name``."""
    data = json.loads((MODELS / f"{shipped}.json").read_text())
    data["name"] = name
    data["training"]["stimulus"] = {"profile": profile, "description": "test copy"}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return str(path)


def _estimate(arch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return estimate(arch)


def test_profile_selects_the_models_fitted_on_it(tmp_path):
    models = {"systolic-dnn": _copy(tmp_path, "systolic", "systolic-dnn", "dnn"),
              "mac-dnn": _copy(tmp_path, "mac", "mac-dnn", "dnn")}
    est = _estimate(_arch(models=models))
    used = {t["model"]: t["stimulus"] for t in est.compute_models}
    assert used == {"systolic-dnn": "dnn", "mac-dnn": "dnn"}
    default = {t["model"]: t["stimulus"] for t in _estimate(_arch(activity={})).compute_models}
    assert default == {"systolic": "uniform", "mac": "uniform"}


def test_a_model_fitted_on_another_profile_is_refused(tmp_path):
    models = {"systolic-dnn": _copy(tmp_path, "systolic", "systolic-dnn", "uniform"),
              "mac-dnn": _copy(tmp_path, "mac", "mac-dnn", "dnn")}
    with pytest.raises(ConfigError, match="activity.profile: 'dnn': the model 'systolic-dnn' .* was fitted on "
                                          "'uniform' operands"):
        _estimate(_arch(models=models))


def test_a_missing_profile_model_names_the_field_and_the_fix():
    with pytest.raises(ConfigError, match="activity.profile: 'dnn' needs the fitted model variant "
                                          "'systolic-bf16_dnn', which is not shipped; fit it with `accelgen sweep "
                                          "systolic-bf16_dnn"):
        _estimate(_arch(core={"tensor_units": [{"rows": 32, "cols": 32, "dtype": "bf16"}]}))


def test_the_shipped_profile_models_are_used():
    used = {t["model"]: t["stimulus"] for t in _estimate(_arch()).compute_models}
    assert used == {"systolic-dnn": "dnn", "mac-dnn": "dnn"}


def test_profile_is_checked():
    with pytest.raises(ConfigError, match="activity.profile: 'gauss'"):
        _estimate(_arch(activity={"profile": "gauss"}))
