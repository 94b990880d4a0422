"""``accelgen dse SPACE.yaml``: design-space exploration (sweep, constraints, Pareto fronts, plots)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .. import shipped
from ..errors import ConfigError
from .console import console


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


@click.command("dse")
@click.argument("space_path", metavar="SPACE", type=click.Path())
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Output directory (default: dse-out/<space name>). Chunks under OUT/chunks make the run "
                   "resumable: rerunning evaluates only what is missing.")
@click.option("-j", "--jobs", type=click.IntRange(1, 256), default=None,
              help="Local worker processes (default 1).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="Run the chunks on this Dask scheduler's workers.")
@click.option("--no-plots", is_flag=True, help="Skip the PNG plots.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"points", "feasible", "best": {objective: {parameters and metrics}}, "pareto", ...}.')
def dse_cmd(space_path, out_dir, jobs, scheduler, no_plots, as_json):
    """Explore the design space SPACE (a YAML file, or a shipped study by name: neurometer_datacenter,
    neurometer_sparsity, dense_vs_sparse): sample the parameters (grid, random or Latin hypercube),
    estimate every point (area, TDP, peak TOPS) and run the workloads at each batch regime (achieved TOPS,
    TOPS/W, TOPS/TCO, utilization, latency), keep the points within the constraints, and write
    points.csv, the Pareto fronts (CSV + PNG), best.json and the space's plots."""
    from ..ppa.dse import load_space, run  # noqa: PLC0415

    if scheduler is not None and jobs is not None:
        raise click.UsageError("give either -j (local processes) or --scheduler (Dask), not both")
    if scheduler is not None and "://" not in scheduler:
        raise click.UsageError(f"--scheduler {scheduler!r} is not allowed; expected an address like tcp://HOST:PORT")
    plan = load_space(shipped.resolve("dse", space_path))
    out = Path(out_dir) if out_dir else Path("dse-out") / plan.name
    if out.exists() and not out.is_dir():
        raise ConfigError([("--out", f"{str(out)!r} exists and is not a directory")])

    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    err = console(stderr=True)
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("points"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                        console=err, transient=False, disable=not err.is_terminal and as_json)
    task = None

    def on_progress(done, total, reused):
        nonlocal task
        if task is None:
            desc = plan.name + (f" ({reused} reused)" if reused else "")
            task = progress.add_task(desc, total=total, completed=done)
        else:
            progress.update(task, completed=done)

    with progress:
        res = run(plan, out, jobs=jobs or 1, scheduler=scheduler, on_progress=on_progress, plots=not no_plots)
    if as_json:
        click.echo(json.dumps(res.summary(), indent=1, default=str))
        return 0
    con = console()
    from rich.table import Table  # noqa: PLC0415

    pnames = plan.param_names
    click.echo(f"{plan.name}: {res.points} points, {res.feasible} feasible "
               f"({res.computed_chunks} chunks computed, {res.reused_chunks} reused) in {res.wall_s:.1f} s")
    if res.points and res.feasible < res.points:
        reasons = res.table.loc[~res.table["feasible"], "reason"].astype(str).str.replace(
            r"(?<![A-Za-z_\d])\d[\d.]*(e[+-]?\d+)?", "#", regex=True)
        top = reasons.value_counts().head(4)
        click.echo("infeasible: " + "; ".join(f"{n} x {r}" for r, n in top.items()))
    if res.best:
        t = Table("objective", "goal", "value", *pnames, "area mm^2", "TDP W", "peak TOPS",
                  title="best point per objective")
        for o in plan.objectives:
            b = res.best.get(o.metric)
            if b is None:
                continue
            t.add_row(o.metric, o.goal, _fmt(b[o.metric]), *[_fmt(b[p]) for p in pnames],
                      _fmt(b.get("area_mm2")), _fmt(b.get("tdp_w")), _fmt(b.get("peak_tops")))
        con.print(t)
    for f in res.fronts:
        click.echo(f"Pareto front over {', '.join(f['objectives'])}: {len(f['points'])} points")
    for f in res.files:
        click.echo(f"wrote {f}")
    return 0


COMMANDS = (dse_cmd,)
