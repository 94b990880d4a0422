"""The shipped models' glitch ratios re-measured with a rise and a fall delay per cell output, and the models refitted
(issue 49, items 3 and 4).

    python bench/remeasure_glitch.py [NAME ...] [-j 2] [--cycles 8] [--max-samples K] [--apply] [--out FILE]

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

Each timed run counts ``--cycles`` cycles (default 8; the flow's glitch runs count 24) on the sweep's lanes: both runs
see the same stimulus, so their quotient needs fewer cycles than a ratio does. ``--max-samples K`` re-measures at most
K samples of a model (evenly spaced in pipelining depth); each other sample takes the quotient of the measured ones
nearest to it, by the rule that gives every point its ratio (:func:`accelgen.fit.glitch_samples.glitch_ratios`):
systolic-grouped_bf16's 22 samples are 8x4 arrays of 82,515 cells, 6 min to map each.

Results go to ``bench/data/glitch_remeasure.json`` after every sample (a rerun measures only what is missing).
``--apply``: every model whose samples are all measured has its shipped dataset's ``glitch_sample_ratio``,
``glitch_ratio`` (each point's nearest samples, :func:`accelgen.fit.glitch_samples.glitch_ratios`), ``energy_pj``
(``(energy_zero_delay_pj - clock_energy_pj) * glitch_ratio + clock_energy_pj``, as
:func:`accelgen.fit.sweep.dataset_rows` computes it) and ``glitch_delays`` rewritten, and is refitted and shipped
(``accelgen fit NAME --data fit/data/NAME.csv --ship``). A dataset already marked ``rise_fall`` is left alone: to
apply again with more samples measured, first restore the dataset as it was shipped before its first application
(``git show <commit>:fit/data/NAME.csv > fit/data/NAME.csv``), since the sample ratios it holds are already scaled.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from accelgen.executor import Executor
from accelgen.fit.api import fit_model, shipped_dataset
from accelgen.fit.glitch import DELAY_MODEL, STEP_PS, TimedSim, cell_delays
from accelgen.fit.glitch_samples import PIPELINING, glitch_points, glitch_ratios
from accelgen.fit.measure import glitch_stimulus, map_design
from accelgen.fit.sweep import load_sweep, point_design, point_job
from accelgen.registry import FAMILIES
from accelgen.util import canonical_json, sha256_hex, write_atomic

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "fit" / "models"
OUT = ROOT / "bench" / "data" / "glitch_remeasure.json"
#: the time grid the shipped datasets' glitch samples were simulated on (fit/glitch.py before session 32)
BEFORE_STEP_PS = 5.0


def _value(v):
    """A dataset cell as the parameter it records (numpy scalars as Python values, empty as None)."""
    v = v.item() if hasattr(v, "item") else v
    return None if isinstance(v, float) and math.isnan(v) else v


def _same(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return a == b


def dataset_points(df: pd.DataFrame, fields: list[str]) -> dict[str, dict]:
    """Each point of a dataset (its ``key``) with its parameters as the dataset records them (the validated
    parameters' columns): the keys of older datasets were hashed differently, so points are matched by value."""
    cols = [f for f in fields if f in df]
    first = df.drop_duplicates("key").set_index("key")
    return {key: {f: _value(row[f]) for f in cols} for key, row in first.iterrows()}


def sample_jobs(name: str) -> list[dict]:
    """The glitch samples of model ``name``'s shipped dataset as sweep jobs (:func:`accelgen.fit.sweep.run_sweep`'s):
    the sweep's own samples where they are the dataset's, else the dataset's point (adder_tree's and fan's datasets
    predate the rule that spreads the samples over the pipelining settings)."""
    spec = load_sweep(name, families=FAMILIES)
    sampled = glitch_points(spec)
    ours = [point_job(spec, split, params, glitch=True) | {"model": name} for split, params in spec.points()
            if canonical_json(params) in sampled]
    df = pd.read_csv(shipped_dataset(name))
    points = dataset_points(df, list(spec.block.params_model.model_fields))
    jobs = []
    for key, row in df.dropna(subset=["glitch_sample_ratio"]).drop_duplicates("key").set_index("key").iterrows():
        same = [j for j in ours if matches(spec.block.validate(j["params"]).model_dump(), points[key])]
        jobs.append(same[0] if same else point_job(spec, row["split"], points[key], glitch=True) | {"model": name})
    return jobs


def matches(params: dict, recorded: dict) -> bool:
    """Whether validated ``params`` are the point a dataset records (its parameter columns)."""
    return all(_same(params.get(k), v) for k, v in recorded.items())


def point_key(job: dict) -> str:
    """A point's identity in its dataset (the ``key`` column of :func:`accelgen.fit.sweep.dataset_rows`)."""
    return sha256_hex(canonical_json({"family": job["family"], "params": job["params"]}))[:32]


def remeasure(job: dict) -> dict:
    """One sample mapped by today's flow and simulated with each delay model on the same netlist and stimulus, on the
    first ``job["glitch_cycles"]`` counted cycles of the sweep's glitch stimulus."""
    t0 = time.monotonic()
    design = point_design(job)
    m = map_design(design)
    _, stims = glitch_stimulus(design.stimuli, job["glitch_cycles"])
    edges = cell_delays(m.mapped.netlist, design.top, m.mapped.timing_library, m.energy.load_ff)
    mean = {net: (rise + fall) / 2 for net, (rise, fall) in edges.items()}
    runs = {kind: TimedSim(m.sim, delays, step_ps).run(stims, m.energy.per_toggle_fj)
            for kind, delays, step_ps in (("mean_of_edges", mean, BEFORE_STEP_PS), (DELAY_MODEL, edges, STEP_PS))}
    return {"model": job["model"], "key": point_key(job), "params": job["params"], "cells": m.record()["cells"],
            "cycles": runs[DELAY_MODEL]["cycles"], "lanes": runs[DELAY_MODEL]["lanes"],
            "zero_delay_fj": runs[DELAY_MODEL]["zero_delay"],
            "ratio": {kind: r["ratio"] for kind, r in runs.items()},
            "quotient": runs[DELAY_MODEL]["ratio"] / runs["mean_of_edges"]["ratio"],
            "seconds": round(time.monotonic() - t0, 1)}


def chosen(samples: list[dict], limit: int | None) -> list[dict]:
    """At most ``limit`` of a model's samples, evenly spaced in the order of their total pipelining depth (the
    parameters :func:`accelgen.fit.glitch_samples.glitch_ratios` measures nearness in), first and last included."""
    if limit is None or len(samples) <= limit:
        return samples
    depth = [sum(float(v) for k, v in j["params"].items() if PIPELINING.search(k) and isinstance(v, (int, float)))
             for j in samples]
    order = sorted(range(len(samples)), key=lambda i: (depth[i], i))
    picks = {order[round(i * (len(order) - 1) / (limit - 1))] for i in range(limit)} if limit > 1 else {order[0]}
    return [samples[i] for i in sorted(picks)]


def measure_all(names: list[str], jobs: int, out: Path, limit: int | None, cycles: int) -> dict:
    data = json.loads(out.read_text()) if out.exists() else {"samples": {}}
    data["about"] = ("each shipped model's glitch samples re-measured with one delay per cell output (mean of edges) "
                     "and a rise and a fall delay, on the same netlist and stimulus (bench/remeasure_glitch.py)")
    todo = [j | {"glitch_cycles": cycles} for name in names for j in chosen(sample_jobs(name), limit)
            if f"{name}/{point_key(j)}" not in data["samples"]]
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
    df = pd.read_csv(path).copy()
    if "glitch_delays" in df and (df["glitch_delays"] == DELAY_MODEL).all():
        print(f"{name}: already {DELAY_MODEL}")
        return None
    jobs = sample_jobs(name)
    recs = {point_key(j): data["samples"].get(f"{name}/{point_key(j)}") for j in jobs}
    if not any(recs.values()):
        print(f"{name}: no sample measured yet")
        return None
    spec = load_sweep(name, families=FAMILIES)
    points = dataset_points(df, list(spec.block.params_model.model_fields))
    stored = df.dropna(subset=["glitch_sample_ratio"]).drop_duplicates("key").set_index("key")["glitch_sample_ratio"]
    # the dataset's own assignment, recomputed from its points and samples, must be what it holds
    before = dict(zip(points, glitch_ratios(list(points.values()), [(points[k], r) for k, r in stored.items()]),
                      strict=True))
    if not np.allclose(df["key"].map(before), df["glitch_ratio"], rtol=1e-9):
        raise SystemExit(f"{name}: the dataset's glitch_ratio is not its samples' assignment; not rewritten")
    sample_key = {}
    for j in jobs:
        found = [k for k in stored.index if matches(spec.block.validate(j["params"]).model_dump(), points[k])]
        if len(found) != 1:
            raise SystemExit(f"{name}: sample {j['params']} matches {len(found)} of the dataset's samples")
        sample_key[point_key(j)] = found[0]
    # a sample not re-measured (--max-samples) takes the quotient of the measured samples nearest to it, by the rule
    # that gives every point its ratio
    quotients = glitch_ratios([points[sample_key[k]] for k in recs],
                              [(points[sample_key[k]], r["quotient"]) for k, r in recs.items() if r])
    table, new_sample = [], {}
    for (key, rec), quotient in zip(recs.items(), quotients, strict=True):
        dkey = sample_key[key]
        old = float(stored[dkey])
        new_sample[dkey] = old * quotient
        row = {"params": next(j["params"] for j in jobs if point_key(j) == key), "dataset": old,
               "quotient": quotient, "new": new_sample[dkey], "measured": bool(rec)}
        if rec:
            row |= {"flow_now": rec["ratio"]["mean_of_edges"], "drift": rec["ratio"]["mean_of_edges"] / old}
        table.append(row)
    ratio_of = dict(zip(points, glitch_ratios(list(points.values()), [(points[k], r) for k, r in new_sample.items()]),
                        strict=True))
    ratio = df["key"].map(ratio_of)
    switching = df["energy_zero_delay_pj"] - df["clock_energy_pj"]
    energy_before = df["energy_pj"].copy()
    df["energy_pj"] = np.where(df["energy_zero_delay_pj"].notna(), switching * ratio + df["clock_energy_pj"],
                               df["energy_pj"])
    df["glitch_ratio"] = ratio
    df["glitch_sample_ratio"] = df["key"].map(new_sample)
    df["glitch_delays"] = DELAY_MODEL
    write_atomic(path, df.to_csv(index=False))
    fit_model(name, families=FAMILIES, data=path, ship=True)
    change = (df["energy_pj"] / energy_before).describe()
    print(f"{name}: energy_pj x{change['min']:.3f} .. x{change['max']:.3f} (mean {change['mean']:.3f}); refitted")
    return {"samples": table, "energy_pj_change": {k: float(change[k]) for k in ("min", "mean", "max")}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="models of fit/models (default: all)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--max-samples", type=int, default=None,
                    help="re-measure at most this many samples per model (the others take the nearest's quotient)")
    ap.add_argument("--cycles", type=int, default=8, help="counted cycles of each timed run (the flow's: 24)")
    ap.add_argument("--apply", action="store_true", help="rewrite the datasets and refit the models measured")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    names = args.names or sorted(p.stem for p in MODELS.glob("*.json"))
    data = measure_all(names, args.jobs, args.out, args.max_samples, args.cycles)
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
