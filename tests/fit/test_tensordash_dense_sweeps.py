"""The dense-baseline sweeps of the TensorDash tile load (no sweep is run here): every point is a valid
``depth: 1`` tile, the fp16 one pins ``fp16``, and every feature compiles and is finite at every point."""

import numpy as np
import pytest

from accelgen.fit.model import compile_feature
from accelgen.fit.sweep import load_sweep
from accelgen.registry import FAMILIES


@pytest.mark.parametrize("name, dtype, n_points", [("tensordash_tile-dense", "int", 59),
                                                   ("tensordash_tile-dense_fp16", "fp16", 46)])
def test_dense_tile_sweep_loads(name, dtype, n_points):
    spec = load_sweep(name, families=FAMILIES)
    assert (spec.name, spec.family) == (name, "tensordash_tile")
    points = spec.points()
    assert len(points) == n_points and {split for split, _ in points} == {"train", "heldout"}
    fam = FAMILIES["tensordash_tile"]
    names = set(fam.params_model.model_fields) | {"density"}
    for _, params in points:
        p = fam.validate(params)
        assert p.depth == 1 and p.dtype == dtype
        env = {k: np.asarray(v) for k, v in p.model_dump().items() if not isinstance(v, str)}
        for target, spec_t in spec.targets.items():
            for density in spec.densities:
                for feature in spec_t["features"]:
                    value = compile_feature(feature, names)({**env, "density": np.asarray(density)})
                    assert np.isfinite(value).all(), (target, feature, params)
