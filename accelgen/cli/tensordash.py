"""``accelgen tensordash speedup``: TensorDash speedup over dense versus sparsity, cosim and fast model side by side.

``tensordash-speedup`` and ``tensordash-sweep`` are its earlier names, kept as aliases (``accelgen sweep`` is the
synthesis sweep).
"""

from __future__ import annotations

import json

import click
from rich.table import Table

from ..cosim.tensordash_speedup import speedup_sweep
from ..errors import ConfigError
from ..registry import FAMILIES
from .console import EXIT_FAIL, console
from .options import with_sim


def _sparsities(ctx, param, value: str) -> list[float]:
    out = []
    for part in value.split(","):
        try:
            s = float(part)
        except ValueError:
            raise click.BadParameter(f"{part.strip()!r} is not a number; allowed: comma-separated fractions "
                                     "in 0..1, e.g. 0,0.5,0.9") from None
        if not 0.0 <= s <= 1.0:
            raise click.BadParameter(f"{s!r} is outside 0..1 (the fraction of ineffectual pairs)")
        out.append(s)
    return out


@click.command("tensordash-speedup")
@click.option("--lanes", type=int, default=4, show_default=True, help="Multiplier lanes L (2..16).")
@click.option("--depth", type=int, default=4, show_default=True, help="Staging depth D (1..5; 1: the dense baseline).")
@click.option("--pattern", type=click.Choice(["default", "lookahead"]), default="default", show_default=True,
              help="Connectivity pattern.")
@click.option("--sparsity", "sparsity", default="0,0.2,0.5,0.9,0.99", show_default=True, callback=_sparsities,
              help="Comma-separated fractions of ineffectual pairs.")
@click.option("--streams", type=click.IntRange(1, 100_000), default=32, show_default=True,
              help="Random streams per sparsity.")
@click.option("--rows", type=click.IntRange(1, 100_000), default=64, show_default=True,
              help="Rows (dense cycles) per stream.")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=1, show_default=True, help="Stimulus seed.")
@with_sim()
@click.option("--no-cosim", is_flag=True, help="Fast model and ideal only (no simulator).")
@click.option("--json", "as_json", is_flag=True, help="Print the table as a JSON list of rows.")
def tensordash_speedup_cmd(lanes, depth, pattern, sparsity, streams, rows, seed, sim, no_cosim, as_json):
    """Speedup of the TensorDash PE over the dense schedule versus sparsity.

    Runs random operand streams at each sparsity through the generated PE in the
    simulator (the testbench follows the PE's take signal and counts cycles) and
    through the fast vectorized cycle model, and prints both next to the ideal
    speedup min(1/(1-s), D). Exits 1 if cosim and model disagree on any stream
    or any dot product is wrong.
    """
    fam = FAMILIES["tensordash_pe"]
    params = fam.validate({"lanes": lanes, "depth": depth, "pattern": pattern}, fam.name)
    if not sparsity:
        raise ConfigError([("--sparsity", "no sparsity given")])
    table = speedup_sweep(fam, params, sparsity, streams=streams, rows=rows, seed=seed,
                          sim=None if no_cosim else sim)
    if as_json:
        click.echo(json.dumps(table, indent=2))
    else:
        console(soft_wrap=True).print(_table(table, f"TensorDash PE L={lanes} D={depth} pattern={pattern}: "
                                                    f"{streams} streams x {rows} rows"))
    failed = any("agree" in r and not (r["agree"] and r["exact"]) for r in table)
    return EXIT_FAIL if failed else 0


def _table(table: list[dict], title: str) -> Table:
    t = Table("s", "ineff.", "dense", "cosim", "model", "x cosim", "x model", "x ideal", "agree", title=title,
              caption="cycles: dense schedule, cosim (RTL), fast model; x = speedup over dense; "
                      "ideal = min(1/(1-s), D)")
    for r in table:
        cos = "cosim_cycles" in r
        t.add_row(f"{r['sparsity']:g}", f"{r['ineffectual']:.3f}", str(r["dense_cycles"]),
                  str(r["cosim_cycles"]) if cos else "-", str(r["model_cycles"]),
                  f"{r['speedup_cosim']:.3f}" if cos else "-", f"{r['speedup_model']:.3f}", f"{r['ideal']:.3f}",
                  ("yes" if r["agree"] and r["exact"] else "NO") if cos else "-")
    return t


COMMANDS = (tensordash_speedup_cmd,)
