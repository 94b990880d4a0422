"""The fitted-model flow as library calls: sweep -> dataset -> model file -> prediction.

Each function is what one ``accelgen`` command runs, equally usable from Python:

* :func:`sweep_dataset` (``accelgen sweep``) runs or resumes a synthesis + activity sweep and
  writes its tidy dataset CSV;
* :func:`fit_model` (``accelgen fit``) fits every target of the sweep file to a dataset and writes
  the model file (``ship=True``: the package's ``fit/models/NAME.json`` and ``fit/data/NAME.csv``);
* :func:`predict` (``accelgen predict``) evaluates a model at given inputs and node;
* :func:`accelgen.fit.report.fit_report` (``accelgen fit-report``) gives a model's errors and draws
  predicted vs measured.

``NAME`` is a block family (``mac``) or a model variant (``mac-bf16``), as in
:func:`accelgen.fit.sweep.load_sweep`, or the sweep file of a user's own Verilog module (``adder.yaml``, whose
model is named ``adder``; :mod:`accelgen.fit.external_sweep`). The fit layer never looks families up itself: the
functions that read a sweep file take ``families`` (name -> family, e.g.
:data:`accelgen.registry.FAMILIES`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from ..errors import ConfigError
from ..family import BlockFamily
from ..technology import LEAKAGE_FALLBACK, check_node, model_scaling, node
from ..util import atomic_files
from .external_sweep import external_sweep_path, load_external_sweep
from .fitting import fit_family, save_model
from .mapping import default_liberty, resolve_library
from .model import FittedModel
from .sta import library_fo4_ps
from .sweep import SweepSpec, dataset_rows, load_sweep, run_sweep, write_dataset

__all__ = ["FIT_DIR", "FitResult", "Prediction", "SweepResult", "default_dataset", "fit_model", "predict",
           "read_dataset", "shipped_dataset", "sweep_dataset"]

#: the package's ``fit`` directory: ``models/`` and ``data/`` hold the shipped models and their datasets
FIT_DIR = Path(str(resources.files("accelgen.fit")))


def default_dataset(name: str) -> Path:
    """Where ``accelgen sweep NAME`` writes its dataset by default: ``out/fit/NAME.csv``."""
    return Path("out") / "fit" / f"{name}.csv"


def shipped_dataset(name: str) -> Path:
    """The dataset shipped beside the model ``NAME``: the package's ``fit/data/NAME.csv``."""
    return FIT_DIR / "data" / f"{name}.csv"


def read_dataset(path: str | Path) -> pd.DataFrame:
    """Read a sweep dataset CSV; a missing file is a :class:`ConfigError` saying how to make it."""
    path = Path(path)
    if not path.exists():
        raise ConfigError([("data", f"dataset {str(path)!r} does not exist; run `accelgen sweep` first")])
    return pd.read_csv(path)


@dataclass
class SweepResult:
    """What :func:`sweep_dataset` did: the point records (cached ones included), the number of
    points of the sweep, and the dataset file written."""

    records: list[dict]
    points: int
    dataset: Path

    @property
    def done(self) -> int:
        return len(self.records)


def sweep_dataset(name: str, grid: str | Path | None = None, *, families: Mapping[str, BlockFamily],
                  jobs: int | None = None, liberty: str | Path | None = None, out: str | Path | None = None,
                  limit: int | None = None, progress: bool = True) -> SweepResult:
    """Run (or resume) the sweep ``name`` and write its dataset.

    ``grid`` is the sweep file (default: the shipped ``fit/sweeps/NAME.yaml``); ``jobs`` parallel
    processes (default: all cores); every point is mapped to a cell library at the sweep's clock (default: the
    default technology's; ``liberty``: that Liberty file), timed and simulated (:func:`accelgen.fit.sweep.run_point`);
    ``out`` is the dataset CSV (default :func:`default_dataset`); ``limit`` runs at most that many new points.
    """
    spec = load_spec(name, grid, families)
    records = run_sweep(spec, jobs=jobs, liberty=str(liberty) if liberty else None, limit=limit,
                        progress=progress)
    rows = dataset_rows(records, spec.block)
    fo4 = library_fo4_ps(resolve_library(str(liberty) if liberty else None)[0])
    path = write_dataset([row | {"library_fo4_ps": fo4} for row in rows], out or default_dataset(spec.name))
    return SweepResult(records=records, points=len(spec.points()), dataset=path)


def load_spec(name: str, grid: str | Path | None, families: Mapping[str, BlockFamily]) -> SweepSpec:
    """The sweep ``name`` of a block family (:func:`~accelgen.fit.sweep.load_sweep`), or of a user's own Verilog
    module when ``name`` is its sweep file or ``grid`` is one with ``verilog:``
    (:func:`~accelgen.fit.external_sweep.load_external_sweep`)."""
    path = external_sweep_path(name, grid)
    if path is not None:
        return load_external_sweep(path, None if grid is None else name)
    return load_sweep(name, grid, families=families)


@dataclass
class FitResult:
    """A fitted model (the model-file dict) and the file it was written to."""

    model: dict
    path: Path


def model_tech(df: pd.DataFrame, node_nm: float | None = None) -> dict:
    """The ``tech`` block of a model fitted to ``df``: the library its points were mapped to, that library's node
    (``node_nm``; the default library's is 45 nm, a user's library must say), the node-scaling table from
    published process data (:func:`accelgen.technology.model_scaling`) and ``fo4_ps``: the library's own FO4 delay
    (the dataset's ``library_fo4_ps``, :func:`accelgen.fit.sta.fo4_ps`) beside the node table's at its node, which
    :func:`accelgen.technology.tech_factor` scales delays by."""
    library = str(df["library"].iloc[0]) if "library" in df else ""
    default = not library or library.endswith("(generated)")
    if node_nm is None:
        if not default:
            raise ConfigError([("node_nm", f"the dataset was mapped to {library!r}: give its node (--node-nm)")])
        node_nm = 45
    if "library_fo4_ps" in df:
        fo4 = float(df["library_fo4_ps"].iloc[0])
    elif default:
        fo4 = library_fo4_ps(default_liberty())
    else:
        raise ConfigError([("data", "the dataset has no library_fo4_ps column (it was written before datasets "
                                    "recorded their library's FO4): run its sweep again with the same --liberty; "
                                    "cached points are reused")])
    ref = node(check_node(node_nm))
    return {"name": library, "node_nm": ref.node_nm, "vdd_v": ref.vdd_v,
            "fo4_ps": {"library": round(fo4, 3), "node": round(ref.fo4_ps, 3)},
            "scaling": model_scaling(ref.node_nm),
            "scaling_source": "accelgen.technology (accelgen tech show); delays also by fo4_ps "
                              "(accelgen.technology.tech_factor; the library's by accelgen.fit.sta.fo4_ps); "
                              + LEAKAGE_FALLBACK}


def fit_model(name: str, grid: str | Path | None = None, *, families: Mapping[str, BlockFamily],
              data: str | Path | None = None, out: str | Path | None = None, ship: bool = False,
              folds: int = 5, node_nm: float | None = None) -> FitResult:
    """Fit area / energy / leakage / delay models of ``name`` to a sweep dataset; write the model file.

    ``grid`` is the sweep file that names the targets and their features (default: shipped); ``data``
    the dataset (default :func:`default_dataset`); ``out`` the model file (default
    ``out/fit/NAME.json``). ``ship=True`` writes the package's ``fit/models/NAME.json`` and
    ``fit/data/NAME.csv`` (a copy of the dataset) instead: both or neither. ``node_nm``: the node of the library the
    dataset was mapped to (default: 45, the default library's; required for a user's library).
    """
    spec = load_spec(name, grid, families)
    name = spec.name
    external = getattr(spec.block, "external", False)
    if ship and external:
        raise ConfigError([("--ship", f"{name!r} is a model of your own Verilog module; only the block families' "
                                      "models are shipped: write it with -o FILE")])
    csv = Path(data) if data else default_dataset(name)
    df = read_dataset(csv)
    model = fit_family(spec, df, model_tech(df, node_nm), folds=folds)
    if external:
        model["external"] = spec.block.describe(spec.cycles, spec.lanes, spec.seed, spec.source)
    if not ship:
        return FitResult(model, save_model(model, Path(out) if out else Path("out") / "fit" / f"{name}.json"))
    path, data_path = FIT_DIR / "models" / f"{name}.json", shipped_dataset(name)
    for p in (path, data_path):
        p.parent.mkdir(parents=True, exist_ok=True)
    with atomic_files([path, data_path]) as (tmp_model, tmp_data):
        save_model(model, tmp_model)
        tmp_data.write_text(csv.read_text())
    return FitResult(model, path)


@dataclass
class Prediction:
    """A model evaluated at ``inputs``: ``values`` maps each target (``area_um2``, ...) to a float in
    the target's unit (:attr:`model` ``[target].unit``, per ``[target].per`` when set), at ``node_nm``."""

    model: FittedModel
    inputs: dict[str, Any]
    node_nm: float | None
    values: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"family": self.model.family, "model": self.model.name, "inputs": self.inputs,
                "node_nm": self.node_nm, "predicted": self.values}


def predict(model: FittedModel, inputs: Mapping[str, Any], node_nm: float | None = None) -> Prediction:
    """Evaluate every target of ``model`` (:func:`accelgen.fit.model.load_model`) at scalar ``inputs``,
    scaled to ``node_nm`` (default: the model's own node). Inputs outside the fitted range warn
    (:class:`~accelgen.fit.model.FitRangeWarning`); an unknown input raises :class:`ConfigError`."""
    values = {k: float(v) for k, v in model.predict(node_nm=node_nm, **inputs).items()}
    return Prediction(model=model, inputs=dict(inputs), node_nm=node_nm or model.tech.get("node_nm"), values=values)
