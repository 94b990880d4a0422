"""The operand streams of a sweep point, drawn once and cached.

A point is simulated on ``lanes`` independent streams (bit-parallel) at each density: its family's
``activity_table`` (or, without one, its cosim table through :func:`accelgen.cosim.stimulus.cosim_activity`),
seeded ``seed * 1000 + lane``. Some streams take far longer to draw than the point takes to render (a Flex-DPE's:
its controller plans every GEMM, 90 s at k = 16), and both a point's cache key and its measurement need them
(:mod:`accelgen.fit.sweep`), so they are kept under ``cache_dir("stimuli", family)``, keyed by the point, the
settings and the digest of the stimulus code (the family's tables and the modules they import).
"""

from __future__ import annotations

import pickle

from ..cosim.stimulus import Activity, cosim_activity
from ..util import atomic_files, cache_dir, canonical_json, module_digest, sha256_hex

#: digest of each family's stimulus code, computed once per process
_CODE: dict[str, str] = {}


def family_stimuli(family, params, density: float, cycles: int, lanes: int, seed: int) -> list[Activity]:
    """The ``lanes`` streams of one point at one density. Cosim tables of different seeds can differ in length
    (e.g. Benes configurations), and the lanes of one bit-parallel run need equal lengths, so every stream is then
    cut to the shortest."""
    act = getattr(family, "activity_table", None)
    stims = [(act(params, density, cycles, seed * 1000 + i) if act else
              cosim_activity(family.cycle_table, params, density, cycles, seed * 1000 + i)) for i in range(lanes)]
    if not act and len({s.cycles for s in stims}) > 1:
        n = min(s.cycles for s in stims)
        stims = [Activity({k: v[:n] for k, v in s.inputs.items()}, ops=n - 1, per=s.per, warmup=s.warmup)
                 for s in stims]
    return stims


def point_stimuli(family, params, densities: list[float], cycles: int, lanes: int, seed: int
                  ) -> dict[str, list[Activity]]:
    """The point's streams at every density (``{"1.0": [...]}``; only the first density when the family's stimulus
    ignores it), from the cache when they were drawn before by the same code."""
    key = sha256_hex(canonical_json({
        "family": family.name, "params": params.model_dump(mode="json"), "densities": densities, "cycles": cycles,
        "lanes": lanes, "seed": seed, "code": _code(family)}))[:32]
    path = cache_dir("stimuli", family.name) / f"{key}.pickle"
    if path.exists():
        return pickle.loads(path.read_bytes())
    stimuli = {}
    for dens in densities:
        stimuli[str(dens)] = family_stimuli(family, params, dens, cycles, lanes, seed)
        if not getattr(family, "activity_table", None):
            break  # the cosim stimulus does not depend on density
    with atomic_files([path]) as (tmp,):
        tmp.write_bytes(pickle.dumps(stimuli))
    return stimuli


def _code(family) -> str:
    if family.name not in _CODE:
        _CODE[family.name] = module_digest(family.cycle_table, getattr(family, "activity_table", None),
                                           family_stimuli)[:16]
    return _CODE[family.name]
