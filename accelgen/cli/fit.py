"""``accelgen sweep / fit / fit-report / predict``: the fitted-component-model commands.

NAME is a block family (``mac``) or a model variant ``<family>-<variant>`` (``mac-bf16``): its
sweep file is ``fit/sweeps/NAME.yaml`` (whose ``family:`` key names the block family), its dataset
``fit/data/NAME.csv`` and its model ``fit/models/NAME.json``.

* ``accelgen sweep NAME [--grid FILE] [-j N] [--liberty LIB] [-o CSV]`` runs (or resumes) the
  sweep (mapping to the cell library at the sweep's clock, static timing, library energy, glitch samples)
  and writes the tidy dataset (default ``out/fit/<family>.csv``).
* ``accelgen fit NAME [--data CSV] [-o JSON] [--node-nm NM]`` fits every target of the sweep file and writes
  the model file (default ``out/fit/<family>.json``; ``--ship`` writes the package's
  ``fit/models/<family>.json`` and ``fit/data/<family>.csv``).
* ``accelgen fit-report NAME [--model JSON] [--data CSV] [--png FILE] [--json]`` prints the
  held-out / CV / training errors and draws predicted vs measured.
* ``accelgen predict NAME key=value ... [--node NM] [--json]`` evaluates a model (``--model FILE`` without NAME:
  the file's model, e.g. one of a user's own Verilog module).

A user's own Verilog module is swept from a sweep file that names its files and top (``accelgen sweep adder.yaml``,
then ``accelgen fit adder.yaml``: the model ``out/fit/adder.json``; :mod:`accelgen.fit.external_sweep`).

Each runs one function of :mod:`accelgen.fit.api` or :mod:`accelgen.fit.report`, imported when the
command runs (they load pandas and matplotlib, which ``accelgen --help`` does not need).
"""

from __future__ import annotations

import json
import warnings

import click
from rich.table import Table

from ..errors import ConfigError
from ..fit.model import FitRangeWarning, FittedModel, load_model, read_model
from ..registry import FAMILIES
from .console import console


@click.command("sweep")
@click.argument("family_name", metavar="NAME")
@click.option("--grid", type=click.Path(dir_okay=False), help="Sweep file [default: the shipped fit/sweeps/NAME.yaml].")
@click.option("-j", "--jobs", type=click.IntRange(1, 256), default=None, help="Parallel processes [default: all cores].")
@click.option("--liberty", type=click.Path(dir_okay=False, exists=True),
              help="Map to this Liberty library instead of the default one (its area, timing, energy, leakage).")
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False), default=None,
              help="Dataset CSV [default: out/fit/NAME.csv].")
@click.option("--limit", type=click.IntRange(0), default=None, hidden=True, help="Run at most this many new points.")
def sweep_cmd(family_name, grid, jobs, liberty, out, limit):
    """Map, time and simulate every point of a sweep (resumable), write the dataset.

    NAME is a block family or a variant (mac, mac-bf16), or the sweep file of your own Verilog module (adder.yaml:
    verilog, top, ports and a grid of its parameters; docs/refit.md), whose dataset is out/fit/adder.csv."""
    from ..fit.api import sweep_dataset

    res = sweep_dataset(family_name, grid, families=FAMILIES, jobs=jobs, liberty=liberty, out=out, limit=limit)
    click.echo(f"{res.done} of {res.points} points done; dataset {res.dataset}")
    return 0


@click.command("fit")
@click.argument("family_name", metavar="NAME")
@click.option("--grid", type=click.Path(dir_okay=False), help="Sweep file with the target features [default: shipped].")
@click.option("--data", type=click.Path(dir_okay=False), help="Dataset CSV [default: out/fit/NAME.csv].")
@click.option("-o", "--out", type=click.Path(dir_okay=False), help="Model file [default: out/fit/NAME.json].")
@click.option("--ship", is_flag=True, help="Write the package's fit/models/NAME.json and fit/data/NAME.csv.")
@click.option("--folds", type=click.IntRange(2, 50), default=5, show_default=True, help="Cross-validation folds.")
@click.option("--node-nm", type=float, default=None,
              help="Node of the library the dataset was mapped to [default: 45, the default library's].")
def fit_cmd(family_name, grid, data, out, ship, folds, node_nm):
    """Fit area / energy / leakage / delay models to a sweep dataset and write the model file.

    NAME as for accelgen sweep (a family, a variant, or your own module's sweep file: adder.yaml -> out/fit/adder.json).
    """
    from ..fit.api import fit_model

    res = fit_model(family_name, grid, families=FAMILIES, data=data, out=out, ship=ship, folds=folds, node_nm=node_nm)
    click.echo(f"wrote {res.path}")
    _print_errors(res.model)
    return 0


def _print_errors(model: dict) -> None:
    t = Table("target", "unit", "per", "held-out points", "held-out MAPE %", "held-out max %", "CV MAPE %",
              "train MAPE %", title=f"{model.get('name') or model['family']}: fitted model errors (tech {model['tech'].get('name')})")
    for name, tg in model["targets"].items():
        h, cv, tr = tg["heldout"], tg["cv"], tg["train"]
        t.add_row(name, tg["unit"], str(tg.get("per") or "-"), str(h.get("points", h["n"])), f"{h['mape_pct']:.2f}",
                  f"{h['max_err_pct']:.2f}", f"{cv['mape_pct']:.2f}", f"{tr['mape_pct']:.2f}")
    console().print(t)


@click.command("fit-report")
@click.argument("family_name", metavar="NAME")
@click.option("--model", "model_path", type=click.Path(dir_okay=False), help="Model file [default: the shipped one].")
@click.option("--data", type=click.Path(dir_okay=False),
              help="Dataset CSV for the plot [default: the shipped fit/data/NAME.csv].")
@click.option("--png", type=click.Path(dir_okay=False), help="Plot file [default: out/fit/NAME-report.png].")
@click.option("--json", "as_json", is_flag=True, help="Print the error numbers as JSON.")
def fit_report_cmd(family_name, model_path, data, png, as_json):
    """Held-out, cross-validation and training errors of a model, and a predicted-vs-measured plot."""
    from ..fit.report import fit_report

    rep = fit_report(family_name, model_path=model_path, data=data, png=png)
    if as_json:
        click.echo(json.dumps(rep.to_dict(), indent=2))
    else:
        _print_errors(rep.model)
        click.echo(f"model {rep.source}" + (f"; plot {rep.png}" if rep.png else "; no dataset, no plot"))
    return 0


def _parse_value(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def _inputs(assignments, model: FittedModel) -> dict:
    """``KEY=VALUE`` words -> ``{key: bool | int | float | str}``."""
    inputs = {}
    for a in assignments:
        if "=" not in a:
            raise ConfigError([(a, f"expected KEY=VALUE; allowed keys: {', '.join(model.inputs)}")])
        k, v = a.split("=", 1)
        inputs[k] = _parse_value(v)
    return inputs


@click.command("predict")
@click.argument("family_name", metavar="[NAME]", required=False)
@click.argument("assignments", nargs=-1, metavar="KEY=VALUE...")
@click.option("--model", "model_path", type=click.Path(dir_okay=False), help="Model file [default: the shipped one].")
@click.option("--node", "node_nm", type=float, default=None,
              help="Scale to this technology node in nm (delays in FO4 of the model's library: at its own node "
                   "too they become the node's). Default: the library's own figures.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def predict_cmd(family_name, assignments, model_path, node_nm, as_json):
    """Evaluate a fitted model: accelgen model predict mac a_width=8 b_width=8 zero_gating=true density=0.5

    With --model FILE, NAME may be left out (a model of your own Verilog module: accelgen predict --model
    out/fit/adder.json WIDTH=8)."""
    from ..fit.api import predict

    if family_name is not None and "=" in family_name:      # no NAME: the first word is an assignment
        family_name, assignments = None, (family_name, *assignments)
    if family_name is None and model_path is None:
        raise click.UsageError("give a model NAME (a family, e.g. mac) or --model FILE")
    m = read_model(model_path) if family_name is None else load_model(family_name, path=model_path)
    inputs = _inputs(assignments, m)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FitRangeWarning)
        pred = predict(m, inputs, node_nm=node_nm)
    for w in caught:
        click.echo(f"accelgen: warning: {w.message}", err=True)
    if as_json:
        click.echo(json.dumps(pred.to_dict(), indent=2))
    else:
        _print_prediction(pred)
    return 0


def _print_prediction(pred) -> None:
    for k, v in pred.values.items():
        t = pred.model[k]
        click.echo(f"{k:<11} {v:.6g} {t.unit}" + (f" per {t.per}" if t.per else "")
                   + f"  (held-out MAPE {t.heldout.get('mape_pct', float('nan')):.2f}%)")


COMMANDS = (sweep_cmd, fit_cmd, fit_report_cmd, predict_cmd)
