"""Model variants: ``<family>-<variant>`` names for sweeps, datasets and model files (``mac-bf16``).

The end-to-end test builds a tiny variant (``mac-tiny``) of the integer MAC family: no fake model is
shipped, everything is written under ``tmp_path`` (the package's fit/ directories are redirected)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelgen.errors import ConfigError
from accelgen.registry import FAMILIES

TINY_VARIANT = """\
family: mac
densities: [1.0, 0.5]
cycles: 16
lanes: 2
derived: {acc_width: "a_width + b_width + 4"}
grid:
  - {a_width: [3, 6], b_width: [3], input_reg: [true]}
heldout:
  - {a_width: [4], b_width: [3], input_reg: [true]}
targets:
  area_um2: {features: ["a_width*b_width", "1"]}
  energy_pj: {features: ["a_width*b_width*density", "1"]}
"""


def test_split_name():
    from accelgen.fit.sweep import split_name
    assert split_name("mac") == ("mac", None)
    assert split_name("mac-bf16") == ("mac", "bf16")
    assert split_name("tensordash_pe-fp16") == ("tensordash_pe", "fp16")
    for bad in ("Mac", "mac-", "mac-bf16-x", "../mac", ""):
        with pytest.raises(ConfigError, match="FAMILY-VARIANT"):
            split_name(bad)


def test_variant_sweep_file_must_name_its_family(tmp_path):
    from accelgen.fit.sweep import load_sweep
    f = tmp_path / "v.yaml"
    f.write_text(TINY_VARIANT.replace("family: mac\n", ""))
    with pytest.raises(ConfigError, match=r"v.yaml.family.*must name its block family \(family: mac\)"):
        load_sweep("mac-tiny", f, families=FAMILIES)
    f.write_text(TINY_VARIANT.replace("family: mac", "family: fan"))
    with pytest.raises(ConfigError, match=r"'fan' does not match the requested variant 'mac-tiny' \(expected 'mac'\)"):
        load_sweep("mac-tiny", f, families=FAMILIES)
    f.write_text(TINY_VARIANT)
    spec = load_sweep("mac-tiny", f, families=FAMILIES)
    assert (spec.name, spec.family) == ("mac-tiny", "mac")
    assert len(spec.points()) == 3


def test_dtype_variant_pins_dtype_at_every_point(tmp_path):
    """A variant named after a datatype must sweep that datatype (an int grid under ``mac-bf16`` is an error)."""
    from accelgen.fit.sweep import load_sweep
    f = tmp_path / "v.yaml"
    f.write_text(TINY_VARIANT)
    with pytest.raises(ConfigError, match=r"train\[0\].dtype: 'int' is not allowed in the sweep of 'mac-bf16'"):
        load_sweep("mac-bf16", f, families=FAMILIES)


def test_cache_key_is_what_the_point_measures(tmp_path, monkeypatch):
    """A point's key hashes its Verilog, stimuli, clock, library and glitch flag (not its generator's source): points
    that emit different Verilog never share a measurement, and a change of any measured input changes the key. The
    stimuli are drawn once per point and code (fit/stimuli.py)."""
    from dataclasses import replace

    import numpy as np

    from accelgen.fit.measure import measurement_key
    from accelgen.fit.sweep import point_design, point_key

    def job(**params):
        return {"family": "mac", "block": FAMILIES["mac"], "params": params or {"a_width": 8, "b_width": 8},
                "split": "train", "densities": [1.0, 0.5], "cycles": 16, "lanes": 2, "seed": 1, "clock_mhz": 1000.0,
                "liberty": None, "glitch": False}

    monkeypatch.setenv("ACCELGEN_CACHE_DIR", str(tmp_path))
    keys = {point_key(job()), point_key(job(dtype="bf16")), point_key(job(dtype="fp16"))}
    assert len(keys) == 3 and len(list((tmp_path / "stimuli" / "mac").glob("*.pickle"))) == 3
    design = point_design(job())
    assert list(design.stimuli) == ["1.0", "0.5"] and measurement_key(design) == point_key(job())
    lane = design.stimuli["1.0"][0]
    port = next(iter(lane.inputs))
    changed = np.array(lane.inputs[port], copy=True)
    changed[-1] ^= 1
    other = {**design.stimuli,
             "1.0": [replace(lane, inputs={**lane.inputs, port: changed}), *design.stimuli["1.0"][1:]]}
    variants = [replace(design, clock_mhz=500.0), replace(design, glitch=True), replace(design, stimuli=other),
                replace(design, verilog=design.verilog + "\n// edited\n"), replace(design, cells=("x",))]
    assert len({measurement_key(d) for d in [design, *variants]}) == 1 + len(variants)
    # the same values in another integer dtype are the same stimulus
    as_object = {**design.stimuli,
                 "1.0": [replace(lane, inputs={k: v.astype(object) for k, v in lane.inputs.items()}),
                         *design.stimuli["1.0"][1:]]}
    assert measurement_key(replace(design, stimuli=as_object)) == measurement_key(design)


def test_missing_variant_model_says_how_to_fit_it():
    from accelgen.fit.model import load_model
    with pytest.raises(ConfigError, match=r"no fitted model for 'mac-nosuch'.*accelgen sweep mac-nosuch && "
                                          r"accelgen fit mac-nosuch --ship.*fit/sweeps/mac-nosuch.yaml with family: mac"):
        load_model("mac-nosuch")


def test_shipped_models_lists_families_and_variants():
    from accelgen.fit import model as m
    names = m.shipped_models()
    assert "mac" in names and m.shipped_families() == names
    root = Path(m.__file__).parent
    for n in names:
        assert (root / "sweeps" / f"{n}.yaml").is_file(), n   # every shipped model has its sweep and dataset
        assert (root / "data" / f"{n}.csv").is_file(), n
        assert m.load_model(n).name == n


@pytest.mark.synth
def test_tiny_variant_sweep_fit_ship_load_predict(tmp_path, monkeypatch, capsys):
    from accelgen.fit import model as model_mod
    from accelgen.cli import main
    from accelgen.fit import api as fit_api

    monkeypatch.setenv("ACCELGEN_CACHE_DIR", str(tmp_path / "cache"))
    fit_dir = tmp_path / "fit"
    (fit_dir / "models").mkdir(parents=True)
    monkeypatch.setattr(fit_api, "FIT_DIR", fit_dir)
    monkeypatch.setattr(model_mod, "_models_dir", lambda: fit_dir / "models")
    grid = tmp_path / "mac-tiny.yaml"
    grid.write_text(TINY_VARIANT)
    csv = tmp_path / "mac-tiny.csv"
    assert main(["sweep", "mac-tiny", "--grid", str(grid), "-j", "1", "-o", str(csv)]) == 0
    assert "3 of 3 points done" in capsys.readouterr().out
    # the cache is the family's, keyed by the point (not by the variant name)
    assert len(list((tmp_path / "cache" / "sweep" / "mac").glob("*.json"))) == 3
    assert main(["fit", "mac-tiny", "--grid", str(grid), "--data", str(csv), "--ship", "--folds", "2"]) == 0
    out = capsys.readouterr().out
    assert "mac-tiny: fitted model errors" in out
    shipped = fit_dir / "models" / "mac-tiny.json"
    data = json.loads(shipped.read_text())
    assert (data["name"], data["family"]) == ("mac-tiny", "mac")
    assert (fit_dir / "data" / "mac-tiny.csv").read_text() == csv.read_text()
    m = model_mod.load_model("mac-tiny")
    assert (m.name, m.family) == ("mac-tiny", "mac")
    assert model_mod.shipped_models() == ["mac-tiny"]
    # issue 51: a model of the family serves it whatever its sweep was called; another family's it does not
    assert model_mod.load_model("mac", path=shipped).name == "mac-tiny"
    with pytest.raises(ConfigError, match="holds a model of 'mac-tiny' \\(family 'mac'\\), not 'systolic'"):
        model_mod.load_model("systolic", path=shipped)
    assert main(["predict", "mac-tiny", "a_width=4", "b_width=3", "density=0.5", "--json"]) == 0
    pred = json.loads(capsys.readouterr().out)
    assert pred["model"] == "mac-tiny" and pred["predicted"]["area_um2"] > 0
    assert main(["fit-report", "mac-tiny", "--json", "--png", str(tmp_path / "r.png")]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["name"] == "mac-tiny" and rep["png"]   # the default dataset fit/data/mac-tiny.csv was found
