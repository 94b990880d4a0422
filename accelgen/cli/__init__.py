"""The ``accelgen`` command line: parse, validate, call one library function, print.

One module per command group; every command is equally a Python function of the library. The commands are
grouped by what a user does (``accelgen hw|model|ppa ...``, family commands under their family); :mod:`.tree`
places them and keeps every earlier flat name (``accelgen gen``) as an alias of the same command.
Bad input (unknown block or option, invalid value, malformed config, unwritable output, missing
simulator) ends with a one-line ``accelgen: error: ...`` message and exit code 2; a failed check
exits 1.
"""

from __future__ import annotations

import sys
import warnings

import click

from ..errors import AccelgenError
from . import tree
from .console import EXIT_USAGE


@click.group(cls=tree.RootGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="accelgen")
def cli():
    """accelgen: verified Verilog generators and PPA models for ML-accelerator blocks."""


tree.register(cli)


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
