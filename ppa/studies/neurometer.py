"""NeuroMeter's case studies (Tang et al., HPCA 2021, sect. VI) as studies: the shipped design-space
explorations ``neurometer_datacenter`` and ``neurometer_sparsity`` (``examples/dse/``), run by
:func:`accelgen.ppa.dse.run` into the study's directory (resumable: a rerun reuses the finished chunks).

Rows: the best point per objective (``objective``, ``goal``, ``value``, the space's parameters, area, TDP and
peak TOPS); ``points``: every point of the exploration, as ``points.csv`` holds it.
"""

from __future__ import annotations

from pathlib import Path

from ... import shipped
from ..dse import load_space, run
from ..dse.point import arch_for_point, workloads_for_point
from ..perf import evaluate
from .result import Study, StudyResult

#: NeuroMeter's abstract on the datacenter study (Tang et al., HPCA 2021): the paper's finding to put beside ours
DATACENTER_CLAIM = ("paper: \"brawny designs with 64x64 systolic arrays are the most performant and efficient\" "
                    "(Tang et al., HPCA 2021, abstract)")


def _dse_study(name: str, space: str, title: str):
    def run_it(out: Path) -> StudyResult:
        plan = load_space(shipped.resolve("dse", space))
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
        notes = [f"{res.points} points, {res.feasible} feasible"]
        tables = {"points": res.table.to_dict("records")}
        if name == "neurometer-datacenter":
            notes += _datacenter_notes(rows)
            tables["by_x"] = _by_x(plan, res.table)
            notes += _by_x_notes(tables["by_x"])
        columns = [("objective", "objective"), ("goal", "goal"), ("value", "value"),
                   *[(p, p) for p in params], ("area_mm2", "area mm^2"), ("tdp_w", "TDP W"),
                   ("peak_tops", "peak TOPS")]
        return StudyResult(name, title, rows, columns, tables=tables, notes=notes, files=list(res.files))

    return Study(name, title, run_it)


def _datacenter_notes(rows: list[dict]) -> list[str]:
    best = {r["objective"]: r for r in rows}
    out = [DATACENTER_CLAIM]
    for metric in ("achieved_tops", "tops_per_tco"):
        r = best.get(metric)
        if r is not None and "X" in r:
            out.append(f"accelgen: best {metric} at X={r['X']}, N={r.get('N')}, Tx={r.get('Tx')}, Ty={r.get('Ty')}")
    return out


#: the workload and batches the per-X explanation runs (the study's first workload, its batch-1 and large regimes)
EXPLAIN_BATCHES = (1, 128)


def _by_x(plan, table) -> list[dict]:
    """Why throughput peaks where it does, component by component: for the feasible point with the most achieved
    TOPS at each X, the first workload at batch 1 and 128 through the performance model: utilization of the
    arrays, which roof binds how many layers, and the compute, SRAM and DRAM time of the whole network."""
    feasible = table[table["feasible"].astype(bool)]
    out = []
    for x, group in feasible.groupby("X"):
        best = group.loc[group["achieved_tops"].idxmax()]
        point = {p: best[p].item() if hasattr(best[p], "item") else best[p] for p in plan.param_names}
        arch, _ = arch_for_point(plan, point)
        workload = workloads_for_point(plan, point)[0]
        for batch in EXPLAIN_BATCHES:
            rep = evaluate(arch, workload, batch=batch)
            total = rep.total
            out.append({**point, "workload": workload.name, "batch": batch,
                        "achieved_tops": total["achieved_tops"], "utilization": total["utilization"],
                        "bound_counts": dict(total["bound_counts"]),
                        "compute_ms": 1e3 * sum(layer["compute_time_s"] for layer in rep.layers),
                        "sram_ms": 1e3 * sum(layer["sram_time_s"] for layer in rep.layers),
                        "noc_ms": 1e3 * sum(layer.get("noc_time_s", 0.0) for layer in rep.layers),
                        "dram_ms": 1e3 * sum(layer["dram_time_s"] for layer in rep.layers),
                        "time_ms": 1e3 * total["time_s"]})
    return out


def _by_x_notes(by_x: list[dict]) -> list[str]:
    lines = [("per X, the point with the most achieved TOPS (first workload; utilization, binding roofs, "
              "compute / SRAM / NoC time in ms):")]
    for r in by_x:
        lines.append(f"  X={r['X']} N={r['N']} {r['Tx']}x{r['Ty']} batch {r['batch']}: {r['achieved_tops']:.1f} TOPS, "
                     f"utilization {r['utilization']:.2f}, bound {r['bound_counts']}, compute {r['compute_ms']:.2f}, "
                     f"SRAM {r['sram_ms']:.2f}, NoC {r['noc_ms']:.2f}")
    big = max(EXPLAIN_BATCHES)
    roofs = [f"X={r['X']} ({r['Tx'] * r['Ty']} cores): {max(r['bound_counts'], key=r['bound_counts'].get)}"
             for r in by_x if r["batch"] == big]
    lines.append(f"the roof that binds most layers at batch {big}: " + ", ".join(roofs) + ". Small arrays need many "
                 "cores, and every core reads the input activations spread over the other cores' memories through "
                 "the NoC bisection (the NoC roof, accelgen.ppa.perf); one large array per core is filled poorly "
                 "at batch 1 and waits on its core's SRAM at large batches")
    return lines


STUDIES = (
    _dse_study("neurometer-datacenter", "neurometer_datacenter",
               "NeuroMeter datacenter inference: X x X arrays, N per core, Tx x Ty cores at 28 nm, 700 MHz"),
    _dse_study("neurometer-sparsity", "neurometer_sparsity",
               "NeuroMeter sparsity study: dense vs sparse compute at operand densities"),
)
