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


# --------------------------------------------------------------------------- SIGMA reduction networks and Flex-DPE

def _cosim_stream(cycle_table, params, cycles: int, seed: int) -> Activity:
    """The integer families' stimulus, unchanged: their cosim table (see ``fit.activity.cosim_activity``)."""
    from types import SimpleNamespace

    from .activity import cosim_activity
    return cosim_activity(SimpleNamespace(cycle_table=cycle_table), params, 1.0, cycles, seed)


def reduction_activity(params, density: float, cycles: int, seed: int) -> Activity:
    """FAN, linear chain and adder tree. ``dtype="int"``: the cosim stimulus (random vecID layouts and
    values, density ignored; one operation = one cycle), as before. ``dtype="fp32"``: one vector per
    cycle, all inputs valid, values from :func:`~accelgen.cosim.models.fp.random_fp_bits` (normal(0, 1)
    rounded to fp32; a zero, +0 or -0, with probability ``1 - density``), clusters cut at each boundary
    with probability 0.2 (mean cluster ~5 inputs, as dot products mapped onto a Flex-DPE). One
    operation is one vector (``n`` inputs reduced); the pipeline fill is warm-up."""
    from ..cosim.fan import _random_sizes, _sizes_to_ids, adder_tree_table, fan_linear_table, fan_table
    from ..cosim.models.fp import random_fp_bits

    block = type(params).block
    if params.dtype == "int":
        table = {"fan": fan_table, "fan_linear": fan_linear_table, "adder_tree": adder_tree_table}[block]
        return _cosim_stream(table, params, cycles, seed)
    rng = np.random.default_rng(seed)
    n = params.n
    values = random_fp_bits(rng, (cycles, n), "fp32", density=density).astype(np.int64)
    ins = {f"value__{i}": values[:, i] for i in range(n)}
    ins |= {f"valid__{i}": np.ones(cycles, dtype=np.int64) for i in range(n)}
    if block != "adder_tree":
        ids = np.stack([_sizes_to_ids(_random_sizes(n, rng, 0.2), params.id_width, rng) for _ in range(cycles)])
        ins |= {f"vec_id__{i}": ids[:, i].astype(np.int64) for i in range(n)}
    warm = params.latency + 1
    return Activity(ins, ops=cycles - warm, per="vector (n fp32 inputs reduced in one cycle)", warmup=warm)


def flexdpe_activity(params, density: float, cycles: int, seed: int) -> Activity:
    """Flex-DPE. ``dtype="int"``: the cosim stimulus (random sparse GEMMs, density ignored), as before.
    fp dtypes: back-to-back GEMMs ``2k x 2k x 2k`` through the sparsity controller and the driver
    (loads, streamed vectors, reduction tails), both operands from
    :func:`~accelgen.cosim.models.fp.random_fp_bits` with ``density`` non-zeros (zeros +0 or -0),
    cut to ``cycles`` cycles. One operation is one cycle of that stream."""
    from ..cosim.models.fp import random_fp_bits
    from ..cosim.sigma import flexdpe_table, gemm_schedule

    if params.dtype == "int":
        return _cosim_stream(flexdpe_table, params, cycles, seed)
    rng = np.random.default_rng(seed)
    k = params.k
    gemms = []
    for _ in range(64):          # enough GEMMs for ``cycles`` (density ~0 maps nothing: idle tails only)
        A = random_fp_bits(rng, (2 * k, 2 * k), params.dtype, density=density).astype(np.int64)
        B = random_fp_bits(rng, (2 * k, 2 * k), params.dtype, density=density).astype(np.int64)
        gemms.append((A, B))
        table, _ = gemm_schedule(params, gemms)
        if table.cycles >= cycles:
            break
    ins = {name: np.resize(np.asarray(v, dtype=np.uint64), cycles).astype(object) for name, v in table.inputs.items()}
    return Activity(ins, ops=cycles - 1, per=f"cycle ({params.dtype} sparse GEMM stream)", warmup=0)
