"""The outputs of an exploration: :class:`DseResult` and the files ``points.csv``, ``best.json``,
``pareto_*.csv`` and the PNG plots."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from ...util import atomic_files, write_atomic
from .plan import Plan
from .plots import front_file_stem, plot_front, plot_spec


class DseResult:
    """A finished exploration: ``table`` (every point), ``fronts``, ``best``, the files written."""

    def __init__(self, plan: Plan, table: pd.DataFrame, fronts: list[dict], best: dict, files: list[Path],
                 computed_chunks: int, reused_chunks: int, out_dir: Path, wall_s: float):
        self.plan, self.table, self.fronts, self.best, self.files = plan, table, fronts, best, files
        self.computed_chunks, self.reused_chunks, self.out_dir, self.wall_s = (computed_chunks, reused_chunks,
                                                                               out_dir, wall_s)

    @property
    def points(self) -> int:
        return len(self.table)

    @property
    def feasible(self) -> int:
        return int(self.table["feasible"].sum()) if len(self.table) else 0

    def summary(self) -> dict:
        return {"points": self.points, "feasible": self.feasible, "best": self.best,
                "pareto": [{"objectives": f["objectives"], "points": f["points"]} for f in self.fronts],
                "name": self.plan.name, "mode": self.plan.mode,
                "objectives": [asdict(o) for o in self.plan.objectives],
                "constraints": {c.metric: c.bounds() for c in self.plan.constraints},
                "computed_chunks": self.computed_chunks, "reused_chunks": self.reused_chunks,
                "wall_s": self.wall_s, "files": [str(f) for f in self.files]}


def write_results(plan: Plan, table: pd.DataFrame, fronts: list[dict], best: dict, out: Path,
                  plots: bool = True) -> list[Path]:
    """Write ``points.csv`` and ``best.json`` (together, atomically), one ``pareto_*.csv`` per front and,
    with ``plots``, the PNGs; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    files = [out / "points.csv", out / "best.json"]
    with atomic_files(files) as (t_points, t_best):
        table.to_csv(t_points, index=False)
        Path(t_best).write_text(json.dumps(best, indent=1))
    for f in fronts:
        p = out / (front_file_stem(f["objectives"]) + ".csv")
        cols = [c for c in (*plan.param_names, *f["objectives"], "area_mm2", "tdp_w", "peak_tops")
                if c in table.columns]
        front = table[table[f["column"]]].sort_values(f["objectives"][0],
                                                      ascending=plan.goal(f["objectives"][0]) == "min")
        write_atomic(p, front[list(dict.fromkeys(cols))].to_csv(index=False))
        files.append(p)
    if plots and len(table):
        for f in fronts:
            files.append(plot_front(plan, table, f, out))
        for i, spec in enumerate(plan.plots):
            files.append(plot_spec(plan, table, spec, out, i))
    return files
