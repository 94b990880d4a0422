"""NeuroMeter's case studies (Tang et al., HPCA 2021) as studies, run by :func:`accelgen.ppa.dse.run` into the
study's directory (resumable: a rerun reuses the finished chunks).

``neurometer-datacenter`` is the datacenter study of sect. III as published: Table I's space
(``ppa/dse_spaces/neurometer_datacenter.yaml``), Table II's networks (ResNet-50, Inception-v3, NASNet-A Large),
batch 1, the largest batch within 10 ms and batch 256, and Fig. 10's four targets per batch regime, averaged as
the paper averages them (arithmetic mean of throughput, geometric mean of the ratios, sect. III-B-2). Its rows are
the paper's optimum beside accelgen's for each regime and target (:mod:`.neurometer_paper` holds the paper's
figures and where it gives them); further tables: ``points`` (every design, with the paper-style means),
``table_ii`` (the networks' MACs and parameters), ``fig9`` (the latency-bound batches of (64, 2, 2, 4)),
``tradeoff`` (Fig. 10(a)'s efficient-vs-fast comparison), ``peak_optimum`` (Fig. 8(b)) and ``by_x`` (why
throughput peaks where it does). The run takes minutes; it reports its progress on stderr.

``neurometer-sparsity`` (sect. IV): the best point per objective of ``neurometer_sparsity.yaml``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ... import shipped
from ..dse import load_space, run
from ..dse.plan import CHIP_METRICS
from ..dse.point import arch_for_point, workloads_for_point
from ..perf import evaluate
from ..workload import lower
from . import neurometer_paper as paper
from .result import Study, StudyResult

#: NeuroMeter's abstract on the datacenter study: the paper's finding to put beside ours
DATACENTER_CLAIM = ("paper: \"brawny designs with 64x64 systolic arrays are the most performant and efficient\" "
                    "(Tang et al., HPCA 2021, abstract)")
PARAMS = ("X", "N", "Tx", "Ty")
#: the batches the per-X explanation runs: Fig. 10's small and large regimes
EXPLAIN_BATCHES = (1, 256)


def _progress(name: str):
    """A :func:`run` progress callback writing one line per finished chunk to stderr."""
    t0 = time.perf_counter()

    def report(done: int, total: int, reused: int) -> None:
        sys.stderr.write(f"{name}: {done}/{total} design points ({reused} reused), "
                         f"{time.perf_counter() - t0:.0f} s\n")
        sys.stderr.flush()

    return report


def _label(point) -> str:
    return "({}, {}, {}, {})".format(*(int(point[p]) for p in PARAMS))


def _key(point) -> tuple[int, ...]:
    return tuple(int(point[p]) for p in PARAMS)


# --------------------------------------------------------------------------- the paper-style means

def paper_means(plan, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with a column ``mean.REGIME.METRIC`` per Fig. 10 regime and target: the arithmetic mean over the
    networks for throughput, the geometric mean for the ratios (sect. III-B-2); NaN where the design breaks a
    chip budget or a network has no run in that regime (e.g. no batch meets 10 ms)."""
    out = table.copy()
    within = np.ones(len(out), dtype=bool)
    for c in plan.constraints:
        if c.metric in CHIP_METRICS:
            v = out[c.metric].to_numpy(float) if c.metric in out else np.full(len(out), np.nan)
            within &= np.isfinite(v) & (v <= (c.max if c.max is not None else np.inf)) & \
                (v >= (c.min if c.min is not None else -np.inf))
    out["within_budget"] = within
    names = [w.name for w in plan.workloads]
    for regime, _ in paper.REGIMES:
        for metric, _ in paper.TARGETS:
            cols = [f"{w}.{regime}.{metric}" for w in names]
            runs = np.column_stack([out[c].to_numpy(float) if c in out else np.full(len(out), np.nan) for c in cols])
            ok = within & np.isfinite(runs).all(axis=1) & (runs > 0).all(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                mean = runs.mean(axis=1) if metric in paper.ARITHMETIC_MEAN else np.exp(np.log(runs).mean(axis=1))
            out[f"mean.{regime}.{metric}"] = np.where(ok, mean, np.nan)
    return out


def _at(table: pd.DataFrame, point: dict):
    """The row of ``point`` (X, N, Tx, Ty) in ``table``, or None."""
    hit = table[np.logical_and.reduce([table[p] == point[p] for p in PARAMS])]
    return None if hit.empty else hit.iloc[0]


def optima_rows(table: pd.DataFrame) -> list[dict]:
    """One row per (regime, target): accelgen's best design by the paper-style mean beside the paper's, and where
    the paper's design (when the text names it in full) ranks in accelgen's."""
    rows = []
    for regime, regime_label in paper.REGIMES:
        for metric, target in paper.TARGETS:
            col = f"mean.{regime}.{metric}"
            opt = paper.OPTIMA[(regime, metric)]
            ranked = table[np.isfinite(table[col])].sort_values(col, ascending=False, kind="stable")
            row = {"regime": regime_label, "target": target, "metric": f"{regime}.{metric}", "paper": opt.label(),
                   "paper_source": opt.quote, "designs": len(ranked)}
            if ranked.empty:
                rows.append({**row, "accelgen": None, "agrees": "no design"})
                continue
            best = ranked.iloc[0]
            row.update(accelgen=_label(best), agrees=opt.agreement({p: int(best[p]) for p in PARAMS}),
                       value=float(best[col]), **{p: int(best[p]) for p in PARAMS}, area_mm2=float(best["area_mm2"]),
                       tdp_w=float(best["tdp_w"]), peak_tops=float(best["peak_tops"]))
            if opt.complete:
                keys = [_key(r) for _, r in ranked.iterrows()]
                k = _key(opt.point)
                if k in keys:
                    row["paper_point_value"] = float(ranked.iloc[keys.index(k)][col])
                    row["paper_point_rank"] = keys.index(k) + 1
            rows.append(row)
    return rows


# --------------------------------------------------------------------------- the paper's other figures

def table_ii_rows(plan) -> list[dict]:
    """Table II beside the shipped layer tables: MACs per frame and parameters without the classifier."""
    rows = []
    for wl in plan.workloads:
        pub = paper.TABLE_II.get(wl.name)
        if pub is None:
            continue
        g = lower(wl, 1)
        conv = np.array([k == "conv" for k in g.kinds])
        rows.append({"workload": wl.name, "paper_macs_g": pub["macs_g"], "macs_g": float(g.macs.sum()) / 1e9,
                     "paper_params_m": pub["params_m"], "params_m": float(g.b_elems[conv].sum()) / 1e6,
                     "paper_data_m": pub["data_m"]})
    return rows


def fig9_rows(plan, table: pd.DataFrame) -> list[dict]:
    """Fig. 9: the largest batch within 10 ms at (64, 2, 2, 4) per network, and the share of the network's batch-1
    time spent in grouped (depthwise) convolutions there."""
    row = _at(table, paper.FIG9_POINT)
    arch, _ = arch_for_point(plan, paper.FIG9_POINT)
    out = []
    for wl in workloads_for_point(plan, paper.FIG9_POINT):
        grouped = {layer.name for layer in wl.layers if getattr(layer, "groups", 1) > 1}
        layers = evaluate(arch, wl, batch=1).layers
        total_s = sum(layer["time_s"] for layer in layers)
        batch = None if row is None else row.get(f"{wl.name}.latency.batch", np.nan)
        out.append({"workload": wl.name, "paper_batch": paper.FIG9_BATCHES.get(wl.name),
                    "batch": int(batch) if batch is not None and np.isfinite(batch) else None,
                    "batch1_ms": 1e3 * total_s,
                    "grouped_share": sum(layer["time_s"] for layer in layers if layer["name"] in grouped) / total_s})
    return out


def tradeoff_row(table: pd.DataFrame) -> dict:
    """Fig. 10(a): the efficient design's batch-1 means over the fast design's, beside the paper's ratios."""
    eff, fast = _at(table, paper.TRADEOFF["efficient"]), _at(table, paper.TRADEOFF["fast"])
    out = {"efficient": _label(paper.TRADEOFF["efficient"]), "fast": _label(paper.TRADEOFF["fast"])}
    for metric in ("achieved_tops", "tops_per_tco", "tops_per_w"):
        col = f"mean.batch1.{metric}"
        ratio = None if eff is None or fast is None else float(eff[col] / fast[col])
        out[metric] = ratio if ratio is not None and np.isfinite(ratio) else None
        out[f"paper_{metric}"] = paper.TRADEOFF[metric]
    return out


def peak_optimum_rows(table: pd.DataFrame) -> list[dict]:
    """Fig. 8(b): the design with the best peak TOPS/W and peak TOPS/TCO (peak TOPS / mm^4 / TDP) in budget."""
    t = table[table["within_budget"]].copy()
    t["peak_tops_per_tco"] = t["peak_tops"] / t["area_mm2"] ** 2 / t["tdp_w"]
    rows = []
    for metric in ("peak_tops_per_w", "peak_tops_per_tco"):
        best = t.loc[t[metric].idxmax()] if len(t) else None
        rows.append({"metric": metric, "paper": _label(paper.PEAK_OPTIMUM),
                     "accelgen": None if best is None else _label(best),
                     "value": None if best is None else float(best[metric])})
    return rows


def by_x_rows(plan, table: pd.DataFrame) -> list[dict]:
    """Why throughput peaks where it does: for the design with the most batch-256 throughput at each X, the first
    network at batch 1 and 256 through the performance model: utilization, which roof binds how many layers, and
    the compute, SRAM, NoC and DRAM time of the whole network."""
    col = "mean.large.achieved_tops"
    out = []
    for _, group in table[np.isfinite(table[col])].groupby("X"):
        best = group.loc[group[col].idxmax()]
        point = {p: int(best[p]) for p in PARAMS}
        arch, _ = arch_for_point(plan, point)
        workload = workloads_for_point(plan, point)[0]
        for batch in EXPLAIN_BATCHES:
            rep = evaluate(arch, workload, batch=batch)
            total = rep.total
            out.append({**point, "workload": workload.name, "batch": batch,
                        "achieved_tops": total["achieved_tops"], "utilization": total["utilization"],
                        "bound_counts": dict(total["bound_counts"]),
                        **{f"{k}_ms": 1e3 * sum(layer.get(f"{k}_time_s", 0.0) for layer in rep.layers)
                           for k in ("compute", "sram", "noc", "dram")},
                        "time_ms": 1e3 * total["time_s"]})
    return out


# --------------------------------------------------------------------------- notes

def _ratio(v) -> str:
    return "-" if v is None else f"{v:.2f}x"


def _datacenter_notes(res, table, rows, t2, fig9, trade, peak, by_x) -> list[str]:
    counts = ", ".join(f"{label} {int(np.isfinite(table[f'mean.{rg}.achieved_tops']).sum())}"
                       for rg, label in paper.REGIMES)
    notes = [(f"{res.points} design points, {int(table['within_budget'].sum())} within 500 mm^2 and 300 W; designs "
              f"that run all three networks: {counts}"),
             ("means over the networks as in sect. III-B-2: arithmetic for throughput, geometric for the ratios; "
              "TOPS/TCO is achieved TOPS / mm^4 / runtime W (sect. III-A-3)"),
             DATACENTER_CLAIM,
             ("peak TOPS counts the vector lanes too; Table I's 92-TOPS bound is applied to the tensor units "
              "(X^2 N Tx Ty MACs x 2 x 700 MHz), which the paper's own 65536-MAC designs need"),
             ("the paper prunes designs of \"extremely low performance\" (sect. III-A-1) without a threshold; "
              "accelgen keeps every design within the budgets, so a one-core 4x4 design can lead TU utilization")]
    sources: dict[str, list[str]] = {}
    for r in rows:
        sources.setdefault(r["paper_source"], []).append(f"{r['regime']} {r['target']}")
    notes.append("where the paper names its optima (Fig. 10 marks them; the text gives them):")
    notes += [f"  {', '.join(targets)}: {quote}" for quote, targets in sources.items()]
    notes.append("the paper's named designs in accelgen's ranking (value, rank among the designs that run):")
    notes += [f"  {r['regime']} {r['target']}: {r['paper']} {r['paper_point_value']:.4g}, rank "
              f"{r['paper_point_rank']} of {r['designs']}" for r in rows if "paper_point_rank" in r]
    notes.append(f"Fig. 10(a) trade-off, {trade['efficient']} over {trade['fast']} at batch 1: TOPS/TCO paper "
                 f"{trade['paper_tops_per_tco']}x, accelgen {_ratio(trade['tops_per_tco'])}; TOPS/W paper "
                 f"{trade['paper_tops_per_w']}x, accelgen {_ratio(trade['tops_per_w'])}; achieved TOPS paper >= "
                 f"{trade['paper_achieved_tops']:.2f}x, accelgen {_ratio(trade['achieved_tops'])}")
    notes.append(f"Fig. 9, largest batch within 10 ms at {_label(paper.FIG9_POINT)}: " + ", ".join(
        f"{r['workload']} paper {r['paper_batch']}, accelgen {r['batch'] if r['batch'] is not None else 'none'}"
        for r in fig9))
    notes += [f"  {r['workload']} at batch 1 there: {r['batch1_ms']:.2f} ms, {100 * r['grouped_share']:.0f}% of it "
              "in depthwise (grouped) convolutions, which use one column of an array per group; TF-Sim's "
              "space-to-batch and space-to-depth (sect. III-A-3) are not modelled" for r in fig9
              if r["grouped_share"] > 0.5]
    notes.append("Fig. 8(b), best peak efficiency within budget: " + ", ".join(
        f"{r['metric']} paper {r['paper']}, accelgen {r['accelgen']}" for r in peak))
    notes.append("Table II beside the shipped layer tables (MACs per frame; parameters without the classifier):")
    notes += [f"  {r['workload']}: {r['paper_macs_g']} G MACs (accelgen {r['macs_g']:.2f} G), {r['paper_params_m']} M "
              f"parameters (accelgen {r['params_m']:.2f} M)" for r in t2]
    notes.append("  Table II's ResNet-50 7.8 G is about twice He et al.'s 3.8 G multiply-adds (CVPR 2016, Table 1); "
                 "the shipped table is ResNet-50 v1.5 at 224x224 (4.09 G). #Data (peak transient footprint) is not "
                 "compared: accelgen has no liveness model of activations")
    notes.append("per X, the design with the most batch-256 throughput (ResNet-50; utilization, binding roofs, "
                 "compute / SRAM / NoC time in ms):")
    notes += [f"  X={r['X']} N={r['N']} {r['Tx']}x{r['Ty']} batch {r['batch']}: {r['achieved_tops']:.1f} TOPS, "
              f"utilization {r['utilization']:.2f}, bound {r['bound_counts']}, compute {r['compute_ms']:.2f}, "
              f"SRAM {r['sram_ms']:.2f}, NoC {r['noc_ms']:.2f}" for r in by_x]
    return notes


# --------------------------------------------------------------------------- the studies

def run_datacenter(out: Path, plan=None) -> StudyResult:
    """The datacenter study on ``plan`` (default: the shipped ``neurometer_datacenter`` space; tests pass a
    smaller one) into ``out``."""
    name = "neurometer-datacenter"
    plan = plan if plan is not None else load_space(shipped.resolve("dse", "neurometer_datacenter"))
    res = run(plan, out, jobs=1, plots=True, on_progress=_progress(name))
    table = paper_means(plan, res.table)
    rows = optima_rows(table)
    t2, fig9, trade = table_ii_rows(plan), fig9_rows(plan, table), tradeoff_row(table)
    peak, by_x = peak_optimum_rows(table), by_x_rows(plan, table)
    notes = _datacenter_notes(res, table, rows, t2, fig9, trade, peak, by_x)
    columns = [("regime", "batch"), ("target", "target"), ("paper", "paper's optimum"),
               ("accelgen", "accelgen's optimum"), ("agrees", "agrees"), ("value", "value"),
               ("area_mm2", "area mm^2"), ("tdp_w", "TDP W"), ("peak_tops", "peak TOPS")]
    tables = {"points": table.to_dict("records"), "table_ii": t2, "fig9": fig9, "tradeoff": [trade],
              "peak_optimum": peak, "by_x": by_x}
    return StudyResult(name, TITLE, rows, columns, tables=tables, notes=notes, files=list(res.files))


TITLE = ("NeuroMeter datacenter inference (sect. III): X x X arrays, N per core, Tx x Ty cores at 28 nm, 700 MHz; "
         "ResNet-50, Inception-v3, NASNet-A Large")


def _sparsity(out: Path) -> StudyResult:
    plan = load_space(shipped.resolve("dse", "neurometer_sparsity"))
    res = run(plan, out, jobs=1, plots=True)
    params = list(plan.param_names)
    rows = []
    for o in plan.objectives:
        best = res.best.get(o.metric)
        if best is None:
            continue
        rows.append({"objective": o.metric, "goal": o.goal, "value": best.get(o.metric),
                     **{p: best.get(p) for p in params}, "area_mm2": best.get("area_mm2"),
                     "tdp_w": best.get("tdp_w"), "peak_tops": best.get("peak_tops")})
    columns = [("objective", "objective"), ("goal", "goal"), ("value", "value"), *[(p, p) for p in params],
               ("area_mm2", "area mm^2"), ("tdp_w", "TDP W"), ("peak_tops", "peak TOPS")]
    return StudyResult("neurometer-sparsity", "NeuroMeter sparsity study: dense vs sparse compute at operand densities",
                       rows, columns, tables={"points": res.table.to_dict("records")},
                       notes=[f"{res.points} points, {res.feasible} feasible"], files=list(res.files))


STUDIES = (
    Study("neurometer-datacenter", TITLE, run_datacenter),
    Study("neurometer-sparsity", "NeuroMeter sparsity study: dense vs sparse compute at operand densities", _sparsity),
)
