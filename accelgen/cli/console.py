"""The one console of the command line, and its exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from ..util import write_atomic

EXIT_FAIL = 1     # a check failed (co-simulation mismatch, regression failure)
EXIT_USAGE = 2    # bad input: a one-line error names the parameter, the value and what is allowed


def console(*, stderr: bool = False, soft_wrap: bool = False) -> Console:
    """A rich console; piped output (logs, CI) gets wide tables instead of 80-column wrapping.

    ``soft_wrap`` prints a table's title and caption on one line each instead of wrapping and
    centring them to the table's width.
    """
    con = Console(highlight=False, stderr=stderr, soft_wrap=soft_wrap)
    return con if con.is_terminal else Console(highlight=False, stderr=stderr, soft_wrap=soft_wrap, width=200)


def print_table(rows, headers) -> None:
    """Rows (sequences of strings) under ``headers``, as a rich table on the console."""
    table = Table(*headers)
    for row in rows:
        table.add_row(*row)
    console().print(table)


def print_validation(rows: list, *, key: str, as_json: bool, doc: str | None, replace, headers, table_rows, summary,
                     summary_line) -> None:
    """What a validation command prints (``validate-chips``, ``validate-components``): ``{key: rows, "summary"}`` as
    JSON; else the table and its summary line, after rewriting the generated section of ``doc`` with
    ``replace(text, rows)`` when given."""
    if as_json:
        click.echo(json.dumps({key: rows, "summary": summary(rows)}, indent=1, default=float))
        return
    if doc:
        path = Path(doc)
        write_atomic(path, replace(path.read_text(), rows))
    print_table(table_rows(rows), headers)
    click.echo(summary_line(rows))
