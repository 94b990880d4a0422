"""The design points of a plan: the full grid, uniform random or Latin-hypercube samples."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...errors import ConfigError
from .plan import Plan, PlanParam
from .point import expression, point_env

MAX_GRID_POINTS = 50_000_000


def sample(plan: Plan) -> pd.DataFrame:
    """The design points of ``plan`` (one column per parameter), filtered by ``where``, duplicates dropped."""
    params = plan.params
    s = plan.sampling
    if s.method == "grid":
        cols = _grid(params)
    else:
        cols = _samples(params, s.method, s.samples, s.seed)
    df = pd.DataFrame(cols)
    if plan.where or plan.derived:
        env = point_env(df, plan)
        keep = np.ones(len(df), dtype=bool)
        for text in plan.where:
            keep &= np.broadcast_to(np.asarray(expression(plan, text)(env), dtype=bool), keep.shape)
        df = df[keep]
    if s.method != "grid":
        df = df.drop_duplicates()
    return df.reset_index(drop=True)


def _grid(params: tuple[PlanParam, ...]) -> dict[str, np.ndarray]:
    sizes = [len(p.values) for p in params]
    total = int(np.prod(sizes, dtype=np.int64))
    if total > MAX_GRID_POINTS:
        raise ConfigError([("parameters", f"the grid has {total:,} points; at most {MAX_GRID_POINTS:,} (sample it "
                                          "with sampling.method: random or lhs)")])
    idx = np.unravel_index(np.arange(total, dtype=np.int64), sizes)
    return {p.name: _take(p.values, ix) for p, ix in zip(params, idx)}


def _samples(params: tuple[PlanParam, ...], method: str, n: int, seed: int) -> dict[str, np.ndarray]:
    """``n`` points: uniform in the unit hypercube (``random``) or stratified (``lhs``), mapped onto each
    parameter's values (continuous ranges uniformly, log-uniformly with ``log``)."""
    if method == "random":
        u = np.random.default_rng(seed).random((n, len(params)))
    else:
        from scipy.stats import qmc  # noqa: PLC0415 (optional heavy dependency, only for lhs)
        u = qmc.LatinHypercube(d=len(params), seed=seed).random(n)
    cols = {}
    for j, p in enumerate(params):
        if p.continuous:
            lo, hi = p.values
            cols[p.name] = (lo * (hi / lo) ** u[:, j]) if p.log and lo > 0 else lo + (hi - lo) * u[:, j]
        else:
            ix = np.minimum((u[:, j] * len(p.values)).astype(np.int64), len(p.values) - 1)
            cols[p.name] = _take(p.values, ix)
    return cols


def _take(values, ix: np.ndarray) -> np.ndarray:
    """``values[ix]`` as int64 (all ints), float (all numbers) or object (anything else) array."""
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=np.int64)[ix]
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=float)[ix]
    return np.asarray(values, dtype=object)[ix]
