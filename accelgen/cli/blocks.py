"""``accelgen blocks / gen / cosim / synth / build``: the block families' commands.

Every block family gets a subcommand under ``gen``, ``cosim`` and ``synth`` whose options are
derived from its parameter schema, so ``accelgen gen mac --help`` lists exactly the parameters of
:class:`accelgen.rtl.MACParams`. Each runs one function of :mod:`accelgen.gen.emit` or
:mod:`accelgen.flow`.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import click
from rich.table import Table

from ..cosim.check import cosim_emitted
from ..family import BlockFamily
from ..fit.mapping import DEFAULT_CLOCK_MHZ, check_clock
from ..flow import (
    cosim_config,
    cosim_design,
    emit_config,
    run_build,
    synthesize_config,
    synthesize_emitted,
    time_emitted,
)
from ..gen.config import load_build_config
from ..gen.emit import emit, render
from ..gen.interface import describe_interface
from ..gen.manifest import is_edited, load_design
from ..registry import FAMILIES
from . import accel as accel_cli
from .console import EXIT_FAIL, console
from .external import SynthGroup
from .options import GEMM, BlockGroup, cosim_options, family_options, param_options, split_params, with_opt, with_sim


@click.command("blocks")
@click.argument("family", required=False, metavar="[FAMILY]", type=click.Choice(list(FAMILIES)))
@click.option("--json", "as_json", is_flag=True, help="With FAMILY: print the interface as JSON.")
def blocks_cmd(family, as_json):
    """List the block families and their parameters; with FAMILY, also its interface: the ports, clock, reset and
    latency of the default configuration and the generator's protocol (what each port carries and when)."""
    con = console()
    for fam in [FAMILIES[family]] if family else FAMILIES.values():
        if as_json:
            click.echo(json.dumps(describe_interface(fam, fam.validate({})), indent=1))
            continue
        con.print(f"[bold]{fam.name}[/bold]: {fam.summary}")
        for field, info in fam.params_model.model_fields.items():
            con.print(f"  {field:<12} default {info.default!r:<8} allowed {fam.params_model.allowed(field)}"
                      f"  - {info.description}", markup=False)
        if family:
            _print_interface(con, describe_interface(fam, fam.validate({})))
    return 0


def _print_interface(con, interface: dict) -> None:
    reset = f"{interface['reset']} ({interface['reset_kind']})" if interface["reset"] else "none"
    con.print(f"\nInterface of the defaults (`accelgen gen {interface['family']} [options]` writes the manifest of any "
              f"configuration): clock {interface['clock'] or 'none'}, reset {reset}, latency {interface['latency']} "
              f"cycle{'' if interface['latency'] == 1 else 's'}", markup=False)
    table = Table("port", "direction", "width", "signed", box=None)
    for port in interface["ports"]:
        table.add_row(port["name"], port["direction"], str(port["width"]), "yes" if port["signed"] else "")
    con.print(table)
    if interface["protocol"]:
        con.print("\n" + interface["protocol"], markup=False, highlight=False)


def _config_or_block(ctx, config_path: str | None):
    """The build config of a group called without a block (``None`` when a block was given)."""
    if ctx.invoked_subcommand is not None:
        return None
    if not config_path:
        raise click.UsageError(f"give a block ({', '.join(FAMILIES)}) or --config FILE")
    return load_build_config(config_path, FAMILIES)


# ---- gen

@click.group("gen", cls=BlockGroup, invoke_without_command=True)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="YAML build config: emit all its blocks.")
@click.option("--arch", "arch_path", type=click.Path(dir_okay=False),
              help="Architecture file: emit the whole accelerator it describes (docs/accelerator.md).")
@click.option("--name", help="With --arch: module and file name [default: the description's name].")
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), default="out", show_default=True,
              help="Output directory.")
@click.pass_context
def gen_group(ctx, config_path, arch_path, name, out_dir):
    """Emit Verilog and a manifest: `accelgen hw gen BLOCK [params] -o DIR`, `accelgen hw gen --config FILE` or
    `accelgen hw gen --arch FILE` (a whole accelerator)."""
    given = [n for n, v in (("a block", ctx.invoked_subcommand), ("--config", config_path), ("--arch", arch_path)) if v]
    if len(given) > 1:
        raise click.UsageError(f"give one of a block, --config or --arch, not {' and '.join(given)}")
    if name and not arch_path:
        raise click.UsageError("--name goes with --arch (a block takes its own: accelgen hw gen BLOCK --help)")
    if arch_path:
        return accel_cli.gen_arch(arch_path, out_dir, name)
    cfg = _config_or_block(ctx, config_path)
    if cfg is not None:
        for e in emit_config(cfg, out_dir):
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
    """The summary line (with the build/run split), then what a failure left behind."""
    click.echo(result.summary())
    if not result.passed:
        if result.error:
            click.echo(f"  error: {result.error}")
        for mm in result.first_mismatches[:5]:
            click.echo(f"  cycle {mm['cycle']}: {mm['port']} expected {mm['expected']}, got {mm['got']}"
                       + _inputs_text(mm.get("inputs")))
        if result.waveform:
            click.echo(f"  waveform: {result.waveform}")
        if result.log:
            click.echo(f"  log: {result.log}")


def _inputs_text(inputs: dict | None, shown: int = 12) -> str:
    """`` (inputs a=-3 b=7 ...)``: the inputs of a mismatch's cycle, the first ``shown`` of an array's many."""
    if not inputs:
        return ""
    items = [f"{port}={value}" for port, value in inputs.items()]
    more = f" +{len(items) - shown} more" if len(items) > shown else ""
    return f"; inputs {' '.join(items[:shown])}{more}"


@click.group("cosim", cls=BlockGroup, invoke_without_command=True)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Co-simulate every block of a config.")
@click.option("--verilog", "verilog_path", type=click.Path(dir_okay=False),
              help="Co-simulate this existing (e.g. hand-edited) Verilog against its family's golden model, "
                   "without regenerating it.")
@click.option("--manifest", "manifest_path", type=click.Path(dir_okay=False),
              help="The manifest of --verilog (family, parameters, ports) [default: FILE.json beside it].")
@click.option("--vectors", type=click.IntRange(0, 10_000_000), default=None,
              help="With --verilog: random vectors of the family's stimulus (0: directed only) "
                   "[default: the family's].")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=1, show_default=True,
              help="With --verilog: stimulus seed.")
@click.option("--keep", is_flag=True, help="With --verilog: keep the run directory after a pass.")
@with_sim(None, "Simulator [default: the config's; verilator with --verilog].")
@with_opt()
@click.option("--arch", "arch_path", type=click.Path(dir_okay=False),
              help="Co-simulate the accelerator this architecture file describes on layers (--gemm, --onnx).")
@click.option("--gemm", "gemms", type=GEMM, multiple=True, help="With --arch: a GEMM of this shape (repeatable).")
@click.option("--onnx", "onnx_path", type=click.Path(dir_okay=False),
              help="With --arch: the convolutions of this ONNX model (its weights, a seeded input).")
@click.option("--layer", "layers", multiple=True, help="With --onnx: only this convolution (repeatable).")
@click.option("--cycle-tolerance", type=click.FloatRange(0, 1), default=accel_cli.CYCLE_TOLERANCE, show_default=True,
              help="With --arch: fail a layer whose measured cycles differ more than this from `accelgen perf`'s.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON (with --config, --verilog or --arch).")
@click.pass_context
def cosim_group(ctx, config_path, verilog_path, manifest_path, vectors, seed, keep, sim, opt, arch_path, gemms,
                onnx_path, layers, cycle_tolerance, as_json):
    """Co-simulate the emitted Verilog against the golden model.

    `accelgen hw cosim BLOCK [params]` generates the design and checks it; `accelgen hw cosim --config FILE` checks
    every block of a build config; `accelgen hw cosim --verilog FILE.v [--manifest FILE.json]` checks an existing
    design (an ECO, a hand edit) with the stimulus `accelgen hw cosim FAMILY` would use.
    """
    given = [n for n, v in (("a block", ctx.invoked_subcommand), ("--config", config_path),
                            ("--verilog", verilog_path), ("--arch", arch_path)) if v]
    if len(given) > 1:
        raise click.UsageError(f"give one of a block, --config, --verilog or --arch, not {' and '.join(given)}")
    if arch_path is None and (gemms or onnx_path or layers):
        raise click.UsageError("--gemm, --onnx and --layer go with --arch")
    if arch_path is not None:
        if manifest_path or vectors is not None:
            raise click.UsageError("--manifest and --vectors go with --verilog")
        return accel_cli.cosim_arch(arch_path, gemms=list(gemms), onnx=onnx_path, layers=list(layers), seed=seed,
                                    sim=sim or "verilator", opt=opt, keep=keep, tolerance=cycle_tolerance,
                                    as_json=as_json)
    if verilog_path is None and (manifest_path or vectors is not None or seed != 1 or keep):
        raise click.UsageError("--manifest, --vectors, --seed and --keep go with --verilog "
                               "(a block takes its own: accelgen hw cosim BLOCK --help)")
    if verilog_path is not None:
        return _cosim_verilog(verilog_path, manifest_path, sim=sim or "verilator", opt=opt, vectors=vectors,
                              seed=seed, keep=keep, as_json=as_json)
    cfg = _config_or_block(ctx, config_path)
    failed = 0
    if cfg is not None:
        # ``render`` is this module's (looked up at call time): tests swap in a mutant generator
        results = []
        for result in cosim_config(cfg, sim=sim, render=render, opt=opt):
            results.append(result)
            if not as_json:
                _print_cosim(result)
            failed += not result.passed
        if as_json:
            click.echo(json.dumps([r.to_dict() for r in results], indent=2))
    return EXIT_FAIL if failed else 0


def _cosim_verilog(verilog_path, manifest_path, *, sim, opt, vectors, seed, keep, as_json) -> int:
    """``cosim --verilog``: the existing design read back with its manifest, then the same check as a block's."""
    if opt is not None and sim != "verilator":
        raise click.UsageError(f"--opt {opt} needs --sim verilator (Icarus compiles no C++ model)")
    design = load_design(verilog_path, manifest_path, FAMILIES)
    result = cosim_emitted(FAMILIES[design.family], design.params, design, sim=sim, vectors=vectors, seed=seed,
                           keep=keep, opt=opt)
    if as_json:
        click.echo(json.dumps(result.to_dict() | {"verilog": str(design.verilog_path),
                                                  "edited": is_edited(design)}, indent=2))
        return 0 if result.passed else EXIT_FAIL
    if is_edited(design):
        click.echo(f"{design.verilog_path} differs from the Verilog {design.manifest_path} was written with "
                   f"(edited): checking it as it is")
    _print_cosim(result)
    if result.passed and result.run_dir:
        click.echo(f"  run directory: {result.run_dir}")
    return 0 if result.passed else EXIT_FAIL


def _make_cosim(fam: BlockFamily) -> click.Command:
    def callback(sim, vectors, seed, keep, testbench, opt, as_json, **kwargs):
        params = fam.validate(split_params(fam, kwargs), fam.name)
        options = family_options(fam, kwargs)
        if testbench == "native" and sim != "verilator":
            raise click.UsageError("--testbench native needs --sim verilator")
        if opt is not None and sim != "verilator":
            raise click.UsageError(f"--opt {opt} needs --sim verilator (Icarus compiles no C++ model)")
        result = cosim_design(fam, params, sim=sim, vectors=vectors, seed=seed, keep=keep, options=options,
                              testbench=testbench, render=render, opt=opt)
        if as_json:
            click.echo(json.dumps(result.to_dict(), indent=2))
            return 0 if result.passed else EXIT_FAIL
        _print_cosim(result)
        if result.passed and result.run_dir:
            click.echo(f"  run directory: {result.run_dir}")
        return 0 if result.passed else EXIT_FAIL

    return click.Command(fam.name, callback=callback, help=f"Co-simulate a {fam.summary}.",
                         params=[*param_options(fam), *cosim_options(fam)])


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


@click.group("synth", cls=SynthGroup, invoke_without_command=True,
             subcommand_metavar="FAMILY [OPTIONS] | FILE.v... --top NAME [OPTIONS]")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Synthesize every block of a config.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def synth_group(ctx, config_path, as_json):
    """Synthesize with Yosys: cells by type, flip-flops, CMOS transistors, logic depth.

    A block family (accelgen synth mac --help), or your own Verilog: accelgen synth FILE.v [FILE.v ...] --top NAME
    [--define K=V] [--param K=V] [--clock-mhz F] [--liberty FILE] [--activity A | --stimulus FILE] [--json]
    maps, times and simulates that module (accelgen synth FILE.v --help lists its options).
    """
    cfg = _config_or_block(ctx, config_path)
    if cfg is not None:
        _print_synth(list(synthesize_config(cfg)), as_json)
    return 0


def _print_timing(t) -> None:
    p = t.critical_path
    verdict = "meets" if t.meets_clock else "DOES NOT MEET"
    click.echo(f"timing ({t.library}, mapped for {t.clock_mhz:g} MHz): delay {t.delay_ns:.3f} ns "
               f"(fmax {t.fmax_mhz:.0f} MHz, {verdict} the target); {t.cells} cells, {t.area_um2:.1f} um^2")
    click.echo(f"  critical path: {p['start']} ({p['start_kind']}) -> {p['end']} ({p['end_kind']}), "
               f"{p['cells']} cells, logic {t.logic_ns:.3f} ns")
    if t.scope != "design, flattened":
        click.echo(f"  timed: {t.scope}")


def _make_synth(fam: BlockFamily) -> click.Command:
    def callback(as_json, clock_mhz, liberty, timing, **kwargs):
        params = fam.validate(split_params(fam, kwargs), fam.name)
        check_clock(clock_mhz)  # before the synthesis it would follow
        emitted = render(fam, params, fam.default_name(params))      # once: a 256x256 array takes seconds
        stats = synthesize_emitted(emitted)
        mapped = time_emitted(fam, emitted, clock_mhz=clock_mhz, liberty=liberty) if timing else None
        if as_json:
            click.echo(json.dumps(stats.to_dict() | ({"timing": mapped.to_dict()} if mapped else {}), indent=2))
            return 0
        _print_synth([stats], False)
        if mapped:
            _print_timing(mapped)
        return 0

    return click.Command(fam.name, callback=callback, help=f"Synthesize a {fam.summary}.", params=[
        *param_options(fam),
        click.Option(["--clock-mhz"], type=float, default=DEFAULT_CLOCK_MHZ, show_default=True,
                     help="Target clock of the timing-driven mapping (the reference 45 nm library)."),
        click.Option(["--liberty"], type=click.Path(dir_okay=False), default=None,
                     help="Map to this Liberty library instead of the default technology's."),
        click.Option(["--timing/--no-timing"], default=True, show_default=True,
                     help="Map to the cell library and report static timing (delay, critical path)."),
        click.Option(["--json", "as_json"], is_flag=True, help="Machine-readable output.")])


for _fam in FAMILIES.values():
    gen_group.add_command(_make_gen(_fam))
    cosim_group.add_command(_make_cosim(_fam))
    synth_group.add_command(_make_synth(_fam))


# ---- build

@click.command("build")
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False))
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Output directory [default: out/<config name>].")
@with_sim(None, "Simulator [default: the config's].")
@with_opt()
@click.option("--no-synth", is_flag=True, help="Skip synthesis.")
@click.option("--json", "as_json", is_flag=True, help="Print the build report as JSON.")
def build_cmd(config_path, out_dir, sim, opt, no_synth, as_json):
    """Generate, co-simulate and synthesize every block of CONFIG; print a summary table."""
    cfg = load_build_config(config_path, FAMILIES)
    out = Path(out_dir) if out_dir else Path("out") / Path(config_path).stem
    con = console()
    with _spinner(con, show=not as_json) as on_step:
        reports = run_build(cfg, out, sim=sim, synth=False if no_synth else None, on_step=on_step, opt=opt)
    if as_json:
        click.echo(json.dumps([r.to_dict() for r in reports], indent=2))
    else:
        _print_build(con, reports, f"accelgen build {config_path} -> {out}")
    return 0 if all(r.ok for r in reports) else EXIT_FAIL


@contextlib.contextmanager
def _spinner(con, show: bool):
    """An ``on_step(block, step)`` for :func:`run_build` that shows the step on a spinner (``None``: no spinner)."""
    if not show:
        yield None
        return
    with con.status("starting") as status:
        yield lambda name, what: status.update(f"{name}: {what}")


def _print_build(con, reports, title: str) -> None:
    table = Table("block", "family", "params", "cosim", "cycles checked", "cells", "flip-flops",
                  "transistors", "depth", title=title)
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
        elif k.endswith("_stages") and v == 0:  # unpipelined, like a flag that is off
            continue
        elif k != "dtype" or v != "int":
            parts.append(f"{keys.get(k, k)}={v}")
    return " ".join(parts)


COMMANDS = (blocks_cmd, gen_group, cosim_group, synth_group, build_cmd)
