"""Area and power breakdown plot of an estimate (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path

from ..util import atomic_files


def plot_breakdown(est, path: str | Path) -> Path:
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    leaves = []

    def walk(n, prefix=""):
        kids = n.get("children", [])
        if not kids:
            leaves.append((prefix + n["name"], n["area_mm2"], n["tdp_w"]))
        for c in kids:
            walk(c, prefix + (n["name"] + "/" if n is not est.breakdown else ""))

    walk(est.breakdown)
    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    for ax, idx, title in ((axes[0], 1, f"area {est.area_mm2:.1f} mm^2"), (axes[1], 2, f"TDP {est.tdp_w:.2f} W")):
        vals = [leaf[idx] for leaf in leaves]
        ax.barh([leaf[0] for leaf in leaves], vals)
        ax.set_title(f"{est.name}: {title}")
        ax.invert_yaxis()
    fig.tight_layout()
    path = Path(path)
    with atomic_files([path]) as (tmp,):
        fig.savefig(tmp, format="png")
    plt.close(fig)
    return path
