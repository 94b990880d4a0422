"""A refit model serves its family whatever its sweep was called, when it takes the shipped model's choices (issue
51: ``predict mac --model mac-tiny.json`` and ``estimate --model mac=mac-tiny.json`` refused a model of family mac
fitted from a sweep named mac-tiny)."""

import json

import pytest

from accelgen.errors import ConfigError
from accelgen.fit.model import _models_dir, load_model


@pytest.fixture
def mac_tiny(tmp_path):
    data = json.loads((_models_dir() / "mac.json").read_text())
    data["name"] = "mac-tiny"
    path = tmp_path / "mac-tiny.json"
    path.write_text(json.dumps(data))
    return path


def test_a_refit_of_the_family_serves_it(mac_tiny):
    model = load_model("mac", "energy_pj", path=mac_tiny)
    assert model.predict(a_width=8, b_width=8) == load_model("mac", "energy_pj").predict(a_width=8, b_width=8)


def test_it_does_not_serve_another_family_or_a_variant(mac_tiny):
    for name in ("systolic", "mac-bf16"):
        with pytest.raises(ConfigError, match=f"holds a model of 'mac-tiny' \\(family 'mac'\\), not '{name}'"):
            load_model(name, path=mac_tiny)


def test_a_variant_fitted_for_one_dtype_does_not_serve_the_int_family():
    with pytest.raises(ConfigError, match="not 'mac'"):
        load_model("mac", path=_models_dir() / "mac-bf16.json")


def test_predict_and_estimate_take_it_by_family(mac_tiny, accelgen_main, tmp_path):
    out = accelgen_main("predict", "mac", "--model", str(mac_tiny), "a_width=8", "b_width=8", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    out = accelgen_main("estimate", "tpu_v1", "--model", f"mac={mac_tiny}", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
