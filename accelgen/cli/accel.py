"""``accelgen gen --arch FILE`` and ``accelgen cosim --arch FILE``: the accelerator an architecture file describes,
emitted and co-simulated on layers (:mod:`accelgen.system.arch`, :mod:`accelgen.system.run`)."""

from __future__ import annotations

import json

import click
from rich.table import Table

from ..system.arch import emit_accel
from ..system.run import cosim_accelerator
from .console import EXIT_FAIL, console

#: measured cycles may differ from ``accelgen perf``'s prediction by this share before a run fails (issue 52)
CYCLE_TOLERANCE = 0.05


def gen_arch(arch_path: str, out_dir: str, name: str | None) -> int:
    e = emit_accel(arch_path, out_dir, name)
    p = e.params
    click.echo(f"wrote {e.verilog_path} and {e.manifest_path.name} ({p.array.rows}x{p.array.cols} {p.array.dtype} "
               f"array, scratchpad {p.sp_lines} lines in {p.sp_banks} banks, accumulator {p.acc_lines} lines in "
               f"{p.acc_banks} banks, AXI4 data {p.line_bits} bits)")
    return 0


def cosim_arch(arch_path: str, *, gemms, onnx, layers, seed, sim, opt, keep, tolerance, as_json) -> int:
    """Run the layers; a run fails on any result that differs from the golden model or on measured cycles more
    than ``tolerance`` away from the prediction."""
    def progress(run):
        if not as_json:
            verdict = "bit-exact" if run.passed else f"FAILED ({run.error})"
            err = "" if run.cycle_error is None else f", cycles {run.cycles} vs predicted {run.predicted_cycles:.0f} " \
                                                     f"({run.cycle_error:+.1%})"
            click.echo(f"{run.layer} {run.shape}: {verdict}{err}")

    runs = cosim_accelerator(arch_path, gemms=gemms, onnx=onnx, layers=layers, seed=seed, sim=sim, keep=keep,
                             opt=opt, progress=progress)
    failed = [r for r in runs if not r.passed or r.cycle_error is None or abs(r.cycle_error) > tolerance]
    if as_json:
        click.echo(json.dumps({"arch": str(arch_path), "cycle_tolerance": tolerance,
                               "layers": [r.to_dict() for r in runs]}, indent=1))
    else:
        table = Table("layer", "M", "N", "K", "results", "cycles", "predicted", "error", box=None)
        for r in runs:
            table.add_row(r.layer, *map(str, r.shape), "bit-exact" if r.passed else f"{r.mismatches} differ",
                          str(r.cycles), f"{r.predicted_cycles:.0f}",
                          "-" if r.cycle_error is None else f"{r.cycle_error:+.1%}")
        console().print(table)
        for r in runs:
            if r.log:
                click.echo(f"  {r.layer}: log {r.log}")
    return EXIT_FAIL if failed else 0
