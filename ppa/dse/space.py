"""Reading a space file: validate it (:mod:`.schema`), check every name and path, and resolve it into
a self-contained :class:`~.plan.Plan`. All problems are reported together in one ConfigError."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

import yaml
from pydantic import ValidationError

from ...errors import ConfigError
from ...expr import compile_expr
from ...problems import schema_problems
from ...util import read_yaml
from ..arch import parse_arch
from ..sram_ports import PortConfig, parse_ports
from ..workload import Workload, load_workload, parse_workload, resolve_workload_path
from .paths import check_path, loc_of
from .plan import  (ALIASES, BATCH_CHIP_METRICS, BATCH_PATHS, CHIP_METRICS, RUN_METRICS, Base, Constraint, Objective,
                    Plan, PlanParam, Plot, Regime, Sampling, Size, goal_of, py)
from .point import arch_for_point
from .schema import ArchSpec, ObjectiveSpec, ParamSpec, Space

Problems = list[tuple[str, str]]


def load_space(path: str | Path) -> Plan:
    """Read and validate a space file; returns the resolved plan (see :func:`resolve`)."""
    path = Path(path)
    data = read_yaml(path)
    return resolve(data, root=path.parent, source=str(path))


def resolve(data: dict, root: str | Path = ".", source: str | None = None) -> Plan:
    """Validate a space (a dict) and resolve it into a self-contained plan: base descriptions and
    workloads inlined and parsed, parameter values expanded, every name checked. All problems in one
    ConfigError."""
    if not isinstance(data, dict):
        raise ConfigError([("", f"expected a mapping at the top level, got {type(data).__name__}")], source)
    try:
        sp = Space.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(schema_problems(exc, root=Space), source) from None
    root = Path(root)
    problems: Problems = []
    bases = _bases(sp, root, problems)
    params = _params(sp, bases, problems)
    _expressions(sp, params, bases, problems)
    _sampling(sp, params, problems)
    workloads, regimes = _workloads(sp, root, problems)
    mode = "workload" if workloads else "chip"
    objectives, constraints, fronts = _metrics(sp, mode, params, workloads, regimes, problems)
    if mode == "chip" and not problems:
        _chip_checks(sp, params, bases, problems)
    if problems:
        raise ConfigError(problems, source)
    plan = Plan(name=sp.name, description=sp.description, mode=mode, bases=bases, multi_arch=sp.archs is not None,
                params=tuple(params), derived=dict(sp.set), where=tuple(sp.where),
                sampling=Sampling(**sp.sampling.model_dump()), workloads=tuple(workloads), regimes=tuple(regimes),
                constraints=tuple(constraints), objectives=tuple(objectives),
                pareto=tuple(tuple(f) for f in fronts), baseline=dict(sp.baseline or {}),
                plots=tuple(Plot(**p.model_dump()) for p in sp.plots),
                chunk_points=sp.chunk_points or (16 if mode == "workload" else 250_000))
    if mode == "workload":
        _check_values(plan, source)
    return plan


# --------------------------------------------------------------------------- the parts

def _read_yaml(path: Path, field: str, problems: Problems):
    try:
        return yaml.safe_load(path.read_text())
    except OSError as exc:
        problems.append((field, f"cannot read {str(path)!r}: {exc.strerror}"))
    except yaml.YAMLError:
        problems.append((field, f"malformed YAML in {str(path)!r}"))
    return None


def _bases(sp: Space, root: Path, problems: Problems) -> dict[str, Base]:
    """The base descriptions (``base:`` or ``archs:``), read, validated and parsed."""
    bases: dict[str, Base] = {}
    if sp.archs is not None:
        choices = sp.archs
    else:
        choices = {"base": ArchSpec(**({"path": sp.base} if isinstance(sp.base, str) else {"arch": sp.base}))}
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
            arch = parse_arch(d)
        except ConfigError as exc:
            problems += [(f"{field}: {pp}" if pp else field, m) for pp, m in exc.problems[:2]]
            continue
        size = None
        if ch.size is not None:
            why = check_path(ch.size.path, d)
            if why:
                problems.append((f"{field}.size.path", why))
            size = Size(**ch.size.model_dump())
        bases[name] = Base(name, d, arch, size)
    if sp.archs is not None and not sp.archs:
        problems.append(("archs", "empty; name at least one architecture"))
    return bases


def _values(p: ParamSpec, field: str, problems: Problems) -> list:
    """A parameter's values: as listed, or expanded from its range (step, pow2; ``[lo, hi]`` if continuous)."""
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
    vals = [py(float(v)) for v in vals]
    if not vals:
        problems.append((f"{field}.range", f"[{lo:g}, {hi:g}] holds no value"))
    return vals


def _path_problem(path: str, bases: dict[str, Base]) -> Optional[str]:
    """Why ``path`` names no field of the workloads (``workload.*``) or of every base, or None."""
    if path.startswith("workload."):
        return check_path(path.removeprefix("workload."), {}, Workload)
    for bn, b in bases.items():
        why = check_path(path, b.description)
        if why:
            return why + (f" (architecture {bn!r})" if len(bases) > 1 else "")
    return None


def _params(sp: Space, bases: dict[str, Base], problems: Problems) -> list[PlanParam]:
    """The parameters with their values and paths (the implicit ``arch`` parameter first with ``archs:``)."""
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
            params.append(PlanParam("arch", (), tuple(vals), kind="arch"))
            continue
        paths = [p.path] if isinstance(p.path, str) else (list(p.path) if p.path else list(ALIASES.get(p.name, ())))
        if not paths:
            problems.append((f"{field}.path", f"parameter {p.name!r} needs a path (e.g. core.tensor_units.0.rows, "
                                              f"workload.b_density); aliases without one: {', '.join(ALIASES)}"))
            continue
        for path in paths:
            why = _path_problem(path, bases)
            if why:
                problems.append((f"{field}.path", why))
        params.append(PlanParam(p.name, tuple(paths), tuple(vals), continuous=bool(p.continuous and p.range is not None),
                                log=p.log, alias=p.path is None))
    if sp.archs is not None and "arch" not in names:
        params.insert(0, PlanParam("arch", (), tuple(sp.archs), kind="arch"))
    return params


def _sampling(sp: Space, params: list[PlanParam], problems: Problems) -> None:
    names = [p.name for p in sp.parameters]
    if sp.sampling.method != "grid" and sp.sampling.samples is None:
        problems.append(("sampling.samples", f"method {sp.sampling.method!r} needs samples (the number of points)"))
    for p in params:
        if p.continuous and sp.sampling.method == "grid":
            problems.append((f"parameters[{names.index(p.name)}].continuous" if p.name in names else "sampling",
                             "a continuous range cannot be gridded; give a step or use random/lhs sampling"))


def _expressions(sp: Space, params: list[PlanParam], bases: dict[str, Base], problems: Problems) -> None:
    """``set:`` (expressions and the paths they set) and ``where:``."""
    env_names = {p.name for p in params} | {"cores"}
    for key, text in sp.set.items():
        try:
            compile_expr(text, env_names)
        except ValueError as exc:
            problems.append((f"set.{key}", str(exc)))
        if key.startswith("workload."):
            why = check_path(key.removeprefix("workload."), {}, Workload)
        else:
            why = next((w for w in (check_path(key, b.description) for b in bases.values()) if w), None)
        if why:
            problems.append((f"set.{key}", why))
    for i, text in enumerate(sp.where):
        try:
            compile_expr(text, env_names)
        except ValueError as exc:
            problems.append((f"where[{i}]", str(exc)))


def _workloads(sp: Space, root: Path, problems: Problems) -> tuple[list[Workload], list[Regime]]:
    """The workloads (inline, files beside the space, or shipped names), parsed, and the batch regimes."""
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
        # the plan holds the workload as its JSON form reads back (what a worker would parse)
        wls.append(parse_workload(wl.model_dump(mode="json", exclude_none=True)))
    wnames = [w.name for w in wls]
    if len(set(wnames)) != len(wnames):
        problems.append(("workloads", f"workload names must be unique; got {wnames}"))
    regimes = [Regime(**r.model_dump()) for r in sp.regimes]
    rnames = [r.name for r in regimes]
    if len(set(rnames)) != len(rnames):
        problems.append(("regimes", f"regime names must be unique; got {rnames}"))
    if not regimes and wls:
        problems.append(("regimes", "empty; give at least one batch regime"))
    return wls, regimes


def _workload_columns(names: list[str], regimes: list[str]) -> list[str]:
    cols = list(RUN_METRICS)
    for r in regimes:
        cols += [f"{r}.{m}" for m in RUN_METRICS]
        for w in names:
            cols += [f"{w}.{r}.{m}" for m in (*RUN_METRICS, "batch")]
    return cols


def _metrics(sp: Space, mode: str, params: list[PlanParam], wls: list[Workload], regimes: list[Regime],
             problems: Problems) -> tuple[list[Objective], list[Constraint], list[list[str]]]:
    """Objectives, constraints and fronts, checked against the metrics of the mode; baseline and plots."""
    if mode == "workload":
        metrics = list(CHIP_METRICS) + _workload_columns([w.name for w in wls], [r.name for r in regimes])
        allowed_msg = ", ".join(CHIP_METRICS + RUN_METRICS) + \
            " (workload metrics also as REGIME.METRIC and WORKLOAD.REGIME.METRIC)"
    else:
        metrics = list(BATCH_CHIP_METRICS)
        allowed_msg = ", ".join(BATCH_CHIP_METRICS) + " (chip-level space: no workloads)"
    objectives = []
    for i, o in enumerate(sp.objectives):
        o = ObjectiveSpec(metric=o) if isinstance(o, str) else o
        if o.metric not in metrics:
            problems.append((f"objectives[{i}]", f"{o.metric!r} is not a metric; allowed: {allowed_msg}"))
            continue
        objectives.append(Objective(o.metric, o.goal or goal_of(o.metric)))
    onames = [o.metric for o in objectives]
    constraints = []
    for k, b in sp.constraints.items():
        if k not in metrics:
            problems.append((f"constraints.{k}", f"{k!r} is not a metric; allowed: {allowed_msg}"))
        elif b.min is None and b.max is None:
            problems.append((f"constraints.{k}", "give min, max or both"))
        elif b.min is not None and b.max is not None and b.min > b.max:
            problems.append((f"constraints.{k}", f"min {b.min:g} > max {b.max:g}"))
        else:
            constraints.append(Constraint(k, b.min, b.max))
    fronts = sp.pareto if sp.pareto is not None else ([onames[:3]] if len(onames) >= 2 else [])
    for i, fr in enumerate(fronts):
        if not 2 <= len(fr) <= 3:
            problems.append((f"pareto[{i}]", f"a front is over 2 or 3 objectives, got {len(fr)}"))
        for m in fr:
            if m not in onames:
                problems.append((f"pareto[{i}]", f"{m!r} is not an objective; allowed: {', '.join(onames)}"))
    pnames = [p.name for p in params]
    columns = set(metrics) | set(pnames)
    baseline = dict(sp.baseline or {})
    for k, v in baseline.items():
        if k not in pnames:
            problems.append((f"baseline.{k}", f"{k!r} is not a parameter; allowed: {', '.join(pnames)}"))
        elif v not in next(p.values for p in params if p.name == k):
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
    return objectives, constraints, fronts


#: tensor-unit fields the chip-level batch estimator (:func:`accelgen.ppa.batch.evaluate_batch`) does not take, and
#: the value it costs: a base setting another one would be costed as if it did not
UNBATCHED_TENSOR_UNIT = {"weight_load": "shift", "flush_subnormals": False, "sum_group": 1, "pipeline": "auto"}
#: memory fields the batch estimator does not take (it costs every bank busy, one port, one instance, SRAM cells)
UNBATCHED_MEMORY = {"ports": 1, "bandwidth_gbps": None, "latency_ns": None, "activity": 1.0, "count": 1,
                    "level": "shared"}


def _unbatched(b: dict) -> list[tuple[str, object, object]]:
    """``(path, value, allowed)`` of each base field the batch estimator would not cost as given: beside its tensor
    unit and memory it costs the vector unit, its register file, the scalar core, the NoC, the I/O, the supply and
    the operand density, as the estimator does (:mod:`accelgen.ppa.batch_rest`), and nothing else."""
    core, tu, mem = b["core"], b["core"]["tensor_units"][0], b["core"]["memories"][0]
    out = [(f"core.tensor_units[0].{k}", tu.get(k, v), v) for k, v in UNBATCHED_TENSOR_UNIT.items()]
    # one read/write port however it is written (1, "1rw", "1RW"); a malformed value is the schema's to report
    ports = mem.get("ports", 1)
    try:
        ports = 1 if parse_ports(ports) == PortConfig(rw=1) else ports
    except ConfigError:
        pass
    mem = {**mem, "ports": ports}
    out += [(f"core.memories[0].{k}", mem.get(k, v), v) for k, v in UNBATCHED_MEMORY.items()]
    out += [(f"core.{k}", core.get(k) or None, None) for k in ("reduction_trees", "dot_products", "flex_dpes",
                                                                "tensordash", "units")]
    out += [("chip.die_budget_mm2", (b.get("chip") or {}).get("die_budget_mm2"), None),
            ("activity.switching", (b.get("activity") or {}).get("switching", "timed"), "timed"),
            ("activity.profile", (b.get("activity") or {}).get("profile"), None)]
    if mem.get("cell") in ("dff", "auto"):     # the batch costs SRAM cells it is told, at many clocks at once
        out.append(("core.memories[0].cell", mem["cell"], "sram or sram_lp"))
    clock = b.get("clock_mhz")
    if isinstance(clock, bool) or not isinstance(clock, (int, float)):
        out.append(("clock_mhz", clock, "a number (MHz)"))
    return [(path, value, allowed) for path, value, allowed in out if value != allowed]


def _chip_checks(sp: Space, params: list[PlanParam], bases: dict[str, Base], problems: Problems) -> None:
    """A chip-level space (no workloads) varies only what the batch estimator models."""
    for i, p in enumerate(params):
        bad = [q for q in p.paths if q not in BATCH_PATHS]
        if p.kind == "arch" or bad:
            problems.append((f"parameters[{i}].path", f"{(bad or ['arch'])[0]!r} is not modelled by the "
                                                      "chip-level batch estimator (a space without workloads); "
                                                      f"allowed: {', '.join(BATCH_PATHS)}"))
    for key in sp.set:
        if key not in BATCH_PATHS:
            problems.append((f"set.{key}", f"not modelled by the chip-level batch estimator; allowed: "
                                           f"{', '.join(BATCH_PATHS)}"))
    if len(bases) == 1:
        b = next(iter(bases.values())).description
        if len(b["core"].get("tensor_units", [])) != 1 or len(b["core"].get("memories", [])) != 1:
            problems.append(("base", "a chip-level space (no workloads) needs a base with one tensor-unit "
                                     "entry and one memory (the batch estimator's model)"))
            return
        for path, value, allowed in _unbatched(b):
            problems.append((f"base: {path}", f"{value!r} is not modelled by the chip-level batch estimator (a space "
                             f"without workloads); allowed: {allowed!r}, or give the space a workload (every point "
                             "then takes the full estimator)"))


def _check_values(plan: Plan, source) -> None:
    """Each parameter value builds a valid description on its own path (first values elsewhere)."""
    problems = []
    first = {p.name: p.values[0] for p in plan.params}
    for i, p in enumerate(plan.params):
        if p.kind == "arch" or p.continuous or not p.arch_paths:
            continue
        locs = {loc_of(q) for q in p.paths}
        for v in p.values:
            pt = {**first, p.name: v}
            try:
                arch_for_point(plan, pt)
            except ConfigError as exc:
                hit = [(pp, m) for pp, m in exc.problems if pp in locs]
                if hit:
                    problems.append((f"parameters[{i}].values", f"{p.name}={v!r}: {hit[0][0]}: {hit[0][1]}"))
                    break
    if problems:
        raise ConfigError(problems, source)
