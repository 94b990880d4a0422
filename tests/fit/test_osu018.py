"""The default technology scaled to 180 nm against osu018, a real 180 nm library (issue 20 item 5; the full
comparison is bench/osu018_compare.py). Runs only where the Liberty file is present."""

import os
from pathlib import Path

import pandas as pd
import pytest
import yaml

from accelgen.fit.api import model_tech, sweep_dataset
from accelgen.fit.liberty_read import read_power_library
from accelgen.fit.mapping import default_liberty
from accelgen.fit.sta import library_fo4_ps
from accelgen.registry import FAMILIES
from accelgen.technology import tech_factor


def _osu018() -> Path | None:
    env = os.environ.get("ACCELGEN_OSU018_LIB")
    if env:
        return Path(env)
    home = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "accelgen" / "osu018"
    return next(home.rglob("osu018_stdcells.lib"), None) if home.is_dir() else None


LIB = _osu018()
pytestmark = [pytest.mark.synth,
              pytest.mark.skipif(LIB is None or not LIB.is_file(),
                                 reason="osu018_stdcells.lib is not present: run bench/osu018_compare.py once (it "
                                        "apt-get downloads qflow-tech-osu018 into the accelgen cache) or set "
                                        "ACCELGEN_OSU018_LIB")]

GRID = {"family": "mac", "densities": [1.0], "cycles": 24, "lanes": 8, "glitch_samples": 1,
        "derived": {"acc_width": "a_width + b_width + 8"},
        "grid": [{"a_width": [8], "b_width": [8], "input_reg": [True]}],
        "heldout": [{"a_width": [6], "b_width": [6], "input_reg": [True]}], "targets": {}}


def test_osu018_mac_is_within_a_few_times_the_scaled_default(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCELGEN_CACHE_DIR", str(tmp_path / "cache"))
    tech = model_tech(pd.DataFrame())
    factors = {q: float(tech_factor(tech, 180, q)) for q in ("area", "delay", "energy")}
    rows = {}
    for lib, clock in ((None, 1000.0), (LIB, 1000.0 * library_fo4_ps(default_liberty()) / library_fo4_ps(LIB))):
        grid = tmp_path / f"{clock:g}.yaml"
        grid.write_text(yaml.safe_dump(GRID | {"clock_mhz": clock}))
        res = sweep_dataset("mac", grid, families=FAMILIES, jobs=1, liberty=lib, out=tmp_path / f"{clock:g}.csv",
                            progress=False)
        rows[lib is None] = pd.read_csv(res.dataset).sort_values("a_width").reset_index(drop=True)
    ref, osu = rows[True], rows[False]
    used = {c[len("cell:"):] for c in osu.columns if c.startswith("cell:") and osu[c].sum()}
    assert set(osu.library) == {LIB.name} and used and used <= set(read_power_library(LIB).cells)
    for target, factor, lo, hi in (("area_um2", "area", 1.0, 6.0), ("delay_ns", "delay", 0.3, 2.0),
                                   ("energy_pj", "energy", 0.2, 5.0)):
        ratio = osu[target] / (ref[target] * factors[factor])
        assert ((ratio > lo) & (ratio < hi)).all(), (target, list(ratio))
