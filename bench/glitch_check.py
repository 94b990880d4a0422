"""Every shipped model's glitch ratio against Icarus Verilog (issue 49): one training point per model file.

    python bench/glitch_check.py [MODEL ...] [--arcs MODEL ...] [--points int8_mac fp16_mac] [--decompose MODEL ...]
                                 [--redo] [--budget 64000] [--timeout 300] [--out FILE]

Needs Debian's ``iverilog`` (bench only). For each model of ``fit/models`` (default: all of them), the point is the
smallest of the model's own glitch samples (``training.glitch.samples``, the points whose timed simulation the model
carries) by the model's fitted area: the cheapest point Icarus can run whose ratio the model file records (in every
family but mac-fp32 an unpipelined configuration, where glitching is largest). It is prepared as its sweep
(``fit/sweeps/NAME.yaml``) measures it: mapped by the flow at the sweep's clock (default library), the sweep's
stimulus (seed, lanes, cycles) at its first density, cut to the flow's GLITCH_CYCLES counted cycles. Then:

* the flow's TimedSim on all the sweep's lanes (as ``accelgen sweep`` measures it): reproduces the model file's ratio;
* :func:`glitch_vs_icarus.compare_point` in ``grid`` mode (Icarus with TimedSim's delays on its 2.5 ps grid: the same
  model, an independent simulator) on the first ``lanes`` lanes, ``lanes = min(16, budget // cells)`` (at least 1),
  so that the Icarus run holds at most ``budget`` cell instances;
* for the models named after ``--arcs`` (and bench/energy_points.py's ``--points``): also ``exact`` (the same delays
  to 1 ps), ``arcs_no_ckq`` (the Liberty's per-pin rise/fall arcs, sources switching at the edge) and ``arcs`` (the
  arcs with clock-to-Q and input arrival): the model's own assumptions checked;
* for the models named after ``--decompose``: also ``arcs_mean``, ``arcs_pin`` and ``arcs_edge`` (the arcs with one
  distinction taken away: :func:`glitch_vs_icarus.compare_point`).

An Icarus run longer than ``--timeout`` seconds (default 300) is stopped and the model recorded as skipped. Results go
to ``bench/data/glitch_check.json`` after every model (the runs a model has there already are kept unless ``--redo``),
with the iverilog version, and per model the accelgen commit and the command of each run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import energy_points as ep
import glitch_vs_icarus as gvi

from accelgen.fit.glitch import TimedSim, cell_delays
from accelgen.fit.measure import glitch_stimulus
from accelgen.fit.model import read_model
from accelgen.fit.sweep import load_sweep
from accelgen.registry import FAMILIES

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "fit" / "models"
OUT = ROOT / "bench" / "data" / "glitch_check.json"
#: the Icarus runs of an ``--arcs`` model (glitch_vs_icarus.compare_point's modes)
ARC_MODES = ["grid", "exact", "arcs_no_ckq", "arcs"]
#: and of a ``--decompose`` model: the arcs with one distinction taken away at a time
DECOMPOSE_MODES = ["arcs_mean", "arcs_pin", "arcs_edge"]


def chosen_sample(model_path: Path) -> tuple[dict, float, float]:
    """The model's glitch sample of smallest fitted area: (its parameters, its recorded ratio, that area, um^2)."""
    data = json.loads(model_path.read_text())
    model = read_model(model_path)
    best = None
    for s in data["training"]["glitch"]["samples"]:
        params = {k: v for k, v in s.items() if k != "ratio"}
        area = float(model.predict_target("area_um2", **{k: v for k, v in params.items() if k in data["inputs"]}))
        if best is None or area < best[2]:
            best = (params, s["ratio"], area)
    return best


def flow_ratio(point: ep.Point) -> float:
    """TimedSim's ratio on every lane of the sweep's stimulus, cut as :func:`accelgen.fit.measure.measure` cuts it."""
    _, stims = glitch_stimulus({1.0: point.stimuli})
    delays = cell_delays(point.mapped.netlist, ep.TOP, point.mapped.timing_library, point.energy.load_ff)
    return TimedSim(point.sim, delays).run(stims, point.energy.per_toggle_fj)["ratio"]


def model_params(params: dict, family: str) -> dict:
    """A sample's parameters as the model measured them: a parameter the family gained after the fit takes the value
    the generator had then. TensorDash's ``summation`` (b0735e3, 2026-11-28) made an fp PE fused by default; every
    shipped TensorDash model was fitted on the lane tree (``tree``), as its sweep files say."""
    fields = FAMILIES[family].params_model.model_fields
    if "summation" in fields and "summation" not in params and params.get("dtype", "int") != "int":
        return {**params, "summation": "tree"}
    return params


def check_model(name: str, modes: list[str], budget: int, timeout: float, workdir: Path) -> dict:
    params, recorded, area = chosen_sample(MODELS / f"{name}.json")
    spec = load_sweep(name, families=FAMILIES)
    params = model_params(params, spec.family)
    density = spec.densities[0]
    t0 = time.monotonic()
    point = ep.prepare_params(name, spec.family, params, density=density, cycles=spec.cycles, lanes=spec.lanes,
                              seed=spec.seed, clock_mhz=spec.clock_mhz)
    cells = len(ep.cell_instances(point.mapped.netlist, ep.TOP))
    t_map = time.monotonic() - t0
    t0 = time.monotonic()
    flow = flow_ratio(point)
    rec = {"model": name, "family": spec.family, "point": params, "fitted_area_um2": area,
           "mapped_area_um2": point.energy.area_um2, "cells": cells,
           "densities": {"sweep": spec.densities, "used": density}, "seed": spec.seed, "sweep_lanes": spec.lanes,
           "sweep_cycles": spec.cycles, "clock_mhz": spec.clock_mhz,
           "ratio_model_file": recorded, "ratio_flow_now": flow,
           "seconds": {"map_and_simulate": round(t_map, 1), "timedsim_all_lanes": round(time.monotonic() - t0, 1)},
           "runs": {}}
    print(f"{name}: {params}, {cells} cells, {point.energy.area_um2:.0f} um2; ratio in the model file {recorded:.3f}, "
          f"the flow now {flow:.3f} ({spec.lanes} lanes)", flush=True)
    lanes = max(1, min(16, budget // max(cells, 1)))
    for mode in modes:
        try:
            rec["runs"][mode] = gvi.compare_point(point, lanes, workdir / name, mode, timeout=timeout)
        except subprocess.TimeoutExpired:
            rec["runs"][mode] = {"skipped": f"Icarus ran longer than {timeout:.0f} s ({lanes} lanes)"}
            print(f"  {mode}: skipped, Icarus > {timeout:.0f} s", flush=True)
            break
    return rec


def check_bench_point(name: str, modes: list[str], budget: int, timeout: float, workdir: Path) -> dict:
    """One of bench/energy_points.py's points (the issue's int8 and fp16 MACs), as glitch_vs_icarus.py runs it."""
    point = ep.prepare(name, lanes=64)
    cells = len(ep.cell_instances(point.mapped.netlist, ep.TOP))
    family, params = ep.POINTS[name]
    rec = {"model": f"energy_points:{name}", "family": family, "point": params,
           "mapped_area_um2": point.energy.area_um2, "cells": cells, "densities": {"used": 1.0}, "seed": 1,
           "sweep_lanes": 64, "clock_mhz": 1000.0, "ratio_flow_now": flow_ratio(point), "runs": {}}
    lanes = max(1, min(16, budget // max(cells, 1)))
    for mode in modes:
        rec["runs"][mode] = gvi.compare_point(point, lanes, workdir / name, mode, timeout=timeout)
    return rec


def _point_text(params: dict) -> str:
    """The parameters that differ from nothing obvious: ints and strings, the false flags dropped."""
    return ", ".join(f"{k} {v}" for k, v in params.items() if v is not False and k not in ("signed", "dtype")
                     or k == "dtype" and v != "int")


def tables(data: dict) -> str:
    """The markdown tables of bench/RESULTS.md from the data file: the same-model check of every model, then the
    arcs runs (glitch ratios as the flow counts them: every net, the sources included)."""
    rows = [("| model | point | cells | lanes x cycles | toggles per lane-cycle zero-delay / TimedSim / Icarus | "
             "TimedSim / Icarus | glitch ratio: model file / flow now, all lanes | TimedSim / Icarus, lanes run | "
             "toggles on nets > 20% off | Icarus s |"), "|---|---|---|---|---|---|---|---|---|---|"]
    arcs = [("| model | TimedSim (5 ps) | 1 ps | arcs_mean | arcs_pin | arcs_edge | arcs, no clock-to-Q | arcs | "
             "toggles TimedSim / arcs |"), "|---|---|---|---|---|---|---|---|---|"]
    for name, rec in data["models"].items():
        g = rec["runs"].get("grid", {})
        if "skipped" in g or not g:
            rows.append(f"| {name} | {_point_text(rec['point'])} | {rec['cells']} | | {g.get('skipped', 'not run')} "
                        "| | | | | |")
            continue
        t = g["toggles_per_lane_cycle"]
        rows.append(f"| {name} | {_point_text(rec['point'])} | {rec['cells']:,} | {g['lanes']} x {g['counted_cycles']}"
                    f" | {t['zero_delay']:,.1f} / {t['timedsim']:,.1f} / {t['icarus']:,.1f} | "
                    f"{g['toggles_timedsim_over_icarus']:.4f} | {rec.get('ratio_model_file', float('nan')):.3f} / "
                    f"{rec['ratio_flow_now']:.3f} | {g['glitch_ratio_all_nets']['timedsim']:.3f} / "
                    f"{g['glitch_ratio_all_nets']['icarus']:.3f} | "
                    f"{100 * g['per_net']['toggle_share_on_nets_over_20pct']:.1f}% | {g['seconds']['icarus']:.0f} |")
        if "arcs" in rec["runs"]:
            r = {m: run["glitch_ratio_all_nets"]["icarus"] for m, run in rec["runs"].items() if "skipped" not in run}
            cells = " | ".join(f"{r[m]:.3f}" if m in r else "" for m in
                               ("exact", "arcs_mean", "arcs_pin", "arcs_edge", "arcs_no_ckq", "arcs"))
            arcs.append(f"| {name} | {g['glitch_ratio_all_nets']['timedsim']:.3f} | {cells} | "
                        f"{rec['runs']['arcs']['toggles_timedsim_over_icarus']:.3f} |")
    return "\n".join(rows) + "\n\n" + "\n".join(arcs) + "\n"


def header(argv: list[str]) -> dict:
    def git(*cmd):
        return subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True, check=False).stdout.strip()
    # "+bench" when this bench's own files differ from the commit (a run from a working tree being edited)
    commit = git("rev-parse", "--short", "HEAD") + ("+bench" if git("status", "--porcelain", "bench/energy_points.py",
                                                                    "bench/glitch_vs_icarus.py", __file__) else "")
    return {"about": "every shipped model's glitch ratio: the flow's TimedSim against Icarus Verilog on the same "
                     "mapped netlist (issue 49); written by bench/glitch_check.py (its docstring says how)",
            "iverilog": gvi.iverilog_version(), "accelgen_commit": commit,
            "command": "python bench/glitch_check.py " + " ".join(argv)}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    all_models = sorted(p.stem for p in MODELS.glob("*.json"))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", metavar="MODEL",
                    help=f"default (without --points, --arcs, --decompose): all of {', '.join(all_models)}")
    ap.add_argument("--arcs", nargs="*", default=[], metavar="MODEL",
                    help="models also run with 1 ps delays and with the Liberty's arcs")
    ap.add_argument("--points", nargs="*", default=[], choices=sorted(ep.POINTS),
                    help="bench/energy_points.py points, run as --arcs models")
    ap.add_argument("--decompose", nargs="*", default=[], metavar="MODEL",
                    help="models (or energy_points:NAME) also run with one distinction of the arcs taken away")
    ap.add_argument("--budget", type=int, default=64000, help="cell instances per Icarus run (sets the lanes)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds an Icarus run may take")
    ap.add_argument("--redo", action="store_true", help="rerun what the output file holds already")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--table", action="store_true", help="print the tables of the output file and stop")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/glitch_check"))
    args = ap.parse_args(argv)
    known = set(all_models) | {f"energy_points:{p}" for p in ep.POINTS}
    if unknown := sorted(set(args.models + args.arcs + args.decompose) - known):
        ap.error(f"unknown model {unknown[0]!r}; allowed: {', '.join(all_models)} or energy_points:POINT")
    if args.table:
        print(tables(json.loads(args.out.read_text())))
        return 0
    if shutil.which("iverilog") is None:
        print("iverilog is not on the PATH: apt-get install iverilog", file=sys.stderr)
        return 2
    wanted: dict[str, list[str]] = {}
    for name in args.models or ([] if args.points or args.arcs or args.decompose else all_models):
        wanted[name] = ["grid"]
    for name in [f"energy_points:{p}" for p in args.points] + args.arcs:
        wanted[name] = list(ARC_MODES)
    for name in args.decompose:
        wanted[name] = list(dict.fromkeys(wanted.get(name, ARC_MODES) + DECOMPOSE_MODES))
    data = json.loads(args.out.read_text()) if args.out.exists() else {"models": {}}
    data.setdefault("models", {})
    for rec in data["models"].values():       # a record of the first version: one command for all its runs
        if "command" in rec:
            rec["commands"] = [{"accelgen_commit": rec.pop("accelgen_commit"), "command": rec.pop("command"),
                                "modes": list(rec["runs"])}]
    for name, modes in wanted.items():
        old = {} if args.redo else data["models"].get(name, {})
        todo = [m for m in modes if m not in old.get("runs", {})]
        if not todo:
            continue
        run = header(argv)
        if name.startswith("energy_points:"):
            rec = check_bench_point(name.split(":", 1)[1], todo, args.budget, args.timeout, args.workdir)
        else:
            rec = check_model(name, todo, args.budget, args.timeout, args.workdir)
        commands = old.get("commands", []) + [{"accelgen_commit": run["accelgen_commit"], "command": run["command"],
                                               "modes": todo}]
        data["models"][name] = {**rec, "runs": {**old.get("runs", {}), **rec["runs"]}, "commands": commands}
        data.update(run)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(data, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
