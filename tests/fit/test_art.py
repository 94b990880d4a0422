"""The ART's sweep files load (no sweep is run): every point validates, the held-out points are unseen,
the fp32 variant pins its dtype, and every feature form compiles to a number over the family's parameters."""

from __future__ import annotations

import math

import pytest

from accelgen.fit.model import compile_feature
from accelgen.fit.sweep import load_sweep
from accelgen.registry import FAMILIES
from accelgen.rtl import ARTParams


@pytest.mark.parametrize("name,dtype", [("art", "int"), ("art-fp32", "fp32")])
def test_art_sweep_file_loads(name, dtype):
    spec = load_sweep(name, families=FAMILIES)
    assert spec.family == "art" and spec.name == name
    fam = FAMILIES["art"]
    points = spec.points()
    train = [fam.validate(p) for split, p in points if split == "train"]
    heldout = [fam.validate(p) for split, p in points if split == "heldout"]
    assert len(train) >= 12 and len(heldout) >= 4
    assert {p.dtype for p in train + heldout} == {dtype}
    assert not {p.model_dump_json() for p in heldout} & {p.model_dump_json() for p in train}
    assert {p.add_stages for p in train} == {0, 1, 2, 3}
    names = set(fam.params_model.model_fields) | {"density"}
    assert {"area_um2", "leakage_uw", "energy_pj", "delay_ns"} <= set(spec.targets)
    for name_, target in spec.targets.items():
        # the additive forms count the linked switches' second adders; the delay is a step (fp32: at n = 8) and a
        # log-link energy scales n switches by factors, so they need not
        if name_ != "delay_ns" and target.get("link", "identity") == "identity":
            assert any("n-2*log2(n)" in f for f in target["features"]), name_
        for form in target["features"]:
            values = [float(compile_feature(form, names)({**p.model_dump(), "density": 0.5})) for p in train]
            assert all(math.isfinite(v) for v in values), form


def test_linked_switch_count_is_n_minus_two_log2_n():
    """The sweeps' 3-input-adder count: switches with a forwarding link."""
    for n in (2, 4, 8, 16, 64, 512):
        p = ARTParams(n=n)
        linked = sum(p.linked(h, j) for h in range(1, p.log2n + 1) for j in range(n >> h))
        assert linked == n - 2 * p.log2n
