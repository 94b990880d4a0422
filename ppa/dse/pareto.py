"""Pareto fronts, the best point per objective and the comparison with a baseline."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .plan import BATCH_CHIP_METRICS, CHIP_METRICS, RUN_METRICS, Plan, py


def pareto_mask(values: np.ndarray, goals: list[str]) -> np.ndarray:
    """Non-dominated rows of ``values`` (n x k) under ``goals`` ('max'/'min' per column); rows with identical
    objective vectors are kept together. Two objectives: O(n log n) by sorting; more: each point is compared
    with the front found so far (points taken best-first on the first objective)."""
    v = np.asarray(values, dtype=float) * np.array([1.0 if g == "max" else -1.0 for g in goals])
    n = len(v)
    if n == 0:
        return np.zeros(0, dtype=bool)
    if v.shape[1] == 2:
        order = np.lexsort((-v[:, 1], -v[:, 0]))          # first objective descending, then the second
        a, b = v[order, 0], v[order, 1]
        new_group = np.r_[True, a[1:] != a[:-1]]
        gid = np.cumsum(new_group) - 1
        gmax = np.full(gid[-1] + 1, -np.inf)
        np.maximum.at(gmax, gid, b)
        better_before = np.r_[-np.inf, np.maximum.accumulate(gmax)[:-1]]   # best b among strictly larger a
        dominated = (better_before[gid] >= b) | (gmax[gid] > b)
        keep = np.empty(n, dtype=bool)
        keep[order] = ~dominated
        return keep
    keep = np.ones(n, dtype=bool)
    order = np.lexsort(tuple(-v[:, j] for j in reversed(range(v.shape[1]))))  # best first on column 0
    front: list[int] = []
    for i in order:
        if front:
            f = v[front]
            dom = np.all(f >= v[i], axis=1) & np.any(f > v[i], axis=1)
            if dom.any():
                keep[i] = False
                continue
        front.append(i)
    return keep


def json_value(v):
    """A table value for JSON: Python scalars, non-finite floats as None."""
    v = py(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def records(df: pd.DataFrame) -> list[dict]:
    return [{k: json_value(v) for k, v in r.items()} for r in df.to_dict("records")]


def finish(plan: Plan, table: pd.DataFrame) -> tuple[pd.DataFrame, list[dict], dict]:
    """``table`` with the baseline ratios (``METRIC_vs_baseline``) and front flags (``pareto:A|B``)
    added, the fronts (``{"objectives", "column", "points"}``) and the best point per objective."""
    table = _vs_baseline(plan, table)
    feas = table[table["feasible"].astype(bool)] if len(table) else table
    best = _best(plan, table, feas)
    pnames = plan.param_names
    fronts = []
    masks = {}
    for fr in plan.pareto:
        fr = list(fr)
        col = "pareto:" + "|".join(fr)
        mask = np.zeros(len(table), dtype=bool)
        if len(feas):
            vals = feas[fr].to_numpy(dtype=float)
            ok = np.all(np.isfinite(vals), axis=1)
            sub = np.flatnonzero(ok)
            m = pareto_mask(vals[ok], [plan.goal(x) for x in fr])
            mask[feas.index.to_numpy()[sub[m]]] = True
        masks[col] = mask
        pts = table[mask].sort_values(fr[0], ascending=plan.goal(fr[0]) == "min")
        fronts.append({"objectives": fr, "column": col,
                       "points": records(pts[list(dict.fromkeys(
                           [*pnames, *fr, *[c for c in ("area_mm2", "tdp_w", "peak_tops") if c in pts.columns]]))])})
    if masks:
        table = pd.concat([table.drop(columns=[c for c in masks if c in table.columns]),
                           pd.DataFrame(masks, index=table.index)], axis=1)
    return table, fronts, best


def _vs_baseline(plan: Plan, table: pd.DataFrame) -> pd.DataFrame:
    """Each objective over its value at the baseline point with the same other parameters."""
    if not plan.baseline or not len(table):
        return table
    keys = [p for p in plan.param_names if p not in plan.baseline]
    mask = np.ones(len(table), dtype=bool)
    for k, v in plan.baseline.items():
        mask &= (table[k] == v).to_numpy()
    ref = table[mask]
    extra = {}
    for o in plan.objectives:
        m = o.metric
        if keys:
            merged = table[keys].merge(ref[keys + [m]].drop_duplicates(keys).rename(columns={m: "_ref"}),
                                       on=keys, how="left")
            extra[f"{m}_vs_baseline"] = table[m].to_numpy(dtype=float) / merged["_ref"].to_numpy(dtype=float)
        else:
            extra[f"{m}_vs_baseline"] = table[m].to_numpy(dtype=float) / float(ref[m].iloc[0])
    return pd.concat([table, pd.DataFrame(extra, index=table.index)], axis=1)


def _best(plan: Plan, table: pd.DataFrame, feas: pd.DataFrame) -> dict:
    """The best feasible point per objective: its parameters and its headline metrics."""
    best = {}
    if not len(feas):
        return best
    pnames = plan.param_names
    for o in plan.objectives:
        col = feas[o.metric].astype(float)
        i = col.idxmax() if o.goal == "max" else col.idxmin()
        r = table.loc[i]
        rec = {p: json_value(r[p]) for p in pnames}
        for k in (*CHIP_METRICS, *BATCH_CHIP_METRICS, *RUN_METRICS, "sized_count",
                  *[x.metric for x in plan.objectives]):
            if k in table.columns and k not in rec:
                rec[k] = json_value(r[k])
        best[o.metric] = rec
    return best
