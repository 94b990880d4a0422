"""What every family's sweep file must satisfy (no sweep is run): its points validate, the held-out points are
designs the grid does not have, a dtype variant pins its dtype, the stage grid is whole, and every feature form
compiles to a finite number at every training point."""

from __future__ import annotations

import math

from accelgen.fit.model import compile_feature
from accelgen.fit.sweep import load_sweep
from accelgen.registry import FAMILIES


def check_sweep_file(name: str, family: str, dtype: str):
    """The checks above on sweep file ``name`` of ``family``; returns ``(spec, train)`` for further checks."""
    spec = load_sweep(name, families=FAMILIES)
    assert spec.family == family and spec.name == name
    fam = FAMILIES[family]
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
    return spec, train
