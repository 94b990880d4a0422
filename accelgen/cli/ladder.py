"""``accelgen validate-components``: parse options, call :mod:`accelgen.ppa.ladder`, print."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.table import Table

from ..ppa.ladder import TABLE_HEADERS, ladder_rows, replace_ladder_section, summary, summary_line, table_rows
from ..util import write_atomic
from .console import console
from .options import model_paths


@click.command("validate-components")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: every row with its source, scope, operating point, "
              "activity, published figure, accelgen's figures (raw and at the reference's supply) and ratios.")
@click.option("--doc", "doc", type=click.Path(dir_okay=False, exists=True),
              help="Rewrite the ladder's table between the markers of this file (docs/validation.md).")
@click.option("--model", "models", multiple=True, metavar="FAMILY=FILE", help="Use this fitted model file.")
def validate_components_cmd(as_json, doc, models):
    """Compare accelgen with published figures below the chip: operators at 45 nm, cells, and blocks measured in
    the papers, each with its source, scope, operating point and activity semantics (see docs/validation.md)."""
    rows = ladder_rows(model_paths=model_paths(models))
    if as_json:
        click.echo(json.dumps({"rows": rows, "summary": summary(rows)}, indent=1, default=float))
        return
    if doc:
        path = Path(doc)
        write_atomic(path, replace_ladder_section(path.read_text(), rows))
    table = Table(*TABLE_HEADERS)
    for row in table_rows(rows):
        table.add_row(*row)
    console().print(table)
    click.echo(summary_line(rows))


COMMANDS = (validate_components_cmd,)
