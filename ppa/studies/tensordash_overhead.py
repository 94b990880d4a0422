"""TensorDash against the same accelerator without it (Mahmoud et al., MICRO 2020, sect. V).

The shipped chips ``tensordash`` (256 Tensorcores of 4x4 PEs of 4 lanes, its staging buffers, sparse operand muxes
and scheduler at ``depth: 4``; Table III) and ``tensordash_baseline`` (the paper's dense baseline: the same
Tensorcores at ``depth: 1``, no staging buffers, scheduler or muxes, and its scratchpads with fewer banks, sect.
V-C) are built per datatype, the dense tile with TensorDash's multipliers and adders: the pipelining TensorDash
needs at the clock (``pipeline: auto`` would give the dense tile, whose path has no scheduler or operand mux, fewer
stages, and the comparison would mix in the energy of a shallower pipeline).

Datatypes: ``fp16`` and ``bf16`` (products accumulated in fp32, the paper's mixed-precision and bfloat16 units)
and ``int8`` (accelgen's: 8-bit operands, accumulators of 2 x 8 + 8 = 24 bits, the widest the int tile models
were fitted at; the paper has no int8 figure). Rows: ``design``, ``dtype``, the compute array's ``area_mm2`` and
full-activity ``power_w`` (TDP), and the chip's (``chip_area_mm2``, ``chip_power_w``), and whether the tile meets
the clock (``meets_clock``, ``achievable_mhz``).

The ``sparsity`` table runs one long GEMM (:data:`GEMM`: streams of K / lanes = 1024 rows per output) with the
scheduled operand B zero with probability ``sparsity`` (20-90%) and A dense, on both designs:

* ``speedup``: the dense design's compute time over TensorDash's (the tiles' own speedup);
* ``chip_speedup``: the same for the chip's time, under its SRAM and off-chip roofs (``chip_bound``: what binds
  TensorDash's run);
* ``energy_efficiency``: the dense design's compute-array energy (its compute energy plus its leakage over the
  run) over TensorDash's: work per joule, since both do the same GEMM;
* ``chip_energy_efficiency``: the same with the whole chip's energy (SRAM, off-chip, leakage).

The ``claims`` table puts the paper's figures beside accelgen's: Table IV's compute area and power ratios, the
chip area overhead (sect. V-C), the bfloat16 ones (sect. V-D), the speedups on synthetic tensors at 20% and 90%
zeros (sect. V-D, Fig. 15), and the energy efficiencies, which the paper gives as averages over its training
workloads (whose sparsities are not shipped) at their mean speedup of 1.95x: accelgen's are taken at the sparsity
where its own speedup is 1.95x.
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
from .claims import claim, claim_notes
from .result import Study, StudyResult

#: design -> the shipped chip it is built from
CHIPS = {"tensordash": "tensordash", "dense": "tensordash_baseline"}
#: design -> TensorDash staging depth (1: the dense baseline)
DESIGNS = {"tensordash": 4, "dense": 1}
#: dtype label -> the tile's operand fields
DTYPES = {"fp16": {"dtype": "fp16"}, "bf16": {"dtype": "bf16"},
          "int8": {"dtype": "int", "a_width": 8, "b_width": 8, "acc_width": 24}}
#: fraction of zeros in the scheduled operand B
SPARSITIES = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
#: the GEMM streamed: 1024 x 1024 outputs, each a dot product of 4096 pairs
GEMM = {"name": "stream", "type": "gemm", "M": 1024, "N": 1024, "K": 4096}
#: the paper's figures, dtype -> claim -> (value, source). "1.95x ... 1.5x more energy efficient" (abstract), the
#: compute logic "1.8x" (sect. I and V-C); bfloat16: sect. V-D ("Training with Bfloat16").
PUBLISHED = {
    "fp16": {"area": (1.14, "Table IV: 79.01 / 69.11 mm^2"), "power": (1.09, "Table IV: 26,144 / 23,793 mW"),
             "chip_area": (1.048, "sect. V-C: 4.8% with the on-chip memories"),
             "energy_efficiency": (1.8, "sect. V-C: compute logic, training workloads"),
             "chip_energy_efficiency": (1.5, "sect. V-C: with on- and off-chip accesses")},
    "bf16": {"area": (1.16, "sect. V-D: 1.16x"), "power": (1.10, "sect. V-D: 1.1x"),
             "chip_area": (1.049, "sect. V-D: 4.9% with the on-chip memories"),
             "energy_efficiency": (1.76, "sect. V-D: compute logic"),
             "chip_energy_efficiency": (1.48, "sect. V-D: with on- and off-chip accesses")},
}
#: the mean speedup over the training workloads (abstract, sect. V-A), at which the energy efficiencies hold
PUBLISHED_SPEEDUP = 1.95
#: speedups on synthetic tensors (sect. V-D, "Effect of Tensor Sparsity", Fig. 15): sparsity -> speedup
PUBLISHED_SYNTHETIC = {0.2: 1.23, 0.9: 3.7}

def design_arch(design: str, dtype: str, stages: dict | None = None) -> Arch:
    """The shipped TensorDash chip with the tile of ``design`` for ``dtype``, pipelined with ``stages``
    (``{"mul_stages", "add_stages"}``; None: ``auto``)."""
    doc = load_arch(shipped.path("chips", CHIPS[design])).model_dump(exclude_unset=True)
    td = {k: v for k, v in doc["core"]["tensordash"].items() if k not in ("a_width", "b_width", "acc_width")}
    doc["core"]["tensordash"] = {**td, **DTYPES[dtype], "depth": DESIGNS[design], "pipeline": stages or "auto"}
    doc["name"] = f"{CHIPS[design]}_{dtype}"
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
           "add_stages": choice["add_stages"], "delay_ns": choice["delay_ns"], "meets_clock": choice["meets_clock"],
           "chip_meets_clock": est.meets_timing,
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
                               "chip_energy_efficiency": b["chip_j"] / a["chip_j"],
                               "dense_compute_share": b["array_j"] / b["chip_j"]})
    table = claims(overhead, sparse)
    notes = claim_notes(table) + _notes(rows, overhead, sparse)
    notes += sorted({f"model range: {w.message}" for w in caught if "density" in str(w.message)})
    files = [_plot(rows, sparse, out / "tensordash_overhead.png")]
    columns = [("design", "design"), ("dtype", "dtype"), ("area_mm2", "array mm^2"), ("power_w", "array W"),
               ("chip_area_mm2", "chip mm^2"), ("chip_power_w", "chip W")]
    return StudyResult("tensordash-overhead", STUDIES[0].summary, rows, columns,
                       tables={"overhead": overhead, "sparsity": sparse, "claims": table}, notes=notes, files=files)


def _at_speedup(sparse: list[dict], dtype: str, key: str, speedup: float) -> tuple[float, float]:
    """``key`` and the sparsity where ``dtype``'s speedup reaches ``speedup`` (linear interpolation over the sweep;
    the sweep's end when it never does)."""
    pts = sorted((r["speedup"], r["sparsity"], r[key]) for r in sparse if r["dtype"] == dtype)
    xs = np.array([p[0] for p in pts])
    return (float(np.interp(speedup, xs, [p[2] for p in pts])), float(np.interp(speedup, xs, [p[1] for p in pts])))


def claims(overhead: list[dict], sparse: list[dict]) -> list[dict]:
    """The paper's figures beside accelgen's, for the datatypes it reports (fp16, bf16), each traced."""
    out = []
    for o in overhead:
        dtype = o["dtype"]
        if dtype not in PUBLISHED:
            continue
        P = PUBLISHED[dtype]
        ratio = {k: 1 + o[f"{k}_overhead_pct"] / 100 for k in ("area_mm2", "power_w", "chip_area_mm2")}
        out += [
            claim(f"{dtype} compute area TensorDash / dense", *P["area"], ratio["area_mm2"],
                  "the tile models' staging buffers (depth x lanes x rows), operand muxes and scheduler against the "
                  "same tile at depth 1"),
            claim(f"{dtype} compute power TensorDash / dense", *P["power"], ratio["power_w"],
                  "full-activity TDP at the chips' operand density; the paper's is on its training workloads"),
            claim(f"{dtype} chip area TensorDash / dense", *P["chip_area"], ratio["chip_area_mm2"],
                  "the compute overhead diluted by the SRAMs and scratchpads of both chips"),
        ]
        ee, at = _at_speedup(sparse, dtype, "energy_efficiency", PUBLISHED_SPEEDUP)
        share, _ = _at_speedup(sparse, dtype, "dense_compute_share", PUBLISHED_SPEEDUP)
        chip_ee, _ = _at_speedup(sparse, dtype, "chip_energy_efficiency", PUBLISHED_SPEEDUP)
        # if the memories' energy is the same on both designs: 1 / chip_ee = share / ee + (1 - share)
        paper_share = (1 - 1 / P["chip_energy_efficiency"][0]) / (1 - 1 / P["energy_efficiency"][0])
        where = f"accelgen's at {at:.0%} zeros in B, where its speedup is {PUBLISHED_SPEEDUP}x (the paper's: a mean over workloads)"
        out += [claim(f"{dtype} compute energy efficiency at {PUBLISHED_SPEEDUP}x speedup", *P["energy_efficiency"], ee,
                      where),
                claim(f"{dtype} chip energy efficiency at {PUBLISHED_SPEEDUP}x speedup", *P["chip_energy_efficiency"],
                      chip_ee, f"{where}; the compute array's share of the dense chip's energy: accelgen {share:.0%} "
                      f"on its one GEMM, the paper's {P['energy_efficiency'][0]} -> {P['chip_energy_efficiency'][0]} "
                      f"implies {paper_share:.0%} (memory accesses, which TensorDash does not reduce, weigh less here)")]
        if dtype == "fp16":
            for s, value in PUBLISHED_SYNTHETIC.items():
                r = next(r for r in sparse if r["dtype"] == dtype and r["sparsity"] == s)
                out.append(claim(f"speedup at {s:.0%} zeros", value, "sect. V-D, Fig. 15 (synthetic tensors)",
                                 r["speedup"], "the scheduler's cycle model on random zeros"))
    return out


def _notes(rows: list[dict], overhead: list[dict], sparse: list[dict]) -> list[str]:
    notes = [f"{r['dtype']} {r['design']}: the tile misses {r['clock_mhz']:g} MHz at any pipelining (its slowest "
             f"stage {r['delay_ns']:.2f} ns at mul_stages {r['mul_stages']}, add_stages {r['add_stages']}); its "
             f"figures are at {r['clock_mhz']:g} MHz regardless" for r in rows if not r["meets_clock"]]
    slow = [r for r in rows if not r["chip_meets_clock"]]
    if slow:
        notes.append(f"the chips reach at most {min(r['achievable_mhz'] for r in slow):.0f} MHz, below "
                     f"{slow[0]['clock_mhz']:g}: a component other than the tiles (accelgen estimate names it); the "
                     f"figures are at {slow[0]['clock_mhz']:g} MHz")
    for o in overhead:
        if o["dtype"] not in PUBLISHED:
            notes.append(f"{o['dtype']} (no paper figure): TensorDash adds {o['area_mm2_overhead_pct']:+.1f}% "
                         f"compute-array area, {o['power_w_overhead_pct']:+.1f}% TDP, "
                         f"{o['chip_area_mm2_overhead_pct']:+.1f}% chip area")
    for dtype in {o["dtype"]: 0 for o in overhead}:
        bound = [r for r in sparse if r["dtype"] == dtype and r["chip_bound"] != "compute"]
        if bound:
            notes.append(f"{dtype}: from {bound[0]['sparsity']:.0%} sparsity TensorDash's chip run is bound by "
                         f"{bound[0]['chip_bound']}, not by its tiles (chip_speedup < speedup)")
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
