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
        if name == "neurometer-datacenter":
            notes += _datacenter_notes(rows)
        columns = [("objective", "objective"), ("goal", "goal"), ("value", "value"),
                   *[(p, p) for p in params], ("area_mm2", "area mm^2"), ("tdp_w", "TDP W"),
                   ("peak_tops", "peak TOPS")]
        points = res.table.to_dict("records")
        return StudyResult(name, title, rows, columns, tables={"points": points}, notes=notes, files=list(res.files))

    return Study(name, title, run_it)


def _datacenter_notes(rows: list[dict]) -> list[str]:
    best = {r["objective"]: r for r in rows}
    out = [DATACENTER_CLAIM]
    for metric in ("achieved_tops", "tops_per_tco"):
        r = best.get(metric)
        if r is not None and "X" in r:
            out.append(f"accelgen: best {metric} at X={r['X']}, N={r.get('N')}, Tx={r.get('Tx')}, Ty={r.get('Ty')}")
    return out


STUDIES = (
    _dse_study("neurometer-datacenter", "neurometer_datacenter",
               "NeuroMeter datacenter inference: X x X arrays, N per core, Tx x Ty cores at 28 nm, 700 MHz"),
    _dse_study("neurometer-sparsity", "neurometer_sparsity",
               "NeuroMeter sparsity study: dense vs sparse compute at operand densities"),
)
