"""Density-aware activity stimuli for families beyond the MAC and the systolic array.

Same contract as :mod:`accelgen.fit.activity` (``activity_table(params, density, cycles, seed) ->
Activity``). Kept in their own module so that the sweep cache of the other families (keyed by the
sources of ``fit/activity.py``) is not invalidated by additions here.
"""

from __future__ import annotations

import numpy as np

from .activity import Activity


def tensordash_sched_activity(params, density: float, cycles: int, seed: int) -> Activity:
    """One schedule step per cycle: the ``depth x lanes`` window of operand pairs is effectual
    (both operands non-zero) independently with probability ``density``; ``z__s`` has bit ``l``
    set where row ``s``, lane ``l`` is ineffectual (the scheduler's ``Z = ZA | ZB`` input).
    One operation is one schedule step (one cycle)."""
    rng = np.random.default_rng(seed)
    live = rng.random((cycles, params.depth, params.lanes)) < density
    weights = (1 << np.arange(params.lanes)).astype(np.int64)
    z = ((~live).astype(np.int64) * weights).sum(axis=2)
    ins = {f"z__{s}": z[:, s] for s in range(params.depth)}
    return Activity(ins, ops=cycles - 1, per="schedule step (one cycle)", warmup=0)
