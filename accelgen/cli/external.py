"""``accelgen synth FILE.v [FILE.v ...] --top NAME``: a user's own Verilog through the mapping, timing and energy flow.

``accelgen synth`` (and ``accelgen hw synth``) is the group whose subcommands are the block families;
:class:`SynthGroup` hands a first argument that is a Verilog file (``.v``, ``.sv``, or any existing file that is
not a family's name) to :data:`synth_files_cmd` instead, which runs :func:`accelgen.fit.external.synth_files`.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..fit.mapping import DEFAULT_CLOCK_MHZ
from .console import console
from .options import BlockGroup

#: how a first argument to ``accelgen synth`` is recognized as a Verilog file
VERILOG_SUFFIXES = (".v", ".sv", ".vh", ".svh", ".verilog")


def _print_report(rep) -> None:
    con = console()
    p = rep.critical_path
    verdict = "meets the clock" if rep.meets_clock else "DOES NOT MEET the clock"
    extras = "".join(f" {k}={v}" for k, v in {**rep.defines, **rep.params}.items())
    con.print(f"[bold]{rep.top}[/bold]{extras}: {rep.library}, mapped for {rep.clock_mhz:g} MHz", highlight=False)
    rows = [
        ("area", f"{rep.area_um2:.1f} um^2 (cells {rep.cell_area_um2:.1f}, clock tree "
                 f"{rep.area_um2 - rep.cell_area_um2:.1f}); {rep.cells} cells, {rep.flip_flops} flip-flops"),
        ("cells", ", ".join(f"{k}:{v}" for k, v in rep.cells_by_type.items())),
        ("delay", f"{rep.delay_ns:.3f} ns, slack {rep.slack_ns:+.3f} ns at {rep.clock_mhz:g} MHz ({verdict}); "
                  f"path {p['start']} -> {p['end']}, {p['cells']} cells"),
        ("leakage", f"{rep.leakage_uw:.3g} uW"),
        ("energy", f"{rep.energy_pj:.4g} pJ per cycle ({rep.energy_zero_delay_pj:.4g} zero-delay, "
                   + (f"glitch ratio {rep.glitch_ratio:.2f}" if rep.glitch_ratio else
                      "vectorless, no glitches" if rep.activity_semantics == "vectorless" else "glitches not simulated")
                   + f"; clock network {rep.clock_energy_pj:.4g})"),
        ("activity" if rep.activity_semantics == "vectorless" else "stimulus", rep.stimulus),
        ("ports", rep.ports),
    ]
    for name, text in rows:
        con.print(f"  {name:<9} {text}", highlight=False, soft_wrap=True)


def _vectorless_sources(vectorless: bool, toggle_rate, static_prob, hold, propagation):
    """The sources of ``--vectorless`` (None without it); its options without it are a usage error."""
    from ..errors import ConfigError
    from ..fit.external import parse_assignments
    from ..fit.vectorless import DC_STATIC_PROBABILITY, DC_TOGGLE_RATE, Sources

    if not vectorless:
        given = [(o, v) for o, v in (("--toggle-rate", toggle_rate), ("--static-prob", static_prob),
                                     ("--hold", " ".join(hold)), ("--propagation", propagation)) if v not in (None, "")]
        if given:
            option, value = given[0]
            raise ConfigError([(option, f"{value!r} is not allowed without --vectorless (it sets a vectorless "
                                        "source)")])
        return None
    held = {}
    for name, value in parse_assignments(hold, "--hold").items():
        try:
            held[name] = int(value, 0)
        except ValueError:
            raise ConfigError([("--hold", f"{name}={value!r} is not allowed; expected an integer value")]) from None
    return Sources(toggle_rate=DC_TOGGLE_RATE if toggle_rate is None else toggle_rate,
                   static_prob=DC_STATIC_PROBABILITY if static_prob is None else static_prob, held=held,
                   propagation=propagation or "simulation")


def _synth_files(files, top, define, param, clock_mhz, liberty, activity, stimulus, vectorless, toggle_rate,
                 static_prob, hold, propagation, clock, reset, glitch, as_json):
    from ..fit.external import parse_assignments, synth_files

    parent = click.get_current_context().parent
    as_json = as_json or bool(parent and parent.params.get("as_json"))    # ``accelgen synth --json FILE.v``
    sources = _vectorless_sources(vectorless, toggle_rate, static_prob, hold, propagation)
    rep = synth_files(files, top, defines=parse_assignments(define, "--define", bare=True),
                      params=parse_assignments(param, "--param"), clock_mhz=clock_mhz, liberty=liberty,
                      activity=activity, stimulus=stimulus, clock=clock, reset=reset, glitch=glitch,
                      vectorless=sources)
    if as_json:
        click.echo(json.dumps(rep.to_dict(), indent=2))
    else:
        _print_report(rep)
    return 0


class _FilesCommand(click.Command):
    """Its usage line reads ``accelgen synth FILE.v... --top NAME [OPTIONS]`` (the files are its name's place)."""

    def collect_usage_pieces(self, ctx):
        return ["--top NAME [OPTIONS]"]


synth_files_cmd = _FilesCommand(
    "FILE.v...", callback=_synth_files, no_args_is_help=True,
    help="Map, time and simulate a module of your own Verilog files (the flow the fitted models are measured with): "
         "area and cells by type, critical path and slack at the clock, leakage, energy per cycle at a stated input "
         "activity (default: each data input bit toggles with probability 0.5 per cycle, uniform random) or from a "
         "stimulus file (CSV or JSON of per-cycle port values), or vectorless (--vectorless: DC's default "
         "activity semantics, propagated; docs/refit.md, 'Your own Verilog').",
    params=[
        click.Argument(["files"], nargs=-1, required=True, metavar="FILE.v..."),
        click.Option(["--top"], required=True, help="The top module."),
        click.Option(["--define", "-D"], multiple=True, metavar="K=V",
                     help="A preprocessor define (read_verilog -D; K alone defines it as 1). Repeatable."),
        click.Option(["--param", "-P"], multiple=True, metavar="K=V",
                     help="A parameter of the top (chparam; an integer or a string). Repeatable."),
        click.Option(["--clock-mhz"], type=float, default=DEFAULT_CLOCK_MHZ, show_default=True,
                     help="Target clock of the timing-driven mapping; the slack is at its period."),
        click.Option(["--liberty"], type=click.Path(dir_okay=False), default=None,
                     help="Map to this Liberty library instead of the default technology's."),
        click.Option(["--activity"], type=float, default=None,
                     help="Toggle probability of each data input bit per cycle [default: 0.5, uniform random]."),
        click.Option(["--stimulus"], type=click.Path(dir_okay=False), default=None,
                     help="Per-cycle input values instead: CSV (a header of port names, a row per cycle) or JSON."),
        click.Option(["--vectorless"], is_flag=True,
                     help="No stimulus: every input bit and flip-flop output a source at --toggle-rate and "
                          "--static-prob, as Design Compiler's and OpenSTA's defaults without a SAIF/VCD, carried "
                          "through the logic zero-delay (--propagation)."),
        click.Option(["--propagation"], type=str, default=None,
                     help="With --vectorless: 'simulation' (random sources simulated, DC's low-effort default) or "
                          "'density' (transition densities, inputs independent, OpenSTA's) [default: simulation]."),
        click.Option(["--toggle-rate"], type=float, default=None,
                     help="With --vectorless: toggles per clock cycle of each source, 0..2 [default: 0.1, DC's]."),
        click.Option(["--static-prob"], type=float, default=None,
                     help="With --vectorless: probability that a source is 1, 0..1 [default: 0.5, DC's]."),
        click.Option(["--hold"], multiple=True, metavar="PORT=VALUE",
                     help="With --vectorless: an input held at a constant value. Repeatable."),
        click.Option(["--clock"], default=None, metavar="PORT", help="The clock input [default: clk or clock]."),
        click.Option(["--reset"], default=None, metavar="PORT[:low|:high]",
                     help="The reset input [default: rst/reset, or rst_n/reset_n... active low]."),
        click.Option(["--glitch/--no-glitch"], default=True, show_default=True,
                     help="Run the timed (inertial-delay) simulation for the glitch ratio."),
        click.Option(["--json", "as_json"], is_flag=True, help="Machine-readable output.")])


def is_verilog_argument(name: str, commands) -> bool:
    """Whether the first argument of ``accelgen synth`` names Verilog files rather than a block family."""
    if name in commands or name.startswith("-"):
        return False
    return name.lower().endswith(VERILOG_SUFFIXES) or Path(name).is_file()


class SynthGroup(BlockGroup):
    """``accelgen synth``: a block family's subcommand, or Verilog files (:data:`synth_files_cmd`)."""

    def resolve_command(self, ctx, args):
        if args and is_verilog_argument(args[0], self.commands):
            return synth_files_cmd.name, synth_files_cmd, args
        return super().resolve_command(ctx, args)
