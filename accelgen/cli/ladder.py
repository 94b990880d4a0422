"""``accelgen validate-components``: parse options, call :mod:`accelgen.ppa.ladder`, print."""

from __future__ import annotations

import click

from ..ppa.ladder import TABLE_HEADERS, ladder_rows, replace_ladder_section, summary, summary_line, table_rows
from .console import print_validation
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
    print_validation(ladder_rows(model_paths=model_paths(models)), key="rows", as_json=as_json, doc=doc,
                     replace=replace_ladder_section, headers=TABLE_HEADERS, table_rows=table_rows, summary=summary,
                     summary_line=summary_line)


COMMANDS = (validate_components_cmd,)
