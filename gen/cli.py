"""The ``accelgen`` command line: parse, validate, call library functions, print.

Every block family gets a subcommand under ``gen``, ``cosim`` and ``synth`` whose
options are derived from its parameter schema, so ``accelgen gen mac --help``
lists exactly the parameters of :class:`accelgen.rtl.MACParams`.

Bad input (unknown block or option, invalid value, malformed config, unwritable
output, missing simulator) ends with a one-line ``accelgen: error: ...`` message
and exit code 2; a failed co-simulation exits 1.
"""

from __future__ import annotations

import json
import sys
import tempfile
import typing
import warnings
from pathlib import Path

import click

from ..errors import AccelgenError
from .blocks import FAMILIES, BlockFamily

EXIT_USAGE = 2
EXIT_FAIL = 1
SIMS = ("verilator", "icarus")


# --------------------------------------------------------------------------- helpers

def _console():
    from rich.console import Console
    con = Console(highlight=False)
    # Piped output (logs, CI) gets wide tables instead of rich's 80-column wrapping.
    return con if con.is_terminal else Console(highlight=False, width=200)


def _param_options(fam: BlockFamily) -> list[click.Option]:
    """One click option per schema field; defaults stay in the schema (``None`` = not given)."""
    opts = []
    for field, info in fam.params_model.model_fields.items():
        flag = field.replace("_", "-")
        extra = info.json_schema_extra or {}
        help_text = f"{info.description} [default: {info.default!r}; allowed: {fam.params_model.allowed(field)}]"
        ann = info.annotation
        if ann is bool:
            negative = extra.get("cli_negative", f"no-{flag}")
            opts.append(click.Option([f"--{flag}/--{negative}", field], default=None, help=help_text))
        elif typing.get_origin(ann) is typing.Literal:
            opts.append(click.Option([f"--{flag}", field], type=click.Choice([str(a) for a in typing.get_args(ann)]),
                                     default=None, help=help_text))
        else:
            opts.append(click.Option([f"--{flag}", field], type=int, default=None, metavar="INT", help=help_text))
    return opts


def _split_params(fam: BlockFamily, kwargs: dict) -> dict:
    fields = fam.params_model.model_fields
    return {k: kwargs.pop(k) for k in list(kwargs) if k in fields and kwargs[k] is not None}


class BlockGroup(click.Group):
    """A group whose subcommands are block families; unknown names list the allowed ones."""

    def resolve_command(self, ctx, args):
        name = args[0] if args else None
        if name is not None and not name.startswith("-") and name not in self.commands:
            raise click.UsageError(f"unknown block {name!r}; allowed: {', '.join(self.commands)}")
        return super().resolve_command(ctx, args)


def _config_blocks(path: str):
    from .config import load_build_config
    return load_build_config(path)


# --------------------------------------------------------------------------- commands

@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="accelgen")
def cli():
    """accelgen: verified Verilog generators and PPA models for ML-accelerator blocks."""


@cli.command("blocks")
def blocks_cmd():
    """List the block families and their parameters."""
    con = _console()
    for fam in FAMILIES.values():
        con.print(f"[bold]{fam.name}[/bold]: {fam.summary}")
        for field, info in fam.params_model.model_fields.items():
            con.print(f"  {field:<12} default {info.default!r:<8} allowed {fam.params_model.allowed(field)}"
                      f"  - {info.description}")
    return 0


# ---- gen

@cli.group("gen", cls=BlockGroup, invoke_without_command=True)
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
    from .emit import emit
    cfg = _config_blocks(config_path)
    for blk in cfg.blocks:
        e = emit(blk.family, blk.params, blk.name, out_dir)
        click.echo(f"wrote {e.verilog_path} and {e.manifest_path.name}")
    return 0


def _make_gen(fam: BlockFamily) -> click.Command:
    def callback(name, out, **kwargs):
        from .emit import emit
        params = fam.validate(_split_params(fam, kwargs), fam.name)
        e = emit(fam, params, name or fam.default_name(params), out)
        click.echo(f"wrote {e.verilog_path} and {e.manifest_path.name} (latency {e.manifest['latency']} cycles)")
        return 0

    return click.Command(fam.name, callback=callback, help=f"Emit a {fam.summary}.", params=[
        *_param_options(fam),
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
    from .emit import render, write
    from .flow import cosim_emitted

    with tempfile.TemporaryDirectory(prefix="accelgen-cosim-") as tmp:
        e = write(render(fam, params, name), tmp)
        return cosim_emitted(fam, params, e, sim=sim, vectors=vectors, seed=seed, options=options, keep=keep,
                             testbench=testbench)


_sim_option = click.Option(["--sim"], type=click.Choice(SIMS), default="verilator", show_default=True,
                           help="Simulator.")
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


@cli.group("cosim", cls=BlockGroup, invoke_without_command=True)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Co-simulate every block of a config.")
@click.option("--sim", type=click.Choice(SIMS), default=None, help="Simulator [default: the config's].")
@click.pass_context
def cosim_group(ctx, config_path, sim):
    """Co-simulate the emitted Verilog against the golden model."""
    if ctx.invoked_subcommand is not None:
        return 0
    if not config_path:
        raise click.UsageError(f"give a block ({', '.join(FAMILIES)}) or --config FILE")
    cfg = _config_blocks(config_path)
    failed = 0
    for blk in cfg.blocks:
        result = _cosim_one(blk.family, blk.params, blk.name, sim or cfg.sim, blk.cosim.vectors, blk.cosim.seed,
                            keep=False, options=blk.cosim.options)
        _print_cosim(result)
        failed += not result.passed
    return EXIT_FAIL if failed else 0


def _make_cosim(fam: BlockFamily) -> click.Command:
    def callback(sim, vectors, seed, keep, testbench, **kwargs):
        params = fam.validate(_split_params(fam, kwargs), fam.name)
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
                         params=[*_param_options(fam), *_family_cosim_options(fam), _sim_option, _vectors_option(fam),
                                 _seed_option, _keep_option, _testbench_option])


# ---- synth

def _print_synth(rows, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps([s.to_dict() for s in rows] if len(rows) != 1 else rows[0].to_dict(), indent=2))
        return
    from rich.table import Table
    table = Table("module", "cells", "flip-flops", "transistors", "logic depth", "cells by type")
    for s in rows:
        table.add_row(s.top, str(s.cells), str(s.flip_flops), f"{s.transistors}{'' if s.transistors_complete else '+'}",
                      str(s.logic_depth), ", ".join(f"{k.strip('$_')}:{v}" for k, v in s.cells_by_type.items()))
    _console().print(table)


@cli.group("synth", cls=BlockGroup, invoke_without_command=True)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Synthesize every block of a config.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def synth_group(ctx, config_path, as_json):
    """Synthesize with Yosys: cells by type, flip-flops, CMOS transistors, logic depth."""
    if ctx.invoked_subcommand is not None:
        return 0
    if not config_path:
        raise click.UsageError(f"give a block ({', '.join(FAMILIES)}) or --config FILE")
    from .emit import render
    from .flow import synthesize_emitted
    cfg = _config_blocks(config_path)
    rows = [synthesize_emitted(render(b.family, b.params, b.name)) for b in cfg.blocks]
    _print_synth(rows, as_json)
    return 0


def _make_synth(fam: BlockFamily) -> click.Command:
    def callback(as_json, **kwargs):
        from .emit import render
        from .flow import synthesize_emitted
        params = fam.validate(_split_params(fam, kwargs), fam.name)
        _print_synth([synthesize_emitted(render(fam, params, fam.default_name(params)))], as_json)
        return 0

    return click.Command(fam.name, callback=callback, help=f"Synthesize a {fam.summary}.", params=[
        *_param_options(fam), click.Option(["--json", "as_json"], is_flag=True, help="Machine-readable output.")])


for _fam in FAMILIES.values():
    gen_group.add_command(_make_gen(_fam))
    cosim_group.add_command(_make_cosim(_fam))
    synth_group.add_command(_make_synth(_fam))


# ---- build

@cli.command("build")
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False))
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Output directory [default: out/<config name>].")
@click.option("--sim", type=click.Choice(SIMS), default=None, help="Simulator [default: the config's].")
@click.option("--no-synth", is_flag=True, help="Skip synthesis.")
@click.option("--json", "as_json", is_flag=True, help="Print the build report as JSON.")
def build_cmd(config_path, out_dir, sim, no_synth, as_json):
    """Generate, co-simulate and synthesize every block of CONFIG; print a summary table."""
    from .flow import run_build

    cfg = _config_blocks(config_path)
    out = Path(out_dir) if out_dir else Path("out") / Path(config_path).stem
    con = _console()
    err_con = con if not as_json else None
    with con.status("starting") if err_con else _nullcontext() as status:
        def on_step(name, what):
            if status is not None:
                status.update(f"{name}: {what}")
        reports = run_build(cfg, out, sim=sim, synth=False if no_synth else None, on_step=on_step)
    if as_json:
        click.echo(json.dumps([r.to_dict() for r in reports], indent=2))
    else:
        from rich.table import Table
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


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


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


# ---- block-specific commands, each in its own module

from .tensordash_cli import tensordash_sweep_cmd  # noqa: E402

cli.add_command(tensordash_sweep_cmd)

from .fit_cli import COMMANDS as _FIT_COMMANDS  # noqa: E402

for _cmd in _FIT_COMMANDS:
    cli.add_command(_cmd)

from .perf_cli import COMMANDS as _PERF_COMMANDS  # noqa: E402

for _cmd in _PERF_COMMANDS:
    cli.add_command(_cmd)

from .sigma_cli import sigma_report_cmd  # noqa: E402

cli.add_command(sigma_report_cmd)

from .regress_cli import regress_cmd  # noqa: E402

cli.add_command(regress_cmd)

from .ppa_cli import estimate_cmd, sram_cmd, validate_chips_cmd  # noqa: E402

for _cmd in (estimate_cmd, sram_cmd, validate_chips_cmd):
    cli.add_command(_cmd)

from .dse_cli import dse_cmd  # noqa: E402

cli.add_command(dse_cmd)


# --------------------------------------------------------------------------- entry point

def _show_warning(message, category, filename, lineno, file=None, line=None):
    click.echo(f"accelgen: warning: {message}", err=True)


def main(argv: list[str] | None = None) -> int:
    """Console entry point: one-line errors with exit code 2 for bad input."""
    args = sys.argv[1:] if argv is None else list(argv)
    warnings.showwarning = _show_warning
    if not args:
        click.echo(cli.get_help(click.Context(cli, info_name="accelgen")))
        return 0
    try:
        rv = cli.main(args=args, prog_name="accelgen", standalone_mode=False)
    except click.UsageError as exc:
        ctx_name = exc.ctx.command_path if exc.ctx else "accelgen"
        click.echo(f"{ctx_name}: error: {exc.format_message()}", err=True)
        return EXIT_USAGE
    except AccelgenError as exc:
        click.echo(f"accelgen: error: {exc}", err=True)
        return EXIT_USAGE
    except (KeyboardInterrupt, click.Abort):
        click.echo("accelgen: interrupted", err=True)
        return 130
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":
    sys.exit(main())
