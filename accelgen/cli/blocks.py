"""``accelgen blocks / gen / cosim / synth / build``: the block families' commands.

Every block family gets a subcommand under ``gen``, ``cosim`` and ``synth`` whose options are
derived from its parameter schema, so ``accelgen gen mac --help`` lists exactly the parameters of
:class:`accelgen.rtl.MACParams`.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path

import click
from rich.table import Table

from ..cosim.check import cosim_emitted
from ..family import SIMULATORS, BlockFamily
from ..flow import run_build, synthesize_emitted
from ..gen.config import load_build_config
from ..gen.emit import emit, render, write
from ..registry import FAMILIES
from .console import EXIT_FAIL, console
from .options import BlockGroup, param_options, sim_option, split_params


@click.command("blocks")
def blocks_cmd():
    """List the block families and their parameters."""
    con = console()
    for fam in FAMILIES.values():
        con.print(f"[bold]{fam.name}[/bold]: {fam.summary}")
        for field, info in fam.params_model.model_fields.items():
            con.print(f"  {field:<12} default {info.default!r:<8} allowed {fam.params_model.allowed(field)}"
                      f"  - {info.description}")
    return 0


# ---- gen

@click.group("gen", cls=BlockGroup, invoke_without_command=True)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="YAML build config: emit all its blocks.")
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), default="out", show_default=True,
              help="Output directory.")
@click.pass_context
def gen_group(ctx, config_path, out_dir):
    """Emit Verilog and a manifest: `accelgen gen BLOCK [params] -o DIR` or `accelgen gen --config FILE -o DIR`."""
    if ctx.invoked_subcommand is not None:
        if config_path:
            raise click.UsageError("give either a block or --config, not both")
        return 0
    if not config_path:
        raise click.UsageError(f"give a block ({', '.join(FAMILIES)}) or --config FILE")
    cfg = load_build_config(config_path, FAMILIES)
    for blk in cfg.blocks:
        e = emit(blk.family, blk.params, blk.name, out_dir)
        click.echo(f"wrote {e.verilog_path} and {e.manifest_path.name}")
    return 0


def _make_gen(fam: BlockFamily) -> click.Command:
    def callback(name, out, **kwargs):
        params = fam.validate(split_params(fam, kwargs), fam.name)
        e = emit(fam, params, name or fam.default_name(params), out)
        click.echo(f"wrote {e.verilog_path} and {e.manifest_path.name} (latency {e.manifest['latency']} cycles)")
        return 0

    return click.Command(fam.name, callback=callback, help=f"Emit a {fam.summary}.", params=[
        *param_options(fam),
        click.Option(["--name"], help="Module and file name [default: the block name]."),
        click.Option(["-o", "--out"], type=click.Path(file_okay=False), default="out", show_default=True,
                     help="Output directory."),
    ])


# ---- cosim

def _print_cosim(result) -> None:
    click.echo(result.summary())
    if not result.passed:
        if result.error:
            click.echo(f"  error: {result.error}")
        for mm in result.first_mismatches[:5]:
            click.echo(f"  cycle {mm['cycle']}: {mm['port']} expected {mm['expected']}, got {mm['got']}")
        if result.waveform:
            click.echo(f"  waveform: {result.waveform}")
        if result.log:
            click.echo(f"  log: {result.log}")


def _cosim_one(fam: BlockFamily, params, name: str, sim: str, vectors: int | None, seed: int, keep: bool,
               options: dict | None = None, testbench: str = "cocotb"):

    with tempfile.TemporaryDirectory(prefix="accelgen-cosim-") as tmp:
        e = write(render(fam, params, name), tmp)
        return cosim_emitted(fam, params, e, sim=sim, vectors=vectors, seed=seed, options=options, keep=keep,
                             testbench=testbench)


_sim_option = sim_option()
def _vectors_option(fam: BlockFamily) -> click.Option:
    return click.Option(["--vectors"], type=click.IntRange(0, 10_000_000), default=None,
                        help=f"{fam.vectors_help[0].upper()}{fam.vectors_help[1:]} (0: directed only) "
                             f"[default: {fam.default_vectors}].")


def _family_cosim_options(fam: BlockFamily) -> list[click.Option]:
    opts = []
    for opt in fam.cosim_options:
        def convert(ctx, param, value, _opt=opt):
            try:
                return [_opt.parse(v) for v in value] if _opt.multiple else (
                    None if value is None else _opt.parse(value))
            except ValueError as exc:
                raise click.BadParameter(str(exc)) from None
        opts.append(click.Option([f"--{opt.name.replace('_', '-')}", opt.name], multiple=opt.multiple,
                                 callback=convert, help=opt.help))
    return opts
_seed_option = click.Option(["--seed"], type=click.IntRange(0, 2**32 - 1), default=1, show_default=True,
                            help="Stimulus seed.")
_keep_option = click.Option(["--keep"], is_flag=True, help="Keep the run directory after a pass.")
_testbench_option = click.Option(["--testbench"], type=click.Choice(("cocotb", "native")), default="cocotb",
                                 show_default=True, help="cocotb, or the compiled Verilator testbench (same checks).")


@click.group("cosim", cls=BlockGroup, invoke_without_command=True)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Co-simulate every block of a config.")
@click.option("--sim", type=click.Choice(SIMULATORS), default=None, help="Simulator [default: the config's].")
@click.pass_context
def cosim_group(ctx, config_path, sim):
    """Co-simulate the emitted Verilog against the golden model."""
    if ctx.invoked_subcommand is not None:
        return 0
    if not config_path:
        raise click.UsageError(f"give a block ({', '.join(FAMILIES)}) or --config FILE")
    cfg = load_build_config(config_path, FAMILIES)
    failed = 0
    for blk in cfg.blocks:
        result = _cosim_one(blk.family, blk.params, blk.name, sim or cfg.sim, blk.cosim.vectors, blk.cosim.seed,
                            keep=False, options=blk.cosim.options)
        _print_cosim(result)
        failed += not result.passed
    return EXIT_FAIL if failed else 0


def _make_cosim(fam: BlockFamily) -> click.Command:
    def callback(sim, vectors, seed, keep, testbench, **kwargs):
        params = fam.validate(split_params(fam, kwargs), fam.name)
        options = {o.name: kwargs.pop(o.name) for o in fam.cosim_options
                   if kwargs.get(o.name) not in (None, (), [])}  # 0.0 is a given value
        if testbench == "native" and sim != "verilator":
            raise click.UsageError("--testbench native needs --sim verilator")
        result = _cosim_one(fam, params, fam.default_name(params), sim, vectors, seed, keep, options, testbench)
        _print_cosim(result)
        if result.passed and result.run_dir:
            click.echo(f"  run directory: {result.run_dir}")
        return 0 if result.passed else EXIT_FAIL

    return click.Command(fam.name, callback=callback, help=f"Co-simulate a {fam.summary}.",
                         params=[*param_options(fam), *_family_cosim_options(fam), _sim_option, _vectors_option(fam),
                                 _seed_option, _keep_option, _testbench_option])


# ---- synth

def _print_synth(rows, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps([s.to_dict() for s in rows] if len(rows) != 1 else rows[0].to_dict(), indent=2))
        return
    table = Table("module", "cells", "flip-flops", "transistors", "logic depth", "cells by type")
    for s in rows:
        table.add_row(s.top, str(s.cells), str(s.flip_flops), f"{s.transistors}{'' if s.transistors_complete else '+'}",
                      str(s.logic_depth), ", ".join(f"{k.strip('$_')}:{v}" for k, v in s.cells_by_type.items()))
    console().print(table)


@click.group("synth", cls=BlockGroup, invoke_without_command=True)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Synthesize every block of a config.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def synth_group(ctx, config_path, as_json):
    """Synthesize with Yosys: cells by type, flip-flops, CMOS transistors, logic depth."""
    if ctx.invoked_subcommand is not None:
        return 0
    if not config_path:
        raise click.UsageError(f"give a block ({', '.join(FAMILIES)}) or --config FILE")
    cfg = load_build_config(config_path, FAMILIES)
    rows = [synthesize_emitted(render(b.family, b.params, b.name)) for b in cfg.blocks]
    _print_synth(rows, as_json)
    return 0


def _make_synth(fam: BlockFamily) -> click.Command:
    def callback(as_json, **kwargs):
        params = fam.validate(split_params(fam, kwargs), fam.name)
        _print_synth([synthesize_emitted(render(fam, params, fam.default_name(params)))], as_json)
        return 0

    return click.Command(fam.name, callback=callback, help=f"Synthesize a {fam.summary}.", params=[
        *param_options(fam), click.Option(["--json", "as_json"], is_flag=True, help="Machine-readable output.")])


for _fam in FAMILIES.values():
    gen_group.add_command(_make_gen(_fam))
    cosim_group.add_command(_make_cosim(_fam))
    synth_group.add_command(_make_synth(_fam))



# ---- build

@click.command("build")
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False))
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Output directory [default: out/<config name>].")
@click.option("--sim", type=click.Choice(SIMULATORS), default=None, help="Simulator [default: the config's].")
@click.option("--no-synth", is_flag=True, help="Skip synthesis.")
@click.option("--json", "as_json", is_flag=True, help="Print the build report as JSON.")
def build_cmd(config_path, out_dir, sim, no_synth, as_json):
    """Generate, co-simulate and synthesize every block of CONFIG; print a summary table."""

    cfg = load_build_config(config_path, FAMILIES)
    out = Path(out_dir) if out_dir else Path("out") / Path(config_path).stem
    con = console()
    err_con = con if not as_json else None
    with con.status("starting") if err_con else contextlib.nullcontext() as status:
        def on_step(name, what):
            if status is not None:
                status.update(f"{name}: {what}")
        reports = run_build(cfg, out, sim=sim, synth=False if no_synth else None, on_step=on_step)
    if as_json:
        click.echo(json.dumps([r.to_dict() for r in reports], indent=2))
    else:
        table = Table("block", "family", "params", "cosim", "cycles checked", "cells", "flip-flops",
                      "transistors", "depth", title=f"accelgen build {config_path} -> {out}")
        for r in reports:
            c, s = r.cosim, r.synth
            cos = "-" if c is None else (f"PASS ({c.sim}, seed {c.seed})" if c.passed else f"FAIL ({c.mismatches} mismatches)")
            table.add_row(r.name, r.block, _short_params(r.params), cos, str(c.cycles) if c else "-",
                          str(s.cells) if s else "-", str(s.flip_flops) if s else "-",
                          str(s.transistors) if s else "-", str(s.logic_depth) if s else "-")
        con.print(table)
        for r in reports:
            if r.cosim and not r.cosim.passed:
                _print_cosim(r.cosim)
    return 0 if all(r.ok for r in reports) else EXIT_FAIL


def _short_params(params: dict) -> str:
    keys = {"a_width": "a", "b_width": "b", "acc_width": "acc"}
    parts = []
    for k, v in params.items():
        if isinstance(v, bool):
            if k == "signed":
                if params.get("dtype", "int") == "int":  # fp values carry their own sign
                    parts.append("signed" if v else "unsigned")
            elif v:
                parts.append(k)
        elif k != "dtype" or v != "int":
            parts.append(f"{keys.get(k, k)}={v}")
    return " ".join(parts)


COMMANDS = (blocks_cmd, gen_group, cosim_group, synth_group, build_cmd)
