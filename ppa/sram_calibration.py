"""Calibrate the SRAM model's term coefficients to the committed CACTI 7 reference grid
(``ppa/data/cacti7_reference.csv``, produced by ``bench/cacti_reference.py``), and measure its error.

Both evaluate the model with CACTI 7's own technology figures (:data:`accelgen.ppa.process.CACTI`), the
inputs CACTI had; estimates evaluate the same coefficients with the node table's.

``python -m accelgen.ppa.sram_calibration [--calibrate]`` prints the error per metric (and refits
and saves the coefficients with ``--calibrate``), and the multi-port check (:func:`port_ratios_vs_reference`).

The coefficients are fitted on single-port memories only; the multi-port terms (:mod:`accelgen.ppa.sram_ports`)
are physical and not fitted. :func:`port_ratios_vs_reference` checks them against CACTI 7's multi-port runs
(``ppa/data/cacti7_ports_reference.csv``): each configuration's ratio to the single-port memory of the same size,
block, banks and node, the model's against CACTI's.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from ..util import write_atomic
from .process import CACTI
from .sram import reference_points
from .sram_terms import (COEF_FILE, METRICS, TERMS, coefficients, data_path, evaluate_organizations,
                         organization_terms, pick_organization)


def errors_vs_reference(coef: dict[str, np.ndarray] | None = None, mask=None) -> dict[str, dict[str, float]]:
    """MAPE and max absolute percentage error per metric against the CACTI 7 points."""
    ref = reference_points()
    if mask is not None:
        ref = {k: v[mask] for k, v in ref.items()}
    coef = coef or coefficients()
    terms, valid, _, _ = organization_terms(ref["capacity_bytes"], ref["block_bytes"], ref["banks"], ref["node_nm"],
                                area_coef=coef["area_um2"], source=CACTI)
    vals, idx = evaluate_organizations(terms, valid, coef)
    got = pick_organization(vals, idx)
    out = {}
    for m in METRICS:
        err = np.abs(got[m] / ref[m] - 1.0) * 100.0
        out[m] = {"mape_pct": float(np.mean(err)), "max_err_pct": float(np.max(err)), "n": int(err.size)}
    return out


#: Rounds of (fit the coefficients, choose the organizations) at most. The alternation can settle into a cycle
#: (a few memories flip between two organizations of nearly equal objective); it stops when a set of choices
#: repeats and keeps the round with the smallest summed mean squared relative error over the metrics.
MAX_ROUNDS = 20


def _fit_metric(terms, idx, y, nnls, fixed_first: bool) -> np.ndarray:
    """Non-negative coefficients of one metric's terms at the chosen organizations, on the relative error;
    with ``fixed_first`` the first term (the cell area, physical) keeps coefficient 1."""
    X = np.take_along_axis(terms, idx[:, None, None], axis=1)[:, 0, :]
    w = 1.0 / y
    target = y - X[:, 0] if fixed_first else y
    X = X[:, 1:] if fixed_first else X
    scale = np.maximum(np.abs(X * w[:, None]).max(axis=0), 1e-30)
    sol, _ = nnls(X * w[:, None] / scale, target * w)
    return np.r_[1.0, sol / scale] if fixed_first else sol / scale


def calibrate(mask=None) -> dict[str, np.ndarray]:
    """Fit the term coefficients to the CACTI 7 points (weighted NNLS on relative error, alternating with the
    organization search until the choices repeat, :data:`MAX_ROUNDS`)."""
    from scipy.optimize import nnls  # noqa: PLC0415 (calibration only; scipy comes with scikit-learn)

    ref = reference_points()
    if mask is not None:
        ref = {k: v[mask] for k, v in ref.items()}
    args = (ref["capacity_bytes"], ref["block_bytes"], ref["banks"], ref["node_nm"])
    coef = {m: np.ones(len(TERMS[m])) for m in METRICS}
    seen, best = [], (np.inf, coef)
    for _ in range(MAX_ROUNDS):
        for stage in ("area", "rest"):
            terms, valid, _, _ = organization_terms(*args, area_coef=None if stage == "area" else coef["area_um2"],
                                                    source=CACTI)
            vals, idx = evaluate_organizations(terms, valid, coef)
            for m in (("area_um2",) if stage == "area" else METRICS[1:]):
                coef[m] = _fit_metric(terms[m], idx, ref[m], nnls, fixed_first=m == "area_um2")
        vals, idx = evaluate_organizations(terms, valid, coef)
        got = pick_organization(vals, idx)
        loss = sum(float(np.mean((got[m] / ref[m] - 1.0) ** 2)) for m in METRICS)
        if loss < best[0]:
            best = (loss, {m: c.copy() for m, c in coef.items()})
        if any(np.array_equal(idx, s) for s in seen):
            break       # the chosen organizations repeat: a fixed point or a cycle
        seen.append(idx)
    coef = best[1]
    return coef


#: the model's metrics compared with CACTI 7's (the CSV column of each; ratios, so units cancel)
PORT_METRICS = {"area_um2": "area_mm2", "read_energy_pj": "read_energy_nj", "write_energy_pj": "write_energy_nj",
                "access_time_ns": "access_time_ns", "leakage_mw": "leakage_mw"}


def port_reference_points() -> list[dict]:
    """The committed CACTI 7 multi-port runs (rows of ``ppa/data/cacti7_ports_reference.csv``); the single-ended
    read-port rows are left out (the model's read ports are differential)."""
    with open(data_path("cacti7_ports_reference.csv"), newline="") as fh:
        return [r for r in csv.DictReader(fh) if int(r["se_read_ports"]) == 0]


def port_ratios_vs_reference() -> dict[str, dict[str, np.ndarray]]:
    """``{ports: {metric: array}}``: for every multi-port CACTI 7 run, (model's ratio to its single-port memory)
    / (CACTI's ratio), the model evaluated with CACTI's technology figures as in the calibration. 1.0: the model
    charges the ports what CACTI charges."""
    rows = port_reference_points()
    key = ("capacity_bytes", "block_bytes", "banks", "node_nm")
    one = {tuple(r[k] for k in key): r for r in rows if r["ports"] == "1rw"}
    multi = [r for r in rows if r["ports"] != "1rw"]
    base = [one[tuple(r[k] for k in key)] for r in multi]

    def model(rs):
        a = {k: np.array([float(r[k]) for r in rs]) for k in (*key, "rw_ports", "read_ports", "write_ports")}
        coef = coefficients()
        terms, valid, _, _ = organization_terms(a["capacity_bytes"], a["block_bytes"], a["banks"], a["node_nm"],
                                                a["rw_ports"], coef["area_um2"], source=CACTI,
                                                read_ports=a["read_ports"], write_ports=a["write_ports"])
        return pick_organization(*evaluate_organizations(terms, valid, coef))

    got, got1 = model(multi), model(base)
    out: dict[str, dict[str, np.ndarray]] = {}
    for label in sorted({r["ports"] for r in multi}):
        sel = np.array([r["ports"] == label for r in multi])
        out[label] = {}
        for m, col in PORT_METRICS.items():
            ref = np.array([float(r[col]) / float(b[col]) for r, b in zip(multi, base)])
            out[label][m] = (got[m] / got1[m] / ref)[sel]
    return out


def save_coefficients(coef: dict[str, np.ndarray], path: Path | None = None) -> Path:
    path = path or data_path(COEF_FILE)
    data = {"about": "accelgen.ppa.sram term coefficients, fitted by accelgen.ppa.sram_calibration.calibrate() to "
                     "ppa/data/cacti7_reference.csv; regenerate with python -m accelgen.ppa.sram_calibration --calibrate",
            "coef": {m: {t: float(c) for t, c in zip(TERMS[m], coef[m])} for m in METRICS}}
    write_atomic(path, json.dumps(data, indent=1) + "\n")
    coefficients.cache_clear()
    return path


if __name__ == "__main__":  # pragma: no cover - maintenance entry point
    import sys

    if "--calibrate" in sys.argv:
        c = calibrate()
        print(save_coefficients(c))
    for metric, e in errors_vs_reference().items():
        print(f"{metric:16s} MAPE {e['mape_pct']:6.1f}%  max {e['max_err_pct']:6.1f}%  (n={e['n']})")
    print("multi-port: (model's ratio to 1rw) / (CACTI 7's), geometric mean [min, max] over the CACTI runs")
    for label, per in port_ratios_vs_reference().items():
        print(f"  {label:6s} " + "  ".join(f"{m.split('_')[0]} {np.exp(np.mean(np.log(v))):4.2f} "
                                          f"[{v.min():.2f}, {v.max():.2f}]" for m, v in per.items()))
