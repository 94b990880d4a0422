"""Stimulus profiles (accelgen.operand_profiles, issue 49): the draws, the defaults that keep the shipped models'
streams, the sweep setting and what a model file records."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from accelgen import operand_profiles as profiles
from accelgen.cosim.stimulus import operand_fp_bits, operand_ints, sparse_ints
from accelgen.errors import ConfigError
from accelgen.fit.stimuli import family_stimuli, stimulus_record
from accelgen.fit.sweep import load_sweep
from accelgen.golden.fp import random_fp_bits, to_float32
from accelgen.registry import FAMILIES


def _toggle_rate(values: np.ndarray, width: int) -> float:
    x = values.astype(np.int64) & ((1 << width) - 1)
    flips = np.bitwise_xor(x[1:], x[:-1])
    return float(np.mean([bin(int(v)).count("1") for v in flips]) / width)


def test_defaults_draw_the_streams_the_shipped_models_were_fitted_with():
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    assert np.array_equal(operand_ints(a, 500, 8, True, 0.6), sparse_ints(b, 500, 8, True, 0.6))
    assert np.array_equal(operand_fp_bits(a, 500, "bf16", 0.6), random_fp_bits(b, 500, "bf16", density=0.6))


def test_dnn_integers_are_quantized_real_values():
    rng = np.random.default_rng(1)
    acts = operand_ints(rng, 20_000, 8, False, 1.0, "dnn", "activation")
    weights = operand_ints(rng, 20_000, 8, True, 1.0, "dnn", "weight")
    assert acts.min() >= 0 and acts.max() <= 255
    assert weights.min() >= -127 and weights.max() <= 127 and (weights < 0).mean() > 0.4
    # real activations sit far below the full range (a long tail), unlike uniform draws
    assert np.median(acts) < 64 < np.median(sparse_ints(rng, 20_000, 8, False, 1.0))
    # an unsigned ReLU output's high bits rarely toggle: fewer toggles per bit than uniform's 1/2
    assert _toggle_rate(acts, 8) < 0.46


def test_dnn_fp_values_follow_the_tensors_and_density_adds_zeros():
    rng = np.random.default_rng(2)
    bits = operand_fp_bits(rng, 10_000, "fp16", 0.5, "dnn", "activation")
    values = to_float32(bits, "fp16")
    nonzero = values[values != 0]
    assert 0.4 < len(nonzero) / len(values) < 0.6
    assert (nonzero > 0).all()                 # activations after ReLU
    q = profiles.tensor_statistics()["roles"]["activation"]["quantiles_raw"]
    assert abs(np.median(nonzero) - q[128]) < 0.1 * q[128]


def test_uniform_fp_is_every_bit_pattern():
    bits = operand_fp_bits(np.random.default_rng(3), 20_000, "fp32", 1.0, "uniform").astype(np.int64)
    assert 0.48 < _toggle_rate(bits, 32) < 0.52
    assert ((bits >> 23) & 0xFF == 0xFF).mean() > 0.002     # NaNs and infinities among them


@pytest.mark.parametrize("profile, fp, message", [
    ("normal", False, "'normal' is not a stimulus profile for integer operands; allowed: uniform, dnn"),
    ("zipf", True, "'zipf' is not a stimulus profile for fp operands; allowed: uniform, normal, dnn"),
])
def test_check_profile_names_the_value_and_what_is_allowed(profile, fp, message):
    with pytest.raises(ConfigError, match=message):
        profiles.check_profile(profile, fp=fp)


def test_a_family_with_its_own_stimulus_rejects_a_profile():
    fan = FAMILIES["fan"]
    with pytest.raises(ConfigError, match="fan's stimulus for int operands is its own"):
        family_stimuli(fan, fan.validate({}), 1.0, 32, 1, 1, "dnn")
    flexdpe = FAMILIES["flexdpe"]
    assert stimulus_record(flexdpe, flexdpe.validate({}), None)["profile"] == "family"


def test_model_record_of_the_profile():
    mac = FAMILIES["mac"]
    assert stimulus_record(mac, mac.validate({}), None)["profile"] == "uniform"
    assert stimulus_record(mac, mac.validate({"dtype": "fp16", "a_width": 16, "b_width": 16, "acc_width": 32}),
                           None)["profile"] == "normal"
    dnn = stimulus_record(mac, mac.validate({}), "dnn")
    assert dnn["profile"] == "dnn" and "bench/operand_profiles.py" in dnn["source"]


def test_sweep_file_profile(tmp_path):
    path = tmp_path / "mac.yaml"
    path.write_text("family: mac\nprofile: dnn\ngrid:\n  - {a_width: [8], b_width: [8]}\n")
    assert load_sweep("mac", path, families=FAMILIES).profile == "dnn"
    path.write_text("family: mac\nprofile: gauss\ngrid:\n  - {a_width: [8], b_width: [8]}\n")
    with pytest.raises(ConfigError, match="'gauss' is not a stimulus profile; allowed: uniform, normal, dnn"):
        load_sweep("mac", path, families=FAMILIES)


def test_every_shipped_model_records_its_stimulus():
    models = sorted((Path(str(resources.files("accelgen.fit"))) / "models").glob("*.json"))
    assert len(models) > 20
    for path in models:
        stimulus = json.loads(path.read_text())["training"].get("stimulus")
        assert stimulus and stimulus["profile"] in {*profiles.PROFILES, "family"}, path.name
