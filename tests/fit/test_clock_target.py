"""The fitted clock-network target ``clock_energy_pj``: fitted in ``energy_pj``'s form where every point of the dataset
has a clock network, absent where some point is combinational (the relative fit cannot weigh a zero)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from accelgen.fit.api import FIT_DIR, fit_model, shipped_dataset
from accelgen.fit.model import ENERGY_TARGETS, TARGET_SCALING, load_model, shipped_models
from accelgen.registry import FAMILIES


def test_clock_target_takes_the_energy_form(tmp_path):
    data = fit_model("systolic", families=FAMILIES, data=shipped_dataset("systolic"),
                     out=tmp_path / "systolic.json").model
    clock, energy = data["targets"]["clock_energy_pj"], data["targets"]["energy_pj"]
    assert clock["features"] == energy["features"] and clock["per"] == energy["per"] and clock["unit"] == "pJ"
    assert clock["heldout"]["mape_pct"] < 5.0
    assert "clock_energy_pj" in ENERGY_TARGETS and TARGET_SCALING["clock_energy_pj"] == "energy"


def test_a_combinational_point_leaves_the_clock_target_out(tmp_path):
    df = pd.read_csv(shipped_dataset("systolic"))
    df.loc[df.index[0], "clock_energy_pj"] = 0.0
    csv = tmp_path / "systolic.csv"
    df.to_csv(csv, index=False)
    data = fit_model("systolic", families=FAMILIES, data=csv, out=tmp_path / "systolic.json").model
    assert "clock_energy_pj" not in data["targets"] and "energy_zero_delay_pj" in data["targets"]


@pytest.mark.parametrize("name", shipped_models())
def test_shipped_models_carry_the_clock_where_their_dataset_is_clocked(name):
    clock = pd.read_csv(shipped_dataset(name))["clock_energy_pj"].to_numpy(float)
    model = load_model(name)
    assert ("clock_energy_pj" in model) == bool(np.all(clock > 0)), name
    if "clock_energy_pj" in model:   # the clock per operation hardly depends on the data: the form fits it
        assert model["clock_energy_pj"].heldout["mape_pct"] < 20.0


def test_a_zero_clock_prediction_is_physical(tmp_path):
    data = json.loads((FIT_DIR / "models" / "systolic.json").read_text())
    t = data["targets"]["clock_energy_pj"]
    t["coef"] = [0.0] * len(t["coef"])
    path = tmp_path / "systolic.json"
    path.write_text(json.dumps(data))
    assert load_model("systolic", path=path)["clock_energy_pj"].predict() == pytest.approx(0.0)
