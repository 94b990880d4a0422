"""``accelgen sweep / fit / fit-report / predict``: the fitted-component-model commands.

NAME is a block family (``mac``) or a model variant ``<family>-<variant>`` (``mac-bf16``): its
sweep file is ``fit/sweeps/NAME.yaml`` (whose ``family:`` key names the block family), its dataset
``fit/data/NAME.csv`` and its model ``fit/models/NAME.json``.

* ``accelgen sweep NAME [--grid FILE] [-j N] [--liberty LIB] [-o CSV]`` runs (or resumes) the
  synthesis + activity sweep and writes the tidy dataset (default ``out/fit/<family>.csv``).
* ``accelgen fit NAME [--data CSV] [-o JSON]`` fits every target of the sweep file and writes
  the model file (default ``out/fit/<family>.json``; ``--ship`` writes the package's
  ``fit/models/<family>.json`` and ``fit/data/<family>.csv``).
* ``accelgen fit-report NAME [--model JSON] [--data CSV] [--png FILE] [--json]`` prints the
  held-out / CV / training errors and draws predicted vs measured.
* ``accelgen predict NAME key=value ... [--node NM] [--json]`` evaluates a model.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import click

from .. import fit as fit_pkg
from ..errors import ConfigError
from ..registry import FAMILIES
from .console import console

FIT_DIR = Path(fit_pkg.__file__).resolve().parent


def _default_csv(name: str) -> Path:
    return Path("out") / "fit" / f"{name}.csv"


def _read_csv(path: Path):
    import pandas as pd
    if not path.exists():
        raise ConfigError([("data", f"dataset {str(path)!r} does not exist; run `accelgen sweep` first")])
    return pd.read_csv(path)


@click.command("sweep")
@click.argument("family_name", metavar="NAME")
@click.option("--grid", type=click.Path(dir_okay=False), help="Sweep file [default: the shipped fit/sweeps/NAME.yaml].")
@click.option("-j", "--jobs", type=click.IntRange(1, 256), default=None, help="Parallel processes [default: all cores].")
@click.option("--liberty", type=click.Path(dir_okay=False, exists=True),
              help="Map with ABC to this Liberty library and take area/leakage/delay from it.")
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False), default=None,
              help="Dataset CSV [default: out/fit/NAME.csv].")
@click.option("--limit", type=click.IntRange(0), default=None, hidden=True, help="Run at most this many new points.")
def sweep_cmd(family_name, grid, jobs, liberty, out, limit):
    """Synthesize and simulate every point of a sweep (resumable), write the dataset."""
    from ..fit.celllib import liberty_tech, load_tech
    from ..fit.sweep import dataset_rows, load_sweep, run_sweep, write_dataset
    spec = load_sweep(family_name, grid, families=FAMILIES)
    tech = liberty_tech(liberty) if liberty else load_tech()
    records = run_sweep(spec, jobs=jobs, liberty=liberty, limit=limit)
    path = write_dataset(dataset_rows(records, tech, spec.block), out or _default_csv(family_name))
    click.echo(f"{len(records)} of {len(spec.points())} points done; dataset {path}")
    return 0


@click.command("fit")
@click.argument("family_name", metavar="NAME")
@click.option("--grid", type=click.Path(dir_okay=False), help="Sweep file with the target features [default: shipped].")
@click.option("--data", type=click.Path(dir_okay=False), help="Dataset CSV [default: out/fit/NAME.csv].")
@click.option("-o", "--out", type=click.Path(dir_okay=False), help="Model file [default: out/fit/NAME.json].")
@click.option("--ship", is_flag=True, help="Write the package's fit/models/NAME.json and fit/data/NAME.csv.")
@click.option("--folds", type=click.IntRange(2, 50), default=5, show_default=True, help="Cross-validation folds.")
def fit_cmd(family_name, grid, data, out, ship, folds):
    """Fit area / energy / leakage / delay models to a sweep dataset and write the model file."""
    from ..fit.celllib import load_tech
    from ..fit.fitting import fit_family, save_model
    from ..fit.sweep import load_sweep
    spec = load_sweep(family_name, grid, families=FAMILIES)
    csv = Path(data) if data else _default_csv(family_name)
    df = _read_csv(csv)
    model = fit_family(spec, df, load_tech(), folds=folds)
    if ship:  # the model and its dataset together, or neither
        from ..util import atomic_files
        path, data_path = FIT_DIR / "models" / f"{family_name}.json", FIT_DIR / "data" / f"{family_name}.csv"
        for p in (path, data_path):
            p.parent.mkdir(parents=True, exist_ok=True)
        with atomic_files([path, data_path]) as (tmp_model, tmp_data):
            save_model(model, tmp_model)
            Path(tmp_data).write_text(csv.read_text())
    else:
        path = save_model(model, Path(out) if out else Path("out") / "fit" / f"{family_name}.json")
    click.echo(f"wrote {path}")
    _print_errors(model)
    return 0


def _print_errors(model: dict) -> None:
    from rich.table import Table

    t = Table("target", "unit", "per", "held-out points", "held-out MAPE %", "held-out max %", "CV MAPE %",
              "train MAPE %", title=f"{model.get('name') or model['family']}: fitted model errors (tech {model['tech'].get('name')})")
    for name, tg in model["targets"].items():
        h, cv, tr = tg["heldout"], tg["cv"], tg["train"]
        t.add_row(name, tg["unit"], str(tg.get("per") or "-"), str(h.get("points", h["n"])), f"{h['mape_pct']:.2f}",
                  f"{h['max_err_pct']:.2f}", f"{cv['mape_pct']:.2f}", f"{tr['mape_pct']:.2f}")
    console().print(t)


def _load(family_name: str, model_path: str | None) -> tuple[dict, str]:
    from ..fit.model import load_model
    m = load_model(family_name, path=model_path)
    return m.data, m.source


@click.command("fit-report")
@click.argument("family_name", metavar="NAME")
@click.option("--model", "model_path", type=click.Path(dir_okay=False), help="Model file [default: the shipped one].")
@click.option("--data", type=click.Path(dir_okay=False),
              help="Dataset CSV for the plot [default: the shipped fit/data/NAME.csv].")
@click.option("--png", type=click.Path(dir_okay=False), help="Plot file [default: out/fit/NAME-report.png].")
@click.option("--json", "as_json", is_flag=True, help="Print the error numbers as JSON.")
def fit_report_cmd(family_name, model_path, data, png, as_json):
    """Held-out, cross-validation and training errors of a model, and a predicted-vs-measured plot."""
    model, source = _load(family_name, model_path)
    errors = {name: {"unit": t["unit"], "per": t.get("per"), "heldout": t["heldout"], "cv": t["cv"],
                     "train": t["train"]} for name, t in model["targets"].items()}
    csv = Path(data) if data else FIT_DIR / "data" / f"{family_name}.csv"
    png_path = None
    if csv.exists():
        from ..fit.fitting import predictions
        preds = predictions(model, _read_csv(csv))
        png_path = Path(png) if png else Path("out") / "fit" / f"{family_name}-report.png"
        _plot(model, preds, png_path)
    if as_json:
        click.echo(json.dumps({"family": model["family"], "name": family_name, "model": source, "targets": errors,
                               "training": model.get("training"), "versions": model.get("versions"),
                               "png": str(png_path) if png_path else None}, indent=2))
    else:
        _print_errors(model)
        click.echo(f"model {source}" + (f"; plot {png_path}" if png_path else "; no dataset, no plot"))
    return 0


def _plot(model: dict, preds: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..util import atomic_files
    n = len(preds)
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n, 4.2), squeeze=False)
    for ax, (name, (y, p, held)) in zip(axes[0], preds.items()):
        h = model["targets"][name]["heldout"]
        ax.scatter(y[~held], p[~held], s=10, label="train", alpha=0.6)
        ax.scatter(y[held], p[held], s=16, marker="x", label="held out", color="C3")
        lo, hi = float(min(y.min(), p.min())), float(max(y.max(), p.max()))
        ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
        ax.set_xlabel(f"measured {name}")
        ax.set_ylabel(f"predicted {name}")
        ax.set_title(f"{name}\nheld-out MAPE {h['mape_pct']:.2f}%  max {h['max_err_pct']:.2f}%", fontsize=9)
        ax.legend(fontsize=8)
    fig.suptitle(f"accelgen fitted model: {model.get('name') or model['family']}")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_files([path]) as (tmp,):
        fig.savefig(tmp, format="png", dpi=90)
    plt.close(fig)


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


@click.command("predict")
@click.argument("family_name", metavar="NAME")
@click.argument("assignments", nargs=-1, metavar="KEY=VALUE...")
@click.option("--model", "model_path", type=click.Path(dir_okay=False), help="Model file [default: the shipped one].")
@click.option("--node", "node_nm", type=float, default=None, help="Scale to this technology node in nm.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def predict_cmd(family_name, assignments, model_path, node_nm, as_json):
    """Evaluate a fitted model: accelgen predict mac a_width=8 b_width=8 zero_gating=true density=0.5"""
    from ..fit.model import FitRangeWarning, load_model
    m = load_model(family_name, path=model_path)
    inputs = {}
    for a in assignments:
        if "=" not in a:
            raise ConfigError([(a, f"expected KEY=VALUE; allowed keys: {', '.join(m.inputs)}")])
        k, v = a.split("=", 1)
        inputs[k] = _parse_value(v)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FitRangeWarning)
        out = {k: float(v) for k, v in m.predict(node_nm=node_nm, **inputs).items()}
    for w in caught:
        click.echo(f"accelgen: warning: {w.message}", err=True)
    if as_json:
        click.echo(json.dumps({"family": m.family, "model": m.name, "inputs": inputs, "node_nm": node_nm or m.tech.get("node_nm"),
                               "predicted": out}, indent=2))
    else:
        for k, v in out.items():
            per = m[k].per
            click.echo(f"{k:<11} {v:.6g} {m[k].unit}" + (f" per {per}" if per else "")
                       + f"  (held-out MAPE {m[k].heldout.get('mape_pct', float('nan')):.2f}%)")
    return 0


COMMANDS = (sweep_cmd, fit_cmd, fit_report_cmd, predict_cmd)
