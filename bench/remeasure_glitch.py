"""The shipped models' glitch ratios re-measured with a rise and a fall delay per cell output, and the models refitted
(issue 49, items 3 and 4).

    python bench/remeasure_glitch.py [NAME ...] [-j 2] [--apply] [--out FILE]

A model's energy is the zero-delay switching energy of each point times a glitch ratio, measured by a timed simulation
on a few training points only (the sweep's glitch samples, fit/glitch_samples.py), plus the clock network's. TimedSim
gave every cell output one delay, the mean of its rising and falling arcs; against Icarus with the full Liberty arcs
that overstated the glitch ratio by up to 10% (bench/RESULTS.md, session 31), and it now keeps a delay per output
edge, on a finer grid. Only the ratio depends on that, so instead of re-sweeping every model (10+ CPU-hours), each
glitch sample is rebuilt as its sweep measured it (:func:`accelgen.fit.sweep.point_design`: the same Verilog,
stimulus, clock and library), mapped by today's flow and simulated twice on the same netlist and stimulus: with one
delay per output, the mean of its edges', on a 5 ps grid (the model the dataset was measured with), and with a delay
per edge on today's 2.5 ps grid. The sample's ratio in the dataset is multiplied by the quotient of the two, so that a
netlist that changed since the fit (emission changes; bench/data/glitch_check.json measured those within 1.2%, the
TensorDash fp tiles within 5.5%) moves neither ratio. The first run is also compared with the dataset's ratio: their
quotient is the drift.

Results go to ``bench/data/glitch_remeasure.json`` after every sample (a rerun measures only what is missing).
``--apply``: every model whose samples are all measured has its shipped dataset's ``glitch_sample_ratio``,
``glitch_ratio`` (each point's nearest samples, :func:`accelgen.fit.glitch_samples.glitch_ratios`), ``energy_pj``
(``(energy_zero_delay_pj - clock_energy_pj) * glitch_ratio + clock_energy_pj``, as
:func:`accelgen.fit.sweep.dataset_rows` computes it) and ``glitch_delays`` rewritten, and is refitted and shipped
(``accelgen fit NAME --data fit/data/NAME.csv --ship``). A dataset already marked ``rise_fall`` is left alone.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from accelgen.executor import Executor
from accelgen.fit.api import fit_model, shipped_dataset
from accelgen.fit.glitch import DELAY_MODEL, STEP_PS, TimedSim, cell_delays
from accelgen.fit.glitch_samples import glitch_points, glitch_ratios
from accelgen.fit.measure import glitch_stimulus, map_design
from accelgen.fit.sweep import load_sweep, point_design
from accelgen.registry import FAMILIES
from accelgen.util import canonical_json, sha256_hex, write_atomic

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "fit" / "models"
OUT = ROOT / "bench" / "data" / "glitch_remeasure.json"
#: the time grid the shipped datasets' glitch samples were simulated on (fit/glitch.py before session 32)
BEFORE_STEP_PS = 5.0


def sample_jobs(name: str) -> list[dict]:
    """The glitch samples of model ``name`` as its sweep's jobs (:func:`accelgen.fit.sweep.run_sweep`'s)."""
    spec = load_sweep(name, families=FAMILIES)
    sampled = glitch_points(spec)
    return [{"model": name, "family": spec.family, "block": spec.block, "params": params, "split": split,
             "densities": spec.densities, "profile": spec.profile, "cycles": spec.cycles, "lanes": spec.lanes,
             "seed": spec.seed, "clock_mhz": spec.clock_mhz, "liberty": None, "glitch": True}
            for split, params in spec.points() if canonical_json(params) in sampled]


def point_key(job: dict) -> str:
    """A point's identity in its dataset (the ``key`` column of :func:`accelgen.fit.sweep.dataset_rows`)."""
    return sha256_hex(canonical_json({"family": job["family"], "params": job["params"]}))[:32]


def remeasure(job: dict) -> dict:
    """One sample mapped by today's flow and simulated with each delay model on the same netlist and stimulus."""
    t0 = time.monotonic()
    design = point_design(job)
    m = map_design(design)
    _, stims = glitch_stimulus(design.stimuli)
    edges = cell_delays(m.mapped.netlist, design.top, m.mapped.timing_library, m.energy.load_ff)
    mean = {net: (rise + fall) / 2 for net, (rise, fall) in edges.items()}
    runs = {kind: TimedSim(m.sim, delays, step_ps).run(stims, m.energy.per_toggle_fj)
            for kind, delays, step_ps in (("mean_of_edges", mean, BEFORE_STEP_PS), (DELAY_MODEL, edges, STEP_PS))}
    return {"model": job["model"], "key": point_key(job), "params": job["params"], "cells": m.record()["cells"],
            "zero_delay_fj": runs[DELAY_MODEL]["zero_delay"],
            "ratio": {kind: r["ratio"] for kind, r in runs.items()},
            "quotient": runs[DELAY_MODEL]["ratio"] / runs["mean_of_edges"]["ratio"],
            "seconds": round(time.monotonic() - t0, 1)}


def measure_all(names: list[str], jobs: int, out: Path) -> dict:
    data = json.loads(out.read_text()) if out.exists() else {"samples": {}}
    data["about"] = ("each shipped model's glitch samples re-measured with one delay per cell output (mean of edges) "
                     "and a rise and a fall delay, on the same netlist and stimulus (bench/remeasure_glitch.py)")
    todo = [j for name in names for j in sample_jobs(name) if f"{name}/{point_key(j)}" not in data["samples"]]
    print(f"{len(todo)} samples to measure", flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, check=False,
                            text=True).stdout.strip()
    with Executor(jobs) as pool:
        for i, rec in pool.map_unordered(remeasure, todo):
            data["samples"][f"{rec['model']}/{rec['key']}"] = rec | {"commit": commit}
            write_atomic(out, json.dumps(data, indent=1, sort_keys=True))
            print(f"{rec['model']}: {rec['cells']} cells, ratio {rec['ratio']['mean_of_edges']:.3f} -> "
                  f"{rec['ratio'][DELAY_MODEL]:.3f} ({rec['quotient']:.3f}), {rec['seconds']} s", flush=True)
    return data


def apply(name: str, data: dict) -> dict | None:
    """Rewrite model ``name``'s shipped dataset with the re-measured ratios and refit it; the per-sample table."""
    path = shipped_dataset(name)
    df = pd.read_csv(path)
    if "glitch_delays" in df and (df["glitch_delays"] == DELAY_MODEL).all():
        print(f"{name}: already {DELAY_MODEL}")
        return None
    jobs = sample_jobs(name)
    recs = {point_key(j): data["samples"].get(f"{name}/{point_key(j)}") for j in jobs}
    if not all(recs.values()):
        print(f"{name}: {sum(r is None for r in recs.values())} of {len(recs)} samples not measured yet")
        return None
    spec = load_sweep(name, families=FAMILIES)
    params = {point_key({"family": spec.family, "params": p}): p for _, p in spec.points()}
    keys = list(dict.fromkeys(df["key"]))
    missing = [k for k in keys if k not in params]
    if missing:
        raise SystemExit(f"{name}: {len(missing)} dataset points are not in its sweep file (e.g. {missing[0]})")
    table, measured = [], []
    for key, rec in recs.items():
        stored = df.loc[df["key"] == key, "glitch_sample_ratio"].dropna()
        if stored.empty:
            raise SystemExit(f"{name}: sample {rec['params']} has no ratio in the dataset")
        old = float(stored.iloc[0])
        new = old * rec["quotient"]
        measured.append((spec.block.validate(params[key]).model_dump(), new))
        table.append({"params": rec["params"], "dataset": old, "flow_now": rec["ratio"]["mean_of_edges"],
                      "drift": rec["ratio"]["mean_of_edges"] / old, "quotient": rec["quotient"], "new": new})
    validated = [spec.block.validate(params[k]).model_dump() for k in keys]
    ratio_of = dict(zip(keys, glitch_ratios(validated, measured), strict=True))
    new_sample = {k: r for k, (_, r) in zip(recs, measured, strict=True)}
    ratio = df["key"].map(ratio_of)
    switching = df["energy_zero_delay_pj"] - df["clock_energy_pj"]
    before = df["energy_pj"].copy()
    df["energy_pj"] = np.where(df["energy_zero_delay_pj"].notna(), switching * ratio + df["clock_energy_pj"],
                               df["energy_pj"])
    df["glitch_ratio"] = ratio
    df["glitch_sample_ratio"] = df["key"].map(new_sample)
    df["glitch_delays"] = DELAY_MODEL
    write_atomic(path, df.to_csv(index=False))
    fit_model(name, families=FAMILIES, data=path, ship=True)
    change = (df["energy_pj"] / before).describe()
    print(f"{name}: energy_pj x{change['min']:.3f} .. x{change['max']:.3f} (mean {change['mean']:.3f}); refitted")
    return {"samples": table, "energy_pj_change": {k: float(change[k]) for k in ("min", "mean", "max")}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="models of fit/models (default: all)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--apply", action="store_true", help="rewrite the datasets and refit the models measured")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    names = args.names or sorted(p.stem for p in MODELS.glob("*.json"))
    data = measure_all(names, args.jobs, args.out)
    if args.apply:
        data.setdefault("applied", {})
        for name in names:
            result = apply(name, data)
            if result is not None:
                data["applied"][name] = result
                write_atomic(args.out, json.dumps(data, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
