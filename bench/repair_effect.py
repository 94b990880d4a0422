"""What the electrical repair after mapping (fit/repair.py) changes on the shipped models' own sweep points.

    python bench/repair_effect.py [--models mac,fan-fp32,...] [--points 2] [-j N]

Most shipped datasets were swept before the repair existed. For each model, this maps its ``--points`` largest
training points (by area) to the default library at the sweep's clock once, as ABC leaves them
(``map_netlist(repair=False)``), repairs that netlist and reports the repairs, the area and the critical-path delay
before and after: the size of the difference between a dataset swept without the repair and one swept with it.
"""

from __future__ import annotations

import argparse
import copy
import json
from concurrent.futures import ProcessPoolExecutor

from accelgen.fit.api import read_dataset, shipped_dataset
from accelgen.fit.liberty_read import read_power_library
from accelgen.fit.mapping import OUTPUT_LOAD_FF, cell_stat, map_netlist
from accelgen.fit.model import shipped_models
from accelgen.fit.repair import repair_drive
from accelgen.fit.sta import analyze
from accelgen.fit.sweep import load_sweep, render
from accelgen.registry import FAMILIES


def points(name: str, n: int) -> list[tuple[str, dict]]:
    spec = load_sweep(name, None, families=FAMILIES)
    df = read_dataset(shipped_dataset(name)).drop_duplicates("key")
    train = df[df["split"] == "train"].sort_values("area_um2", ascending=False).head(n)
    names = set(spec.block.params_model.model_fields)
    return [(name, {k: _plain(v) for k, v in row.items() if k in names and v == v}) for _, row in train.iterrows()]


def _plain(v):
    return v.item() if hasattr(v, "item") else v


def measure(job: tuple[str, dict]) -> dict:
    name, raw = job
    spec = load_sweep(name, None, families=FAMILIES)
    fam = spec.block
    params = fam.validate(raw)
    e = render(fam, params, "dut")
    m = map_netlist(e.verilog, "dut", cells=fam.mapped_cells(e.manifest), clock_mhz=spec.clock_mhz, repair=False)
    plib = read_power_library(m.library_path)
    before = analyze(m.netlist, "dut", m.timing_library, output_load_ff=OUTPUT_LOAD_FF)
    netlist = copy.deepcopy(m.netlist)
    rep = repair_drive(netlist, "dut", plib, output_load_ff=OUTPUT_LOAD_FF)
    after = analyze(netlist, "dut", m.timing_library, output_load_ff=OUTPUT_LOAD_FF)
    a0, a1 = cell_stat(m.netlist, "dut", plib)["area"], cell_stat(netlist, "dut", plib)["area"]
    return {"model": name, "params": json.dumps(raw, sort_keys=True), "upsized": rep.upsized, "buffers": rep.buffers,
            "area_pct": 100 * (a1 - a0) / a0, "delay_before_ns": before.delay_ps / 1000,
            "delay_after_ns": after.delay_ps / 1000, "delay_pct": 100 * (after.delay_ps - before.delay_ps) / before.delay_ps}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=None, help="comma-separated shipped models [all]")
    ap.add_argument("--points", type=int, default=2, help="largest training points per model [2]")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()
    names = args.models.split(",") if args.models else shipped_models()
    jobs = [j for name in names for j in points(name, args.points)]
    print("| model | point | upsized | buffers | area change | delay before -> after |")
    print("|---|---|---:|---:|---:|---|")
    with ProcessPoolExecutor(args.jobs) as pool:
        for r in pool.map(measure, jobs):
            print(f"| {r['model']} | `{r['params']}` | {r['upsized']} | {r['buffers']} | {r['area_pct']:+.3f}% | "
                  f"{r['delay_before_ns']:.3f} -> {r['delay_after_ns']:.3f} ns ({r['delay_pct']:+.1f}%) |", flush=True)


if __name__ == "__main__":
    main()
