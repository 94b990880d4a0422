"""How good a fitted model is: its error table and a predicted-vs-measured plot (``accelgen fit-report``).

The plot is drawn on a bare :class:`matplotlib.figure.Figure` (no pyplot, no global backend), so
importing this module changes nothing for a caller that uses matplotlib itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from matplotlib.figure import Figure

from ..util import atomic_files
from .api import read_dataset, shipped_dataset
from .fitting import predictions
from .model import load_model

__all__ = ["FitReport", "fit_report", "model_errors", "plot_predictions"]


def model_errors(model: dict) -> dict[str, dict]:
    """``{target: {"unit", "per", "heldout", "cv", "train"}}`` of a model-file dict: the held-out,
    cross-validation and training errors (``n`` or ``points``, ``mape_pct``, ``max_err_pct``)."""
    return {name: {"unit": t["unit"], "per": t.get("per"), "heldout": t["heldout"], "cv": t["cv"],
                   "train": t["train"]} for name, t in model["targets"].items()}


def plot_predictions(model: dict, preds: dict, path: str | Path) -> Path:
    """Draw predicted vs measured per target (:func:`accelgen.fit.fitting.predictions`), train and
    held-out points apart, into the PNG ``path`` (written atomically)."""
    path = Path(path)
    n = len(preds)
    fig = Figure(figsize=(4.2 * n, 4.2))
    axes = fig.subplots(1, n, squeeze=False)
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
    return path


@dataclass
class FitReport:
    """A model's errors (:func:`model_errors`), where it came from, and its plot (``None`` without a dataset)."""

    name: str
    model: dict
    source: str
    errors: dict[str, dict]
    png: Path | None

    def to_dict(self) -> dict:
        return {"family": self.model["family"], "name": self.name, "model": self.source, "targets": self.errors,
                "training": self.model.get("training"), "versions": self.model.get("versions"),
                "png": str(self.png) if self.png else None}


def fit_report(name: str, *, model_path: str | Path | None = None, data: str | Path | None = None,
               png: str | Path | None = None) -> FitReport:
    """Errors of the model ``name`` (shipped, or the file ``model_path``) and, when its dataset exists
    (``data``, default the shipped ``fit/data/NAME.csv``), a predicted-vs-measured plot written to
    ``png`` (default ``out/fit/NAME-report.png``)."""
    m = load_model(name, path=model_path)
    csv = Path(data) if data else shipped_dataset(name)
    png_path = None
    if csv.exists():
        png_path = plot_predictions(m.data, predictions(m.data, read_dataset(csv)),
                                    Path(png) if png else Path("out") / "fit" / f"{name}-report.png")
    return FitReport(name=name, model=m.data, source=m.source, errors=model_errors(m.data), png=png_path)
