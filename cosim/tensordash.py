"""The TensorDash families' host side (scheduler, PE, tile): cycle tables, coverage, activity stimulus.

The golden model (:mod:`accelgen.golden.tensordash`) is cycle-accurate, so
the host knows in advance how many rows the PE takes each cycle and can
precompute the window of stream rows the environment presents; the cycle table
then checks, every cycle, the selects, ``take`` (``AS``), ``done`` and the
running sum. Any difference in schedule, cycle count or result is a mismatch.
A pipelined PE (``mul_stages``, ``add_stages``) has the same schedule and ``done`` comes ``pe_latency - 1``
cycles later (:func:`~accelgen.golden.tensordash.pe_latency`). Without ``add_stages`` its running sum is the
unpipelined one delayed as much (:func:`~accelgen.golden.tensordash.delayed`); with them the accumulator
interleaves partial sums, so ``acc`` is checked when ``done`` (the dot product, folded in the hardware's
order), and is don't-care while a dot product is in progress. The operand streams are those of
:func:`accelgen.cosim.tensordash_streams.pe_streams`.
"""

from __future__ import annotations

import numpy as np

from ..golden.fp import random_fp_bits
from ..golden.mac import wrap
from ..golden.tensordash import (delayed, pass_cycles, pattern_options, pe_latency, schedule_levels, schedule_step,
                                 simulate_pe)
from .coverage import SPARSITY_BINS, Coverage, sparsity_bin
from .fp_coverage import FP16_SUMS, FP16_SUMS_OVERFLOW, NO_ZERO_PRODUCT, fp16_product_sums, plus_zero_start
from .stimulus import Activity, sparse_ints
from .tensordash_streams import Stream, is_fp, pe_streams
from .vectors import CycleTable, operand_range, to_bits

#: the streams' names, imported from here by the hosts and tests that drive a PE
__all__ = ["Stream", "acc_bits", "pe_coverage", "pe_streams", "pe_table", "sched_coverage", "sched_table",
           "simulate_pe", "tensordash_activity", "tensordash_fp_unreachable", "tensordash_sched_activity",
           "tile_coverage", "tile_table", "trace"]


def trace(params, stream: Stream, tile: bool):
    return simulate_pe(stream.a, stream.b, depth=params.depth, pattern=params.pattern, side="b" if tile else "both",
                       dtype=getattr(params, "dtype", "int"),
                       flush_subnormals=getattr(params, "flush_subnormals", False), threads=params.add_stages + 1,
                       summation=getattr(params, "summation", "tree"))


def _summation(params) -> dict:
    """What the PE's latency depends on besides its stages: ``dtype`` and ``summation`` (the fused fp sum
    has no lane tree)."""
    return {"dtype": getattr(params, "dtype", "int"), "summation": getattr(params, "summation", "tree")}


def acc_bits(params, value: int) -> int:
    """The accumulator port's value: fp32 bits as they are, integers wrapped to ``acc_width``."""
    return int(value) if is_fp(params) else wrap(int(value), params.acc_width, params.signed)


def pe_table(params, vectors: int = 64, seed: int = 1, *, streams: list[Stream] | None = None,
             gaps: bool = True) -> CycleTable:
    """Cycle table for a :class:`~accelgen.rtl.tensordash.TensorDashPE` or ``TensorDashTile`` run.

    Each stream is started once the previous one is done (sometimes after a few
    idle cycles with garbage on the inputs; ``gaps=False``: never). Every cycle checks ``take``, every
    lane's ``sel``, ``done`` and ``acc`` (each row's for the tile) against the
    golden model; window rows past the end of a stream carry random nonzero
    garbage with ``next_valid`` low.

    Pipelined (latency ``1 + P``, :func:`~accelgen.golden.tensordash.pe_latency`): after the busy
    cycles of a stream come ``latency - 1`` drain cycles (``take`` and ``sel`` 0, ``done`` low). Without
    ``add_stages``, ``acc`` is expected ``latency - 1`` cycles later than the unpipelined PE shows it; with
    them (interleaved partial sums) ``acc`` is checked in the cycles ``done`` is high only, against the
    folded result. ``info["pass_cycles"]`` holds each stream's cycles from ``start`` to ``done`` (busy
    cycles + latency).
    """
    tile = hasattr(params, "rows")
    lanes, depth = params.lanes, params.depth
    n_rows = params.rows if tile else 1
    latency = pe_latency(lanes, params.mul_stages, params.add_stages, **_summation(params))
    interleaved = params.add_stages > 0
    rng = np.random.default_rng(seed + 0x7D)
    if streams is None:
        streams = pe_streams(params, vectors, seed, tile=tile)
    cols_in: dict[str, list[int]] = {"start": [], "next_valid": []}
    a_names = [[[f"a_next__{r}__{s}__{l}" if tile else f"a_next__{s}__{l}" for l in range(lanes)]
                for s in range(depth)] for r in range(n_rows)]
    b_names = [[f"b_next__{s}__{l}" for l in range(lanes)] for s in range(depth)]
    for name in [x for r in a_names for row in r for x in row] + [x for row in b_names for x in row]:
        cols_in[name] = []
    acc_names = [f"acc__{r}" for r in range(n_rows)] if tile else ["acc"]
    exp: dict[str, list[int]] = {"take": [], "done": [], **{f"sel__{l}": [] for l in range(lanes)},
                                 **{n: [] for n in acc_names}}
    acc_now = [0] * n_rows
    traces = []
    lo_a, hi_a = operand_range(params.a_width, params.signed)
    lo_b, hi_b = operand_range(params.b_width, params.signed)

    def cycle(start: int, stream: Stream | None, p: int, take: int, sel, done: int, acc):
        cols_in["start"].append(start)
        valid = 0
        for s in range(depth):
            row = p + s
            exists = stream is not None and row < stream.rows
            valid |= int(exists) << s
            for l in range(lanes):
                for r in range(n_rows):
                    if exists:
                        v = stream.a[r, row, l] if tile else stream.a[row, l]
                    else:
                        v = int(rng.integers(lo_a, hi_a, endpoint=True)) or 1
                    cols_in[a_names[r][s][l]].append(int(v))
                v = stream.b[row, l] if exists else (int(rng.integers(lo_b, hi_b, endpoint=True)) or 1)
                cols_in[b_names[s][l]].append(int(v))
        cols_in["next_valid"].append(valid)
        exp["take"].append(take)
        exp["done"].append(done)
        for l in range(lanes):
            exp[f"sel__{l}"].append(int(sel[l]) if sel is not None else 0)
        for name, v in zip(acc_names, acc):
            exp[name].append(acc_bits(params, v))

    for stream in streams:
        for _ in range(int(rng.choice([0, 0, 0, 1, 2])) if gaps else 0):
            cycle(0, None, 0, 0, None, 1, acc_now)
        tr = trace(params, stream, tile)
        traces.append(tr)
        cycle(1, stream, 0, depth, None, 1, acc_now)
        p = depth
        acc_now = [0] * n_rows
        for t in range(tr.cycles):
            cycle(0, stream, p, int(tr.as_rows[t]), tr.sel[t], 0, acc_now)
            p += int(tr.as_rows[t])
            acc_now = tr.acc[t]
        if interleaved:  # acc is checked only when done: then it holds the folded result
            acc_now = tr.result
        for _ in range(latency - 1):  # the pipeline drains: the scheduler idles, done stays low
            cycle(0, stream, p, 0, None, 0, acc_now)
    cycle(0, None, 0, 0, None, 1, acc_now)
    if not interleaved:
        for name in acc_names:  # what the accumulator register shows, seen through the pipeline in front of it
            exp[name] = delayed(exp[name], latency - 1, init=0)

    widths = {"start": 1, "next_valid": depth}
    inputs = {k: to_bits(v, widths.get(k, params.a_width if k.startswith("a_") else params.b_width))
              for k, v in cols_in.items()}
    sel_w = max(1, int(len(pattern_options(params.pattern, lanes, depth))).bit_length())
    take_w = depth.bit_length()
    expect = {k: to_bits(v, params.acc_width if k.startswith("acc") else sel_w if k.startswith("sel")
                         else take_w if k == "take" else 1) for k, v in exp.items()}
    sections: dict[str, int] = {}
    for st in streams:
        sections[st.section] = sections.get(st.section, 0) + 1
    done = np.asarray(exp["done"], dtype=bool)
    check = {name: done.copy() for name in acc_names} if interleaved else {}
    return CycleTable(inputs=inputs, expect=expect, check=check, info={
        "vectors": len(streams), "sections": sections,
        "busy_cycles": int(sum(t.cycles for t in traces)), "dense_cycles": int(sum(s.rows for s in streams)),
        "model_cycles": [t.cycles for t in traces], "stream_rows": [s.rows for s in streams], "latency": latency,
        "pass_cycles": pass_cycles([t.cycles for t in traces], latency).tolist()})


def tile_table(params, vectors: int = 32, seed: int = 1) -> CycleTable:
    """Cycle table for a :class:`~accelgen.rtl.tensordash.TensorDashTile` (see :func:`pe_table`)."""
    return pe_table(params, vectors, seed)


def sched_table(params, vectors: int = 1024, seed: int = 1) -> CycleTable:
    """Clockless table for the combinational scheduler: one ``Z`` per row, ``sel`` and ``as_rows`` expected.

    Directed: every pair ineffectual; every pair effectual; each single
    effectual slot; each single effectual row. Then ``vectors`` random ``Z``
    with the effectual fraction cycling through 0.05 .. 0.95.
    """
    rng = np.random.default_rng(seed)
    lanes, depth = params.lanes, params.depth
    options = pattern_options(params.pattern, lanes, depth)
    levels = schedule_levels(options, lanes)
    lives = [np.zeros((depth, lanes), bool), np.ones((depth, lanes), bool)]
    for s in range(depth):
        for l in range(lanes):
            x = np.zeros((depth, lanes), bool)
            x[s, l] = True
            lives.append(x)
        x = np.zeros((depth, lanes), bool)
        x[s] = True
        lives.append(x)
    densities = (0.05, 0.2, 0.5, 0.8, 0.95)
    for i in range(vectors):
        lives.append(rng.random((depth, lanes)) < densities[i % len(densities)])
    z = {f"z__{s}": [] for s in range(depth)}
    exp = {**{f"sel__{l}": [] for l in range(lanes)}, "as_rows": []}
    for live in lives:
        sel, _, as_rows = schedule_step(live, options, levels)
        for s in range(depth):
            z[f"z__{s}"].append(sum(int(not live[s, l]) << l for l in range(lanes)))
        for l in range(lanes):
            exp[f"sel__{l}"].append(int(sel[l]))
        exp["as_rows"].append(as_rows)
    sel_w = max(1, len(options).bit_length())
    return CycleTable(inputs={k: to_bits(v, lanes) for k, v in z.items()},
                      expect={k: to_bits(v, sel_w if k.startswith("sel") else depth.bit_length())
                              for k, v in exp.items()},
                      info={"vectors": len(lives)})


# --------------------------------------------------------------------------- activity stimulus

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


def _sparse_operands(rng, shape, width: int, params, density: float) -> np.ndarray:
    if is_fp(params):
        return np.asarray(random_fp_bits(rng, shape, params.dtype, density=density), dtype=np.int64)
    return np.asarray(sparse_ints(rng, shape, width, params.signed, density), dtype=np.int64)


def tensordash_activity(params, density: float, cycles: int, seed: int) -> Activity:
    """TensorDash PE / tile doing back-to-back dot products of long sparse streams.

    Every operand (A and B; for the tile every row's A) is zero with probability ``1 - density``,
    independently: otherwise a uniform integer of the operand's width (``sparse_ints``), or for
    floating point (``fp16``/``bf16``/``fp32``) a realistic value (``random_fp_bits``: normal(0, 1)
    rounded to the format). A pair is effectual with probability
    ``density**2`` (the tile skips on B only). Streams of ``8 cycles`` rows (whatever the depth: the
    window holds at most one stream boundary, as a long dot product of a GEMM does) follow each other
    with one ``start`` cycle between them (no idle gaps) until ``cycles`` busy cycles are reached; the
    inputs are the cosim cycle table's (:func:`accelgen.cosim.tensordash.pe_table`). One operation
    is one busy cycle of the PE (``L`` lanes, up to ``L`` effectual pairs). The window is the first
    ``cycles`` cycles after the first stream's ``start`` cycle and a pipelined PE's ``latency - 1`` fill
    cycles (simulated, not counted); a later ``start`` cycle, if any (and a pipelined PE's drain cycles
    after a stream), would be simulated but not counted as an operation.
    """
    rng = np.random.default_rng(seed)
    tile = hasattr(params, "rows")
    # long streams: with 16 D rows the dense tile (D = 1) restarted every 16 rows, and the start and a
    # pipelined tile's drain cycles (up to 19 at 3 + 3 stages) were charged to a few busy cycles
    n = 8 * cycles
    # the start cycle and a pipelined PE's fill (latency - 1 cycles): simulated, not counted
    warm = pe_latency(params.lanes, params.mul_stages, params.add_stages, **_summation(params))
    total = cycles + warm
    a_shape = (params.rows, n, params.lanes) if tile else (n, params.lanes)
    streams, busy = [], 0
    while busy < total:
        a, b = (_sparse_operands(rng, shape, width, params, density)
                for shape, width in ((a_shape, params.a_width), ((n, params.lanes), params.b_width)))
        streams.append(Stream("activity", a, b))
        table = pe_table(params, streams=streams, seed=seed, gaps=False)
        busy = int(table.info["busy_cycles"])
    start = np.asarray(table.inputs["start"], dtype=np.int64)[:total]
    # busy: the cycles the PE takes rows in without a start (take is AS >= 1 then, 0 while it drains)
    busy = (np.asarray(table.expect["take"], dtype=np.int64)[:total] != 0) & (start == 0)
    busy_counted = int(busy[warm:].sum())
    ins = {k: np.asarray(v, dtype=np.uint64).astype(object)[:total] for k, v in table.inputs.items()}
    return Activity(ins, ops=float(busy_counted), per="busy cycle (operands nonzero with probability density)",
                    warmup=warm, info={"streams": len(streams), "start_cycles": int(start[warm:].sum()),
                                       "drain_cycles": cycles - int(start[warm:].sum()) - busy_counted})


# --------------------------------------------------------------------------- coverage

def _density_bin(frac: float) -> str:
    edges = [(0.2, "0-20%"), (0.4, "20-40%"), (0.6, "40-60%"), (0.8, "60-80%")]
    return next((name for hi, name in edges if frac < hi), "80-100%")


def sched_coverage(params, table: CycleTable, context) -> Coverage:
    """The scheduler: effectual density of ``Z`` (5 bins), ``AS`` values ``1..D``, and per lane whether its dense
    slot was effectual."""
    cov = Coverage()
    lanes, depth = params.lanes, params.depth
    cov.declare(*(f"effectual density {b}" for b in ("0-20%", "20-40%", "40-60%", "60-80%", "80-100%")))
    # the current row always drains (only a lane's own +0 option reaches it), so AS >= 1
    cov.declare(*(f"AS={a}" for a in range(1, depth + 1)))
    cov.declare(*(f"lane {l} dense slot effectual" for l in range(lanes)))
    z = np.stack([table.inputs[f"z__{s}"] for s in range(depth)], axis=1)  # rows x depth, bit l = lane l zero
    live = ~((z[:, :, None] >> np.arange(lanes, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    for frac in live.reshape(len(z), -1).mean(axis=1):
        cov.hit(f"effectual density {_density_bin(float(frac))}")
    for a, c in zip(*np.unique(table.expect["as_rows"], return_counts=True)):
        cov.hit(f"AS={int(a)}", int(c))
    for l in range(lanes):
        cov.hit(f"lane {l} dense slot effectual", int(np.count_nonzero(live[:, 0, l])))
    return cov


def _stream_coverage(params, table: CycleTable, context, *, tile: bool) -> Coverage:
    cov = Coverage()
    lanes, depth = params.lanes, params.depth
    options = pattern_options(params.pattern, lanes, depth)
    cov.declare("stream: empty", *(f"stream sparsity {b}" for b in SPARSITY_BINS),
                "lanes: all effectual", "lanes: one lane effectual", "lanes: some lanes effectual",
                *(f"option {k} (+{s}, lane {'+' if o >= 0 else ''}{o})" for k, (s, o) in enumerate(options)))
    # the streams are a pure function of (params, vectors, seed): regenerate what the table was built from
    streams = pe_streams(params, int(context["vectors"]), int(context["seed"]), tile=tile)
    for st in streams:
        if st.rows == 0:
            cov.hit("stream: empty")
            continue
        eff = st.b != 0
        if not tile:
            eff &= st.a != 0
        cov.hit(f"stream sparsity {sparsity_bin(1.0 - float(eff.mean()))}")
        lanes_on = eff.reshape(-1, lanes).any(axis=0)
        if lanes_on.any():
            cov.hit("lanes: all effectual" if lanes_on.all() else
                    "lanes: one lane effectual" if lanes_on.sum() == 1 else "lanes: some lanes effectual")
    names = [f"option {k} (+{s}, lane {'+' if o >= 0 else ''}{o})" for k, (s, o) in enumerate(options)]
    for l in range(lanes):
        sel = table.expect[f"sel__{l}"]
        busy = table.expect["done"] == 0
        for k, c in zip(*np.unique(sel[busy], return_counts=True)):
            if int(k) < len(names):
                cov.hit(names[int(k)], int(c))
    return cov


def pe_coverage(params, table: CycleTable, context) -> Coverage:
    """The PE: stream sparsity bins (empty, 0, <25%, <50%, <75%, <95%, >=95% ineffectual pairs), lane patterns
    (effectual pairs in all lanes / one lane / some lanes), and every scheduler option (lookahead / lookaside
    movement) used at least once."""
    return _stream_coverage(params, table, context, tile=False)


def tile_coverage(params, table: CycleTable, context) -> Coverage:
    """The tile: the PE's bins (:func:`pe_coverage`), a pair effectual where its B operand is non-zero."""
    return _stream_coverage(params, table, context, tile=True)


def tensordash_fp_unreachable(params) -> dict[str, str]:
    """At depth 2 or more a pair with a zero operand is ineffectual and never multiplied (the tile: a zero B
    operand; :mod:`accelgen.golden.tensordash`); the dense baseline (depth 1) multiplies every pair. The lane
    trees and accumulators sum products only. The fused sum (``summation: fused``) has only multi-operand sums
    (the ``sum`` bins), every one with the accumulator's thread, which starts at +0.0, among its operands."""
    sums = _fused_sums(params) if getattr(params, "fused", False) else fp16_product_sums(params)
    if params.depth == 1:
        return sums
    why = "the scheduler never gives a multiplier an ineffectual pair (a zero {} operand)"
    sides = ("b",) if hasattr(params, "rows") else ("a", "b")
    out = {f"mul {side}: {z}": why.format(side.upper()) for side in sides for z in ("+0", "-0")}
    if sides == ("a", "b") and params.dtype == "fp16":
        out.update({"mul result: +0": NO_ZERO_PRODUCT, "mul result: -0": NO_ZERO_PRODUCT})
    return {**out, **sums}


def _fused_sums(params) -> dict[str, str]:
    """The ``sum`` bins the fused PE cannot reach: those of sums of fp16 products (as the grouped systolic
    columns'), a subnormal operand under FTZ (products and partial sums are flushed), and a -0 result (a zero
    sum is -0 only when every operand is -0, and the accumulator's operand never is: it starts at +0.0)."""
    if params.dtype == "fp16":
        out = {"sum operand: subnormal": FP16_SUMS, "sum result: subnormal": FP16_SUMS,
               "sum: underflow to subnormal": FP16_SUMS, "sum: overflow to inf": FP16_SUMS_OVERFLOW}
    elif params.flush_subnormals:
        out = {"sum operand: subnormal": "flush_subnormals: the operands are flushed products and partial sums"}
    else:
        out = {}
    return out | plus_zero_start(params, ("sum result: -0",))
