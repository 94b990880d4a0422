"""The operand streams of a sweep point, drawn once and cached.

A point is simulated on ``lanes`` independent streams (bit-parallel) at each density: its family's
``activity_table`` (or, without one, its cosim table through :func:`accelgen.cosim.stimulus.cosim_activity`),
seeded ``seed * 1000 + lane``. Some streams take far longer to draw than the point takes to render (a Flex-DPE's:
its controller plans every GEMM, 90 s at k = 16), and both a point's cache key and its measurement need them
(:mod:`accelgen.fit.sweep`), so they are kept under ``cache_dir("stimuli", family)``, keyed by the point, the
settings and the digest of the stimulus code (the family's tables and the modules they import).
"""

from __future__ import annotations

import functools
import inspect
import pickle

from .. import operand_profiles
from ..cosim.stimulus import Activity, cosim_activity
from ..errors import ConfigError
from ..fpformat import is_fp
from ..util import atomic_files, cache_dir, canonical_json, module_digest, sha256_hex

#: digest of each family's stimulus code, computed once per process
_CODE: dict[str, str] = {}


def takes_profile(family, params) -> bool:
    """Whether a family's activity stimulus draws the operands of ``params`` by a stimulus profile: its
    ``activity_table`` takes ``profile`` (for the dtypes it declares with
    :func:`~accelgen.cosim.stimulus.profiled_for`, if it does); the others have a stimulus of their own."""
    act = getattr(family, "activity_table", None)
    if not act or "profile" not in inspect.signature(act).parameters:
        return False
    declared = getattr(act, "profile_dtypes", None)
    return declared is None or getattr(params, "dtype", "int") in declared


def stimulus_record(family, params, profile: str | None) -> dict:
    """What a fitted model records about its stimulus: the profile its operands were drawn by
    (:func:`accelgen.operand_profiles.describe`), or the family's own stimulus (partial sums, routing tables)."""
    if not takes_profile(family, params):
        act = getattr(family, "activity_table", None) or family.cycle_table
        first = (inspect.getdoc(act) or "").split("\n\n")[0].replace("\n", " ")
        return {"profile": "family", "description": f"{family.name}'s own stimulus ({act.__name__}): {first}"}
    fp = is_fp(getattr(params, "dtype", "int"))
    resolved = profile or (operand_profiles.DEFAULT_FP if fp else operand_profiles.DEFAULT_INT)
    return operand_profiles.describe(operand_profiles.check_profile(resolved, fp=fp))


def family_stimuli(family, params, density: float, cycles: int, lanes: int, seed: int,
                   profile: str | None = None) -> list[Activity]:
    """The ``lanes`` streams of one point at one density, operands drawn by ``profile`` (``None``: the family's
    default). Cosim tables of different seeds can differ in length (e.g. Benes configurations), and the lanes of one
    bit-parallel run need equal lengths, so every stream is then cut to the shortest."""
    act = getattr(family, "activity_table", None)
    if profile is not None:
        if not takes_profile(family, params):
            dtype = getattr(params, "dtype", "int")
            raise ConfigError([("profile", (f"{profile!r}: {family.name}'s stimulus for {dtype} operands is its own "
                                           "(partial sums, routing, a cosim table), not drawn by a profile; allowed: "
                                           "none (leave profile unset)"))])
        act = functools.partial(act, profile=profile)
    stims = [(act(params, density, cycles, seed * 1000 + i) if act else
              cosim_activity(family.cycle_table, params, density, cycles, seed * 1000 + i)) for i in range(lanes)]
    if not act and len({s.cycles for s in stims}) > 1:
        n = min(s.cycles for s in stims)
        stims = [Activity({k: v[:n] for k, v in s.inputs.items()}, ops=n - 1, per=s.per, warmup=s.warmup)
                 for s in stims]
    return stims


def point_stimuli(family, params, densities: list[float], cycles: int, lanes: int, seed: int,
                  profile: str | None = None) -> dict[str, list[Activity]]:
    """The point's streams at every density (``{"1.0": [...]}``; only the first density when the family's stimulus
    ignores it), from the cache when they were drawn before by the same code."""
    # the default profile adds nothing to the key: streams drawn before profiles existed stay valid
    key = sha256_hex(canonical_json({
        "family": family.name, "params": params.model_dump(mode="json"), "densities": densities, "cycles": cycles,
        "lanes": lanes, "seed": seed, "code": _code(family)} | ({"profile": profile} if profile else {})))[:32]
    path = cache_dir("stimuli", family.name) / f"{key}.pickle"
    if path.exists():
        return pickle.loads(path.read_bytes())
    stimuli = {}
    for dens in densities:
        stimuli[str(dens)] = family_stimuli(family, params, dens, cycles, lanes, seed, profile)
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
