"""The one console of the command line, and its exit codes."""

from __future__ import annotations

from rich.console import Console

EXIT_FAIL = 1     # a check failed (co-simulation mismatch, regression failure)
EXIT_USAGE = 2    # bad input: a one-line error names the parameter, the value and what is allowed


def console(*, stderr: bool = False, soft_wrap: bool = False) -> Console:
    """A rich console; piped output (logs, CI) gets wide tables instead of 80-column wrapping.

    ``soft_wrap`` prints a table's title and caption on one line each instead of wrapping and
    centring them to the table's width.
    """
    con = Console(highlight=False, stderr=stderr, soft_wrap=soft_wrap)
    return con if con.is_terminal else Console(highlight=False, stderr=stderr, soft_wrap=soft_wrap, width=200)
