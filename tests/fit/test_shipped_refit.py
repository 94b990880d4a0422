"""Every shipped model is what its sweep file fits to its committed dataset (nothing fitted to data that is not
shipped, no hand-edited coefficient, no dataset the fit can no longer read)."""

import json

import numpy as np
import pytest

from accelgen.fit.api import fit_model, shipped_dataset
from accelgen.fit.model import shipped_models
from accelgen.registry import FAMILIES


@pytest.mark.parametrize("name", shipped_models())
def test_shipped_model_refits_from_its_dataset(name, tmp_path):
    refit = fit_model(name, families=FAMILIES, data=shipped_dataset(name), out=tmp_path / f"{name}.json").model
    shipped = json.loads((shipped_dataset(name).parents[1] / "models" / f"{name}.json").read_text())
    assert set(refit["targets"]) == set(shipped["targets"]), name
    for target, fitted in refit["targets"].items():
        ship = shipped["targets"][target]
        assert fitted["features"] == ship["features"], (name, target)
        np.testing.assert_allclose(fitted["coef"], ship["coef"], rtol=1e-6, atol=1e-12, err_msg=f"{name} {target}")
