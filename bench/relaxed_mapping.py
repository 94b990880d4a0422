"""What the 1 GHz mapping target costs: representative points of each family the shipped chips use, mapped at the
sweeps' 1 GHz and at a relaxed 200 MHz (NanGate45), through the sweep flow (`accelgen.fit.api.sweep_dataset`).

Every sweep maps at 1 GHz at 45 nm, where ABC sizes the logic for speed; a chip whose clock leaves its unit slack
gets the area-recovered netlist instead (`upsize`/`dnsize` at the looser target). The shipped chips run at 150-280
MHz in NanGate45 terms (their period in FO4 of their node), except DianNao and ShiDianNao (860-890 MHz). 200 MHz is
past where the measured units stop changing (int8 MAC: the same netlist at 700, 500 and 250 MHz; fp32 MAC: at
200, 180 and 150 MHz; bench/RESULTS.md).

Writes `ppa/data/relaxed_mapping.csv` (one row per point and target) and `ppa/data/relaxed_mapping.json` (per
model: the geometric-mean ratio relaxed / 1 GHz of area, leakage, zero-delay energy, energy and delay, with their
spread), which the estimator reads (`accelgen.ppa.relaxed`). Resumable: the sweep cache keeps every point.

    python bench/relaxed_mapping.py [--jobs 2] [--only systolic-bf16 ...] [--summarize]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from accelgen.registry import FAMILIES  # noqa: E402
from accelgen.fit.api import sweep_dataset  # noqa: E402
from accelgen.ppa.relaxed import FILE, TARGETS  # noqa: E402

TARGETS_MHZ = (1000.0, 200.0)
#: the relaxed target the estimator's ratios are measured at
RELAXED_MHZ = 200.0


def _td_points(depth: int, dtype: str) -> list[dict]:
    """A TensorDash tile (depth 4) or its dense baseline (depth 1): 4 x 4, and the (0, 3) and (1, 1) stages."""
    tile = {"lanes": 4, "depth": depth, "dtype": dtype, **({"pattern": "default"} if depth > 1 else {})}
    return [{"rows": 4, **tile}, {"rows": 2, **tile, "mul_stages": 0, "add_stages": 3},
            {"rows": 1, **tile, "mul_stages": 1, "add_stages": 1}]


def _reduction_points(n_staged: int) -> list[dict]:
    """An integer reduction network: 8 inputs of 8 bits, 32 of 16 bits, and ``n_staged`` of 8 bits with one stage."""
    return [{"n": 8, "width": 8, "signed": True}, {"n": 32, "width": 16, "signed": True},
            {"n": n_staged, "width": 8, "signed": True, "add_stages": 1}]


#: per model (sweep name): representative training points, the shipped chips' configurations among them
POINTS = {
    "mac": [{"a_width": 8, "b_width": 8, "input_reg": True},
            {"a_width": 16, "b_width": 16, "input_reg": True},
            {"a_width": 16, "b_width": 16, "input_reg": True, "mul_stages": 1, "add_stages": 0}],
    "systolic": [{"rows": 4, "cols": 4, "dataflow": "ws", "a_width": 8, "acc_width": 32},
                 {"rows": 4, "cols": 4, "dataflow": "ws", "a_width": 8, "acc_width": 32, "weight_load": "double"},
                 {"rows": 4, "cols": 4, "dataflow": "os", "a_width": 16, "mul_stages": 0, "add_stages": 0}],
    "dot_product": [{"n": 4, "a_width": 8, "b_width": 8, "signed": True},
                    {"n": 16, "a_width": 16, "b_width": 16, "signed": True},
                    {"n": 16, "a_width": 8, "b_width": 8, "mul_stages": 1, "add_stages": 0}],
    "mac-fp32": [{"dtype": "fp32", "input_reg": True, "mul_stages": 0, "add_stages": 0},
                 {"dtype": "fp32", "input_reg": True, "mul_stages": 1, "add_stages": 0},
                 {"dtype": "fp32", "input_reg": True, "mul_stages": 1, "add_stages": 1}],
    "mac-bf16": [{"dtype": "bf16", "input_reg": True, "mul_stages": 0, "add_stages": 0},
                 {"dtype": "bf16", "input_reg": True, "mul_stages": 1, "add_stages": 0},
                 {"dtype": "bf16", "flush_subnormals": True, "input_reg": True, "product_reg": False}],
    "mac-fp16": [{"dtype": "fp16", "input_reg": True, "mul_stages": 0, "add_stages": 0},
                 {"dtype": "fp16", "input_reg": True, "mul_stages": 1, "add_stages": 0},
                 {"dtype": "fp16", "input_reg": True, "mul_stages": 1, "add_stages": 1}],
    # SIGMA's Fig. 6b reduction networks (the sigma-reduction study)
    "fan-fp32": [{"n": 2, "dtype": "fp32"}, {"n": 4, "dtype": "fp32"}, {"n": 16, "dtype": "fp32"}],
    "art-fp32": [{"n": 2, "dtype": "fp32"}, {"n": 4, "dtype": "fp32"}, {"n": 16, "dtype": "fp32"}],
    "linear_reduction-fp32": [{"n": 2, "dtype": "fp32"}, {"n": 4, "dtype": "fp32"}, {"n": 16, "dtype": "fp32"}],
    "systolic-bf16": [{"rows": 2, "cols": 4, "dataflow": "ws", "dtype": "bf16", "weight_load": "double",
                       "flush_subnormals": True},
                      {"rows": 4, "cols": 4, "dataflow": "ws", "dtype": "bf16", "weight_load": "double",
                       "mul_stages": 1, "add_stages": 1, "flush_subnormals": True},
                      {"rows": 4, "cols": 4, "dataflow": "ws", "dtype": "bf16"}],
    "flexdpe-bf16": [{"k": 4, "dtype": "bf16", "benes_pipeline_every": 0},
                     {"k": 8, "dtype": "bf16", "benes_pipeline_every": 0},
                     {"k": 16, "dtype": "bf16", "benes_pipeline_every": 0}],
    # the dense-vs-sparse study's int8 SIGMA and TensorDash units (examples/dse/dense_vs_sparse.yaml)
    "flexdpe": [{"k": 4, "width": 8, "signed": True, "benes_pipeline_every": 0},
                {"k": 8, "width": 8, "signed": True, "benes_pipeline_every": 0},
                {"k": 16, "width": 8, "signed": True, "benes_pipeline_every": 0}],
    "tensordash_tile": [{"rows": 4, "lanes": 4, "depth": 4, "a_width": 8, "pattern": "default"},
                        {"rows": 2, "lanes": 4, "depth": 2, "a_width": 8, "pattern": "default"},
                        {"rows": 1, "lanes": 8, "depth": 4, "a_width": 8, "pattern": "default"}],
    # TPU v4i's grouped columns (their own model: another adder between the same registers)
    "systolic-grouped_bf16": [{"rows": 4, "cols": 4, "dataflow": "ws", "dtype": "bf16", "weight_load": "double",
                               "flush_subnormals": True, "sum_group": 4},
                              {"rows": 8, "cols": 4, "dataflow": "ws", "dtype": "bf16", "weight_load": "double",
                               "flush_subnormals": True, "sum_group": 4}],
    # its dense baseline (the tensordash-overhead study compares the two: both are costed alike)
    "tensordash_tile-dense": [{"rows": 4, "lanes": 4, "depth": 1, "a_width": 8},
                              {"rows": 2, "lanes": 4, "depth": 1, "a_width": 8},
                              {"rows": 1, "lanes": 8, "depth": 1, "a_width": 8}],
    # the tensordash chip's fp16 tiles and the tensordash-overhead study's fp16 / bf16 pairs
    "tensordash_tile-fp16": _td_points(4, "fp16"),
    "tensordash_tile-bf16": _td_points(4, "bf16"),
    "tensordash_tile-dense_fp16": _td_points(1, "fp16"),
    "tensordash_tile-dense_bf16": _td_points(1, "bf16"),
    # the integer reduction networks and the Benes network (SIGMA-style and NeuroMeter reduction-tree units)
    "fan": _reduction_points(32),
    "art": _reduction_points(32),
    "adder_tree": _reduction_points(32),
    "linear_reduction": _reduction_points(16),
    "fan_linear": [{"n": 8, "width": 8, "signed": True, "stage_adders": 1},
                   {"n": 16, "width": 16, "signed": True, "stage_adders": 3},
                   {"n": 16, "width": 8, "signed": True, "stage_adders": 3, "add_stages": 1}],
    "benes": [{"n": 8, "width": 16, "pipeline_every": 0}, {"n": 32, "width": 16, "pipeline_every": 0},
              {"n": 16, "width": 32, "pipeline_every": 1}],
    # a description's single TensorDash PEs (`tensordash` with rows = cols = 1), each with its own scheduler
    "tensordash_pe": [{"lanes": 4, "depth": 4, "a_width": 8, "pattern": "default"},
                      {"lanes": 8, "depth": 2, "a_width": 8, "pattern": "default"},
                      {"lanes": 4, "depth": 4, "a_width": 8, "pattern": "default", "mul_stages": 1, "add_stages": 1}],
    "tensordash_pe-fp16": [{"lanes": 4, "depth": 4, "pattern": "default", "dtype": "fp16"},
                           {"lanes": 4, "depth": 4, "pattern": "default", "dtype": "fp16", "mul_stages": 0,
                            "add_stages": 3},
                           {"lanes": 8, "depth": 3, "pattern": "default", "dtype": "fp16"}],
}


#: per model, the point whose recovery is measured along the target (the shipped chips' configuration), and the targets
CURVE_POINTS = {
    "mac": POINTS["mac"][2],
    "systolic": POINTS["systolic"][1],
    "dot_product": POINTS["dot_product"][1],
    "mac-fp32": POINTS["mac-fp32"][1],
    "mac-bf16": POINTS["mac-bf16"][1],
    "fan-fp32": POINTS["fan-fp32"][1],
    "art-fp32": POINTS["art-fp32"][1],
    "linear_reduction-fp32": POINTS["linear_reduction-fp32"][1],
    "mac-fp16": POINTS["mac-fp16"][1],
    "systolic-bf16": POINTS["systolic-bf16"][0],
    "flexdpe-bf16": POINTS["flexdpe-bf16"][1],
    "flexdpe": POINTS["flexdpe"][1],
    "tensordash_tile": POINTS["tensordash_tile"][0],
    "tensordash_tile-dense": POINTS["tensordash_tile-dense"][0],
    "systolic-grouped_bf16": POINTS["systolic-grouped_bf16"][0],
    # the tensordash chip's (0, 3) stages
    **{name: POINTS[name][1] for name in ("tensordash_tile-fp16", "tensordash_tile-bf16",
                                          "tensordash_tile-dense_fp16", "tensordash_tile-dense_bf16")},
    **{name: POINTS[name][1] for name in ("fan", "art", "adder_tree", "linear_reduction", "fan_linear", "benes")},
    "tensordash_pe": POINTS["tensordash_pe"][0],
    "tensordash_pe-fp16": POINTS["tensordash_pe-fp16"][1],
}
CURVE_MHZ = (800.0, 500.0, 333.0, 250.0)


def _grid_file(name: str, points: list[dict], clock_mhz: float, folder: Path) -> Path:
    """The shipped sweep with only ``points`` (each its own grid block, each timed for its glitches), at one
    density and one mapping target."""
    spec = yaml.safe_load((ROOT / "fit" / "sweeps" / f"{name}.yaml").read_text())
    spec["grid"] = [{k: [v] for k, v in p.items()} for p in points]
    spec["glitch_extra"] = [dict(p) for p in points]
    spec.pop("heldout", None)
    spec["densities"] = [1.0]
    spec["clock_mhz"] = clock_mhz
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}-{clock_mhz:g}.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def measure(names: list[str], jobs: int) -> pd.DataFrame:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runs = [(name, i, p, clock) for name in names for i, p in enumerate(POINTS[name]) for clock in TARGETS_MHZ]
        runs += [(name, "curve", CURVE_POINTS[name], clock) for name in names for clock in CURVE_MHZ]
        for name, i, p, clock in runs:
            grid = _grid_file(name, [p], clock, folder / str(i))
            print(f"{name} {p} at {clock:g} MHz", flush=True)
            res = sweep_dataset(name, grid, families=FAMILIES, jobs=jobs, out=grid.with_suffix(".csv"),
                                progress=False)
            df = pd.read_csv(res.dataset)
            r = df[df["density"] == 1.0].iloc[0]
            rows.append({"model": name, "point": json.dumps(p, sort_keys=True), "clock_mhz": clock,
                         **{t: float(r[t]) for t in TARGETS}})
    return pd.DataFrame(rows).drop_duplicates(["model", "point", "clock_mhz"])


def ratios(data: pd.DataFrame) -> dict:
    """Per model: the geometric-mean ratio relaxed / 1 GHz of each target over its points and the points' range,
    and the recovery curve of its curve point: at each target, the share of its relaxed-target recovery
    (``(1 - ratio) / (1 - ratio at RELAXED_MHZ)``; for the delay ``(ratio - 1) / (ratio at RELAXED_MHZ - 1)``)
    against the slack ``(1000 / MHz) / (delay at 1 GHz)``."""
    out = {}
    for name, g in data.groupby("model", sort=False):
        fast = g[g.clock_mhz == TARGETS_MHZ[0]].set_index("point")
        slow = g[g.clock_mhz == RELAXED_MHZ].set_index("point")
        main_points = [json.dumps(p, sort_keys=True) for p in POINTS[name]]
        r = slow.loc[main_points, list(TARGETS)] / fast.loc[main_points, list(TARGETS)]
        cp = json.dumps(CURVE_POINTS[name], sort_keys=True)
        c = g[g.point == cp].sort_values("clock_mhz", ascending=False)
        base, end = c.iloc[0], c[c.clock_mhz == RELAXED_MHZ].iloc[0]
        recovery = {}
        for tname in TARGETS:
            full = end[tname] / base[tname] - 1.0
            # nothing to recover (the same netlist at every target): the 1 GHz point is the reference, 0; all the rest 1
            recovery[tname] = [round(float((row[tname] / base[tname] - 1.0) / full), 4) if abs(full) > 1e-3
                               else float(i > 0) for i, (_, row) in enumerate(c.iterrows())]
        out[name] = {"relaxed_mhz": RELAXED_MHZ, "points": len(r),
                     "ratio": {t: math.exp(float(r[t].map(math.log).mean())) for t in TARGETS},
                     "range": {t: [float(r[t].min()), float(r[t].max())] for t in TARGETS},
                     "curve": {"point": CURVE_POINTS[name], "delay_ns_1ghz": float(base["delay_ns"]),
                               "clock_mhz": [float(x) for x in c.clock_mhz],
                               "slack": [round(1e3 / float(x) / float(base["delay_ns"]), 4) for x in c.clock_mhz],
                               "recovery": recovery}}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*", choices=sorted(POINTS), help="measure these models (default: all)")
    ap.add_argument("--summarize", action="store_true", help="only recompute the summary from the measured data")
    args = ap.parse_args(argv)
    names = args.only or list(POINTS)
    csv = ROOT / "ppa" / "data" / "relaxed_mapping.csv"
    if args.summarize:
        data = pd.read_csv(csv)
    else:
        data = measure(names, args.jobs)
        if csv.exists() and args.only:
            old = pd.read_csv(csv)
            data = pd.concat([old[~old.model.isin(names)], data], ignore_index=True)
        data.to_csv(csv, index=False, float_format="%.6g")
    summary = ratios(data)
    out = ROOT / "ppa" / "data" / FILE
    out.write_text(json.dumps({
        "source": "bench/relaxed_mapping.py, data ppa/data/relaxed_mapping.csv",
        "models": summary}, indent=1) + "\n")
    print(f"\nrelaxed ({RELAXED_MHZ:g} MHz) / 1 GHz mapping, geometric mean over the points [min, max]:")
    for name, s in summary.items():
        cells = "  ".join(f"{t.split('_')[0] if t != 'energy_zero_delay_pj' else 'zero-delay'} "
                          f"{s['ratio'][t]:.3f} [{s['range'][t][0]:.2f}, {s['range'][t][1]:.2f}]" for t in TARGETS)
        print(f"  {name:14s} n={s['points']}  {cells}")
        cv = s["curve"]
        print(f"  {'':14s} recovery of area along the slack: " + ", ".join(
            f"{sl:.2f}: {f:.2f}" for sl, f in zip(cv["slack"], cv["recovery"]["area_um2"])))
    print(f"wrote {csv.relative_to(ROOT)}, {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
