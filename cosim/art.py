"""The ART family's host side: the FAN's stimulus and the ART's slots, sums and cycles; coverage; activity.

The vectors are those of :func:`accelgen.cosim.fan.fan_stimulus` (directed cluster layouts, then
random ones; fp32 special values and rounding cases), one per cycle. Each valid cluster's sum and
vecID are expected in the slot :func:`accelgen.golden.art.art_sums` names, exactly
:func:`~accelgen.golden.art.art_latency` cycles after its vector; every slot's valid flag is checked
in every cycle, so a result early, late, twice or in another slot is a mismatch.
"""

from __future__ import annotations

import numpy as np

from ..golden.art import art_latency, art_plan, art_sums
from ..golden.fan import segmented_sums
from .coverage import Coverage
from .fan import fan_layouts, fan_stimulus, reduction_activity, slot_expectations
from .stimulus import Activity, cosim_activity
from .vectors import CycleTable, to_bits

__all__ = ["art_activity", "art_coverage", "art_ops", "art_table"]


def art_table(params, vectors: int = 1024, seed: int = 1, order: str = "art", latency: int | None = None) -> CycleTable:
    """Cycle table for :class:`~accelgen.rtl.art.ART` (module docstring).

    ``order`` (fp32: ``"art"``, or ``"fan"`` for the FAN's association order) and ``latency``
    (default the cycle model's) exist for mutants: both must fail on the real design.
    ``info``: ``vectors``, ``clusters``, ``sections``, ``latency``, ``ops`` (switch operations by kind).
    """
    stim = fan_stimulus(params, vectors, seed)
    vecs = stim["vectors"]
    n, dtype = params.n, params.dtype
    lat = art_latency(n, params.add_stages) if latency is None else latency
    total = len(vecs) + lat
    ins = {f"{port}__{i}": np.zeros(total, dtype=np.uint64) for i in range(n) for port in ("value", "valid", "vec_id")}
    expect, check = slot_expectations(n, total)
    clusters, ops = 0, {}
    for t, (x, ids, valid) in enumerate(vecs):
        bits = to_bits(x, params.width)
        for i in range(n):
            ins[f"value__{i}"][t], ins[f"valid__{i}"][t], ins[f"vec_id__{i}"][t] = bits[i], valid[i], ids[i]
        found = art_sums(x, ids, valid, dtype=dtype)
        if order == "fan":   # mutant: the FAN's association order in the ART's slots
            fan = {c.start: c.total for c in segmented_sums(x, ids, valid, dtype=dtype, order="fan")}
            found = [c.__class__(c.start, c.end, c.vec_id, fan[c.start], c.valid, c.slot, c.tree) for c in found]
        elif order != "art":
            raise ValueError(f"order={order!r} is not allowed; allowed: 'art', 'fan'")
        for kind, count in art_plan(ids).ops.items():
            ops[kind] = ops.get(kind, 0) + count
        for c in found:
            if not c.valid:
                continue
            clusters += 1
            j, row = c.slot, t + lat
            expect[f"sum_valid__{j}"][row] = 1
            expect[f"sum__{j}"][row] = to_bits([c.total], params.sum_width)[0]
            expect[f"sum_id__{j}"][row] = c.vec_id
            check[f"sum__{j}"][row] = check[f"sum_id__{j}"][row] = True
    return CycleTable(inputs=ins, expect=expect, check=check,
                      info={"vectors": len(vecs), "clusters": clusters, "sections": stim["sections"], "latency": lat,
                            "ops": ops})


def art_ops(params, table: CycleTable) -> dict:
    """Switch operations by kind over the vectors of ``table`` (:func:`accelgen.golden.art.art_plan`)."""
    rows = int(table.info.get("vectors", table.cycles))
    ids = np.stack([table.inputs[f"vec_id__{i}"][:rows] for i in range(params.n)], axis=1)
    ops: dict = {}
    for t in range(rows):
        for kind, count in art_plan(ids[t]).ops.items():
            ops[kind] = ops.get(kind, 0) + count
    return ops


def art_activity(params, density: float, cycles: int, seed: int) -> Activity:
    """As the FAN's (:func:`accelgen.cosim.fan.reduction_activity`): int, the cosim stimulus; fp32, one
    vector per cycle, all inputs valid, clusters cut with probability 0.2 at each boundary."""
    if params.dtype == "int":
        return cosim_activity(art_table, params, 1.0, cycles, seed)
    return reduction_activity(params, density, cycles, seed)


def art_coverage(params, table: CycleTable, context) -> Coverage:
    """MAERI's ART: the ``fan`` layout bins (:func:`~accelgen.cosim.fan.fan_layouts`), and every switch operation
    (:func:`accelgen.golden.art.art_plan`) its vectors made, of those a size allows (no links below n = 8):
    2-input add, 3-input add over a forwarding link, 2-input add over a link, a cluster split at a link, a
    finished cluster riding up to a free output."""
    cov = fan_layouts(params, table)
    kinds = ["add2"] + (["add3", "add2 over link", "split at link"] if params.n >= 8 else []) + \
        (["ride up"] if params.n >= 4 else [])
    cov.declare(*(f"switch: {kind}" for kind in kinds))
    rows = int(table.info.get("vectors", table.cycles))
    ids = np.stack([table.inputs[f"vec_id__{i}"][:rows] for i in range(params.n)], axis=1)
    for t in range(rows):
        for kind, count in art_plan(ids[t]).ops.items():
            cov.hit(f"switch: {kind}", count)
    return cov
