"""``accelgen schema {arch,sweep,regress,build}``: the JSON Schema of a YAML format, or its reference page."""

from __future__ import annotations

import json

import click

from ..registry import FAMILIES
from ..schema_docs import reference_page
from ..schemas import FORMATS, schema


@click.command("schema")
@click.argument("kind", type=click.Choice(list(FORMATS)))
@click.option("--markdown", is_flag=True, help="Print the reference page (docs/reference/KIND.md) instead.")
def schema_cmd(kind, markdown):
    """Print the JSON Schema of a YAML format: arch (architecture descriptions), sweep (sweep files), regress
    (regression descriptions) or build (build configs), for editors' YAML validation."""
    document = schema(kind, FAMILIES)
    click.echo(reference_page(kind, document) if markdown else json.dumps(document, indent=2), nl=not markdown)
    return 0


COMMANDS = (schema_cmd,)
