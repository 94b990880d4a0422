"""``accelgen perf``, ``accelgen cycles systolic``, ``accelgen workload import|list``: parse, call accelgen.ppa, print."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click
import yaml
from rich.table import Table

from .. import shipped
from ..errors import ConfigError
from ..golden.systolic import SUM_GROUPS
from ..params.systolic import systolic_timing_problems
from ..ppa.mapping import accelgen_cycles, scalesim_cycles
from ..ppa.onnx_import import import_onnx
from ..ppa.perf import evaluate, sparsity_sweep
from ..ppa.perfplot import plot_all
from ..ppa.workload import load_workload, lower, parse_workload
from ..util import write_atomic
from .console import console
from .options import GEMM, model_paths




def _fmt(v, spec=".3g"):
    return "-" if v is None else format(v, spec)


@click.command("perf")
@click.argument("arch_path", metavar="ARCH", type=click.Path())
@click.argument("workload_path", metavar="WORKLOAD")
@click.option("--batch", type=int, default=None, help="Batch size (default: the workload's).")
@click.option("--latency-ms", type=float, default=None, help="Use the largest batch meeting this latency.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), help="Write roofline / layer PNGs here.")
@click.option("--model", "models", multiple=True, metavar="FAMILY=FILE", help="Use this fitted model file.")
def perf_cmd(arch_path, workload_path, batch, latency_ms, as_json, plot_dir, models):
    """Per-layer and network performance of WORKLOAD (a file or a shipped name such as resnet50) on ARCH (a file
    or a shipped chip such as tpu_v1): cycles, time, the binding roof, achieved TOPS, utilization, power, energy,
    TOPS/W, TOPS/mm^2, TOPS/TCO."""
    if batch is not None and batch < 1:
        raise ConfigError([("--batch", f"{batch!r} is not allowed; expected an integer >= 1")])
    paths = model_paths(models)
    arch_path = shipped.resolve("chips", arch_path)
    workload_path = shipped.resolve("workloads", workload_path)
    t0 = time.perf_counter()
    rep = evaluate(arch_path, workload_path, batch=batch, latency_ms=latency_ms, model_paths=paths)
    wall = time.perf_counter() - t0
    files = []
    if plot_dir:
        sweep = sparsity_sweep(arch_path, model_paths=paths, M=512, N=512, K=512)
        files = plot_all(rep, plot_dir, sweep)
    if as_json:
        d = rep.to_dict()
        d["plots"] = [str(f) for f in files]
        click.echo(json.dumps(d, indent=1, default=float))
        return
    levels = [lv["name"] for lv in rep.levels]
    t = Table("layer", "unit", "M", "N", "K", "x", "cycles", "time us", "bound", *[f"{lv} B" for lv in levels],
              "TOPS (effectual)", "util %", "power W", "energy uJ", "TOPS/W",
              title=f"{rep.workload} on {rep.arch}, batch {rep.batch}, {rep.clock_mhz:g} MHz")
    for r in rep.layers:
        t.add_row(r["name"], r["compute"], str(r["M"]), str(r["N"]), str(r["K"]), str(r["count"]), str(r["cycles"]),
                  f"{r['time_s'] * 1e6:.2f}", r["bound"], *[f"{r[f'{lv}_bytes']:.3g}" for lv in levels],
                  f"{r['achieved_tops']:.3g}", f"{100 * r['utilization']:.1f}", _fmt(r["runtime_power_w"]),
                  _fmt(None if r["energy_j"] is None else r["energy_j"] * 1e6), _fmt(r["tops_per_w"]))
    console().print(t)
    tot = rep.total
    peak = ", ".join(f"{k} {v:.4g}" for k, v in rep.peak_tops.items())
    click.echo(f"total: {tot['layers']} layers, {tot['ops'] / 1e9:.4g} GOP dense, {tot['cycles']} cycles, "
               f"latency {tot['latency_ms']:.4g} ms, {tot['inferences_per_s']:.4g} inferences/s, "
               f"achieved {tot['achieved_tops']:.4g} TOPS (peak {peak}), utilization {100 * tot['utilization']:.1f}%")
    if tot["effectual_ops"] < tot["ops"]:
        click.echo(f"       sparse operands: achieved counts the {tot['effectual_ops'] / 1e9:.4g} GOP of non-zero "
                   f"products; dense-equivalent {tot['dense_equivalent_tops']:.4g} TOPS (the dense work over the "
                   f"time), {tot['speedup_vs_dense']:.3g}x the same layers dense; on chip a unit that skips no zeros "
                   f"reads them dense, off chip they cross compressed (workload storage)")
    sram = next((lv for lv in rep.levels if lv["name"] == "sram"), None)
    if sram:
        click.echo(f"       SRAM roof {sram['bandwidth_gbps']:.4g} GB/s ({sram['source']})")
    click.echo(f"       bound: {tot['bound_counts']}; " + ", ".join(f"{lv} {tot[f'{lv}_bytes'] / 1e6:.4g} MB"
                                                               for lv in levels))
    if rep.energy_available:
        eb = ", ".join(f"{k[:-2]} {v * 1e3:.4g} mJ" for k, v in tot["energy_breakdown_j"].items())
        click.echo(f"       energy {tot['energy_j'] * 1e3:.4g} mJ ({eb}); runtime power {tot['runtime_power_w']:.4g} W; "
                   f"area {rep.area_mm2:.4g} mm^2")
        click.echo(f"       {tot['tops_per_w']:.4g} TOPS/W, {tot['tops_per_mm2']:.4g} TOPS/mm^2, "
                   f"{tot['tops_per_tco']:.4g} TOPS/TCO (TOPS/mm^4/W)")
    else:
        click.echo(f"       {rep.energy_note}")
    if rep.warnings:
        click.echo(f"       {len(rep.warnings)} estimator warnings (out-of-range fitted models etc.; see --json)")
    if latency_ms is not None:
        click.echo(f"       batch {rep.batch} is the largest meeting {latency_ms:g} ms")
    for f in files:
        click.echo(f"wrote {f}")
    click.echo(f"evaluated in {wall * 1e3:.1f} ms")


@click.group("cycles")
def cycles_group():
    """Cycle models of one GEMM on one compute unit."""


@cycles_group.command("systolic")
@click.option("--rows", type=click.IntRange(1, 4096), required=True, help="Array rows.")
@click.option("--cols", type=click.IntRange(1, 4096), required=True, help="Array columns.")
@click.option("--dataflow", type=click.Choice(["ws", "os", "is"]), default="ws", show_default=True)
@click.option("--gemm", "gemms", multiple=True, required=True, type=GEMM,
              help="C[M,N] = A[M,K] @ B[K,N]; repeatable.")
@click.option("--convention", type=click.Choice(["accelgen", "scalesim"]), default="accelgen", show_default=True,
              help="accelgen: the cosim-proven model; scalesim: SCALE-Sim v2's compute-cycle accounting.")
@click.option("--weight-load", type=click.Choice(["shift", "double"]), default="shift", show_default=True,
              help="WS/IS weight loading (accelgen convention): shift between folds, or double-buffered.")
@click.option("--mul-stages", type=click.IntRange(0, 3), default=0, show_default=True,
              help="Register stages inside each PE's multiplier (accelgen convention).")
@click.option("--add-stages", type=click.IntRange(0, 3), default=0, show_default=True,
              help="Register stages inside each PE's adder (accelgen convention).")
@click.option("--sum-group", type=click.Choice([str(g) for g in SUM_GROUPS]), default="1", show_default=True,
              help="WS/IS rows whose partial sum advances as one (a grouped fp column, TPU v4i: 4; accelgen "
                   "convention).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def cycles_systolic_cmd(rows, cols, dataflow, gemms, convention, weight_load, mul_stages, add_stages, sum_group,
                        as_json):
    """Cycles and utilization of GEMMs on a rows x cols systolic array."""
    timing = {"weight_load": weight_load, "mul_stages": mul_stages, "add_stages": add_stages,
              "sum_group": int(sum_group)}
    defaults = {"weight_load": "shift", "mul_stages": 0, "add_stages": 0, "sum_group": 1}
    broken = {problem.split(":")[0] for problem in systolic_timing_problems(dataflow, rows, weight_load,
                                                                             timing["sum_group"])}
    if "sum_group" in broken:
        raise click.BadParameter(f"{sum_group} is not allowed with --dataflow {dataflow} and --rows {rows}; allowed: "
                                 "1, or a divisor of the rows with ws or is", param_hint="--sum-group")
    if convention == "scalesim":
        changed = [f"--{k.replace('_', '-')}" for k, v in timing.items() if v != defaults[k]]
        if changed:
            raise click.BadParameter(f"{', '.join(changed)} is not part of SCALE-Sim's accounting; allowed only "
                                     "with --convention accelgen", param_hint="--convention")
        timing = {}
    if "weight_load" in broken:
        raise click.BadParameter("'double' is not allowed with --dataflow os; allowed with ws or is",
                                 param_hint="--weight-load")
    fn = scalesim_cycles if convention == "scalesim" else accelgen_cycles
    res = []
    for M, N, K in gemms:
        r = fn(rows, cols, M, N, K, dataflow, **timing)
        res.append({"M": M, "N": N, "K": K, "rows": rows, "cols": cols, "dataflow": dataflow,
                    "convention": convention, **{k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()}})
    if as_json:
        click.echo(json.dumps(res[0] if len(res) == 1 else res, indent=1))
        return
    for r in res:
        click.echo(f"{r['M']}x{r['N']}x{r['K']} on {rows}x{cols} {dataflow} ({convention}): {r['cycles']} cycles, "
                   f"{r['folds']} folds, utilization {100 * r['utilization']:.2f}%")


@click.group("workload")
def workload_group():
    """Workload tables: list the shipped ones, import an ONNX model."""


@workload_group.command("list")
def workload_list_cmd():
    """The shipped workloads with their layer counts, MACs and sources."""
    for name in shipped.names("workloads"):
        wl = load_workload(shipped.path("workloads", name))
        click.echo(f"{name:18s} {len(wl.layers):4d} layers {lower(wl).macs.sum() / 1e9:8.3f} GMAC/sample  "
                   f"{wl.source[:90]}")


@workload_group.command("import")
@click.argument("model_path", metavar="MODEL.onnx", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the workload YAML here "
              "(default: print it).")
@click.option("--a-width", type=click.IntRange(1, 32), default=8, show_default=True, help="Activation bits.")
@click.option("--b-width", type=click.IntRange(1, 32), default=8, show_default=True, help="Weight bits.")
@click.option("--name", default=None, help="Workload name (default: the graph's).")
def workload_import_cmd(model_path, output, a_width, b_width, name):
    """Turn an ONNX model's Conv / Gemm / MatMul nodes into a workload (shape inference by the onnx package)."""
    wl, skipped = import_onnx(model_path, a_width=a_width, b_width=b_width, name=name)
    parse_workload(wl, model_path)  # what we write must load
    text = yaml.safe_dump(wl, sort_keys=False, default_flow_style=None, width=200)
    if output:
        write_atomic(Path(output), text)
        click.echo(f"wrote {output}: {len(wl['layers'])} layers"
                   + (f"; skipped {', '.join(f'{k} x{v}' for k, v in sorted(skipped.items()))}" if skipped else ""))
    else:
        click.echo(text, nl=False)


COMMANDS = (perf_cmd, cycles_group, workload_group)
