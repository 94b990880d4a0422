"""Regressions from a sweep dataset to a model file (scikit-learn).

Each target is a linear model over the physically motivated features named in
the sweep file (products of widths and dimensions, ``n*log2(n)``, density
terms); the fit minimizes the *relative* squared error (sample weights
``1/y^2``), since the acceptance criteria are relative (MAPE, max error).
K-fold cross-validation runs on the training points, grouped by design point
so that the densities of one point never straddle folds; the held-out points
(``split == heldout``, parameter points never used for fitting) give the
reported error. The model file format is :mod:`accelgen.fit.model`.
"""

from __future__ import annotations

import ast
import json
import typing
import warnings
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from ..util import write_atomic
from .measure import versions
from .model import ENERGY_TARGETS, FORMAT, TARGETS, FittedModel, TargetModel
from .stimuli import stimulus_record
from .sweep import SweepSpec

UNITS = {"area_um2": "um^2", "energy_pj": "pJ", "energy_zero_delay_pj": "pJ", "clock_energy_pj": "pJ", "leakage_uw": "uW",
         "delay_ns": "ns"}


def _input_spec(model, df, density_aware: bool) -> dict[str, dict]:
    """The model inputs: every field of the family's parameter schema ``model`` (and density)."""
    spec = {}
    for name, info in model.model_fields.items():
        ann = info.annotation
        col = df[name] if name in df else None
        if ann is bool:
            vals = sorted({bool(v) for v in col}) if col is not None else [info.default]
            spec[name] = {"kind": "bool", "default": info.default, "values": vals}
        elif typing.get_origin(ann) is typing.Literal and not all(type(a) is int for a in typing.get_args(ann)):
            vals = sorted({str(v) for v in col}) if col is not None else [info.default]
            spec[name] = {"kind": "choice", "default": info.default, "values": vals}
        else:   # numbers, a Literal of integers among them (systolic's sum_group: 1, 2, 4 or 8; features do arithmetic)
            vals = col.astype(float) if col is not None else np.array([float(info.default)])
            spec[name] = {"kind": "int", "default": info.default, "range": [float(vals.min()), float(vals.max())]}
    if density_aware:
        spec["density"] = {"kind": "float", "default": 1.0,
                           "range": [float(df["density"].min()), float(df["density"].max())]}
    return spec


def _env(df, names):
    env = {}
    for n in names:
        col = df[n].to_numpy()
        env[n] = col.astype(str) if col.dtype == object and isinstance(col[0], str) else col.astype(float)
    return env


def _errors(y, p) -> dict:
    rel = np.abs(p - y) / np.abs(y)
    return {"n": int(len(y)), "mape_pct": float(100 * rel.mean()), "max_err_pct": float(100 * rel.max())}


def fit_family(spec: SweepSpec, df, tech: dict, folds: int = 5, seed: int = 0) -> dict:
    """Fit every target of the sweep file on ``df``; return the model-file dict."""
    if not spec.targets:
        raise ConfigError([(f"{spec.source}.targets", "no targets with features defined")])
    density_aware = "density" in df and df["density"].nunique() > 1
    inputs = _input_spec(spec.block.params_model, df, density_aware)
    train, held = df[df["split"] == "train"], df[df["split"] == "heldout"]
    if len(held) == 0:
        raise ConfigError([(f"{spec.source}.heldout", "no held-out points: the error cannot be reported")])
    unknown = [name for name in spec.targets if name not in TARGETS]
    if unknown:
        raise ConfigError([(f"{spec.source}.targets.{unknown[0]}", f"unknown target; allowed: {', '.join(TARGETS)}")])
    targets = {name: _fit_target(spec, name, tdef, inputs, train, held, folds) for name, tdef in spec.targets.items()}
    # the glitch-free energy of the same points, in the glitchy energy's form: what averaged-mode power analysis of
    # zero-delay activity reports (ppa: ``activity.switching: zero_delay``, post-layout figures)
    if "energy_pj" in spec.targets and "energy_zero_delay_pj" not in spec.targets and "energy_zero_delay_pj" in df:
        targets["energy_zero_delay_pj"] = _fit_target(spec, "energy_zero_delay_pj", spec.targets["energy_pj"], inputs,
                                                      train, held, folds)
    # the clock network's part of both, in the same form: the performance model charges it per cycle a unit is busy
    # rather than per operation (accelgen.ppa.perf). Only where every point has a clock network: the relative fit
    # cannot weigh a zero, and a block with combinational points (benes, pipeline_every 0; tensordash_sched) keeps
    # its per-operation charge
    if "energy_pj" in spec.targets and "clock_energy_pj" not in spec.targets and _clocked(df):
        targets["clock_energy_pj"] = _fit_target(spec, "clock_energy_pj", spec.targets["energy_pj"], inputs,
                                                 train, held, folds)
    vers = dict(versions())
    try:
        import sklearn
        vers["sklearn"] = sklearn.__version__
    except ImportError:  # pragma: no cover
        pass
    return {
        "format": FORMAT,
        "family": spec.family,
        "name": spec.name,
        "inputs": inputs,
        "targets": targets,
        "tech": {"name": tech.get("name"), "node_nm": tech.get("node_nm"), "vdd_v": tech.get("vdd_v"),
                 "fo4_ps": tech.get("fo4_ps"), "scaling": tech.get("scaling", {}),
                 "scaling_source": tech.get("scaling_source", "")},
        "training": {"n_points": int(train["key"].nunique()), "n_heldout": int(held["key"].nunique()),
                     "n_rows": int(len(train)), "sweep": spec.source,
                     "densities": sorted({float(d) for d in df["density"]}) if "density" in df else [],
                     "stimulus": _stimulus(spec),
                     "library": str(df["library"].iloc[0]) if "library" in df else None,
                     "clock_mhz": float(df["clock_mhz"].iloc[0]) if "clock_mhz" in df else None,
                     "glitch": _glitch_evidence(df, spec),
                     "method": "timing-driven ABC mapping to the cell library at clock_mhz (fit/mapped.py), static "
                               "timing of the mapped netlist (fit/sta.py), bit-parallel zero-delay simulation of the "
                               "mapped cells (fit/activity.py) with per-net internal + load energy and a clock-network "
                               "model (fit/power.py), times the glitch ratio of timed simulations (fit/glitch.py)"},
        "versions": vers,
    }


def _clocked(df) -> bool:
    """Whether the dataset measured a clock network at every row (``clock_energy_pj`` finite and above 0)."""
    if "clock_energy_pj" not in df:
        return False
    clock = df["clock_energy_pj"].to_numpy(float)
    return bool(len(clock) and np.all(np.isfinite(clock) & (clock > 0)))


def _stimulus(spec: SweepSpec) -> dict:
    """The stimulus profile the model is fitted with (:func:`accelgen.fit.stimuli.stimulus_record`), read at the
    sweep's first point (a sweep variant pins its dtype)."""
    if getattr(spec.block, "external", False):
        return {"profile": "external", "description": "the sweep's port map and stimulus (fit/external_sweep.py)"}
    first = spec.block.validate(spec.points()[0][1])
    return stimulus_record(spec.block, first, spec.profile)


def _fit_target(spec: SweepSpec, name: str, tdef: dict, inputs: dict, train, held, folds: int) -> dict:
    """One target's regression (the form ``tdef`` of the sweep file) on the training rows; its errors."""
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import GroupKFold

    feats = list(tdef["features"])
    link = tdef.get("link", "identity")
    # non-negative coefficients: every feature is an amount of hardware or activity that can only add, so the
    # form stays positive (physical) wherever its features are, however far outside the fitted range
    positive = bool(tdef.get("positive", False))
    per_point = name not in ENERGY_TARGETS
    names = {node.id for f in feats for node in ast.walk(ast.parse(f, mode="eval")) if isinstance(node, ast.Name)}
    used = [n for n in inputs if n in names and (n != "density" or not per_point)]
    tm = TargetModel(family=spec.family, name=name, unit=UNITS[name], features=feats, coef=np.zeros(len(feats)),
                     link=link, inputs={n: inputs[n] for n in used})
    tr = train.drop_duplicates("key") if per_point else train
    he = held.drop_duplicates("key") if per_point else held
    X, y = tm.design_matrix(_env(tr, used)), tr[name].to_numpy(float)
    Xh, yh = tm.design_matrix(_env(he, used)), he[name].to_numpy(float)
    yt = np.log(y) if link == "log" else y
    w = np.ones_like(y) if link == "log" else 1.0 / y ** 2

    def fit(Xa, ya, wa):
        return LinearRegression(fit_intercept=False, positive=positive).fit(Xa, ya, sample_weight=wa).coef_

    def pred(coef, Xa):
        p = Xa @ coef
        return np.exp(p) if link == "log" else p

    groups = tr["key"].to_numpy()
    k = min(folds, len(set(groups)))
    cv_pred = np.empty_like(y)
    for tri, tei in GroupKFold(n_splits=k).split(X, yt, groups):
        cv_pred[tei] = pred(fit(X[tri], yt[tri], w[tri]), X[tei])
    coef = fit(X, yt, w)
    return {
        "unit": UNITS[name],
        "per": str(tr["energy_per"].iloc[0]) if name in ENERGY_TARGETS else None,
        "features": feats, "coef": [float(c) for c in coef], "link": link, "inputs": used, "positive": positive,
        "train": {"n": int(len(y)), "points": int(tr["key"].nunique()), **_errors(y, pred(coef, X))},
        "cv": {"folds": k, **_errors(y, cv_pred)},
        "heldout": {"points": int(he["key"].nunique()), **_errors(yh, pred(coef, Xh))},
    }


def _glitch_evidence(df, spec: SweepSpec) -> dict | None:
    """The timed-simulation samples behind the dataset's glitch ratio: each sampled point's parameters and ratio."""
    if "glitch_sample_ratio" not in df:
        return None
    sampled = df[df["glitch_sample_ratio"].notna()].drop_duplicates("key")
    fields = list(spec.block.params_model.model_fields)
    return {"assignment": "each point takes the mean ratio of the sampled points nearest in its pipelining parameters "
                          "(fit.glitch_samples.glitch_ratios)",
            "applied_to": "the switching part of energy_pj (not the clock network)",
            "delays": _delay_model(df),
            "samples": [{**{k: (v.item() if hasattr(v, "item") else v) for k, v in row[fields].items()},
                         "ratio": float(row["glitch_sample_ratio"])} for _, row in sampled.iterrows()]}


def _delay_model(df) -> str:
    """The timed simulation's delay model (:data:`accelgen.fit.glitch.DELAY_MODEL`); a dataset without the column
    was measured before it was recorded, with one delay per cell output."""
    recorded = df["glitch_delays"].dropna() if "glitch_delays" in df else ()
    model = str(recorded.iloc[0]) if len(recorded) else "mean_of_edges"
    return {"rise_fall": "a rise and a fall delay per cell output (fit.glitch.cell_delays)",
            "mean_of_edges": "one delay per cell output, the mean of its arcs' rise and fall delays",
            "none": "no timed simulation (no glitch samples)"}.get(model, model)


def predictions(model_dict: dict, df) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``{target: (measured, predicted, is_heldout)}`` for plotting and reports."""
    m = FittedModel(model_dict)
    out = {}
    for name, t in m.targets.items():
        rows = df if name in ENERGY_TARGETS else df.drop_duplicates("key")
        env = _env(rows, list(t.inputs))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = t.predict(**env)
        out[name] = (rows[name].to_numpy(float), np.asarray(p, dtype=float), (rows["split"] == "heldout").to_numpy())
    return out


def save_model(model_dict: dict, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(model_dict, indent=1) + "\n")
    return path
