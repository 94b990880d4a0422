"""The typed plan: a resolved, self-contained design space (what :func:`~.space.resolve` returns).

A :class:`Plan` is made of frozen dataclasses; it holds everything a worker needs to evaluate a point
(base descriptions raw and parsed, workloads parsed, parameters with their values, expressions,
regimes, constraints), pickles for worker processes and Dask, and :meth:`Plan.to_json` gives its
JSON form for hashing (the chunk key). Dict- and list-valued fields are not to be mutated.
Also here: the metric names and the paths the chip-level batch estimator models.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any, Optional, Union

import numpy as np

from ..arch import Arch
from ..workload import Workload

Scalar = Union[bool, int, float, str]

#: NeuroMeter's aliases (Tang et al., HPCA 2021, sect. III-A, Table I) and the description paths each sets
ALIASES: dict[str, tuple[str, ...]] = {
    "X": ("core.tensor_units.0.rows", "core.tensor_units.0.cols"),
    "N": ("core.tensor_units.0.count",),
    "Tx": ("chip.noc.tx",),
    "Ty": ("chip.noc.ty",),
}
RING_MAX_CORES = 4   # NeuroMeter: a ring up to 4 cores, a mesh beyond


def core_grid(tx, ty):
    """The chip of the Tx/Ty aliases (numpy arrays or scalars): ``(cores, topology, tx, ty)``, ``cores = tx * ty``
    on a ring of ``cores x 1`` up to :data:`RING_MAX_CORES` cores and on a ``tx x ty`` mesh beyond."""
    tx, ty = np.asarray(tx), np.asarray(ty)
    cores = tx * ty
    ring = cores <= RING_MAX_CORES
    return cores, np.where(ring, "ring", "mesh"), np.where(ring, cores, tx), np.where(ring, 1, ty)


CHIP_METRICS = ("area_mm2", "tdp_w", "peak_tops", "clock_mhz", "achievable_clock_mhz", "meets_timing", "cores",
                "peak_tops_per_w", "peak_tops_per_mm2", "leakage_w")
#: a run's metrics (:func:`accelgen.ppa.perf_layers.rate_metrics`): achieved TOPS and utilization count effectual
#: operations; ``dense_equivalent_tops`` and ``speedup_vs_dense`` are the dense work's rate and the gain over the same
#: layers dense, apart from them
RUN_METRICS = ("achieved_tops", "utilization", "dense_equivalent_tops", "speedup_vs_dense", "latency_ms",
               "tops_per_w", "tops_per_tco", "tops_per_mm2", "runtime_power_w", "energy_j", "inferences_per_s")
MINIMIZE = {"area_mm2", "tdp_w", "latency_ms", "runtime_power_w", "energy_j", "leakage_w"}
BATCH_CHIP_METRICS = ("area_mm2", "tdp_w", "peak_tops", "peak_tops_per_w", "peak_tops_per_mm2", "peak_tops_per_tco")
DEFAULT_REGIMES = ({"name": "batch1", "batch": 1}, {"name": "latency", "latency_ms": 7.0},
                   {"name": "large", "batch": 128})

#: description path -> argument of :func:`accelgen.ppa.batch.evaluate_batch` (chip-level spaces)
BATCH_PATHS = {
    "core.tensor_units.0.rows": "rows", "core.tensor_units.0.cols": "cols", "core.tensor_units.0.count": "units",
    "core.tensor_units.0.a_width": "a_width", "core.tensor_units.0.b_width": "b_width",
    "core.tensor_units.0.acc_width": "acc_width", "core.tensor_units.0.dataflow": "dataflow",
    "core.memories.0.capacity_bytes": "sram_bytes", "core.memories.0.block_bytes": "block_bytes",
    "core.memories.0.banks": "sram_banks", "node_nm": "node_nm", "clock_mhz": "clock_mhz", "cores": "cores",
    "chip.noc.tx": "tx", "chip.noc.ty": "ty", "chip.white_space_fraction": "white_space_fraction",
}


def py(v):
    """numpy scalars -> Python (for descriptions, JSON and CSV); integral floats -> int."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53:
        return int(v)
    return v


def goal_of(metric: str) -> str:
    """The default goal of a metric: ``min`` for area, power, energy and latency, else ``max``."""
    return "min" if metric.rsplit(".", 1)[-1] in MINIMIZE else "max"


@dataclass(frozen=True)
class Size:
    """Size a base to the largest count at ``path`` whose chip area is <= ``area_mm2`` (at most ``max``)."""

    path: str
    area_mm2: float
    max: int = 1 << 16


@dataclass(frozen=True)
class Base:
    """One base architecture: its description as written (``description``) and validated (``arch``)."""

    name: str
    description: dict
    arch: Arch = field(compare=False, repr=False)
    size: Optional[Size] = None

    def to_json(self) -> dict:
        return {"description": self.description, "size": None if self.size is None else asdict(self.size)}


@dataclass(frozen=True)
class PlanParam:
    """A parameter: its values (``[lo, hi]`` if ``continuous``) and the paths it sets (none for ``arch``)."""

    name: str
    paths: tuple[str, ...]
    values: tuple[Scalar, ...]
    kind: str = "value"          # "arch": chooses the base of ``archs:``
    continuous: bool = False
    log: bool = False
    alias: bool = False          # the paths come from ALIASES (X, N, Tx, Ty)

    @cached_property
    def arch_paths(self) -> tuple[str, ...]:
        return tuple(p for p in self.paths if not p.startswith("workload."))

    @cached_property
    def workload_paths(self) -> tuple[str, ...]:
        return tuple(p for p in self.paths if p.startswith("workload."))


@dataclass(frozen=True)
class Sampling:
    method: str = "grid"         # grid, random or lhs
    samples: Optional[int] = None
    seed: int = 0


@dataclass(frozen=True)
class Regime:
    """A batch regime: a fixed ``batch`` or the largest batch meeting ``latency_ms``."""

    name: str
    batch: Optional[int] = None
    latency_ms: Optional[float] = None


@dataclass(frozen=True)
class Constraint:
    """``min <= metric <= max`` (either bound may be absent)."""

    metric: str
    min: Optional[float] = None
    max: Optional[float] = None

    def bounds(self) -> dict:
        return {k: v for k, v in (("min", self.min), ("max", self.max)) if v is not None}


@dataclass(frozen=True)
class Objective:
    metric: str
    goal: str                    # "max" or "min"


@dataclass(frozen=True)
class Plot:
    """One of the space's ``plots:`` (see :mod:`.plots`)."""

    x: str
    y: str
    group: Optional[str] = None
    kind: str = "line"
    logx: bool = False
    logy: bool = False
    feasible_only: bool = True
    title: Optional[str] = None
    filter: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """A resolved design space (see the package docstring); ``mode`` is ``workload`` or ``chip``."""

    name: str
    description: str
    mode: str
    bases: dict[str, Base]
    multi_arch: bool                           # bases come from ``archs:`` (the ``arch`` parameter chooses)
    params: tuple[PlanParam, ...]
    derived: dict[str, str]                    # ``set:``: description/workload path -> expression
    where: tuple[str, ...]
    sampling: Sampling
    workloads: tuple[Workload, ...]
    regimes: tuple[Regime, ...]
    constraints: tuple[Constraint, ...]
    objectives: tuple[Objective, ...]
    pareto: tuple[tuple[str, ...], ...]
    baseline: dict[str, Scalar]
    plots: tuple[Plot, ...]
    chunk_points: int

    @cached_property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    @cached_property
    def env_names(self) -> frozenset[str]:
        """The names an expression (``set:``, ``where:``) may use: the parameters and ``cores``."""
        return frozenset(self.param_names) | {"cores"}

    def param(self, name: str) -> PlanParam:
        return next(p for p in self.params if p.name == name)

    def alias_used(self, name: str) -> bool:
        return any(p.name == name and p.alias for p in self.params)

    @cached_property
    def grid_aliases(self) -> bool:
        """Tx or Ty set by their aliases: cores = Tx * Ty, a ring up to 4 cores and a mesh beyond."""
        return self.alias_used("Tx") or self.alias_used("Ty")

    def constraint(self, metric: str) -> Optional[Constraint]:
        return next((c for c in self.constraints if c.metric == metric), None)

    def goal(self, metric: str) -> str:
        return next(o.goal for o in self.objectives if o.metric == metric)

    def to_json(self) -> dict[str, Any]:
        """The plan as JSON-able data (descriptions and workloads inlined), the input of its key."""
        return {"name": self.name, "description": self.description, "mode": self.mode,
                "bases": {n: b.to_json() for n, b in self.bases.items()}, "multi_arch": self.multi_arch,
                "params": [asdict(p) for p in self.params], "set": dict(self.derived), "where": list(self.where),
                "sampling": asdict(self.sampling),
                "workloads": [w.model_dump(mode="json", exclude_none=True) for w in self.workloads],
                "regimes": [asdict(r) for r in self.regimes],
                "constraints": {c.metric: c.bounds() for c in self.constraints},
                "objectives": [asdict(o) for o in self.objectives], "pareto": [list(f) for f in self.pareto],
                "baseline": dict(self.baseline), "plots": [asdict(p) for p in self.plots],
                "chunk_points": self.chunk_points}
