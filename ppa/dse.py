"""Design-space exploration: sample architecture parameters, evaluate them, keep what fits, find the fronts.

A *space* (YAML, validated; every problem with its field path) names a base
architecture (or several, ``archs:``, chosen by the implicit ``arch``
parameter), the parameters to vary (generic paths into the description such as
``core.tensor_units.0.rows``, workload-wide paths such as
``workload.b_density``, or NeuroMeter's aliases ``X``, ``N``, ``Tx``, ``Ty``),
how to sample them (``grid``, ``random`` or Latin hypercube ``lhs``), derived
settings (``set:``, expressions of the parameters), filters (``where:``),
workloads and batch regimes, constraints (``min``/``max`` on any metric) and
objectives (metrics with a goal, ``max`` or ``min``). See ``examples/dse/``.

NeuroMeter's aliases (Tang et al., HPCA 2021, sect. VI-A): ``X`` sets the rows
and the columns of tensor unit 0 (``X x X``), ``N`` its count per core, ``Tx``
and ``Ty`` the core grid: ``cores = Tx * Ty`` on a ring up to 4 cores and a
``Tx x Ty`` mesh beyond.

Evaluation of one point (:func:`evaluate_points`): the description with the
point's values is validated (an invalid combination is an infeasible point
with its reason), optionally sized (``archs.NAME.size``: the largest count of
a unit that fits an area, found by bisection on the estimator), estimated
(:func:`accelgen.ppa.estimate`: area, TDP, clock, peak TOPS), checked against
the chip-level constraints, and -- if it passes -- every workload is run at
every batch regime through the performance model (:mod:`accelgen.ppa.perf`,
vectorized over layers): ``batch: B`` or ``latency_ms: L`` (the largest batch
meeting ``L``). Metric columns: ``WORKLOAD.REGIME.METRIC`` per run,
``REGIME.METRIC`` (geometric mean over the workloads) and ``METRIC``
(geometric mean over all runs). Without workloads the space is evaluated at
chip level by the vectorized batch estimator (:mod:`accelgen.ppa.batch`:
tensor units, on-chip SRAM and white space, millions of points per second).

Runs are chunked: each chunk of points is written to
``OUT/chunks/<key>-<index>.csv`` (atomically), where ``key`` hashes the
resolved space (base descriptions and workloads included), the chunk size and
the estimator's code and model files; a killed run restarts and evaluates only
the chunks that are missing. Chunks run in this process, in local processes
(``jobs``) or on a Dask cluster (``scheduler="tcp://HOST:PORT"``); the results
are the same.
"""

from __future__ import annotations

import ast
import copy
import functools
import hashlib
import json
import math
import operator
import warnings
from pathlib import Path
from typing import Any, Callable, Literal, Optional, Union

import numpy as np
import pandas as pd
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import ConfigError
from ..util import atomic_files, canonical_json, read_yaml, write_atomic
from .arch import Arch, _problems, parse_arch

_STRICT = ConfigDict(extra="forbid", frozen=True)
Scalar = Union[bool, int, float, str]

ALIASES: dict[str, tuple[str, ...]] = {
    "X": ("core.tensor_units.0.rows", "core.tensor_units.0.cols"),
    "N": ("core.tensor_units.0.count",),
    "Tx": ("chip.noc.tx",),
    "Ty": ("chip.noc.ty",),
}
RING_MAX_CORES = 4   # NeuroMeter: a ring up to 4 cores, a mesh beyond

CHIP_METRICS = ("area_mm2", "tdp_w", "peak_tops", "clock_mhz", "achievable_clock_mhz", "meets_timing", "cores",
                "peak_tops_per_w", "peak_tops_per_mm2", "leakage_w")
RUN_METRICS = ("achieved_tops", "utilization", "latency_ms", "tops_per_w", "tops_per_tco", "tops_per_mm2",
               "runtime_power_w", "energy_j", "inferences_per_s")
MINIMIZE = {"area_mm2", "tdp_w", "latency_ms", "runtime_power_w", "energy_j", "leakage_w"}
BATCH_CHIP_METRICS = ("area_mm2", "tdp_w", "peak_tops", "peak_tops_per_w", "peak_tops_per_mm2", "peak_tops_per_tco")
DEFAULT_REGIMES = ({"name": "batch1", "batch": 1}, {"name": "latency", "latency_ms": 7.0},
                   {"name": "large", "batch": 128})


# --------------------------------------------------------------------------- schema

class Param(BaseModel):
    model_config = _STRICT
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    path: Optional[Union[str, list[str]]] = None     # default: the alias of ``name``
    values: Optional[list[Scalar]] = None
    range: Optional[list[float]] = None              # [lo, hi] with step, pow2 or (random/lhs) continuous
    step: Optional[float] = Field(None, gt=0)
    pow2: bool = False
    continuous: bool = False                         # random/lhs: uniform over the range (log-uniform if log)
    log: bool = False

    @model_validator(mode="after")
    def _one(self):
        if (self.values is None) == (self.range is None):
            raise ValueError("give exactly one of values and range")
        return self


class Regime(BaseModel):
    model_config = _STRICT
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    batch: Optional[int] = Field(None, ge=1)
    latency_ms: Optional[float] = Field(None, gt=0)

    @model_validator(mode="after")
    def _one(self):
        if (self.batch is None) == (self.latency_ms is None):
            raise ValueError("give exactly one of batch and latency_ms")
        return self


class Bound(BaseModel):
    model_config = _STRICT
    min: Optional[float] = None
    max: Optional[float] = None


class Objective(BaseModel):
    model_config = _STRICT
    metric: str
    goal: Optional[Literal["max", "min"]] = None


class Size(BaseModel):
    model_config = _STRICT
    path: str                                   # the count to size, e.g. core.flex_dpes.count
    area_mm2: float = Field(gt=0)               # the largest count whose chip area is <= this
    max: int = Field(1 << 16, ge=1)


class ArchChoice(BaseModel):
    model_config = _STRICT
    path: Optional[str] = None
    arch: Optional[dict] = None
    size: Optional[Size] = None

    @model_validator(mode="after")
    def _one(self):
        if (self.path is None) == (self.arch is None):
            raise ValueError("give exactly one of path and arch")
        return self


class Sampling(BaseModel):
    model_config = _STRICT
    method: Literal["grid", "random", "lhs"] = "grid"
    samples: Optional[int] = Field(None, ge=1)
    seed: int = Field(0, ge=0)


class PlotSpec(BaseModel):
    model_config = _STRICT
    x: str
    y: str
    group: Optional[str] = None
    kind: Literal["line", "scatter"] = "line"
    logx: bool = False
    logy: bool = False
    feasible_only: bool = True
    title: Optional[str] = None
    filter: dict[str, Scalar] = {}               # only the points with these parameter values


class Space(BaseModel):
    """A design space (module docstring; ``examples/dse/*.yaml``)."""

    model_config = _STRICT
    name: str = Field("dse", pattern=r"^[A-Za-z0-9_.-]+$")
    description: str = ""
    base: Optional[Union[str, dict]] = None
    archs: Optional[dict[str, ArchChoice]] = None
    parameters: list[Param] = Field(min_length=1)
    set: dict[str, str] = {}
    where: list[str] = []
    sampling: Sampling = Sampling()
    workloads: list[Union[str, dict]] = []
    regimes: list[Regime] = [Regime(**r) for r in DEFAULT_REGIMES]
    constraints: dict[str, Bound] = {}
    objectives: list[Union[str, Objective]] = Field(min_length=1)
    pareto: Optional[list[list[str]]] = None
    baseline: Optional[dict[str, Scalar]] = None
    plots: list[PlotSpec] = []
    chunk_points: Optional[int] = Field(None, ge=1)
    sources: dict[str, str] = {}

    @model_validator(mode="after")
    def _one_base(self):
        if (self.base is None) == (self.archs is None):
            raise ValueError("give exactly one of base and archs")
        return self


# --------------------------------------------------------------------------- expressions (set / where)

_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
        ast.BitAnd: operator.and_, ast.BitOr: operator.or_}
_CMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
        ast.GtE: operator.ge}
_FUNCS = {"min": np.minimum, "max": np.maximum, "log2": np.log2, "sqrt": np.sqrt, "abs": np.abs,
          "ceil": np.ceil, "floor": np.floor, "int": lambda x: np.asarray(x).astype(np.int64)}


def _compile(expr: str, names: set[str]) -> ast.Expression:
    """Parse an arithmetic/comparison expression over ``names`` (numbers, + - * / // % **, comparisons,
    and/or/not, min max log2 sqrt abs ceil floor int); raises ValueError."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise ValueError(f"{expr!r} is not a valid expression") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id not in names and node.id not in _FUNCS:
                raise ValueError(f"{expr!r}: unknown name {node.id!r}; allowed: {', '.join(sorted(names))}")
        elif isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCS or node.keywords:
                raise ValueError(f"{expr!r}: only {', '.join(_FUNCS)} may be called")
        elif not isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Constant,
                                   ast.Load, ast.And, ast.Or, ast.Not, ast.USub, ast.UAdd,
                                   *_BIN, *_CMP)):
            raise ValueError(f"{expr!r}: {type(node).__name__} is not allowed in an expression")
    return tree


def _eval(node, env: dict):
    """Evaluate a compiled expression on scalars or numpy arrays (and/or/not work element-wise)."""
    if isinstance(node, ast.Expression):
        return _eval(node.body, env)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.BinOp):
        return _BIN[type(node.op)](_eval(node.left, env), _eval(node.right, env))
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, env)
        return np.logical_not(v) if isinstance(node.op, ast.Not) else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.BoolOp):
        vals = [_eval(v, env) for v in node.values]
        f = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
        return functools.reduce(f, vals)
    if isinstance(node, ast.Compare):
        left, out = _eval(node.left, env), True
        for op, comp in zip(node.ops, node.comparators):
            right = _eval(comp, env)
            out = np.logical_and(out, _CMP[type(op)](left, right))
            left = right
        return out
    if isinstance(node, ast.Call):
        return _FUNCS[node.func.id](*[_eval(a, env) for a in node.args])
    raise ValueError(f"cannot evaluate {type(node).__name__}")


# --------------------------------------------------------------------------- paths into descriptions

def _unwrap(ann):
    import typing
    origin = typing.get_origin(ann)
    if origin is Union or str(origin) == "types.UnionType":
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        return _unwrap(args[0]) if len(args) == 1 else ann
    return ann


def check_path(path: str, base: dict, model=Arch) -> Optional[str]:
    """Why ``path`` (``core.tensor_units.0.rows``) does not name a field of ``model`` in ``base``, or None."""
    import typing
    cur_model, cur = model, base
    parts = path.split(".")
    for i, part in enumerate(parts):
        where = ".".join(parts[:i]) or "the top level"
        if isinstance(cur_model, type) and issubclass(cur_model, BaseModel):
            fields = cur_model.model_fields
            if part not in fields:
                return f"{path!r}: {part!r} is not a field of {where}; allowed: {', '.join(fields)}"
            cur_model = _unwrap(fields[part].annotation)
            cur = cur.get(part) if isinstance(cur, dict) else None
        elif typing.get_origin(cur_model) is list:
            if not part.isdigit():
                return f"{path!r}: {where} is a list; expected an index, got {part!r}"
            n = len(cur) if isinstance(cur, list) else 0
            if int(part) >= n:
                return f"{path!r}: {where} has {n} entr{'y' if n == 1 else 'ies'} in the base description"
            cur_model = _unwrap(typing.get_args(cur_model)[0])
            cur = cur[int(part)]
        else:
            return f"{path!r}: {where} is a value, it has no field {part!r}"
    return None


def set_path(d: dict, path: str, value) -> None:
    parts = path.split(".")
    cur = d
    for part in parts[:-1]:
        if isinstance(cur, list):
            cur = cur[int(part)]
        else:
            if cur.get(part) is None:
                cur[part] = {}
            cur = cur[part]
    last = parts[-1]
    if isinstance(cur, list):
        cur[int(last)] = value
    else:
        cur[last] = value


def _py(v):
    """numpy scalars -> Python (for descriptions, JSON and CSV)."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53:
        return int(v)
    return v


# --------------------------------------------------------------------------- the plan (a resolved, self-contained space)

def _read_yaml(path: Path, field: str, problems: list):
    try:
        return yaml.safe_load(path.read_text())
    except OSError as exc:
        problems.append((field, f"cannot read {str(path)!r}: {exc.strerror}"))
    except yaml.YAMLError:
        problems.append((field, f"malformed YAML in {str(path)!r}"))
    return None


def _values(p: Param, field: str, problems: list) -> list:
    if p.values is not None:
        if not p.values:
            problems.append((f"{field}.values", "empty list; give at least one value"))
        return list(p.values)
    if len(p.range) != 2:
        problems.append((f"{field}.range", f"{p.range!r} is not allowed; expected [lo, hi]"))
        return []
    lo, hi = p.range
    if lo > hi:
        problems.append((f"{field}.range", f"empty range [{lo:g}, {hi:g}]; lo must be <= hi"))
        return []
    if p.pow2:
        if lo <= 0:
            problems.append((f"{field}.range", f"pow2 needs lo > 0, got {lo:g}"))
            return []
        vals = [2 ** e for e in range(math.ceil(math.log2(lo) - 1e-12), math.floor(math.log2(hi) + 1e-12) + 1)]
    elif p.continuous and p.step is None:
        return [lo, hi]
    else:
        step = p.step or 1.0
        n = int(math.floor((hi - lo) / step + 1e-9)) + 1
        vals = [lo + i * step for i in range(n)]
    vals = [_py(float(v)) for v in vals]
    if not vals:
        problems.append((f"{field}.range", f"[{lo:g}, {hi:g}] holds no value"))
    return vals


def _workload_columns(names: list[str], regimes: list[str]) -> list[str]:
    cols = list(RUN_METRICS)
    for r in regimes:
        cols += [f"{r}.{m}" for m in RUN_METRICS]
        for w in names:
            cols += [f"{w}.{r}.{m}" for m in (*RUN_METRICS, "batch")]
    return cols


def _goal(metric: str) -> str:
    return "min" if metric.rsplit(".", 1)[-1] in MINIMIZE else "max"


_FINGERPRINT: Optional[str] = None


def code_fingerprint() -> str:
    """Hash of the estimator's code and fitted model files (part of every chunk key)."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        here = Path(__file__).resolve().parent
        files = sorted(here.glob("*.py")) + sorted((here.parent / "fit" / "models").glob("*.json")) + \
            sorted((here.parent / "cosim" / "models").glob("*.py"))
        h = hashlib.sha256()
        for f in files:
            h.update(f.name.encode())
            h.update(f.read_bytes())
        _FINGERPRINT = h.hexdigest()[:16]
    return _FINGERPRINT


def load_space(path: str | Path) -> dict:
    """Read and validate a space file; returns the resolved plan (see :func:`resolve`)."""
    path = Path(path)
    data = read_yaml(path)
    return resolve(data, root=path.parent, source=str(path))


def resolve(data: dict, root: str | Path = ".", source: str | None = None) -> dict:
    """Validate a space (a dict) and resolve it into a self-contained, JSON-able plan: base descriptions and
    workloads inlined, parameter values expanded, every name checked. All problems in one ConfigError."""
    from .workload import Workload, load_workload, parse_workload, resolve_workload_path

    if not isinstance(data, dict):
        raise ConfigError([("", f"expected a mapping at the top level, got {type(data).__name__}")], source)
    try:
        sp = Space.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_problems(exc), source) from None
    root = Path(root)
    problems: list = []

    # base descriptions
    bases: dict[str, dict] = {}
    sizes: dict[str, dict] = {}
    choices = sp.archs if sp.archs is not None else {"base": ArchChoice(**({"path": sp.base} if isinstance(
        sp.base, str) else {"arch": sp.base}))}
    for name, ch in choices.items():
        field = "base" if sp.archs is None else f"archs.{name}"
        d = ch.arch
        if ch.path is not None:
            p = Path(ch.path)
            p = p if p.is_absolute() else root / p
            d = _read_yaml(p, f"{field}.path" if sp.archs is not None else field, problems)
            if d is None:
                continue
        try:
            parse_arch(d)
        except ConfigError as exc:
            problems += [(f"{field}: {pp}" if pp else field, m) for pp, m in exc.problems[:2]]
            continue
        bases[name] = d
        if ch.size is not None:
            why = check_path(ch.size.path, d)
            if why:
                problems.append((f"{field}.size.path", why))
            sizes[name] = ch.size.model_dump()
    if sp.archs is not None and not sp.archs:
        problems.append(("archs", "empty; name at least one architecture"))

    # parameters
    names = [p.name for p in sp.parameters]
    if len(set(names)) != len(names):
        problems.append(("parameters", f"parameter names must be unique; got {names}"))
    params = []
    for i, p in enumerate(sp.parameters):
        field = f"parameters[{i}]"
        vals = _values(p, field, problems)
        if p.name == "arch" and p.path is None:
            if sp.archs is None:
                problems.append((field, "the 'arch' parameter chooses among archs:, and this space has a single base"))
            for v in vals:
                if v not in bases and v not in (sp.archs or {}):
                    problems.append((f"{field}.values", f"{v!r} is not an architecture of archs:; allowed: "
                                                        f"{', '.join(sp.archs or {})}"))
            params.append({"name": "arch", "paths": [], "values": vals, "kind": "arch", "continuous": False})
            continue
        paths = [p.path] if isinstance(p.path, str) else (list(p.path) if p.path else list(ALIASES.get(p.name, ())))
        if not paths:
            problems.append((f"{field}.path", f"parameter {p.name!r} needs a path (e.g. core.tensor_units.0.rows, "
                                              f"workload.b_density); aliases without one: {', '.join(ALIASES)}"))
            continue
        for path in paths:
            if path.startswith("workload."):
                why = check_path(path.removeprefix("workload."), {}, Workload)
            else:
                why = None
                for bn, b in bases.items():
                    why = check_path(path, b)
                    if why:
                        why = why + (f" (architecture {bn!r})" if len(bases) > 1 else "")
                        break
            if why:
                problems.append((f"{field}.path", why))
        params.append({"name": p.name, "paths": paths, "values": vals, "kind": "value",
                       "continuous": bool(p.continuous and p.range is not None), "log": p.log,
                       "alias": p.path is None})
    if sp.archs is not None and "arch" not in names:
        params.insert(0, {"name": "arch", "paths": [], "values": list(sp.archs), "kind": "arch",
                          "continuous": False})
    pnames = [p["name"] for p in params]
    env_names = set(pnames) | {"cores"}
    for key, expr in sp.set.items():
        try:
            _compile(expr, env_names)
        except ValueError as exc:
            problems.append((f"set.{key}", str(exc)))
        if key.startswith("workload."):
            why = check_path(key.removeprefix("workload."), {}, Workload)
        else:
            why = next((w for w in (check_path(key, b) for b in bases.values()) if w), None)
        if why:
            problems.append((f"set.{key}", why))
    for i, expr in enumerate(sp.where):
        try:
            _compile(expr, env_names)
        except ValueError as exc:
            problems.append((f"where[{i}]", str(exc)))
    if sp.sampling.method != "grid" and sp.sampling.samples is None:
        problems.append(("sampling.samples", f"method {sp.sampling.method!r} needs samples (the number of points)"))
    for i, p in enumerate(params):
        if p["continuous"] and sp.sampling.method == "grid":
            problems.append((f"parameters[{names.index(p['name'])}].continuous" if p["name"] in names else "sampling",
                             "a continuous range cannot be gridded; give a step or use random/lhs sampling"))

    # workloads
    wls = []
    for i, w in enumerate(sp.workloads):
        try:
            if isinstance(w, dict):
                wl = parse_workload(w)
            else:
                p = Path(w)
                cand = root / p if not p.is_absolute() else p
                wl = load_workload(cand if cand.exists() else resolve_workload_path(w))
        except ConfigError as exc:
            pp, m = exc.problems[0] if exc.problems else ("", str(exc))
            problems.append((f"workloads[{i}]" + (f".{pp}" if pp else ""), m))
            continue
        wls.append(wl.model_dump(mode="json", exclude_none=True))
    wnames = [w["name"] for w in wls]
    if len(set(wnames)) != len(wnames):
        problems.append(("workloads", f"workload names must be unique; got {wnames}"))
    regimes = [r.model_dump(exclude_none=True) for r in sp.regimes]
    rnames = [r["name"] for r in regimes]
    if len(set(rnames)) != len(rnames):
        problems.append(("regimes", f"regime names must be unique; got {rnames}"))
    if not regimes and wls:
        problems.append(("regimes", "empty; give at least one batch regime"))

    # metrics: objectives, constraints, pareto, plots, baseline
    mode = "workload" if wls else "chip"
    if mode == "workload":
        metrics = list(CHIP_METRICS) + _workload_columns(wnames, rnames)
    else:
        metrics = list(BATCH_CHIP_METRICS)
    allowed_msg = ", ".join((CHIP_METRICS + RUN_METRICS) if mode == "workload" else BATCH_CHIP_METRICS)
    allowed_msg += " (workload metrics also as REGIME.METRIC and WORKLOAD.REGIME.METRIC)" if mode == "workload" \
        else " (chip-level space: no workloads)"
    objectives = []
    for i, o in enumerate(sp.objectives):
        o = Objective(metric=o) if isinstance(o, str) else o
        if o.metric not in metrics:
            problems.append((f"objectives[{i}]", f"{o.metric!r} is not a metric; allowed: {allowed_msg}"))
            continue
        objectives.append({"metric": o.metric, "goal": o.goal or _goal(o.metric)})
    onames = [o["metric"] for o in objectives]
    constraints = {}
    for k, b in sp.constraints.items():
        if k not in metrics:
            problems.append((f"constraints.{k}", f"{k!r} is not a metric; allowed: {allowed_msg}"))
        elif b.min is None and b.max is None:
            problems.append((f"constraints.{k}", "give min, max or both"))
        elif b.min is not None and b.max is not None and b.min > b.max:
            problems.append((f"constraints.{k}", f"min {b.min:g} > max {b.max:g}"))
        else:
            constraints[k] = b.model_dump(exclude_none=True)
    fronts = sp.pareto if sp.pareto is not None else ([onames[:3]] if len(onames) >= 2 else [])
    for i, fr in enumerate(fronts):
        if not 2 <= len(fr) <= 3:
            problems.append((f"pareto[{i}]", f"a front is over 2 or 3 objectives, got {len(fr)}"))
        for m in fr:
            if m not in onames:
                problems.append((f"pareto[{i}]", f"{m!r} is not an objective; allowed: {', '.join(onames)}"))
    columns = set(metrics) | set(pnames)
    baseline = dict(sp.baseline or {})
    for k, v in baseline.items():
        if k not in pnames:
            problems.append((f"baseline.{k}", f"{k!r} is not a parameter; allowed: {', '.join(pnames)}"))
        elif v not in next(p["values"] for p in params if p["name"] == k):
            problems.append((f"baseline.{k}", f"{v!r} is not one of the parameter's values"))
    if baseline:
        columns |= {f"{o}_vs_baseline" for o in onames}
    for i, pl in enumerate(sp.plots):
        for fld in ("x", "y", "group"):
            v = getattr(pl, fld)
            if v is not None and v not in columns:
                problems.append((f"plots[{i}].{fld}", f"{v!r} is not a parameter or metric"))
        for k in pl.filter:
            if k not in pnames:
                problems.append((f"plots[{i}].filter.{k}", f"{k!r} is not a parameter; allowed: {', '.join(pnames)}"))
    if mode == "chip" and not problems:
        for i, p in enumerate(params):
            bad = [q for q in p["paths"] if q not in _BATCH_PATHS]
            if p["kind"] == "arch" or bad:
                problems.append((f"parameters[{i}].path", f"{(bad or ['arch'])[0]!r} is not modelled by the "
                                                          "chip-level batch estimator (a space without workloads); "
                                                          f"allowed: {', '.join(_BATCH_PATHS)}"))
        for key in sp.set:
            if key not in _BATCH_PATHS:
                problems.append((f"set.{key}", f"not modelled by the chip-level batch estimator; allowed: "
                                               f"{', '.join(_BATCH_PATHS)}"))
        if len(bases) == 1:
            b = next(iter(bases.values()))
            if len(b["core"].get("tensor_units", [])) != 1 or len(b["core"].get("memories", [])) != 1:
                problems.append(("base", "a chip-level space (no workloads) needs a base with one tensor-unit "
                                         "entry and one memory (the batch estimator's model)"))
    if problems:
        raise ConfigError(problems, source)

    plan = {"name": sp.name, "description": sp.description, "mode": mode, "bases": bases, "sizes": sizes,
            "multi_arch": sp.archs is not None, "params": params, "set": dict(sp.set), "where": list(sp.where),
            "sampling": sp.sampling.model_dump(), "workloads": wls, "regimes": regimes,
            "constraints": constraints, "objectives": objectives, "pareto": fronts, "baseline": baseline,
            "plots": [p.model_dump() for p in sp.plots],
            "chunk_points": sp.chunk_points or (16 if mode == "workload" else 250_000)}
    # check that each parameter value builds a valid description on its own path (first values elsewhere)
    if mode == "workload":
        _check_values(plan, source)
    return plan


def _check_values(plan: dict, source) -> None:
    problems = []
    first = {p["name"]: p["values"][0] for p in plan["params"]}
    for i, p in enumerate(plan["params"]):
        if p["kind"] == "arch" or p["continuous"] or not any(not q.startswith("workload.") for q in p["paths"]):
            continue
        locs = {_loc_of(q) for q in p["paths"]}
        for v in p["values"]:
            pt = {**first, p["name"]: v}
            try:
                arch_for_point(plan, pt)
            except ConfigError as exc:
                hit = [(pp, m) for pp, m in exc.problems if pp in locs]
                if hit:
                    problems.append((f"parameters[{i}].values", f"{p['name']}={v!r}: {hit[0][0]}: {hit[0][1]}"))
                    break
    if problems:
        raise ConfigError(problems, source)


def _loc_of(path: str) -> str:
    out = []
    for part in path.split("."):
        if part.isdigit() and out:
            out[-1] = f"{out[-1]}[{part}]"
        else:
            out.append(part)
    return ".".join(out)


def plan_key(plan: dict) -> str:
    """The hash that keys a plan's chunks: the resolved space, the chunk size and the code fingerprint."""
    return hashlib.sha256(canonical_json([plan, code_fingerprint()]).encode()).hexdigest()[:16]


# --------------------------------------------------------------------------- sampling

def sample(plan: dict) -> pd.DataFrame:
    """The design points of ``plan`` (one column per parameter), filtered by ``where``, duplicates dropped."""
    params = plan["params"]
    s = plan["sampling"]
    sizes = [len(p["values"]) for p in params]
    if s["method"] == "grid":
        total = int(np.prod(sizes, dtype=np.int64))
        if total > 50_000_000:
            raise ConfigError([("parameters", f"the grid has {total:,} points; at most 50,000,000 (sample it with "
                                              "sampling.method: random or lhs)")])
        idx = np.unravel_index(np.arange(total, dtype=np.int64), sizes)
        cols = {p["name"]: _take(p["values"], ix) for p, ix in zip(params, idx)}
    else:
        n = s["samples"]
        if s["method"] == "random":
            rng = np.random.default_rng(s["seed"])
            u = rng.random((n, len(params)))
        else:
            from scipy.stats import qmc
            u = qmc.LatinHypercube(d=len(params), seed=s["seed"]).random(n)
        cols = {}
        for j, p in enumerate(params):
            if p["continuous"]:
                lo, hi = p["values"]
                cols[p["name"]] = (lo * (hi / lo) ** u[:, j]) if p.get("log") and lo > 0 else lo + (hi - lo) * u[:, j]
            else:
                ix = np.minimum((u[:, j] * len(p["values"])).astype(np.int64), len(p["values"]) - 1)
                cols[p["name"]] = _take(p["values"], ix)
    df = pd.DataFrame(cols)
    if plan["where"] or plan["set"]:
        env = _env(df, plan)
        keep = np.ones(len(df), dtype=bool)
        for expr in plan["where"]:
            keep &= np.broadcast_to(np.asarray(_eval(_compile(expr, set(env)), env), dtype=bool), keep.shape)
        df = df[keep]
    if s["method"] != "grid":
        df = df.drop_duplicates()
    return df.reset_index(drop=True)


def _take(values: list, ix: np.ndarray) -> np.ndarray:
    """``values[ix]`` as int64 (all ints), float (all numbers) or object (anything else) array."""
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=np.int64)[ix]
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=float)[ix]
    return np.asarray(values, dtype=object)[ix]


def _env(df_or_point, plan: dict) -> dict:
    """Expression environment: parameter values plus ``cores`` (Tx * Ty with the aliases, else the base's)."""
    if isinstance(df_or_point, pd.DataFrame):
        env = {c: df_or_point[c].to_numpy() for c in df_or_point.columns}
    else:
        env = dict(df_or_point)
    if "cores" not in env:
        base = next(iter(plan["bases"].values()))
        tx = env.get("Tx") if _alias_used(plan, "Tx") else None
        ty = env.get("Ty") if _alias_used(plan, "Ty") else None
        if tx is not None or ty is not None:
            noc = base.get("chip", {}).get("noc", {})
            env["cores"] = (tx if tx is not None else noc.get("tx", 1)) * (ty if ty is not None else noc.get("ty", 1))
        else:
            env["cores"] = base.get("cores", 1)
    return env


def _alias_used(plan: dict, name: str) -> bool:
    return any(p["name"] == name and p.get("alias") for p in plan["params"])


# --------------------------------------------------------------------------- one point

def arch_for_point(plan: dict, point: dict) -> tuple[Arch, str]:
    """The validated description of ``point`` and the name of its base (ConfigError if invalid)."""
    name = point.get("arch", "base") if plan["multi_arch"] else "base"
    d = copy.deepcopy(plan["bases"][name])
    for p in plan["params"]:
        if p["kind"] == "arch":
            continue
        for path in p["paths"]:
            if not path.startswith("workload."):
                set_path(d, path, _py(point[p["name"]]))
    if _alias_used(plan, "Tx") or _alias_used(plan, "Ty"):
        noc = d.setdefault("chip", {}).setdefault("noc", {})
        tx, ty = int(noc.get("tx", 1)), int(noc.get("ty", 1))
        cores = tx * ty
        d["cores"] = cores
        if cores <= RING_MAX_CORES:
            noc.update(topology="ring", tx=cores, ty=1)
        else:
            noc["topology"] = "mesh"
    env = _env(point, plan)
    env["cores"] = d.get("cores", 1)
    for path, expr in plan["set"].items():
        if not path.startswith("workload."):
            set_path(d, path, _py(np.asarray(_eval(_compile(expr, set(env)), env)).item()))
    return parse_arch(d), name


def _workloads_for_point(plan: dict, point: dict) -> list:
    """The workloads with the point's ``workload.*`` values (``workload.b_density``,
    ``workload.b_density.value``, ...) set in every one."""
    over = {}
    for p in plan["params"]:
        for path in p["paths"]:
            if path.startswith("workload."):
                over[path.removeprefix("workload.")] = _py(point[p["name"]])
    env = _env(point, plan)
    for path, expr in plan["set"].items():
        if path.startswith("workload."):
            over[path.removeprefix("workload.")] = _py(np.asarray(_eval(_compile(expr, set(env)), env)).item())
    out = []
    for w in plan["workloads"]:
        d = copy.deepcopy(w)
        for path, v in sorted(over.items(), key=lambda kv: kv[0].count(".")):
            head = path.split(".")[0]
            if "." in path and not isinstance(d.get(head), dict):
                d[head] = {"value": d[head]} if isinstance(d.get(head), (int, float)) else (d.get(head) or {})
            set_path(d, path, v)
        out.append(_parsed_workload(canonical_json(d)))
    return out


@functools.lru_cache(maxsize=256)
def _parsed_workload(text: str):
    from .workload import parse_workload
    return parse_workload(json.loads(text))


@functools.lru_cache(maxsize=1024)
def _sized(arch_json: str, size_json: str) -> tuple[str, int]:
    """Largest count (``size.path``) whose chip area fits ``size.area_mm2`` (bisection on the estimator)."""
    from .estimate import estimate
    d, size = json.loads(arch_json), json.loads(size_json)

    def area(c: int) -> float:
        dd = copy.deepcopy(d)
        set_path(dd, size["path"], int(c))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return estimate(parse_arch(dd)).area_mm2

    if area(1) > size["area_mm2"]:
        raise ConfigError([(size["path"], f"even 1 unit needs {area(1):.1f} mm^2, more than the "
                                          f"{size['area_mm2']:g} mm^2 to size to")])
    lo, hi = 1, 2
    while hi <= size["max"] and area(hi) <= size["area_mm2"]:
        lo, hi = hi, hi * 2
    hi = min(hi, size["max"] + 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if area(mid) <= size["area_mm2"] else (lo, mid)
    set_path(d, size["path"], lo)
    return json.dumps(d), lo


def _geomean(vals) -> float:
    """Geometric mean; NaN if any value is missing, 0 if any is 0."""
    v = np.asarray(list(vals), dtype=float)
    if v.size == 0 or not np.all(np.isfinite(v)):
        return float("nan")
    if np.any(v <= 0):
        return 0.0
    return float(np.exp(np.mean(np.log(v))))


def _check(row: dict, constraints: dict, keys) -> Optional[str]:
    for k in keys:
        b = constraints.get(k)
        if b is None:
            continue
        v = row.get(k)
        if v is None or not np.isfinite(float(v)):
            return f"{k} unavailable"
        if "max" in b and float(v) > b["max"]:
            return f"{k} {float(v):.4g} > {b['max']:g}"
        if "min" in b and float(v) < b["min"]:
            return f"{k} {float(v):.4g} < {b['min']:g}"
    return None


def evaluate_point(plan: dict, point: dict) -> dict:
    """All metrics of one design point (workload mode); ``feasible`` and ``reason`` say whether it fits."""
    from . import perf

    row = {p["name"]: _py(point[p["name"]]) for p in plan["params"]}
    row.update(feasible=False, reason="")
    try:
        arch, name = arch_for_point(plan, point)
        if name in plan["sizes"]:
            text, n = _sized(json.dumps(arch.model_dump(mode="json", exclude_none=True), sort_keys=True),
                             json.dumps(plan["sizes"][name], sort_keys=True))
            arch = parse_arch(json.loads(text))
            row["sized_count"] = n
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ctx = perf._Context(arch, None)
    except ConfigError as exc:
        pp, m = exc.problems[0] if exc.problems else ("", str(exc))
        row["reason"] = f"invalid: {pp + ': ' if pp else ''}{m}"
        return row
    est = ctx.est
    if est is None:
        row["reason"] = ctx.note
        return row
    row.update(area_mm2=est.area_mm2, tdp_w=est.tdp_w, peak_tops=est.peak_tops, clock_mhz=est.clock_mhz,
               achievable_clock_mhz=est.achievable_clock_mhz, meets_timing=bool(est.meets_timing), cores=arch.cores,
               leakage_w=est.leakage_w, peak_tops_per_w=est.peak_tops / est.tdp_w if est.tdp_w else float("nan"),
               peak_tops_per_mm2=est.peak_tops / est.area_mm2)
    why = _check(row, plan["constraints"], CHIP_METRICS)
    if why:
        row["reason"] = why
        return row
    wls = _workloads_for_point(plan, point)
    per_regime: dict[str, dict[str, list]] = {}
    notes = []
    for wl in wls:
        for rg in plan["regimes"]:
            pre = f"{wl.name}.{rg['name']}."
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    b = rg["batch"] if "batch" in rg else perf.largest_batch(ctx, wl, rg["latency_ms"])
                    rep = perf._report(ctx, wl, perf._run(ctx, wl, b, detail=False), b)
                tot = rep.total
                vals = {m: tot.get(m) for m in RUN_METRICS}
                vals["batch"] = b
            except ConfigError as exc:
                vals = {m: float("nan") for m in (*RUN_METRICS, "batch")}
                notes.append(f"{wl.name}/{rg['name']}: {exc.problems[0][1] if exc.problems else exc}")
            for m, v in vals.items():
                row[pre + m] = float("nan") if v is None else float(v)
                if m != "batch":
                    per_regime.setdefault(rg["name"], {}).setdefault(m, []).append(row[pre + m])
    for rg, ms in per_regime.items():
        for m, vs in ms.items():
            row[f"{rg}.{m}"] = _geomean(vs)
    for m in RUN_METRICS:
        row[m] = _geomean([v for rg in per_regime.values() for v in rg.get(m, [])])
    why = _check(row, plan["constraints"], [k for k in plan["constraints"] if k not in CHIP_METRICS])
    bad = [o["metric"] for o in plan["objectives"] if not np.isfinite(float(row.get(o["metric"], float("nan"))))]
    if why:
        row["reason"] = why
    elif bad:
        row["reason"] = f"{bad[0]} unavailable" + (f" ({notes[0]})" if notes else "")
    else:
        row["feasible"] = True
    if notes:
        row["notes"] = "; ".join(notes)
    return row


# --------------------------------------------------------------------------- chip level, vectorized

_BATCH_PATHS = {
    "core.tensor_units.0.rows": "rows", "core.tensor_units.0.cols": "cols", "core.tensor_units.0.count": "units",
    "core.tensor_units.0.a_width": "a_width", "core.tensor_units.0.b_width": "b_width",
    "core.tensor_units.0.acc_width": "acc_width", "core.tensor_units.0.dataflow": "dataflow",
    "core.memories.0.capacity_bytes": "sram_bytes", "core.memories.0.block_bytes": "block_bytes",
    "core.memories.0.banks": "sram_banks", "node_nm": "node_nm", "clock_mhz": "clock_mhz", "cores": "cores",
    "chip.noc.tx": "tx", "chip.noc.ty": "ty", "chip.white_space_fraction": "white_space_fraction",
}


def evaluate_chip_points(plan: dict, df: pd.DataFrame) -> pd.DataFrame:
    """Chip-level metrics of many points at once through :func:`accelgen.ppa.batch.evaluate_batch`."""
    from .batch import evaluate_batch

    base = plan["bases"]["base"]
    tu, mem = base["core"]["tensor_units"][0], base["core"]["memories"][0]
    noc = base.get("chip", {}).get("noc", {})
    kw: dict[str, Any] = {"rows": tu["rows"], "cols": tu["cols"], "units": tu.get("count", 1),
                          "a_width": tu.get("a_width", 8), "b_width": tu.get("b_width", 8),
                          "acc_width": tu.get("acc_width", 32), "dataflow": tu.get("dataflow", "ws"),
                          "sram_bytes": mem["capacity_bytes"], "block_bytes": mem.get("block_bytes", 64),
                          "sram_banks": mem.get("banks") or 4, "node_nm": base["node_nm"],
                          "clock_mhz": base["clock_mhz"], "cores": base.get("cores", 1),
                          "tx": noc.get("tx", 1), "ty": noc.get("ty", 1),
                          "white_space_fraction": base.get("chip", {}).get("white_space_fraction", 0.0)}
    for p in plan["params"]:
        for path in p["paths"]:
            kw[_BATCH_PATHS[path]] = df[p["name"]].to_numpy()
    if _alias_used(plan, "Tx") or _alias_used(plan, "Ty"):
        kw["cores"] = np.asarray(kw["tx"]) * np.asarray(kw["ty"])
    env = _env(df, plan)
    env["cores"] = kw["cores"]
    for path, expr in plan["set"].items():
        kw[_BATCH_PATHS[path]] = _eval(_compile(expr, set(env)), env)
    kw.pop("tx"), kw.pop("ty")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = evaluate_batch(**kw)
    n = len(df)
    res = pd.DataFrame({k: np.broadcast_to(np.asarray(v, dtype=float), (n,)) for k, v in out.items()})
    res["peak_tops_per_w"] = res["peak_tops"] / res["tdp_w"]
    res["peak_tops_per_mm2"] = res["peak_tops"] / res["area_mm2"]
    res["peak_tops_per_tco"] = res["peak_tops"] / res["area_mm2"] ** 2 / res["tdp_w"]
    feas = np.ones(n, dtype=bool)
    reason = np.full(n, "", dtype=object)
    for k, b in plan["constraints"].items():
        v = res[k].to_numpy()
        for side, bad in (("max", v > b.get("max", np.inf)), ("min", v < b.get("min", -np.inf))):
            if side in b:
                reason[bad & feas] = f"{k} {'>' if side == 'max' else '<'} {b[side]:g}"
                feas &= ~bad
    out_df = pd.concat([df.reset_index(drop=True), res], axis=1)
    out_df["feasible"] = feas
    out_df["reason"] = reason
    return out_df


def evaluate_points(plan: dict, points: list[dict]) -> list[dict]:
    """Evaluate a list of points (dicts of parameter values); one row dict per point, in order."""
    if plan["mode"] == "chip":
        return evaluate_chip_points(plan, pd.DataFrame(points)).to_dict("records")
    return [evaluate_point(plan, p) for p in points]


def _chunk_task(plan: dict, points: list[dict]) -> list[dict]:
    return evaluate_points(plan, points)


# --------------------------------------------------------------------------- the run

class DseResult:
    """A finished exploration: ``table`` (every point), ``fronts``, ``best``, the files written."""

    def __init__(self, plan: dict, table: pd.DataFrame, fronts: list[dict], best: dict, files: list[Path],
                 computed_chunks: int, reused_chunks: int, out_dir: Path, wall_s: float):
        self.plan, self.table, self.fronts, self.best, self.files = plan, table, fronts, best, files
        self.computed_chunks, self.reused_chunks, self.out_dir, self.wall_s = (computed_chunks, reused_chunks,
                                                                               out_dir, wall_s)

    @property
    def points(self) -> int:
        return len(self.table)

    @property
    def feasible(self) -> int:
        return int(self.table["feasible"].sum()) if len(self.table) else 0

    def summary(self) -> dict:
        return {"points": self.points, "feasible": self.feasible, "best": self.best,
                "pareto": [{"objectives": f["objectives"], "points": f["points"]} for f in self.fronts],
                "name": self.plan["name"], "mode": self.plan["mode"],
                "objectives": self.plan["objectives"], "constraints": self.plan["constraints"],
                "computed_chunks": self.computed_chunks, "reused_chunks": self.reused_chunks,
                "wall_s": self.wall_s, "files": [str(f) for f in self.files]}


def _records(df: pd.DataFrame) -> list[dict]:
    return [{k: _json_value(v) for k, v in r.items()} for r in df.to_dict("records")]


def _json_value(v):
    v = _py(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def pareto_mask(values: np.ndarray, goals: list[str]) -> np.ndarray:
    """Non-dominated rows of ``values`` (n x k) under ``goals`` ('max'/'min' per column); rows with identical
    objective vectors are kept together. Two objectives: O(n log n) by sorting; more: each point is compared
    with the front found so far (points taken best-first on the first objective)."""
    v = np.asarray(values, dtype=float) * np.array([1.0 if g == "max" else -1.0 for g in goals])
    n = len(v)
    if n == 0:
        return np.zeros(0, dtype=bool)
    if v.shape[1] == 2:
        order = np.lexsort((-v[:, 1], -v[:, 0]))          # first objective descending, then the second
        a, b = v[order, 0], v[order, 1]
        new_group = np.r_[True, a[1:] != a[:-1]]
        gid = np.cumsum(new_group) - 1
        gmax = np.full(gid[-1] + 1, -np.inf)
        np.maximum.at(gmax, gid, b)
        better_before = np.r_[-np.inf, np.maximum.accumulate(gmax)[:-1]]   # best b among strictly larger a
        dominated = (better_before[gid] >= b) | (gmax[gid] > b)
        keep = np.empty(n, dtype=bool)
        keep[order] = ~dominated
        return keep
    keep = np.ones(n, dtype=bool)
    order = np.lexsort(tuple(-v[:, j] for j in reversed(range(v.shape[1]))))  # best first on column 0
    front: list[int] = []
    for i in order:
        if front:
            f = v[front]
            dom = np.all(f >= v[i], axis=1) & np.any(f > v[i], axis=1)
            if dom.any():
                keep[i] = False
                continue
        front.append(i)
    return keep


def _finish(plan: dict, table: pd.DataFrame) -> tuple[pd.DataFrame, list[dict], dict]:
    pnames = [p["name"] for p in plan["params"]]
    objectives = plan["objectives"]
    if plan["baseline"] and len(table):
        keys = [p for p in pnames if p not in plan["baseline"]]
        mask = np.ones(len(table), dtype=bool)
        for k, v in plan["baseline"].items():
            mask &= (table[k] == v).to_numpy()
        ref = table[mask]
        extra = {}
        for o in objectives:
            m = o["metric"]
            if keys:
                merged = table[keys].merge(ref[keys + [m]].drop_duplicates(keys).rename(columns={m: "_ref"}),
                                           on=keys, how="left")
                extra[f"{m}_vs_baseline"] = table[m].to_numpy(dtype=float) / merged["_ref"].to_numpy(dtype=float)
            else:
                extra[f"{m}_vs_baseline"] = table[m].to_numpy(dtype=float) / float(ref[m].iloc[0])
        table = pd.concat([table, pd.DataFrame(extra, index=table.index)], axis=1)
    feas = table[table["feasible"].astype(bool)] if len(table) else table
    best = {}
    for o in objectives:
        m = o["metric"]
        if not len(feas):
            continue
        col = feas[m].astype(float)
        i = col.idxmax() if o["goal"] == "max" else col.idxmin()
        r = table.loc[i]
        rec = {p: _json_value(r[p]) for p in pnames}
        for k in (*CHIP_METRICS, *BATCH_CHIP_METRICS, *RUN_METRICS, "sized_count", *[x["metric"] for x in objectives]):
            if k in table.columns and k not in rec:
                rec[k] = _json_value(r[k])
        best[m] = rec
    fronts = []
    goals = {o["metric"]: o["goal"] for o in objectives}
    masks = {}
    for fr in plan["pareto"]:
        col = "pareto:" + "|".join(fr)
        mask = np.zeros(len(table), dtype=bool)
        if len(feas):
            vals = feas[fr].to_numpy(dtype=float)
            ok = np.all(np.isfinite(vals), axis=1)
            sub = np.flatnonzero(ok)
            m = pareto_mask(vals[ok], [goals[x] for x in fr])
            mask[feas.index.to_numpy()[sub[m]]] = True
        masks[col] = mask
        pts = table[mask].sort_values(fr[0], ascending=goals[fr[0]] == "min")
        fronts.append({"objectives": fr, "column": col,
                       "points": _records(pts[list(dict.fromkeys(
                           [*pnames, *fr, *[c for c in ("area_mm2", "tdp_w", "peak_tops") if c in pts.columns]]))])})
    if masks:
        table = pd.concat([table.drop(columns=[c for c in masks if c in table.columns]),
                           pd.DataFrame(masks, index=table.index)], axis=1)
    return table, fronts, best


def run(plan: dict, out_dir: str | Path, *, jobs: int = 1, scheduler: str | None = None,
        on_progress: Callable[[int, int, int], None] | None = None, plots: bool = True,
        stop_after_chunks: int | None = None) -> DseResult:
    """Explore ``plan`` (from :func:`load_space`/:func:`resolve`), writing chunks and results under ``out_dir``.

    ``on_progress(done_points, total_points, reused_points)`` is called as chunks finish.
    ``stop_after_chunks`` (tests) stops like a kill after that many newly computed chunks."""
    import time

    t0 = time.perf_counter()
    out = Path(out_dir)
    df = sample(plan)
    total = len(df)
    key = plan_key(plan)
    size = plan["chunk_points"]
    nchunks = max(1, -(-total // size)) if total else 0
    cdir = out / "chunks"
    cdir.mkdir(parents=True, exist_ok=True)
    paths = [cdir / f"{key}-{i:05d}.csv" for i in range(nchunks)]
    todo = [i for i, p in enumerate(paths) if not p.exists()]
    reused = nchunks - len(todo)
    done_pts = reused_pts = sum(min(size, total - i * size) for i in range(nchunks) if i not in set(todo))
    if on_progress:
        on_progress(done_pts, total, reused_pts)
    records = df.to_dict("records")

    def chunk_points(i):
        return records[i * size:(i + 1) * size]

    computed = 0

    def save(i, rows):
        nonlocal done_pts, computed
        write_atomic(paths[i], pd.DataFrame(rows).to_csv(index=False))
        computed += 1
        done_pts += len(chunk_points(i))
        if on_progress:
            on_progress(done_pts, total, reused_pts)
        if stop_after_chunks is not None and computed >= stop_after_chunks:
            raise KeyboardInterrupt(f"stopped after {computed} chunks")

    if todo:
        if scheduler:
            _run_dask(plan, todo, chunk_points, save, scheduler)
        elif jobs > 1 and len(todo) > 1:
            from concurrent.futures import ProcessPoolExecutor, as_completed
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                futs = {pool.submit(_chunk_task, plan, chunk_points(i)): i for i in todo}
                try:
                    for f in as_completed(futs):
                        save(futs[f], f.result())
                except BaseException:
                    for f in futs:
                        f.cancel()
                    raise
        else:
            for i in todo:
                save(i, evaluate_points(plan, chunk_points(i)))
    table = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True).copy() if paths else \
        pd.DataFrame(columns=[p["name"] for p in plan["params"]] + ["feasible", "reason"])
    if len(table):
        table["feasible"] = table["feasible"].astype(bool)
    table, fronts, best = _finish(plan, table)
    files = write_results(plan, table, fronts, best, out, plots=plots)
    return DseResult(plan, table, fronts, best, files, computed, reused, out, time.perf_counter() - t0)


def _run_dask(plan, todo, chunk_points, save, address):
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise ConfigError([("--scheduler", "needs dask.distributed: pip install 'dask[distributed]'")]) from None
    try:
        client = Client(address, timeout="20s")
    except (OSError, TimeoutError) as exc:
        raise ConfigError([("--scheduler", f"cannot connect to {address!r}: {exc}")]) from None
    try:
        plan_f = client.scatter(plan, broadcast=True)
        futs = {client.submit(_chunk_task, plan_f, chunk_points(i), pure=False): i for i in todo}
        for f in as_completed(list(futs)):
            save(futs[f], f.result())
    finally:
        client.close()


# --------------------------------------------------------------------------- outputs

def write_results(plan: dict, table: pd.DataFrame, fronts: list[dict], best: dict, out: Path,
                  plots: bool = True) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = [out / "points.csv", out / "best.json"]
    pnames = [p["name"] for p in plan["params"]]
    with atomic_files(files) as (t_points, t_best):
        table.to_csv(t_points, index=False)
        Path(t_best).write_text(json.dumps(best, indent=1))
    for f in fronts:
        p = out / ("pareto_" + "_vs_".join(x.replace(".", "-") for x in f["objectives"]) + ".csv")
        cols = [c for c in (*pnames, *f["objectives"], "area_mm2", "tdp_w", "peak_tops") if c in table.columns]
        goal = next(o["goal"] for o in plan["objectives"] if o["metric"] == f["objectives"][0])
        front = table[table[f["column"]]].sort_values(f["objectives"][0], ascending=goal == "min")
        write_atomic(p, front[list(dict.fromkeys(cols))].to_csv(index=False))
        files.append(p)
    if plots and len(table):
        from .dse_plot import plot_front, plot_spec
        for f in fronts:
            files.append(plot_front(plan, table, f, out))
        for i, spec in enumerate(plan["plots"]):
            files.append(plot_spec(plan, table, spec, out, i))
    return files


def explore(space: str | Path | dict, out_dir: str | Path, **kw) -> DseResult:
    """Load (a path) or resolve (a dict) a space and :func:`run` it."""
    plan = load_space(space) if isinstance(space, (str, Path)) else resolve(space)
    return run(plan, out_dir, **kw)
