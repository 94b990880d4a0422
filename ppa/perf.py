"""Performance of a workload on an accelerator: mapping, memory traffic, the dual roofline and the metrics.

``evaluate(arch, workload, batch=None | latency_ms=None)`` returns a
:class:`PerfReport` with one row per layer and the network total.

Per layer (all numpy, vectorized over layers):

1. **Mapping**: the compute type's model (:mod:`accelgen.ppa.mapping`) gives
   compute cycles, executed MACs (after zero skipping) and the actions its
   fitted energy model counts.
2. **Bytes per memory level** (after Williams et al., "Roofline", CACM 2009, and
   NeuroMeter's dual roofline): *sram* (on-chip memories <-> compute units,
   reads and writes): the streamed (im2col) A operand re-read as often as the
   mapping's reuse requires, B likewise, partial sums written and read back at
   accumulator width when K folds, outputs written once; every byte a load
   brings from off chip written once (a DMA puts it in a memory, the unit
   reads it from there) and every output that leaves the chip read once more
   (a layer whose activations stay on chip adds neither); a weight-stationary
   array moves whole lines: a row of A in K-slices of its ``rows`` (or of the
   operand memory's line, where narrower), the weights in whole ``rows x
   cols`` tiles (a weight load fills the array), the sums in lines of its
   ``cols`` (or of their memory's line). With a memory of sums (``holds:
   sums``) the counts are the double-buffered schedule's
   (:func:`~accelgen.ppa.mapping.systolic_map`): its loads write each line of
   the lowered A once and every weight slice once per tile (and the array
   reads them as often); its sums stay in that memory at accumulator width,
   written by every fold, read back by every fold but a tile's first K-slice
   and read once by the store (which takes them through the activation off
   chip, or into the operand memory when the output stays on chip), so the
   outputs cost the operand memory nothing more; *dram* (off-chip <->
   on-chip): the layer's real
   tensors tiled in the on-chip capacity ``S`` (the shared memories and the
   per-PE scratch pads together) -- an output tile ``Tm x Tn``
   (accumulator width) in half of ``S``, A re-read ``ceil(N/Tn)`` times and B
   ``ceil(M/Tm)`` times, the best tile taken; when a whole operand fits in
   ``S/2`` it stays resident and everything moves once. A layer whose input
   and output activations together fit in ``S/2`` keeps them on chip (as the
   TPU's unified buffer does): only its weights cross (once), plus the
   network's first input and last output; *noc* (between the cores of a
   multi-core chip with shared memories): the memories are split evenly over
   the cores and a layer's output channels too, so each core's weights and
   outputs are local while every core reads all of the input activations: a
   read of the streamed A is remote with probability ``(cores - 1) / cores``.
   The NoC delivers uniform random traffic at its bisection bandwidth over the
   share of it that crosses the bisection (1/2 for a mesh or ring, 1 for a
   bus; Dally & Towles 2004, sect. 3.3), each remote byte costing its mean hop
   count times a router traversal and a link.
   Sparse tensors (density < 1) are stored compressed: ``auto`` picks the
   smaller of a bitmap (1 bit per element, or per block for block sparsity)
   and CSR (a ``ceil(log2 K)``-bit index per non-zero plus 32-bit row
   pointers); the metadata is reported (``metadata_bytes``).
3. **Time** = max(compute cycles / f, bytes_level / bandwidth_level for every
   level); ``bound`` names the roof that binds (``compute``, ``sram``, ``noc``, ``dram``).
4. **Energy** = compute energy (the fitted component model's energy per
   action at the layer's operand density ``sqrt(d_A d_B)``, scaled to the
   node and supply; its clock apart, below) + vector-unit merge adds x MAC
   energy + bytes x energy per
   byte per level (SRAM: the mean of read and write energy per block from the
   SRAM model, bandwidth-weighted over the memories; with a memory of sums,
   whose lines are wider and whose macros differ, the operand and the sum
   traffic each at its own memories' read and write energy per byte; DRAM
   interface energy per bit) + chip leakage x time. The clock network of a
   compute unit (the fitted ``clock_energy_pj``: the part of the energy per
   action that is the clock's, at full activity) ticks on every cycle of the
   layer's mapping whether or not the units act (weight loads, skew, drain,
   folds the layer leaves part-empty), so it is charged per cycle, for the
   actions a cycle does with every unit busy (``Mapping.peak_actions_per_cycle``),
   and the rest per action: ``actions x (e_action - e_clock) + cycles x
   peak_actions_per_cycle x e_clock``. At full activity that is ``actions x
   e_action``, what ``accelgen estimate`` charges. A model without the clock
   target (a model file fitted before it, a combinational block's) charges it
   all per action. Compute types a layer does not use, and the time it waits
   on memory beyond its compute cycles, cost leakage only (clock gating
   assumed there).

Metrics (:func:`~.perf_layers.rate_metrics`): achieved TOPS = effectual operations (2 x the MACs whose operands
are both non-zero, ``d_A d_B`` of them) per second, utilization = achieved / peak of the layer's compute type (at
most 1); apart from them, ``dense_equivalent_tops`` = the dense work (``ops = 2 x dense MACs``, zeros included)
per second, which a chip that skips zeros raises above its peak, and ``speedup_vs_dense`` = the time of the same
layers at density 1 on the same chip over this time; runtime power = energy / time, TOPS/W, TOPS/mm^2 and
TOPS/TCO = TOPS / mm^4 / W (NeuroMeter's approximation: die cost ~ area^2), all of achieved TOPS.

The SRAM roof is the shared memories' sustained bandwidth: each port of each bank does one access per
``max(macro cycle time, clock period)`` (:func:`accelgen.ppa.units.memory.sustained_gbps`, the formula the
banks are chosen with). On chip, a unit that skips no zeros of a layer reads its operands dense (zeros included);
off chip, sparse operands cross compressed as the workload's ``storage`` says, for every chip (a compressing DMA
engine, as TensorDash's dense baseline has: Mahmoud et al., MICRO 2020, sect. V), so a dense chip's
memory-bound layers still speed up with sparsity off chip; ``storage: dense`` turns that off.

Energy, power, area and the efficiency metrics need the estimator (fitted
component models): when a shipped model file is missing they are ``None``
and ``energy_note`` says which model is missing -- no numbers are invented.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from .arch import load_arch, parse_arch
from .perf_layers import LEVELS, PerfContext, rate_metrics, run_layers
from .workload import Density, Workload, load_workload, parse_workload


@dataclass
class PerfReport:
    """Per-layer rows and network totals (units in the keys); inputs kept beside outputs."""

    arch: str
    workload: str
    batch: int
    clock_mhz: float
    peak_tops: dict
    area_mm2: float | None
    leakage_w: float | None
    energy_available: bool
    energy_note: str
    levels: list
    layers: list
    total: dict
    warnings: list = field(default_factory=list)
    inputs: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, default=_json_default)


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def layer_report(ctx: PerfContext, wl: Workload, r: dict, batch: int, dense: dict | None = None) -> PerfReport:
    """The report of ``r`` (:func:`run_layers`); ``dense``: the same layers at density 1 (:func:`dense_workload`)
    for ``speedup_vs_dense`` (None: ``r`` is dense)."""
    f_hz = ctx.clock_mhz * 1e6
    area = ctx.est.area_mm2 if ctx.est else None
    dense_t = (dense or r)["time_s"]
    rows = []
    g = r["g"]
    for i, name in enumerate(g.names):
        peak_ops_s = 2.0 * r["peak_macs_per_cycle"][i] * f_hz
        e_i = r["energy_j"][i] if "energy_j" in r else None
        row = {"name": name, "kind": g.kinds[i], "compute": r["chosen"][i],
               "M": int(g.M[i]), "N": int(g.N[i]), "K": int(g.K[i]), "count": int(g.count[i]),
               "macs": float(r["macs"][i]), "executed_macs": float(r["executed_macs"][i]),
               "effectual_macs": float(r["effectual_macs"][i]),
               "cycles": int(r["cycles"][i]), "time_s": float(r["time_s"][i]), "bound": r["bound"][i],
               "compute_time_s": float(r["times"]["compute"][i] - r["fill_s"][i]), "fill_time_s": float(r["fill_s"][i])}
        for lv in ctx.levels:
            nb = float(r["bytes"][lv["name"]][i])
            row[f"{lv['name']}_bytes"] = nb
            row[f"{lv['name']}_intensity_ops_per_byte"] = float(r["ops"][i] / nb) if nb else float("inf")
            row[f"{lv['name']}_time_s"] = float(r["times"][lv["name"]][i])
        if r.get("sram_split"):   # the on-chip bytes by memory role and direction
            row["sram_bytes_split"] = {k: float(v[i]) for k, v in r["sram_split"].items()}
        row["metadata_bytes"] = float(r["metadata_bytes"][i])
        row["onchip_operands"] = "compressed" if r["onchip_compressed"][i] else "dense"
        row.update(rate_metrics(2.0 * r["effectual_macs"][i], r["ops"][i], r["time_s"][i], peak_ops_s,
                                None if e_i is None else float(e_i), area, dense_t[i]))
        if "energy" in r:
            row["energy_breakdown_j"] = {k: float(v[i]) for k, v in r["energy"].items()}
        row["mapping"] = r["detail"][i]
        rows.append(row)
    T = float(r["time_s"].sum())
    peak_w = float(np.sum(2.0 * r["peak_macs_per_cycle"] * f_hz * r["time_s"]) / T) if T else 0.0
    total = {"layers": len(rows), "macs": float(r["macs"].sum()), "ops": float(r["ops"].sum()),
             "effectual_ops": float(2.0 * r["effectual_macs"].sum()),
             "cycles": int(round(T * f_hz)), "time_s": T, "latency_ms": T * 1e3,
             "bound_counts": {b: r["bound"].count(b) for b in ("compute", *LEVELS) if b in r["bound"]}}
    for lv in ctx.levels:
        total[f"{lv['name']}_bytes"] = float(r["bytes"][lv["name"]].sum())
    total.update(rate_metrics(total["effectual_ops"], total["ops"], T, peak_w,
                              float(r["energy_j"].sum()) if "energy_j" in r else None, area, float(dense_t.sum())))
    if "energy" in r:
        total["energy_breakdown_j"] = {k: float(v.sum()) for k, v in r["energy"].items()}
    total["inferences_per_s"] = batch / T if T else 0.0
    peaks = {}
    for ct, unit in ctx.compute.items():
        peaks[ct] = 2.0 * unit.macs_per_cycle() * ctx.arch.cores * f_hz * 1e-12
    return PerfReport(arch=ctx.arch.name, workload=wl.name, batch=batch, clock_mhz=ctx.clock_mhz, peak_tops=peaks,
                      area_mm2=area, leakage_w=ctx.est.leakage_w if ctx.est else None,
                      energy_available=ctx.est is not None, energy_note=ctx.note, levels=ctx.levels, layers=rows,
                      total=total, warnings=ctx.warnings,
                      inputs={"arch": ctx.arch.model_dump(mode="json"), "workload": wl.model_dump(mode="json")})


def dense_workload(wl: Workload) -> Workload | None:
    """``wl`` with every operand dense (density 1), or None when it is dense already."""
    sparse = any(d is not None and d.d < 1.0 for d in (wl.a_density, wl.b_density)) or any(
        d is not None and d.d < 1.0 for lay in wl.layers for d in (lay.a_density, lay.b_density))
    if not sparse:
        return None
    one = Density(value=1.0)
    return wl.model_copy(update={"a_density": one, "b_density": one, "layers": [
        lay.model_copy(update={"a_density": None, "b_density": None}) for lay in wl.layers]})


def report(ctx: PerfContext, wl: Workload, batch: int, source: str | None = None, detail: bool = True) -> PerfReport:
    """``wl`` at ``batch`` on ``ctx``'s chip: :func:`run_layers`, and for a sparse workload the same layers dense
    (``speedup_vs_dense``)."""
    dense_wl = dense_workload(wl)
    dense = None if dense_wl is None else run_layers(ctx, dense_wl, batch, source, detail=False)
    return layer_report(ctx, wl, run_layers(ctx, wl, batch, source, detail=detail), batch, dense)


def _load(arch, workload):
    if isinstance(arch, (str, Path)):
        arch = load_arch(arch)
    elif isinstance(arch, dict):
        arch = parse_arch(arch)
    source = None
    if isinstance(workload, (str, Path)):
        source = str(workload)
        workload = load_workload(workload)
    elif isinstance(workload, dict):
        workload = parse_workload(workload)
    return arch, workload, source


MAX_BATCH = 1 << 16


def largest_batch(ctx: PerfContext, wl: Workload, latency_ms: float, source: str | None = None) -> int:
    """Largest batch whose whole-network latency is <= ``latency_ms`` (exponential then binary search)."""
    if not latency_ms > 0:
        raise ConfigError([("--latency-ms", f"{latency_ms!r} is not allowed; expected a time > 0 ms")])

    def ok(b):
        return run_layers(ctx, wl, b, source, detail=False)["time_s"].sum() * 1e3 <= latency_ms

    if not ok(1):
        t1 = run_layers(ctx, wl, 1, source, detail=False)["time_s"].sum() * 1e3
        raise ConfigError([("--latency-ms", f"{latency_ms:g} ms cannot be met: batch 1 of {wl.name!r} takes "
                                            f"{t1:.4g} ms on {ctx.arch.name!r}")])
    lo, hi = 1, 2
    while hi <= MAX_BATCH and ok(hi):
        lo, hi = hi, hi * 2
    if hi > MAX_BATCH:
        return lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


def evaluate(arch, workload, *, batch: int | None = None, latency_ms: float | None = None,
             model_paths: dict | None = None) -> PerfReport:
    """Evaluate ``workload`` on ``arch`` (objects, dicts or YAML paths) at ``batch`` or the largest batch meeting
    ``latency_ms`` (default: the workload's batch)."""
    arch, wl, source = _load(arch, workload)
    if batch is not None and latency_ms is not None:
        raise ConfigError([("--batch", "give either --batch or --latency-ms, not both")])
    if batch is not None and (not isinstance(batch, (int, np.integer)) or batch < 1):
        raise ConfigError([("--batch", f"{batch!r} is not allowed; expected an integer >= 1")])
    ctx = PerfContext(arch, model_paths)
    if latency_ms is not None:
        batch = largest_batch(ctx, wl, latency_ms, source)
    b = wl.batch if batch is None else int(batch)
    rep = report(ctx, wl, b, source)
    if latency_ms is not None:
        rep.total["latency_bound_ms"] = latency_ms
    return rep


def sparsity_sweep(arch, *, M: int = 1024, N: int = 1024, K: int = 1024, densities=None,
                   pattern: str = "random", model_paths: dict | None = None) -> dict:
    """Energy efficiency of sparse over dense against density, per compute type of ``arch``
    (NeuroMeter's sparsity case study): both operands at density ``d``; ``gain = (TOPS/W at d) / (TOPS/W dense)``
    and ``speedup = time dense / time at d`` (dense-equivalent ops)."""
    arch, _, _ = _load(arch, None)
    ctx = PerfContext(arch, model_paths)
    ds = np.asarray(densities if densities is not None else [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0], dtype=float)
    out = {"densities": ds.tolist(), "gemm": [M, N, K], "pattern": pattern, "types": {}}
    for ct in ctx.available:
        dens = [{"value": float(d), "pattern": pattern, **({"block": 8} if pattern == "block" else {})} for d in ds]
        wl = parse_workload({"name": "sweep", "layers": [
            {"name": f"d{i}", "type": "gemm", "M": M, "N": N, "K": K, "compute": ct, "a_density": dd,
             "b_density": dd} for i, dd in enumerate(dens)] + [
            {"name": "dense", "type": "gemm", "M": M, "N": N, "K": K, "compute": ct}]})
        r = run_layers(ctx, wl, 1, detail=False)
        t = r["time_s"]
        row = {"speedup": (t[-1] / t[:-1]).tolist()}
        if "energy_j" in r:
            e = r["energy_j"]
            row["energy_gain"] = (e[-1] / e[:-1]).tolist()  # same dense-equivalent ops: TOPS/W ratio
        out["types"][ct] = row
    out["energy_available"] = ctx.est is not None
    out["energy_note"] = ctx.note
    return out


def peak_gops_per_s(rep: PerfReport) -> float:
    return max(rep.peak_tops.values()) * 1e3 if rep.peak_tops else math.nan
