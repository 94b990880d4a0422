"""The schema of a space file (pydantic, strict): types, defaults and one-field rules.

Cross-field rules (names, paths, metrics) are checked by :func:`~.space.resolve`, which turns a
validated :class:`Space` into a :class:`~.plan.Plan`.
"""

from __future__ import annotations

from typing import Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .plan import DEFAULT_REGIMES, Scalar

_STRICT = ConfigDict(extra="forbid", frozen=True)
_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"


class ParamSpec(BaseModel):
    model_config = _STRICT
    name: str = Field(pattern=_NAME)
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


class RegimeSpec(BaseModel):
    model_config = _STRICT
    name: str = Field(pattern=_NAME)
    batch: Optional[int] = Field(None, ge=1)
    latency_ms: Optional[float] = Field(None, gt=0)

    @model_validator(mode="after")
    def _one(self):
        if (self.batch is None) == (self.latency_ms is None):
            raise ValueError("give exactly one of batch and latency_ms")
        return self


class BoundSpec(BaseModel):
    model_config = _STRICT
    min: Optional[float] = None
    max: Optional[float] = None


class ObjectiveSpec(BaseModel):
    model_config = _STRICT
    metric: str
    goal: Optional[Literal["max", "min"]] = None


class SizeSpec(BaseModel):
    model_config = _STRICT
    path: str                                   # the count to size, e.g. core.flex_dpes.count
    area_mm2: float = Field(gt=0)               # the largest count whose chip area is <= this
    max: int = Field(1 << 16, ge=1)


class ArchSpec(BaseModel):
    model_config = _STRICT
    path: Optional[str] = None
    arch: Optional[dict] = None
    size: Optional[SizeSpec] = None

    @model_validator(mode="after")
    def _one(self):
        if (self.path is None) == (self.arch is None):
            raise ValueError("give exactly one of path and arch")
        return self


class SamplingSpec(BaseModel):
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
    """A design space (package docstring; ``examples/dse/*.yaml``)."""

    model_config = _STRICT
    name: str = Field("dse", pattern=r"^[A-Za-z0-9_.-]+$")
    description: str = ""
    base: Optional[Union[str, dict]] = None
    archs: Optional[dict[str, ArchSpec]] = None
    parameters: list[ParamSpec] = Field(min_length=1)
    set: dict[str, str] = {}
    where: list[str] = []
    sampling: SamplingSpec = SamplingSpec()
    workloads: list[Union[str, dict]] = []
    regimes: list[RegimeSpec] = [RegimeSpec(**r) for r in DEFAULT_REGIMES]
    constraints: dict[str, BoundSpec] = {}
    objectives: list[Union[str, ObjectiveSpec]] = Field(min_length=1)
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
