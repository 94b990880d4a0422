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
