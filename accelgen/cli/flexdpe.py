"""``accelgen sigma-report``: SIGMA's loading / streaming / add cycles and efficiencies for GEMM shapes x sparsities."""

from __future__ import annotations

import json

import click


def _gemms(ctx, param, value) -> list[tuple[int, int, int]]:
    from ..cosim.flexdpe import parse_gemm

    try:
        return [parse_gemm(v) for v in value]
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _pairs(ctx, param, value: str) -> list[tuple[float, float]]:
    from ..cosim.flexdpe import parse_sparsity

    out = []
    for part in value.split(","):
        a, sep, b = part.strip().partition("/")
        try:
            if not sep:
                raise ValueError(f"{part.strip()!r} is not a pair")
            out.append((parse_sparsity(a), parse_sparsity(b)))
        except ValueError as exc:
            raise click.BadParameter(f"{exc}; expected comma-separated A/B pairs of fractions of zeros "
                                     "in 0..1, e.g. 0/0,0.8/0.3") from None
    return out


DEFAULT_GEMMS = ("64,64,64", "128,16,64", "16,128,256", "1,256,256", "256,1,64", "50,70,300", "512,8,4")
DEFAULT_SPARSITY = "0/0,0.5/0,0/0.5,0.8/0.3,0.3/0.8,0.9/0.9,0.95/0.95"


def report_rows(k: int, gemms, pairs, stationary: str = "auto", seed: int = 1,
                benes_pipeline_every: int = 0) -> list[dict]:
    """One row per (shape, sparsity pair): the model's cycles and efficiencies on random bitmaps."""
    import numpy as np

    from ..golden.flexdpe import random_bitmap, sigma_cycles

    rng = np.random.default_rng(seed)
    rows = []
    for M, N, K in gemms:
        for sa, sb in pairs:
            a = random_bitmap((M, K), sa, rng)
            b = random_bitmap((K, N), sb, rng)
            c = sigma_cycles(a, b, k, stationary, benes_pipeline_every)
            rows.append({"M": M, "N": N, "K": K, "sparsity_a": sa, "sparsity_b": sb, **c.as_dict(),
                         "dense_macs": M * N * K})
    return rows


@click.command("sigma-report")
@click.option("--k", "k", type=click.Choice(["4", "8", "16", "32", "64", "128", "256"]), default="32",
              show_default=True, help="Multipliers per Flex-DPE.")
@click.option("--gemm", "gemms", multiple=True, callback=_gemms, metavar="M,N,K",
              help=f"GEMM shape (repeatable) [default: {' '.join(DEFAULT_GEMMS)}].")
@click.option("--sparsity", "pairs", default=DEFAULT_SPARSITY, show_default=True, callback=_pairs,
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
    if benes_pipeline_every > 2 * (k.bit_length() - 1) - 1:
        raise click.BadParameter(f"{benes_pipeline_every} exceeds the {2 * (k.bit_length() - 1) - 1} Benes stages "
                                 f"of k={k}", param_hint="--benes-pipeline-every")
    rows = report_rows(k, gemms or [tuple(int(x) for x in g.split(",")) for g in DEFAULT_GEMMS], pairs,
                       stationary, seed, benes_pipeline_every)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    t = Table("M", "N", "K", "sp A", "sp B", "stat.", "folds", "DPEs", "load", "stream", "add", "total",
              "useful MACs", "stat. util", "compute eff", "overall eff",
              title=f"SIGMA Flex-DPE k={k} (stationary={stationary}, seed {seed})",
              caption="cycles of one Flex-DPE; DPEs = Flex-DPEs a Flex-DPU needs to hold all useful stationary "
                      "values; efficiencies are useful MACs per multiplier-cycle")
    for r in rows:
        t.add_row(str(r["M"]), str(r["N"]), str(r["K"]), f"{r['sparsity_a']:g}", f"{r['sparsity_b']:g}",
                  r["stationary"], str(r["folds"]), str(r["flexdpes"]), str(r["load_cycles"]),
                  str(r["stream_cycles"]), str(r["add_cycles"]), str(r["cycles"]), str(r["useful_macs"]),
                  f"{r['stationary_utilization']:.3f}", f"{r['compute_efficiency']:.3f}",
                  f"{r['overall_efficiency']:.3f}")
    con = Console(highlight=False, soft_wrap=True)
    if not con.is_terminal:
        con = Console(highlight=False, width=200)
    con.print(t)
    return 0


COMMANDS = (sigma_report_cmd,)
