"""``accelgen sigma-report``: SIGMA's loading / streaming / add cycles and efficiencies for GEMM shapes x sparsities."""

from __future__ import annotations

import json

import click
from rich.table import Table

from ..ppa.sigma_report import DEFAULT_GEMMS, DEFAULT_SPARSITY_PAIRS, K_VALUES, benes_stages, sigma_report
from .console import console
from .options import GEMM, SPARSITY_PAIRS


@click.command("sigma-report")
@click.option("--k", "k", type=click.Choice([str(k) for k in K_VALUES]), default="32", show_default=True,
              help="Multipliers per Flex-DPE.")
@click.option("--gemm", "gemms", type=GEMM, multiple=True, metavar="M,N,K",
              help=f"GEMM shape (repeatable) [default: {' '.join(','.join(map(str, g)) for g in DEFAULT_GEMMS)}].")
@click.option("--sparsity", "pairs", type=SPARSITY_PAIRS, show_default=True,
              default=",".join(f"{a:g}/{b:g}" for a, b in DEFAULT_SPARSITY_PAIRS),
              help="Comma-separated A/B pairs: fractions of zeros in A (inputs) and B (weights).")
@click.option("--stationary", type=click.Choice(["auto", "weights", "inputs"]), default="auto", show_default=True,
              help="Stationary operand (auto: the faster of the two).")
@click.option("--benes-pipeline-every", type=click.IntRange(0, 15), default=0, show_default=True,
              help="Benes pipelining of the modelled Flex-DPE (adds to the add latency).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=1, show_default=True, help="Bitmap seed.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
def sigma_report_cmd(k, gemms, pairs, stationary, benes_pipeline_every, seed, as_json):
    """SIGMA efficiency table: one Flex-DPE of k multipliers running each GEMM shape at each sparsity.

    Random bitmaps at the given sparsities go through the sparsity controller's
    mapping (the cycle model that cosim proves on the emitted Verilog). Columns:
    stationary choice, folds, Flex-DPEs a Flex-DPU needs to hold every useful
    stationary value, loading / streaming / add cycles, stationary utilization,
    compute efficiency (useful MACs / (k x streaming cycles)) and overall
    efficiency (useful MACs / (k x total cycles)).
    """
    k = int(k)
    if benes_pipeline_every > benes_stages(k):
        raise click.BadParameter(f"{benes_pipeline_every} exceeds the {benes_stages(k)} Benes stages of k={k}",
                                 param_hint="--benes-pipeline-every")
    rows = sigma_report(k, gemms or DEFAULT_GEMMS, pairs, stationary, seed, benes_pipeline_every)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        console().print(_table(rows, f"SIGMA Flex-DPE k={k} (stationary={stationary}, seed {seed})"))
    return 0


def _table(rows: list[dict], title: str) -> Table:
    t = Table("M", "N", "K", "sp A", "sp B", "stat.", "folds", "DPEs", "load", "stream", "add", "total",
              "useful MACs", "stat. util", "compute eff", "overall eff", title=title,
              caption="cycles of one Flex-DPE; DPEs = Flex-DPEs a Flex-DPU needs to hold all useful stationary "
                      "values; efficiencies are useful MACs per multiplier-cycle")
    for r in rows:
        t.add_row(str(r["M"]), str(r["N"]), str(r["K"]), f"{r['sparsity_a']:g}", f"{r['sparsity_b']:g}",
                  r["stationary"], str(r["folds"]), str(r["flexdpes"]), str(r["load_cycles"]),
                  str(r["stream_cycles"]), str(r["add_cycles"]), str(r["cycles"]), str(r["useful_macs"]),
                  f"{r['stationary_utilization']:.3f}", f"{r['compute_efficiency']:.3f}",
                  f"{r['overall_efficiency']:.3f}")
    return t


COMMANDS = (sigma_report_cmd,)
