"""PNG plots of a design-space exploration: Pareto fronts (2-D scatter or 3-D) and the space's own x/y plots."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..perfplot import pyplot, save_png
from .plan import Plan, Plot


def front_file_stem(objectives) -> str:
    """``pareto_A_vs_B`` (dots in metric names become dashes): the name of a front's CSV and PNG."""
    return "pareto_" + "_vs_".join(x.replace(".", "-") for x in objectives)


def _label(plan: Plan, row) -> str:
    return ",".join(f"{name}={row[name]}" for name in plan.param_names)


def plot_front(plan: Plan, table: pd.DataFrame, front: dict, out: Path) -> Path:
    """All feasible points (grey) and the front (coloured, labelled) over the front's objectives."""
    plt = pyplot()
    objs = front["objectives"]
    feas = table[table["feasible"]]
    on = table[table[front["column"]]]
    goals = {o.metric: o.goal for o in plan.objectives}
    path = out / (front_file_stem(objs) + ".png")
    if len(objs) == 2:
        fig, ax = plt.subplots(figsize=(7.5, 5.5))
        ax.scatter(feas[objs[0]], feas[objs[1]], s=12, c="0.75", label=f"feasible ({len(feas)})")
        on = on.sort_values(objs[0])
        ax.plot(on[objs[0]], on[objs[1]], "o-", c="tab:red", ms=5, label=f"Pareto front ({len(on)})")
        for _, r in on.head(12).iterrows():
            ax.annotate(_label(plan, r), (r[objs[0]], r[objs[1]]), fontsize=6, xytext=(3, 3),
                        textcoords="offset points")
        ax.set_xlabel(f"{objs[0]} ({goals[objs[0]]})")
        ax.set_ylabel(f"{objs[1]} ({goals[objs[1]]})")
        for fn, o in ((ax.set_xscale, objs[0]), (ax.set_yscale, objs[1])):
            v = feas[o].to_numpy(dtype=float)
            v = v[np.isfinite(v) & (v > 0)]
            if v.size and v.max() / v.min() > 100:
                fn("log")
        ax.legend(fontsize=8)
    else:
        fig = plt.figure(figsize=(7.5, 6))
        ax = fig.add_subplot(projection="3d")
        ax.scatter(feas[objs[0]], feas[objs[1]], feas[objs[2]], s=8, c="0.75", label=f"feasible ({len(feas)})")
        ax.scatter(on[objs[0]], on[objs[1]], on[objs[2]], s=24, c="tab:red", label=f"Pareto front ({len(on)})")
        ax.set_xlabel(objs[0], fontsize=8)
        ax.set_ylabel(objs[1], fontsize=8)
        ax.set_zlabel(objs[2], fontsize=8)
        ax.legend(fontsize=8)
    ax.set_title(f"{plan.name}: Pareto front over {', '.join(objs)}", fontsize=9)
    fig.tight_layout()
    return save_png(fig, path)


def plot_spec(plan: Plan, table: pd.DataFrame, spec: Plot, out: Path, index: int) -> Path:
    """One plot of the space's ``plots:`` list: ``y`` against ``x``, one line/colour per ``group``."""
    plt = pyplot()
    df = table[table["feasible"]] if spec.feasible_only else table
    for k, v in spec.filter.items():
        df = df[df[k] == v]
    fig, ax = plt.subplots(figsize=(7, 5))
    groups = [(None, df)] if not spec.group else list(df.groupby(spec.group, sort=True))
    for g, sub in groups:
        sub = sub.sort_values(spec.x)
        if spec.kind == "line":
            # one value per x (the best by y when other parameters vary)
            sub = sub.groupby(spec.x, as_index=False)[spec.y].max()
            ax.plot(sub[spec.x], sub[spec.y], "o-", ms=4, label=None if g is None else f"{spec.group}={g}")
        else:
            ax.scatter(sub[spec.x], sub[spec.y], s=12, label=None if g is None else f"{spec.group}={g}")
    ax.set_xlabel(spec.x)
    ax.set_ylabel(spec.y)
    if spec.logx:
        ax.set_xscale("log")
    if spec.logy:
        ax.set_yscale("log")
    if spec.group:
        ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    where = ", ".join(f"{k}={v}" for k, v in spec.filter.items())
    ax.set_title(spec.title or f"{plan.name}: {spec.y} vs {spec.x}" + (f" ({where})" if where else ""),
                 fontsize=9)
    fig.tight_layout()
    name = f"plot{index}_{spec.y}_vs_{spec.x}".replace(".", "-").replace("/", "-")
    if spec.filter:
        name += "_" + "_".join(f"{k}-{v}" for k, v in spec.filter.items())
    return save_png(fig, out / f"{name}.png")
