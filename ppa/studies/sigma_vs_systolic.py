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

Sparse: the densities of sect. VI-A ("Input and weight sparsity were observed to be ~10-50% and ~80%"): the
inputs (operand A) at :data:`SPARSE_A_DENSITY` (30% zeros, the middle of 10-50%) and the weights (B) at
:data:`SPARSE_B_DENSITY`. ``gemms``: the same figures per GEMM, with ``efficiency`` (useful MACs over the peak's).
The ``claims`` table puts the paper's ratios beside accelgen's (sect. V, VI-C, abstract), each miss traced to a
component: a power ratio to each array's energy per MAC against the paper's, a speedup to each design's mean
efficiency against the paper's (sect. VI-C: 82% and 59% dense).
"""

from __future__ import annotations

from pathlib import Path

from ... import shipped
from ..arch import Arch, load_arch
from ..chips import scope_total
from ..estimate import estimate
from ..perf import evaluate
from ..perfplot import pyplot, save_png
from ..workload import load_workload, resolve_workload_path
from .claims import claim, claim_notes
from .result import Study, StudyResult

#: design name -> shipped chip
DESIGNS = {"sigma": "sigma", "systolic": "sigma_systolic"}
#: operand densities of the sparse run (sect. VI-A: input sparsity ~10-50%, weight sparsity ~80%)
SPARSE_A_DENSITY, SPARSE_B_DENSITY = 0.7, 0.2
#: the GEMM suite and its operand width (bf16)
SUITE, BITS = "irregular", 16
#: the paper's figures (Qin et al., HPCA 2020): the compute arrays' post-layout area and power (abstract: SIGMA's
#: 65.10 mm^2, 22.33 W; the systolic array from the text's ratios, as ppa/chips/sigma_systolic.yaml takes it)
PUBLISHED = {"sigma": {"area_mm2": 65.10, "power_w": 22.33}, "systolic": {"area_mm2": 65.10 / 1.377,
                                                                       "power_w": 22.33 / 2}}
#: (claim, paper's figure, source)
PUBLISHED_CLAIMS = {
    "area": (1.377, "sect. V: \"a 37.7% area overhead\""),
    "power": (2.0, "sect. VI-C: \"twice as much power (Fig. 8)\""),
    "dense_speedup": (2.0, "sect. VI-C: \"speedup of 2x over TPUs on dense GEMMs\""),
    "sigma_dense_efficiency": (0.82, "sect. VI-C: overall efficiency 82%"),
    "systolic_dense_efficiency": (0.59, "sect. VI-C: 59% in the TPU"),
    "sparse_speedup": (5.7, "abstract; sect. VI-C: roughly 6x"),
    "sigma_sparse_efficiency": (0.40, "sect. VI-C: average overall efficiency of 40%"),
    "sparse_energy_efficiency": (3.0, "sect. VI-C: 3x more energy efficient, sparse"),
    "sparse_area_efficiency": (5.0, "sect. VI-C: 5x more area efficient, sparse"),
}
#: MACs of each design (128 Flex-DPEs x 128, 128 x 128 PEs)
PES = 16384

def _suite_run(arch, a_density: float, b_density: float) -> dict:
    wl = load_workload(resolve_workload_path(SUITE)).model_dump()
    wl.update(a_width=BITS, b_width=BITS, a_density=a_density, b_density=b_density)
    rep = evaluate(arch, wl)
    useful = [layer["macs"] * a_density * b_density for layer in rep.layers]
    return {"time_s": [layer["time_s"] for layer in rep.layers], "useful_macs": useful,
            "names": [layer["name"] for layer in rep.layers],
            "compute_j": rep.total["energy_breakdown_j"]["compute_j"], "total_time_s": rep.total["time_s"]}


def paper_pipelining(arch: Arch) -> Arch:
    """``arch`` with its compute units unpipelined, as the paper times them: SIGMA "is pipelined at 1-cycle
    distribution, 1-cycle multiplication, and 1-cycle for each level of reduction" (sect. V), and the TPU "was
    modeled using SCALE-sim" (sect. VI-A), one cycle per PE. (``pipeline: auto`` would take the least-energy stages
    at 500 MHz, whose latency a weight-stationary fold pays on every partial-sum hop.)"""
    doc = arch.model_dump(exclude_unset=True)
    stages = {"mul_stages": 0, "add_stages": 0}
    core = doc["core"]
    if "flex_dpes" in core:
        core["flex_dpes"]["pipeline"] = stages
    for unit in core.get("tensor_units", []):
        unit["pipeline"] = stages
    return Arch.model_validate(doc)


def _design(name: str) -> dict:
    arch = paper_pipelining(load_arch(shipped.path("chips", DESIGNS[name])))
    # switching counted as the paper's post-layout figures count it (no glitches: accelgen.ppa.published), here
    # and on the suite, as validate-chips compares them
    arch = arch.with_switching(arch.published.power.counted_switching)
    est = estimate(arch)
    area, _ = scope_total(est.breakdown, "compute_array", "area_mm2")
    power, _ = scope_total(est.breakdown, "compute_array", "tdp_w")
    leakage, _ = scope_total(est.breakdown, "compute_array", "leakage_w")
    runs = {"dense": _suite_run(arch, 1.0, 1.0), "sparse": _suite_run(arch, SPARSE_A_DENSITY, SPARSE_B_DENSITY)}
    return {"arch": arch, "area_mm2": area, "power_w": power, "leakage_w": leakage, "runs": runs,
            "peak_tflops": 2 * PES * est.clock_mhz * 1e-6}


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
            per = [{"design": name, "gemm": gemm, "run": kind,
                    "tflops": 2 * r["useful_macs"][i] / r["time_s"][i] * 1e-12,
                    "speedup": base[kind]["time_s"][i] / r["time_s"][i]} for i, gemm in enumerate(r["names"])]
            for g in per:
                g["efficiency"] = g["tflops"] / d["peak_tflops"]
            gemms += per
            row.update({f"{kind}_tflops": tflops, f"{kind}_power_w": run_power,
                        f"{kind}_tflops_per_w": tflops / run_power,
                        f"{kind}_speedup": base[kind]["total_time_s"] / t,
                        # sect. VI-C's averages are over the GEMMs
                        f"{kind}_mean_speedup": sum(g["speedup"] for g in per) / len(per),
                        f"{kind}_mean_efficiency": sum(g["efficiency"] for g in per) / len(per)})
        rows.append(row)
    sigma, systolic = rows
    table = claims(sigma, systolic, gemms)
    notes = claim_notes(table)
    files = [_plot(rows, gemms, out / "sigma_vs_systolic.png")]
    columns = [("design", "design"), ("area_mm2", "area mm^2"), ("published_area_mm2", "paper mm^2"),
               ("power_w", "power W"), ("published_power_w", "paper W"), ("dense_tflops", "dense TFLOPS"),
               ("dense_tflops_per_w", "dense TFLOPS/W"), ("dense_speedup", "dense speedup"),
               ("sparse_tflops", "sparse TFLOPS"), ("sparse_tflops_per_w", "sparse TFLOPS/W"),
               ("sparse_speedup", "sparse speedup"), ("dense_mean_efficiency", "dense mean eff."),
               ("sparse_mean_efficiency", "sparse mean eff.")]
    return StudyResult("sigma-vs-systolic", STUDIES[0].summary, rows, columns, tables={"gemms": gemms, "claims": table},
                       notes=notes, files=files)


def claims(sigma: dict, systolic: dict, gemms: list[dict]) -> list[dict]:
    """The paper's ratios beside accelgen's, each miss traced to a component: power to each array's energy per MAC
    at full activity against the paper's (its power over 16384 MACs at 500 MHz), speedups to each design's mean
    efficiency against sect. VI-C's."""
    def pj_per_mac(power_w: float) -> float:
        return power_w / (PES * 500e6) * 1e12

    P = PUBLISHED_CLAIMS
    per_mac = (f"energy per MAC at full activity: SIGMA {pj_per_mac(sigma['power_w']):.2f} pJ (paper "
               f"{pj_per_mac(PUBLISHED['sigma']['power_w']):.2f}), systolic {pj_per_mac(systolic['power_w']):.2f} pJ "
               f"(paper {pj_per_mac(PUBLISHED['systolic']['power_w']):.2f}): the systolic PE (bf16 multiplier, fp32 "
               f"adder, operand and partial-sum registers) carries the miss")
    eff = {k: f"mean efficiency over the GEMMs: SIGMA {sigma[f'{k}_mean_efficiency']:.2f}, systolic "
              f"{systolic[f'{k}_mean_efficiency']:.2f} (paper: SIGMA 0.82 dense and 0.40 sparse, TPU 0.59 dense "
              f"and < 0.10 sparse, sect. VI-C)" for k in ("dense", "sparse")}
    eff["dense"] += (": the systolic side carries the miss; its lowest GEMMs " + ", ".join(
        f"{g['gemm']} {g['efficiency']:.3f}" for g in sorted(
            (g for g in gemms if g["design"] == "systolic" and g["run"] == "dense"), key=lambda g: g["efficiency"])[:3])
        + " (folds of 128 x 128 that the GEMM's M, N or K leave mostly idle)")
    eff["sparse"] += (": SIGMA's efficiency is 0.1 high and the systolic's, which the paper only bounds, sets the "
                      "ratio")
    ratio = {"area": sigma["area_mm2"] / systolic["area_mm2"], "power": sigma["power_w"] / systolic["power_w"]}
    return [
        claim("area SIGMA / systolic", *P["area"], ratio["area"],
              f"compute arrays {sigma['area_mm2']:.1f} / {systolic['area_mm2']:.1f} mm^2 (paper 65.10 / "
              f"{PUBLISHED['systolic']['area_mm2']:.2f})"),
        claim("power SIGMA / systolic", *P["power"], ratio["power"], per_mac),
        claim("dense speedup (the suite's time)", *P["dense_speedup"], sigma["dense_speedup"], eff["dense"]),
        claim("SIGMA dense efficiency", *P["sigma_dense_efficiency"], sigma["dense_mean_efficiency"],
              "the Flex-DPE model maps each GEMM's stationary operand whole; loading from the 128-word input "
              "bandwidth is the paper's loss (sect. VI-C: \"loading latency from limited bandwidth\")"),
        claim("systolic dense efficiency", *P["systolic_dense_efficiency"], systolic["dense_mean_efficiency"],
              "the weight-stationary fold model (one cycle per PE, as SCALE-sim, the paper's TPU model) on the same "
              "GEMMs: " + eff["dense"].split(": the systolic side carries the miss; ")[1]),
        claim(f"sparse speedup (the suite's time; {1 - SPARSE_A_DENSITY:.0%} / {1 - SPARSE_B_DENSITY:.0%} zeros)",
              *P["sparse_speedup"], sigma["sparse_speedup"], eff["sparse"]),
        claim("SIGMA sparse efficiency", *P["sigma_sparse_efficiency"], sigma["sparse_mean_efficiency"],
              "useful MACs over the peak's: streaming operand's zeros still occupy SIGMA's multipliers"),
        claim("sparse energy efficiency SIGMA / systolic", *P["sparse_energy_efficiency"],
              sigma["sparse_tflops_per_w"] / systolic["sparse_tflops_per_w"],
              "= sparse speedup / run power ratio: the speedup's miss and the power ratio's (" + per_mac + ")"),
        claim("sparse area efficiency SIGMA / systolic", *P["sparse_area_efficiency"],
              sigma["sparse_speedup"] / ratio["area"], "= sparse speedup / area ratio: the speedup's miss"),
    ]


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
