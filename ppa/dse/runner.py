"""Running a plan: chunks of points evaluated by the shared executor (this process, local processes or
a Dask cluster), each written to ``OUT/chunks/<key>-<index>.csv`` as it finishes, so a killed run
resumes with the chunks that are missing; then fronts, best points and the output files."""

from __future__ import annotations

import functools
import hashlib
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Callable

import pandas as pd

from ...executor import Executor
from ...util import canonical_json, module_digest, write_atomic
from .evaluate import evaluate_chunk, evaluate_points
from .pareto import finish
from .plan import Plan
from .results import DseResult, write_results
from .sampling import sample
from .space import load_space, resolve


@functools.cache
def code_fingerprint() -> str:
    """Hash of the code that evaluates points (found through its imports, :func:`accelgen.util.module_digest`),
    of the shipped fitted-model files and of the estimator's data files (the SRAM coefficients, the relaxed-mapping
    ratios): part of every chunk key."""
    h = hashlib.sha256(module_digest(sample, evaluate_chunk, evaluate_points).encode())
    for folder in (resources.files("accelgen.fit") / "models", resources.files("accelgen.ppa") / "data"):
        for f in sorted((f for f in folder.iterdir() if f.name.endswith(".json")), key=lambda f: f.name):
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def plan_key(plan: Plan) -> str:
    """The hash that keys a plan's chunks: the resolved space, the chunk size and the code fingerprint."""
    return hashlib.sha256(canonical_json([plan.to_json(), code_fingerprint()]).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class _Chunk:
    index: int
    path: Path
    points: pd.DataFrame


def _chunk_task(plan: Plan, chunk: _Chunk) -> pd.DataFrame:
    return evaluate_chunk(plan, chunk.points)


def run(plan: Plan, out_dir: str | Path, *, jobs: int = 1, scheduler: str | None = None,
        on_progress: Callable[[int, int, int], None] | None = None, plots: bool = True,
        stop_after_chunks: int | None = None) -> DseResult:
    """Explore ``plan`` (from :func:`load_space`/:func:`resolve`), writing chunks and results under ``out_dir``.

    ``on_progress(done_points, total_points, reused_points)`` is called as chunks finish.
    ``stop_after_chunks`` (tests) stops like a kill after that many newly computed chunks."""
    t0 = time.perf_counter()
    out = Path(out_dir)
    df = sample(plan)
    total, size = len(df), plan.chunk_points
    key = plan_key(plan)
    cdir = out / "chunks"
    cdir.mkdir(parents=True, exist_ok=True)
    nchunks = max(1, -(-total // size)) if total else 0
    paths = [cdir / f"{key}-{i:05d}.csv" for i in range(nchunks)]
    todo = [_Chunk(i, p, df.iloc[i * size:(i + 1) * size]) for i, p in enumerate(paths) if not p.exists()]
    reused = nchunks - len(todo)
    done_pts = reused_pts = total - sum(len(c.points) for c in todo)
    if on_progress:
        on_progress(done_pts, total, reused_pts)
    computed = 0
    if todo:
        with Executor(jobs if len(todo) > 1 else 1, scheduler) as ex:
            for j, table in ex.map_unordered(_chunk_task, todo, shared=plan):
                write_atomic(todo[j].path, table.to_csv(index=False))
                computed += 1
                done_pts += len(todo[j].points)
                if on_progress:
                    on_progress(done_pts, total, reused_pts)
                if stop_after_chunks is not None and computed >= stop_after_chunks:
                    raise KeyboardInterrupt(f"stopped after {computed} chunks")
    if paths:
        table = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True).copy()
    else:
        table = pd.DataFrame(columns=[*plan.param_names, "feasible", "reason"])
    if len(table):
        table["feasible"] = table["feasible"].astype(bool)
    table, fronts, best = finish(plan, table)
    files = write_results(plan, table, fronts, best, out, plots=plots)
    return DseResult(plan, table, fronts, best, files, computed, reused, out, time.perf_counter() - t0)


def explore(space: str | Path | dict, out_dir: str | Path, **kw) -> DseResult:
    """Load (a path) or resolve (a dict) a space and :func:`run` it."""
    plan = load_space(space) if isinstance(space, (str, Path)) else resolve(space)
    return run(plan, out_dir, **kw)
