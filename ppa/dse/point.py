"""One design point's inputs: its expression environment, its architecture and its workloads."""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np
import pandas as pd

from ...expr import Expr, compile_expr
from ...util import canonical_json
from ..arch import Arch
from ..workload import Workload, parse_workload
from .paths import get_path, set_path, with_values
from .plan import Plan, core_grid, py


def expression(plan: Plan, text: str) -> Expr:
    """A ``set:`` or ``where:`` expression of ``plan`` (checked and compiled once, then cached)."""
    return compile_expr(text, plan.env_names)


def point_env(df_or_point, plan: Plan) -> dict:
    """Expression environment: parameter values plus ``cores`` (Tx * Ty with the aliases, else the base's)."""
    if isinstance(df_or_point, pd.DataFrame):
        env = {c: df_or_point[c].to_numpy() for c in df_or_point.columns}
    else:
        env = dict(df_or_point)
    if "cores" not in env:
        base = next(iter(plan.bases.values())).description
        tx = env.get("Tx") if plan.alias_used("Tx") else None
        ty = env.get("Ty") if plan.alias_used("Ty") else None
        if tx is not None or ty is not None:
            noc = base.get("chip", {}).get("noc", {})
            env["cores"] = (tx if tx is not None else noc.get("tx", 1)) * (ty if ty is not None else noc.get("ty", 1))
        else:
            env["cores"] = base.get("cores", 1)
    return env


def arch_values(plan: Plan, point: dict) -> tuple[str, dict[str, Any]]:
    """The base of ``point`` and the description values it sets (``{path: value}``, in order): its
    parameters, the core grid of the Tx/Ty aliases, then the ``set:`` expressions."""
    name = point.get("arch", "base") if plan.multi_arch else "base"
    raw = plan.bases[name].description
    values: dict[str, Any] = {}
    for p in plan.params:
        if p.kind == "arch":
            continue
        for path in p.arch_paths:
            values[path] = py(point[p.name])

    def current(path, default):
        return values[path] if path in values else get_path(raw, path, default)

    if plan.grid_aliases:
        cores, topology, tx, ty = core_grid(int(current("chip.noc.tx", 1)), int(current("chip.noc.ty", 1)))
        values.update({"cores": int(cores), "chip.noc.topology": str(topology), "chip.noc.tx": int(tx),
                       "chip.noc.ty": int(ty)})
    env = point_env(point, plan)
    env["cores"] = current("cores", 1)
    for path, text in plan.derived.items():
        if not path.startswith("workload."):
            values[path] = py(np.asarray(expression(plan, text)(env)).item())
    return name, values


def arch_for_point(plan: Plan, point: dict) -> tuple[Arch, str]:
    """The validated description of ``point`` and the name of its base (ConfigError if invalid).

    The base is parsed once (in the plan); the point's values are applied to it with
    :func:`~.paths.with_values`, which validates only what they change."""
    name, values = arch_values(plan, point)
    base = plan.bases[name]
    return with_values(base.description, base.arch, values), name


def workloads_for_point(plan: Plan, point: dict) -> list[Workload]:
    """The workloads with the point's ``workload.*`` values (``workload.b_density``,
    ``workload.b_density.value``, ...) set in every one."""
    over = {}
    for p in plan.params:
        for path in p.workload_paths:
            over[path.removeprefix("workload.")] = py(point[p.name])
    env = point_env(point, plan)
    for path, text in plan.derived.items():
        if path.startswith("workload."):
            over[path.removeprefix("workload.")] = py(np.asarray(expression(plan, text)(env)).item())
    if not over:
        return list(plan.workloads)
    out = []
    for w in plan.workloads:
        d = w.model_dump(mode="json", exclude_none=True)
        for path, v in sorted(over.items(), key=lambda kv: kv[0].count(".")):
            head = path.split(".")[0]
            if "." in path and not isinstance(d.get(head), dict):
                d[head] = {"value": d[head]} if isinstance(d.get(head), (int, float)) else (d.get(head) or {})
            set_path(d, path, v)
        out.append(_parsed_workload(canonical_json(d)))
    return out


@functools.lru_cache(maxsize=256)
def _parsed_workload(text: str) -> Workload:
    return parse_workload(json.loads(text))
