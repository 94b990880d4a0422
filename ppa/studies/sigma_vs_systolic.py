"""SIGMA's Flex-DPE fabric against a TPU-like systolic array of the same multipliers and adders (Qin et al.,
HPCA 2020, Fig. 8 and sect. VI), compute array only.

The two designs are the shipped chips ``sigma`` (128 Flex-DPE-128: Benes distribution, FAN reduction, bf16
multipliers and fp32 adders, 500 MHz, 28 nm) and ``sigma_systolic`` (a 128x128 weight-stationary bf16 array
with fp32 accumulation, the same clock, node and SRAM input bandwidth). Rows: ``design`` (``sigma`` /
``systolic``), the compute array's ``area_mm2`` and full-activity ``power_w`` (the scope and kind of the
paper's Fig. 8: post-layout, so switching without glitches), and on SIGMA's irregular GEMM suite (the shipped
``irregular`` workload, at bf16), dense and sparse:

* ``*_tflops``: effective TFLOPS, 2 x the useful MACs (both operands non-zero, expected count) over the run's
  time;
* ``*_tflops_per_w``: that over the compute array's power on the run (its compute energy over the time, plus
  its leakage);
* ``*_speedup``: the systolic array's time over this design's (1 for the systolic array).

Sparse: both operands at density :data:`SPARSE_DENSITY`. The paper's per-workload sparsities are not shipped;
80% zeros is within the 70-90% weight and activation sparsity its introduction cites for DNN training, and is
accelgen's choice. ``gemms``: the same figures per GEMM.
"""

from __future__ import annotations

from pathlib import Path

from ... import shipped
from ..arch import load_arch
from ..chips import scope_total
from ..estimate import estimate
from ..perf import evaluate
from ..perfplot import pyplot, save_png
from ..workload import load_workload, resolve_workload_path
from .result import Study, StudyResult

#: design name -> shipped chip
DESIGNS = {"sigma": "sigma", "systolic": "sigma_systolic"}
#: density of both operands in the sparse run (80% zeros; see the module docstring)
SPARSE_DENSITY = 0.2
#: the GEMM suite and its operand width (bf16)
SUITE, BITS = "irregular", 16
#: the paper's figures (Qin et al., HPCA 2020): Fig. 8 post-layout compute-array area (mm^2) and power (W);
#: the abstract's "5.7x better than systolic array architectures for irregular sparse matrices"
PUBLISHED = {"sigma": {"area_mm2": 65.10, "power_w": 22.33}, "systolic": {"area_mm2": 47.27, "power_w": 12.25}}
PUBLISHED_SPARSE_SPEEDUP = 5.7


def _suite_run(arch, density: float) -> dict:
    wl = load_workload(resolve_workload_path(SUITE)).model_dump()
    wl.update(a_width=BITS, b_width=BITS, a_density=density, b_density=density)
    rep = evaluate(arch, wl)
    useful = [layer["macs"] * density * density for layer in rep.layers]
    return {"time_s": [layer["time_s"] for layer in rep.layers], "useful_macs": useful,
            "names": [layer["name"] for layer in rep.layers],
            "compute_j": rep.total["energy_breakdown_j"]["compute_j"], "total_time_s": rep.total["time_s"]}


def _design(name: str) -> dict:
    arch = load_arch(shipped.path("chips", DESIGNS[name]))
    # switching counted as the paper's post-layout figures count it (no glitches: accelgen.ppa.published), here
    # and on the suite, as validate-chips compares them
    arch = arch.with_switching(arch.published.power.counted_switching)
    est = estimate(arch)
    area, _ = scope_total(est.breakdown, "compute_array", "area_mm2")
    power, _ = scope_total(est.breakdown, "compute_array", "tdp_w")
    leakage, _ = scope_total(est.breakdown, "compute_array", "leakage_w")
    runs = {kind: _suite_run(arch, d) for kind, d in (("dense", 1.0), ("sparse", SPARSE_DENSITY))}
    return {"arch": arch, "area_mm2": area, "power_w": power, "leakage_w": leakage, "runs": runs}


def run_study(out: Path) -> StudyResult:
    designs = {name: _design(name) for name in DESIGNS}
    base = designs["systolic"]["runs"]
    rows, gemms = [], []
    for name, d in designs.items():
        row = {"design": name, "chip": DESIGNS[name], "area_mm2": d["area_mm2"], "power_w": d["power_w"],
               "published_area_mm2": PUBLISHED[name]["area_mm2"], "published_power_w": PUBLISHED[name]["power_w"]}
        for kind, r in d["runs"].items():
            t = r["total_time_s"]
            tflops = 2 * sum(r["useful_macs"]) / t * 1e-12
            run_power = r["compute_j"] / t + d["leakage_w"]
            row.update({f"{kind}_tflops": tflops, f"{kind}_power_w": run_power,
                        f"{kind}_tflops_per_w": tflops / run_power,
                        f"{kind}_speedup": base[kind]["total_time_s"] / t})
            for i, gemm in enumerate(r["names"]):
                gemms.append({"design": name, "gemm": gemm, "run": kind,
                              "tflops": 2 * r["useful_macs"][i] / r["time_s"][i] * 1e-12,
                              "speedup": base[kind]["time_s"][i] / r["time_s"][i]})
        rows.append(row)
    sigma, systolic = rows
    paper_area = PUBLISHED["sigma"]["area_mm2"] / PUBLISHED["systolic"]["area_mm2"]
    paper_power = PUBLISHED["sigma"]["power_w"] / PUBLISHED["systolic"]["power_w"]
    notes = [
        f"area SIGMA / systolic: accelgen {sigma['area_mm2'] / systolic['area_mm2']:.2f}x, paper {paper_area:.2f}x (Fig. 8)",
        f"power SIGMA / systolic: accelgen {sigma['power_w'] / systolic['power_w']:.2f}x, paper {paper_power:.2f}x (Fig. 8)",
        (f"sparse speedup of SIGMA: accelgen {sigma['sparse_speedup']:.2f}x at {1 - SPARSE_DENSITY:.0%} zeros, "
         f"paper {PUBLISHED_SPARSE_SPEEDUP}x on irregular sparse GEMMs (abstract)"),
        f"dense speedup of SIGMA: accelgen {sigma['dense_speedup']:.2f}x",
    ]
    files = [_plot(rows, gemms, out / "sigma_vs_systolic.png")]
    columns = [("design", "design"), ("area_mm2", "area mm^2"), ("published_area_mm2", "paper mm^2"),
               ("power_w", "power W"), ("published_power_w", "paper W"), ("dense_tflops", "dense TFLOPS"),
               ("dense_tflops_per_w", "dense TFLOPS/W"), ("dense_speedup", "dense speedup"),
               ("sparse_tflops", "sparse TFLOPS"), ("sparse_tflops_per_w", "sparse TFLOPS/W"),
               ("sparse_speedup", "sparse speedup")]
    return StudyResult("sigma-vs-systolic", STUDIES[0].summary, rows, columns, tables={"gemms": gemms},
                       notes=notes, files=files)


def _plot(rows: list[dict], gemms: list[dict], path: Path) -> Path:
    plt = pyplot()
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(12, 4.5), gridspec_kw={"width_ratios": [1, 2.5]})
    names = [r["design"] for r in rows]
    x = range(len(names))
    ax0.bar([i - 0.2 for i in x], [r["area_mm2"] for r in rows], 0.4, label="area mm^2")
    ax0.bar([i + 0.2 for i in x], [r["power_w"] for r in rows], 0.4, label="power W")
    ax0.set_xticks(list(x), names)
    ax0.set_title("compute array (full activity)")
    ax0.legend()
    sigma = [g for g in gemms if g["design"] == "sigma"]
    labels = list(dict.fromkeys(g["gemm"] for g in sigma))
    for k, kind in enumerate(("dense", "sparse")):
        vals = [next(g["speedup"] for g in sigma if g["gemm"] == n and g["run"] == kind) for n in labels]
        ax1.bar([i + (k - 0.5) * 0.4 for i in range(len(labels))], vals, 0.4, label=kind)
    ax1.axhline(1.0, color="gray", lw=0.8)
    ax1.set_xticks(range(len(labels)), labels, rotation=40, ha="right")
    ax1.set_ylabel("SIGMA speedup over the systolic array")
    ax1.set_yscale("log")
    ax1.legend()
    fig.tight_layout()
    return save_png(fig, path)


STUDIES = (Study("sigma-vs-systolic",
                 "SIGMA (128 Flex-DPE-128) against a 128x128 weight-stationary bf16 systolic array, 28 nm, 500 MHz",
                 run_study),)
