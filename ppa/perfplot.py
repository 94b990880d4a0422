"""Plots of a :class:`~accelgen.ppa.perf.PerfReport` (matplotlib, Agg backend), PNG files.

* ``roofline_throughput.png``: attainable TOPS = min(peak, intensity x bandwidth) for every memory level, the
  layers placed at their intensity for that level (dense ops per byte) and their dense-equivalent TOPS (the
  same ops over the time: achieved TOPS for dense operands, above it for sparse ones);
* ``roofline_energy.png``: energy per op = compute energy per op + energy per byte / intensity per level (the
  energy roofline), the layers at their measured energy per op (needs the fitted models);
* ``layers.png``: per-layer utilization and time broken into compute / memory-bound parts;
* ``sparsity_gain.png`` (from :func:`accelgen.ppa.perf.sparsity_sweep`): speedup and energy-efficiency gain of
  sparse over dense against density per compute type.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..util import atomic_files

_COLORS = {"compute": "tab:green", "sram": "tab:orange", "dram": "tab:red"}


def pyplot():
    """matplotlib's pyplot on the Agg backend (no display), imported on first use: every plot module's entry."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    return plt


def save_png(fig, path: Path) -> Path:
    """Write ``fig`` to ``path`` as a PNG atomically (nothing half-written on an error) and close it."""
    plt = pyplot()
    with atomic_files([path]) as (tmp,):
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)
    return path


def plot_roofline(rep, path) -> Path:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 5.5))
    peak = max(rep.peak_tops.values())
    ints = [lay[f"{lv['name']}_intensity_ops_per_byte"] for lay in rep.layers for lv in rep.levels]
    finite = [i for i in ints if np.isfinite(i) and i > 0] or [1.0]
    x = np.logspace(np.log10(min(finite)) - 1, np.log10(max(finite)) + 1, 200)
    ax.axhline(peak, color="k", lw=1.5, label=f"peak {peak:.3g} TOPS")
    for lv in rep.levels:
        roof = np.minimum(peak, x * lv["bandwidth_gbps"] * 1e-3)
        ax.plot(x, roof, color=_COLORS.get(lv["name"], "gray"), lw=1.5,
                label=f"{lv['name']} roof ({lv['bandwidth_gbps']:.4g} GB/s)")
        xs = [lay[f"{lv['name']}_intensity_ops_per_byte"] for lay in rep.layers]
        ys = [lay["dense_equivalent_tops"] for lay in rep.layers]   # the ops the intensity counts
        ax.scatter(xs, ys, s=14, color=_COLORS.get(lv["name"], "gray"), alpha=0.7,
                   label=f"layers at {lv['name']} intensity")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("operational intensity (dense ops / byte)")
    ax.set_ylabel("dense-equivalent TOPS (dense ops / time; achieved TOPS when the operands are dense)")
    ax.set_title(f"{rep.arch} / {rep.workload}, batch {rep.batch}: throughput roofline")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    return save_png(fig, Path(path))


def plot_energy_roofline(rep, path) -> Path | None:
    if not rep.energy_available:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 5.5))
    # compute energy per op of the network (pJ/op) from the measured breakdown
    tot = rep.total
    e_op = (tot["energy_breakdown_j"]["compute_j"] + tot["energy_breakdown_j"].get("vector_j", 0.0)) / tot["ops"] * 1e12
    ints = [lay[f"{lv['name']}_intensity_ops_per_byte"] for lay in rep.layers for lv in rep.levels]
    finite = [i for i in ints if np.isfinite(i) and i > 0] or [1.0]
    x = np.logspace(np.log10(min(finite)) - 1, np.log10(max(finite)) + 1, 200)
    ax.axhline(e_op, color="k", lw=1.5, label=f"compute {e_op:.3g} pJ/op")
    for lv in rep.levels:
        ax.plot(x, e_op + lv["energy_pj_per_byte"] / x, color=_COLORS.get(lv["name"], "gray"),
                label=f"{lv['name']}: {lv['energy_pj_per_byte']:.3g} pJ/byte")
        xs = [lay[f"{lv['name']}_intensity_ops_per_byte"] for lay in rep.layers]
        ys = [lay["energy_j"] / (2 * lay["macs"]) * 1e12 for lay in rep.layers]
        ax.scatter(xs, ys, s=14, color=_COLORS.get(lv["name"], "gray"), alpha=0.7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("operational intensity (dense ops / byte)")
    ax.set_ylabel("energy per dense op (pJ), incl. leakage for the layers")
    ax.set_title(f"{rep.arch} / {rep.workload}: energy roofline")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    return save_png(fig, Path(path))


def plot_layers(rep, path) -> Path:
    plt = pyplot()
    n = len(rep.layers)
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(max(8, 0.14 * n + 3), 7), sharex=True)
    idx = np.arange(n)
    ax1.bar(idx, [100 * lay["utilization"] for lay in rep.layers], color="tab:blue")
    ax1.set_ylabel("utilization (%)")
    ax1.set_title(f"{rep.arch} / {rep.workload}, batch {rep.batch}")
    comp = np.array([lay["compute_time_s"] for lay in rep.layers]) * 1e6
    tot = np.array([lay["time_s"] for lay in rep.layers]) * 1e6
    ax2.bar(idx, comp, color=_COLORS["compute"], label="compute")
    bound = [lay["bound"] for lay in rep.layers]
    for lvl in ("sram", "dram"):
        extra = np.where(np.array(bound) == lvl, tot - comp, 0.0)
        if extra.any():
            ax2.bar(idx, extra, bottom=comp, color=_COLORS[lvl], label=f"{lvl}-bound excess")
    ax2.set_ylabel("time (us)")
    ax2.set_xticks(idx)
    ax2.set_xticklabels([lay["name"] for lay in rep.layers], rotation=90, fontsize=6)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    return save_png(fig, Path(path))


def plot_sparsity(sweep: dict, path) -> Path:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 5))
    d = sweep["densities"]
    for ct, row in sweep["types"].items():
        ax.plot(d, row["speedup"], "--o", ms=3, label=f"{ct}: speedup")
        if "energy_gain" in row:
            ax.plot(d, row["energy_gain"], "-s", ms=3, label=f"{ct}: TOPS/W gain")
    ax.set_xlabel("operand density (both operands)")
    ax.set_ylabel("sparse / dense")
    ax.set_yscale("log")
    M, N, K = sweep["gemm"]
    ax.set_title(f"sparsity gain, {M}x{N}x{K} GEMM ({sweep['pattern']})")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    return save_png(fig, Path(path))


def plot_all(rep, directory, sweep: dict | None = None) -> list[Path]:
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    out = [plot_roofline(rep, d / "roofline_throughput.png"), plot_energy_roofline(rep, d / "roofline_energy.png"),
           plot_layers(rep, d / "layers.png")]
    if sweep is not None:
        out.append(plot_sparsity(sweep, d / "sparsity_gain.png"))
    return [p for p in out if p is not None]
