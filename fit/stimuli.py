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


def tensordash_activity(params, density: float, cycles: int, seed: int) -> Activity:
    """TensorDash PE / tile doing back-to-back dot products of long sparse streams.

    Integer ``dtype``: the family's cosim stimulus (:func:`~accelgen.fit.activity.cosim_activity`,
    density ignored, energy per cycle), as before floating point existed.

    Floating point (``fp16``/``bf16``/``fp32``): every operand (A and B; for the tile every row's A)
    is a realistic value (``random_fp_bits``: normal(0, 1) rounded to the format) and zero with
    probability ``1 - density``, independently, so a pair is effectual with probability
    ``density**2`` (the tile skips on B only). Streams of ``16 D`` rows follow each other with one
    ``start`` cycle between them (no idle gaps) until ``cycles`` busy cycles are reached; the
    inputs are the cosim cycle table's (:func:`accelgen.cosim.tensordash.pe_table`). One operation
    is one busy cycle of the PE (``L`` lanes, up to ``L`` effectual pairs). The window is the first
    ``cycles`` cycles; its few ``start`` cycles are simulated but not counted as operations.
    """
    from ..cosim.tensordash import Stream, is_fp, pe_table

    if not is_fp(params):
        from ..gen.blocks import FAMILIES
        from .activity import cosim_activity
        fam = FAMILIES["tensordash_tile" if hasattr(params, "rows") else "tensordash_pe"]
        return cosim_activity(fam, params, density, cycles, seed)
    from ..cosim.models.fp import random_fp_bits

    rng = np.random.default_rng(seed)
    tile = hasattr(params, "rows")
    n = 16 * params.depth
    a_shape = (params.rows, n, params.lanes) if tile else (n, params.lanes)
    streams, busy = [], 0
    while busy < cycles:
        a = np.asarray(random_fp_bits(rng, a_shape, params.dtype, density=density), dtype=np.int64)
        b = np.asarray(random_fp_bits(rng, (n, params.lanes), params.dtype, density=density), dtype=np.int64)
        streams.append(Stream("activity", a, b))
        table = pe_table(params, streams=streams, seed=seed, gaps=False)
        busy = int(table.info["busy_cycles"])
    starts = int(np.asarray(table.inputs["start"], dtype=np.int64)[:cycles].sum())
    ins = {k: np.asarray(v, dtype=np.uint64).astype(object)[:cycles] for k, v in table.inputs.items()}
    return Activity(ins, ops=float(cycles - starts), per="busy cycle (operands nonzero with probability density)",
                    warmup=0, info={"streams": len(streams), "start_cycles": starts})
