"""``accelgen study NAME``: run one of the papers' studies, print its table, write its plots."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import click

from ..errors import ConfigError
from .console import console


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "-" if v is None else str(v)


@click.command("study")
@click.argument("name", metavar="[NAME]", required=False)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Output directory for plots and tables (default: study-out/NAME).")
@click.option("--json", "as_json", is_flag=True, help='Print {"study": NAME, "rows": [...], ...}.')
@click.option("--doc", type=click.Path(dir_okay=False, exists=True),
              help="Rewrite the study's section between its markers in this file (docs/studies.md); without NAME, "
              "every study's.")
def study_cmd(name, out_dir, as_json, doc):
    """Run the study NAME (sigma-reduction, sigma-vs-systolic, tensordash-overhead, neurometer-datacenter,
    neurometer-sparsity): the papers' comparisons on accelgen's verified generators and fitted models. Prints the
    study's table and its notes (the paper's figures beside accelgen's), and writes its plots under --out."""
    # the estimator loads on use, as in the other commands
    from ..ppa.studies import run_study, study_names

    if doc:
        return _write_doc([name] if name else study_names(), doc, out_dir)
    if name is None:
        raise ConfigError([("NAME", "missing; expected one of " + ", ".join(study_names()))])
    res = run_study(name, out_dir)
    if as_json:
        click.echo(json.dumps(res.to_json(), indent=1, default=str))
        return 0
    from rich.table import Table

    table = Table(*[header for _, header in res.columns], title=res.title)
    for row in res.rows:
        table.add_row(*[_fmt(row.get(key)) for key, _ in res.columns])
    console().print(table)
    for note in res.notes:
        click.echo(note)
    for f in res.files:
        click.echo(f"wrote {f}")
    return 0


def _write_doc(names, doc, out_dir):
    """Regenerate the sections of ``names`` in the file ``doc``, writing it once all have run."""
    from ..ppa.docs import replace_study_section
    from ..ppa.studies import run_study
    from ..util import write_atomic

    path = Path(doc)
    text = path.read_text()
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            click.echo(f"running {name}", err=True)
            res = run_study(name, Path(out_dir) / name if out_dir else Path(scratch) / name)
            text = replace_study_section(text, res)
    write_atomic(path, text)
    click.echo(f"wrote {path}")
    return 0


COMMANDS = (study_cmd,)
