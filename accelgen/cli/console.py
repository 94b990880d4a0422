"""The one console of the command line, and its exit codes."""

from __future__ import annotations

from rich.console import Console

EXIT_FAIL = 1     # a check failed (co-simulation mismatch, regression failure)
EXIT_USAGE = 2    # bad input: a one-line error names the parameter, the value and what is allowed


def console(*, stderr: bool = False) -> Console:
    """A rich console; piped output (logs, CI) gets wide tables instead of 80-column wrapping."""
    con = Console(highlight=False, stderr=stderr)
    return con if con.is_terminal else Console(highlight=False, stderr=stderr, width=200)
