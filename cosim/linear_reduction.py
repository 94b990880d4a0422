"""The linear reduction's host side: the FAN's stimulus, presented skewed; coverage; activity.

The vectors are those of :func:`accelgen.cosim.fan.fan_stimulus` (directed cluster layouts, then
random ones; fp32 special values and rounding cases). Input ``i`` of vector ``t`` is driven in row
``t + i * d`` (``d = 1 + add_stages``, :mod:`accelgen.golden.linear_reduction`), and each valid
cluster's sum and vecID are expected in its last input's slot ``j`` in row ``t + (j + 1) * d``,
summed left to right (:func:`accelgen.golden.fan.segmented_sums`, ``order="linear"``). Every
slot's valid flag is checked in every row, so a result a cycle early, late or twice is a mismatch.
"""

from __future__ import annotations

import numpy as np

from ..golden.fan import segmented_sums
from ..golden.fp import random_fp_bits
from ..golden.linear_reduction import input_cycle, linear_reduction_latency, slot_cycle
from .coverage import Coverage
from .fan import fan_layouts, fan_stimulus, slot_expectations
from .stimulus import Activity, sparse_ints
from .vectors import CycleTable, to_bits

__all__ = ["linear_reduction_activity", "linear_reduction_coverage", "linear_reduction_table"]


def linear_reduction_table(params, vectors: int = 1024, seed: int = 1, order: str = "linear",
                           add_stages: int | None = None) -> CycleTable:
    """Cycle table for :class:`~accelgen.rtl.linear_reduction.LinearReduction` (module docstring).

    ``order`` (fp32) and ``add_stages`` (the skew ``1 + add_stages`` the table assumes; default the
    design's) exist for mutants: another order or another skew must fail on the real design.
    ``info``: ``vectors``, ``clusters``, ``sections``, ``latency``, ``skew``.
    """
    stages = params.add_stages if add_stages is None else add_stages
    stim = fan_stimulus(params, vectors, seed)
    vecs = stim["vectors"]
    n, dtype = params.n, params.dtype
    lat = linear_reduction_latency(n, stages)
    total = len(vecs) + lat
    ins = {f"{port}__{i}": np.zeros(total, dtype=np.uint64) for i in range(n) for port in ("value", "valid", "vec_id")}
    expect, check = slot_expectations(n, total)
    clusters = 0
    for t, (x, ids, valid) in enumerate(vecs):
        bits = to_bits(x, params.width)
        for i in range(n):
            row = input_cycle(t, i, stages)
            ins[f"value__{i}"][row], ins[f"valid__{i}"][row], ins[f"vec_id__{i}"][row] = bits[i], valid[i], ids[i]
        for c in segmented_sums(x, ids, valid, dtype=dtype, order=order):
            if not c.valid:
                continue
            clusters += 1
            j, row = c.end, slot_cycle(t, c.end, stages)
            expect[f"sum_valid__{j}"][row] = 1
            expect[f"sum__{j}"][row] = to_bits([c.total], params.sum_width)[0]
            expect[f"sum_id__{j}"][row] = c.vec_id
            check[f"sum__{j}"][row] = check[f"sum_id__{j}"][row] = True
    return CycleTable(inputs=ins, expect=expect, check=check,
                      info={"vectors": len(vecs), "clusters": clusters, "sections": stim["sections"],
                            "latency": lat, "skew": 1 + stages})


def linear_reduction_activity(params, density: float, cycles: int, seed: int) -> Activity:
    """Switching-activity stimulus: the chain in steady state. A vector per cycle, all inputs valid, values
    zero with probability ``1 - density`` (else uniform over the width, or
    :func:`~accelgen.golden.fp.random_fp_bits` for fp32), clusters cut at each boundary with probability 0.2,
    presented skewed. The ``latency + 1`` cycles that fill the chain are warm-up and not counted; then
    ``cycles`` cycles are counted, in each of which the chain works on ``n`` vectors at once, one input of each.
    One operation is one vector (``n`` inputs reduced)."""
    rng = np.random.default_rng(seed)
    n, d = params.n, params.skew
    warm = params.latency + 1
    total = warm + cycles
    if params.fp:
        values = random_fp_bits(rng, (total, n), "fp32", density=density).astype(np.int64)
    else:
        values = sparse_ints(rng, (total, n), params.width, params.signed, density)
        values = values & ((1 << params.width) - 1)      # the ports' two's complement bits
    cuts = rng.random((total, n - 1)) < 0.2
    ids = np.concatenate([np.zeros((total, 1), dtype=np.int64), np.cumsum(cuts, axis=1)], axis=1) % (1 << params.id_width)
    ins = {}
    for i in range(n):
        lead = min(i * d, total)
        for port, col in (("value", values[:, i]), ("valid", np.ones(total, dtype=np.int64)), ("vec_id", ids[:, i])):
            ins[f"{port}__{i}"] = np.concatenate([np.zeros(lead, dtype=np.int64), col[:total - lead]])
    return Activity(ins, ops=cycles, per="vector (n inputs reduced, presented skewed; steady state)", warmup=warm)


def linear_reduction_coverage(params, table: CycleTable, context) -> Coverage:
    """The linear reduction: the ``fan`` layout bins (:func:`~accelgen.cosim.fan.fan_layouts`), read from its
    vectors de-skewed (input ``i`` of vector ``t`` is in row ``t + i * info["skew"]``)."""
    rows, skew = int(table.info["vectors"]), int(table.info["skew"])
    cols = {f"{port}__{i}": table.inputs[f"{port}__{i}"][i * skew:i * skew + rows]
            for i in range(params.n) for port in ("vec_id", "valid")}
    return fan_layouts(params, CycleTable(inputs=cols, expect={}, info={"vectors": rows}))
