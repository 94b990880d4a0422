"""Operand streams for switching-activity sweeps (:mod:`accelgen.fit.activity`).

A family's ``activity_table(params, density, cycles, seed)`` (declared with the family, written in
its host module) returns an :class:`Activity`: per-cycle input values with operands zero with
probability ``1 - density``, and the number of operations the cycles perform (the ``per`` of the
energy model). Families without one are driven by their cosim stimulus (:func:`cosim_activity`)
and have energy per cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import operand_profiles as profiles
from ..golden.fp import bits_dtype, from_float32, random_fp_bits


@dataclass
class Activity:
    """Stimulus for an activity run: ``inputs[port]`` integer values per cycle.

    ``ops`` is the number of operations the stimulus performs (MACs, useful MACs,
    vectors), ``per`` names the operation, ``warmup`` leading cycles are simulated
    but not counted (the operation count covers the counted cycles only).
    """

    inputs: dict[str, np.ndarray]
    ops: float
    per: str
    warmup: int = 0
    info: dict = field(default_factory=dict)

    @property
    def cycles(self) -> int:
        return len(next(iter(self.inputs.values())))



def sparse_ints(rng, n, width, signed, density):
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    x = rng.integers(lo, hi, n, endpoint=True)
    x[rng.random(n) >= density] = 0
    # a non-zero draw that came out 0 stays 0: density is P(nonzero) up to 2**-width
    return x


def profiled_for(*dtypes: str):
    """Declares that an activity table draws its operands by a stimulus profile for these dtypes only (for the
    others its stimulus is its own, e.g. a cosim table): :func:`accelgen.fit.stimuli.stimulus_record` reads it."""
    def mark(fn):
        fn.profile_dtypes = dtypes
        return fn
    return mark


def operand_ints(rng, shape, width: int, signed: bool, density: float, profile: str | None = None,
                 role: str = "activation") -> np.ndarray:
    """Integer operands, zero with probability ``1 - density``, else drawn by ``profile``
    (:mod:`accelgen.operand_profiles`; ``None``: the integer default, ``uniform``)."""
    profile = profile or profiles.DEFAULT_INT
    if profile == "uniform":
        return sparse_ints(rng, shape, width, signed, density)
    profiles.check_profile(profile, fp=False)
    n = int(np.prod(shape))
    x = profiles.dnn_ints(rng, n, width, signed, role)
    x[rng.random(n) >= density] = 0
    return x.reshape(shape)


def operand_fp_bits(rng, shape, dtype: str, density: float, profile: str | None = None,
                    role: str = "activation") -> np.ndarray:
    """fp operands as bit patterns, zero (+0 or -0) with probability ``1 - density``, else drawn by ``profile``
    (``None``: the fp default, ``normal``, which is :func:`~accelgen.golden.fp.random_fp_bits`)."""
    profile = profile or profiles.DEFAULT_FP
    if profile == "normal":
        return random_fp_bits(rng, shape, dtype, density=density)
    n = int(np.prod(shape))
    if profile == "uniform":
        width = np.dtype(bits_dtype(dtype)).itemsize * 8
        bits = rng.integers(0, 1 << width, n, dtype=np.uint64).astype(bits_dtype(dtype))
    else:
        profiles.check_profile(profile, fp=True)
        bits = from_float32(profiles.draw_nonzero(rng, n, role, scaled=False).astype(np.float32), dtype)
    zero = rng.random(n) >= density
    sign = bits.dtype.type(1) << bits.dtype.type(np.dtype(bits.dtype).itemsize * 8 - 1)
    signed_zero = np.where(rng.integers(0, 2, n) == 1, sign, bits.dtype.type(0)).astype(bits.dtype)
    return np.where(zero, signed_zero, bits).astype(bits.dtype).reshape(shape)


def cosim_activity(cycle_table, params, density: float, cycles: int, seed: int) -> Activity:
    """Default stimulus: a family's cosim cycle table (``cycle_table``) (density is ignored); operation = one cycle."""
    res = cycle_table(params, max(1, cycles // 4), seed)
    table = res[0] if isinstance(res, tuple) else res
    ins = {k: np.asarray(v, dtype=np.uint64).astype(object) for k, v in table.inputs.items()}
    n = table.cycles
    if n > cycles:
        ins = {k: v[:cycles] for k, v in ins.items()}
        n = cycles
    return Activity(ins, ops=n - 1, per="cycle of the cosim stimulus", warmup=0)
