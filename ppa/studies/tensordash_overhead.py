"""TensorDash against the same accelerator without it (Mahmoud et al., MICRO 2020, sect. 5 and 6).

A TensorCore-like accelerator (the shipped chip ``tensordash``: 256 tiles of 4x4 PEs of 4 lanes, 65 nm,
500 MHz, 8 MB of operand buffers, HBM2) is built twice per datatype:

* ``tensordash``: the tile with its staging buffers, sparse operand muxes and scheduler (``depth: 4``);
* ``dense``: the same tile with ``depth: 1`` (no staging buffers, scheduler or muxes; every lane multiplies its
  own pair every cycle), its own generator and fitted model (``tensordash_tile-dense*``), with the same
  multipliers and adders: the pipelining TensorDash needs at the clock (``pipeline: auto`` would give the dense
  tile, whose path has no scheduler or operand mux, fewer stages, and the comparison would mix in the
  energy of a shallower pipeline).

Datatypes: ``fp16`` and ``bf16`` (products accumulated in fp32, the paper's mixed-precision and bfloat16 units)
and ``int8`` (8-bit operands; accumulators of 2 x 8 + 8 = 24 bits, the widest the int tile models were fitted
at). Rows: ``design``, ``dtype``, the compute array's ``area_mm2`` and full-activity ``power_w`` (TDP), and the
chip's (``chip_area_mm2``, ``chip_power_w``), and whether the tile meets the clock (``meets_clock``,
``achievable_mhz``).

The ``sparsity`` table runs one long GEMM (:data:`GEMM`: streams of K / lanes = 1024 rows per output) with the
scheduled operand B zero with probability ``sparsity`` (20-90%) and A dense, on both designs:

* ``speedup``: the dense design's compute time over TensorDash's (the tiles' own speedup);
* ``chip_speedup``: the same for the chip's time, under its SRAM and HBM roofs (``chip_bound``: what binds
  TensorDash's run): the shipped chip's operand buffers (16 banks of 64 B each) do not feed TensorDash's
  faster consumption at high sparsity, since TensorDash reads every operand, zeros included;
* ``energy_efficiency``: the dense design's compute-array energy (its compute energy plus its leakage over the
  run) over TensorDash's: work per joule, since both do the same GEMM;
* ``chip_energy_efficiency``: the same with the whole chip's energy (SRAM, HBM, leakage).

The paper's own figures are averages over its training workloads (measured sparsities that are not shipped):
1.95x faster, 1.89x more energy-efficient for the compute logic and 1.6x with on- and off-chip memory accesses
(arXiv:2009.00748 abstract), at "less than 5% area overhead" for the whole accelerator (MICRO 2020 abstract).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from ... import shipped
from ..arch import Arch, load_arch
from ..chips import scope_total
from ..estimate import estimate
from ..perf import evaluate
from ..perfplot import pyplot, save_png
from .result import Study, StudyResult

#: the accelerator both designs are built from
CHIP = "tensordash"
#: design -> TensorDash staging depth (1: the dense baseline)
DESIGNS = {"tensordash": 4, "dense": 1}
#: dtype label -> the tile's operand fields
DTYPES = {"fp16": {"dtype": "fp16"}, "bf16": {"dtype": "bf16"},
          "int8": {"dtype": "int", "a_width": 8, "b_width": 8, "acc_width": 24}}
#: fraction of zeros in the scheduled operand B
SPARSITIES = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
#: the GEMM streamed: 1024 x 1024 outputs, each a dot product of 4096 pairs
GEMM = {"name": "stream", "type": "gemm", "M": 1024, "N": 1024, "K": 4096}
#: the paper's averages over its training workloads (module docstring)
PUBLISHED = {"speedup": 1.95, "energy_efficiency": 1.89, "chip_energy_efficiency": 1.6, "area_overhead_pct": 5.0}


def design_arch(design: str, dtype: str, stages: dict | None = None) -> Arch:
    """The shipped TensorDash chip with the tile of ``design`` for ``dtype``, pipelined with ``stages``
    (``{"mul_stages", "add_stages"}``; None: ``auto``)."""
    doc = load_arch(shipped.path("chips", CHIP)).model_dump(exclude_unset=True)
    td = {k: v for k, v in doc["core"]["tensordash"].items() if k not in ("a_width", "b_width", "acc_width")}
    doc["core"]["tensordash"] = {**td, **DTYPES[dtype], "depth": DESIGNS[design], "pipeline": stages or "auto"}
    doc["name"] = f"{CHIP}_{design}_{dtype}"
    return Arch.model_validate(doc)


def _run(arch: Arch, bits: int, b_density: float) -> dict:
    wl = {"name": "sparse_stream", "a_width": bits, "b_width": bits, "a_density": 1.0, "b_density": b_density,
          "layers": [GEMM]}
    rep = evaluate(arch, wl)
    (layer,) = rep.layers
    return {"time_s": rep.total["time_s"], "compute_time_s": layer["compute_time_s"], "bound": layer["bound"],
            "compute_j": rep.total["energy_breakdown_j"]["compute_j"], "chip_j": rep.total["energy_j"]}


def _design(design: str, dtype: str, stages: dict | None) -> dict:
    arch = design_arch(design, dtype, stages)
    est = estimate(arch)
    tree = est.breakdown
    (choice,) = est.pipelining
    out = {"design": design, "dtype": dtype, "depth": DESIGNS[design], "mul_stages": choice["mul_stages"],
           "add_stages": choice["add_stages"], "delay_ns": choice["delay_ns"], "meets_clock": est.meets_timing,
           "clock_mhz": est.clock_mhz, "achievable_mhz": est.achievable_clock_mhz,
           "area_mm2": scope_total(tree, "compute_array", "area_mm2")[0],
           "power_w": scope_total(tree, "compute_array", "tdp_w")[0],
           "chip_area_mm2": tree["area_mm2"], "chip_power_w": tree["tdp_w"]}
    leakage_w = scope_total(tree, "compute_array", "leakage_w")[0]
    bits = arch.core.tensordash.a_width
    runs = {}
    for s in SPARSITIES:
        r = _run(arch, bits, 1.0 - s)
        r["array_j"] = r["compute_j"] + leakage_w * r["time_s"]
        runs[s] = r
    return {"row": out, "runs": runs}


def run_study(out: Path) -> StudyResult:
    rows, sparse, overhead = [], [], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for dtype in DTYPES:
            # the dense tile gets TensorDash's multipliers and adders: the stages TensorDash needs at the clock
            td = _design("tensordash", dtype, None)
            dense = _design("dense", dtype, {k: td["row"][k] for k in ("mul_stages", "add_stages")})
            rows += [td["row"], dense["row"]]
            overhead.append({"dtype": dtype, **{f"{k}_overhead_pct": 100.0 * (td["row"][k] / dense["row"][k] - 1.0)
                                                 for k in ("area_mm2", "power_w", "chip_area_mm2", "chip_power_w")}})
            for s in SPARSITIES:
                a, b = td["runs"][s], dense["runs"][s]
                sparse.append({"dtype": dtype, "sparsity": s, "speedup": b["compute_time_s"] / a["compute_time_s"],
                               "chip_speedup": b["time_s"] / a["time_s"], "chip_bound": a["bound"],
                               "energy_efficiency": b["array_j"] / a["array_j"],
                               "chip_energy_efficiency": b["chip_j"] / a["chip_j"]})
    notes = _notes(rows, overhead, sparse)
    notes += sorted({f"model range: {w.message}" for w in caught if "density" in str(w.message)})
    files = [_plot(rows, sparse, out / "tensordash_overhead.png")]
    columns = [("design", "design"), ("dtype", "dtype"), ("area_mm2", "array mm^2"), ("power_w", "array W"),
               ("chip_area_mm2", "chip mm^2"), ("chip_power_w", "chip W")]
    return StudyResult("tensordash-overhead", STUDIES[0].summary, rows, columns,
                       tables={"overhead": overhead, "sparsity": sparse}, notes=notes, files=files)


def _crossing(sparse: list[dict], dtype: str, key: str, target: float) -> str:
    """The sparsity at which ``key`` reaches ``target`` (linear interpolation), or where it stays."""
    pts = [(r["sparsity"], r[key]) for r in sparse if r["dtype"] == dtype]
    xs, ys = np.array([p[0] for p in pts]), np.array([p[1] for p in pts])
    if ys.max() < target:
        return f"never in 20-90% (at most {ys.max():.2f}x)"
    if ys.min() >= target:
        return "already at 20%"
    return f"at {float(np.interp(target, ys, xs)):.0%} sparsity"


def _notes(rows: list[dict], overhead: list[dict], sparse: list[dict]) -> list[str]:
    notes = [f"{r['dtype']} {r['design']}: misses {r['clock_mhz']:g} MHz at any pipelining (at most "
             f"{r['achievable_mhz']:.0f} MHz; its slowest stage {r['delay_ns']:.2f} ns at mul_stages "
             f"{r['mul_stages']}, add_stages {r['add_stages']}); its figures are at {r['clock_mhz']:g} MHz regardless"
             for r in rows if not r["meets_clock"]]
    for o in overhead:
        notes.append(f"{o['dtype']}: TensorDash adds {o['area_mm2_overhead_pct']:+.1f}% compute-array area and "
                     f"{o['power_w_overhead_pct']:+.1f}% compute-array TDP; {o['chip_area_mm2_overhead_pct']:+.1f}% "
                     f"chip area (paper: < {PUBLISHED['area_overhead_pct']:.0f}% for the accelerator, MICRO 2020)")
    for dtype in {o["dtype"]: 0 for o in overhead}:
        bound = [r["sparsity"] for r in sparse if r["dtype"] == dtype and r["chip_bound"] != "compute"]
        if bound:
            notes.append(f"{dtype}: from {min(bound):.0%} sparsity TensorDash's chip run is bound by "
                         f"{next(r['chip_bound'] for r in sparse if r['dtype'] == dtype and r['chip_bound'] != 'compute')}"
                         f", not by its tiles (chip_speedup < speedup)")
        at50 = next(r for r in sparse if r["dtype"] == dtype and r["sparsity"] == 0.5)
        notes.append(f"{dtype} at 50% sparsity: {at50['speedup']:.2f}x faster, {at50['energy_efficiency']:.2f}x the "
                     f"compute-array energy efficiency, {at50['chip_energy_efficiency']:.2f}x the chip's; the paper's "
                     f"{PUBLISHED['speedup']}x speedup is reached "
                     f"{_crossing(sparse, dtype, 'speedup', PUBLISHED['speedup'])}, its "
                     f"{PUBLISHED['energy_efficiency']}x compute efficiency "
                     f"{_crossing(sparse, dtype, 'energy_efficiency', PUBLISHED['energy_efficiency'])} "
                     f"(paper: averages over its training workloads, arXiv:2009.00748)")
    return notes


def _plot(rows: list[dict], sparse: list[dict], path: Path) -> Path:
    plt = pyplot()
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(12, 4.5))
    dtypes = list(dict.fromkeys(r["dtype"] for r in rows))
    x = np.arange(len(dtypes))
    for k, design in enumerate(DESIGNS):
        vals = [next(r["area_mm2"] for r in rows if r["dtype"] == t and r["design"] == design) for t in dtypes]
        ax0.bar(x + (k - 0.5) * 0.4, vals, 0.4, label=f"{design} area mm^2")
    ax0.set_xticks(x, dtypes)
    ax0.set_title("compute array area")
    ax0.legend()
    for dtype in dtypes:
        pts = [r for r in sparse if r["dtype"] == dtype]
        s = [100 * r["sparsity"] for r in pts]
        line, = ax1.plot(s, [r["speedup"] for r in pts], marker="o", label=f"{dtype} speedup")
        ax1.plot(s, [r["energy_efficiency"] for r in pts], marker="x", ls="--", color=line.get_color(),
                 label=f"{dtype} energy efficiency")
    ax1.axhline(1.0, color="gray", lw=0.8)
    ax1.set_xlabel("zeros in the scheduled operand (%)")
    ax1.set_ylabel("TensorDash / dense")
    ax1.legend(fontsize=8)
    fig.tight_layout()
    return save_png(fig, path)


STUDIES = (Study("tensordash-overhead",
                 "TensorDash (depth 4) against the dense tile (depth 1): 256 4x4 tiles of 4-lane PEs, fp16/bf16/int8, "
                 "65 nm, 500 MHz", run_study),)
