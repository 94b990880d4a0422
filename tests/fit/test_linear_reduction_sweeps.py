"""The linear reduction's sweep files load (no sweep is run): every point validates, the held-out points are
unseen, the fp32 variant pins its dtype, and every feature form compiles over the family's parameters."""

from __future__ import annotations

import math

import pytest

from accelgen.fit.model import compile_feature
from accelgen.fit.sweep import load_sweep
from accelgen.registry import FAMILIES


@pytest.mark.parametrize("name,dtype", [("linear_reduction", "int"), ("linear_reduction-fp32", "fp32")])
def test_sweep_file_loads(name, dtype):
    spec = load_sweep(name, families=FAMILIES)
    assert spec.family == "linear_reduction" and spec.name == name
    fam = FAMILIES["linear_reduction"]
    points = spec.points()
    train = [fam.validate(p) for split, p in points if split == "train"]
    heldout = [fam.validate(p) for split, p in points if split == "heldout"]
    assert len(train) >= 12 and len(heldout) >= 4
    assert {p.dtype for p in train + heldout} == {dtype}
    # held-out points are designs the grid does not have (load_sweep checks the spelled-out points)
    assert not {p.model_dump_json() for p in heldout} & {p.model_dump_json() for p in train}
    assert {p.add_stages for p in train} == {0, 1, 2, 3}
    names = set(fam.params_model.model_fields) | {"density"}
    assert {"area_um2", "leakage_uw", "energy_pj", "delay_ns"} <= set(spec.targets)
    for target in spec.targets.values():
        for form in target["features"]:
            values = [float(compile_feature(form, names)({**p.model_dump(), "density": 0.5})) for p in train]
            assert all(math.isfinite(v) for v in values), form      # a number at every training point
