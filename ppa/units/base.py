"""PPA units as plug-ins (after Accelergy's hwcomponents): a unit class per kind of die block, found by name.

A unit class declares

* ``kind``: its name in architecture files and in the registry (``systolic``, ``art``, ``memory``);
* ``params_schema``: its parameters (a strict pydantic model, :mod:`accelgen.ppa.units.params`);
* its area and leakage, known at construction, and its actions' energy and latency: an analytical unit
  (:class:`AnalyticalUnit`) builds its :class:`~accelgen.ppa.components.Component` when it is made (area, leakage,
  energy per action, delay); a unit costed by a fitted model (:class:`FittedUnit`) names its model family and
  inputs, and the estimator evaluates the model at the pipelining it chooses for the clock;
* its scaling: through the technology node it is built at (:mod:`accelgen.ppa.process`'s explicit ratios);
* for a compute unit, the performance model's compute type and the cycles of a layer on it (:meth:`FittedUnit.map`).

The registry holds the built-in kinds (each module of this package registers its own with :func:`register`) and
any third party's, discovered through the Python entry-point group :data:`ENTRY_POINT_GROUP`: a distribution that
declares ``[project.entry-points."accelgen.ppa_units"] my_link = "my_pkg.units:InterChipLink"`` makes ``my_link``
usable in ``core.units`` of an architecture file. :func:`unit_class` finds a kind; an unknown one is a one-line
:class:`~accelgen.errors.ConfigError` naming the field and listing the allowed kinds.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import ClassVar, Optional

import numpy as np
from pydantic import BaseModel, ValidationError

from ...errors import ConfigError
from ...problems import schema_problems
from ..components import Component
from ..pipelining import Unit, added_latency

#: the entry-point group third-party unit classes are discovered in
ENTRY_POINT_GROUP = "accelgen.ppa_units"

_REGISTRY: dict[str, type["PPAUnit"]] = {}
_discovered = False


class PPAUnit:
    """One unit of a chip of kind :attr:`kind`, with its validated parameters, its path in the description (the
    field path problems are reported at) and its name in the estimate's breakdown."""

    kind: ClassVar[str] = ""
    params_schema: ClassVar[type[BaseModel]]
    #: the performance model's compute type of a compute unit (``tensor``, ``sigma``, ...); None: not compute
    compute_type: ClassVar[Optional[str]] = None
    #: may be listed by kind in an architecture file's ``core.units``
    placeable: ClassVar[bool] = False

    def __init__(self, params: BaseModel, *, path: str, name: str):
        self.params, self.path, self.name = params, path, name

    @classmethod
    def parse(cls, data: dict, path: str) -> BaseModel:
        """``data`` validated against :attr:`params_schema`; every problem with its field path under ``path``."""
        try:
            return cls.params_schema.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(schema_problems(exc, path, root=cls.params_schema)) from None


@dataclass
class LayerActivity:
    """What the layers of a workload make a core's units beside the compute do (arrays over the layers), for a unit
    whose energy the performance model charges per layer (:meth:`AnalyticalUnit.layer_energy_pj`)."""

    cycles: np.ndarray           # the layer's time in cycles of the chip's clock
    dram_bytes: np.ndarray       # bytes moved to and from external memory
    outputs: np.ndarray          # output elements
    streamed_bytes: np.ndarray   # bytes of the streamed operand (A) read from on-chip memory into the compute
    cores: int                   # cores the layer runs on (each has its own units)


class AnalyticalUnit(PPAUnit):
    """A unit with an analytical cost model: its component (area, leakage, energy per action, delay) is built when
    the unit is made, at the technology node it is given."""

    component: Component

    def layer_energy_pj(self, activity: LayerActivity) -> np.ndarray | None:
        """The energy of the unit (all its instances, on every core) over each layer, at the node's supply; None: not
        charged per layer (the estimate's power still counts it at its activity)."""
        return None

    @property
    def area_um2(self) -> float:
        return self.component.area_um2

    @property
    def leakage_mw(self) -> float:
        return self.component.leakage_mw

    def energy_pj(self, action: str) -> float:
        """Energy of one ``action`` of one instance."""
        return self.component.energy_pj[action]

    def latency_ns(self) -> float:
        """Its register-to-register or access time."""
        return self.component.delay_ns


@dataclass
class MapContext:
    """What a compute unit's cycle model needs of the chip beside its own parameters."""

    cores: int
    stages: dict                 # its pipeline stages as the estimator chose them ({} unpipelined)
    vector_unit: object = None   # the core's vector unit parameters (None: none)
    sram_bytes_per_cycle: float = float("inf")   # the shared on-chip memory's bandwidth
    #: bytes of the shared memories holding a tensor unit's sums (``holds: sums``; 0: none) and holding operands
    sum_bytes: float = 0.0
    operand_bytes: float = float("inf")


class FittedUnit(PPAUnit):
    """A compute unit costed by a fitted model of :attr:`family` (:class:`~accelgen.ppa.components.FittedCompute`),
    pipelined for the clock by the estimator (:mod:`accelgen.ppa.pipelining`)."""

    family: ClassVar[str] = ""
    #: which of the core's units set the vector unit's default lanes, by rank (lower first; None: none)
    lane_rank: ClassVar[Optional[int]] = None

    def spec(self) -> Unit:
        """The fitted-model unit the estimator costs and pipelines."""
        raise NotImplementedError

    def vector_lanes(self) -> int:
        """The vector lanes this unit asks of the core's vector unit by default (with :attr:`lane_rank`)."""
        return 0

    def stage_cycles(self, ctx: MapContext) -> int:
        """The cycles its chosen pipeline stages (``ctx.stages``) add to one result
        (:func:`accelgen.ppa.pipelining.added_latency`)."""
        u = self.spec()
        return added_latency(u.family, u.params, ctx.stages.get("mul_stages", 0), ctx.stages.get("add_stages", 0),
                             u.dtype)

    def macs_per_cycle(self) -> int:
        """Multiply-accumulates per cycle of one core's units of this kind at full utilization (its peak)."""
        raise NotImplementedError(f"unit kind {self.kind!r} has no performance model")

    def psum_bytes(self) -> float | None:
        """Bytes of a partial sum it keeps in the on-chip memory between passes (None: the default, 4)."""
        return None

    def operand_widths(self) -> tuple[int, int] | None:
        """The widest A and B operands a layer may bring to it: its parameters' ``a_width`` and ``b_width``
        (None, not checked, for a unit whose parameters have no such fields)."""
        params = self.params
        return (params.a_width, params.b_width) if hasattr(params, "a_width") else None

    def map(self, gemms, ctx: MapContext):
        """The performance model's mapping of ``gemms`` on every such unit of the chip
        (:class:`accelgen.ppa.mapping.Mapping`: cycles, executed MACs, actions, on-chip reads)."""
        raise NotImplementedError(f"unit kind {self.kind!r} has no performance model")


def register(cls: type[PPAUnit]) -> type[PPAUnit]:
    """Class decorator: make ``cls`` found by its :attr:`~PPAUnit.kind`."""
    if not cls.kind:
        raise TypeError(f"{cls.__name__} declares no kind")
    if _REGISTRY.get(cls.kind, cls) is not cls:
        raise ValueError(f"unit kind {cls.kind!r} is registered twice ({_REGISTRY[cls.kind].__name__}, "
                         f"{cls.__name__})")
    _REGISTRY[cls.kind] = cls
    return cls


def _discover() -> None:
    """Register the unit classes of the entry-point group :data:`ENTRY_POINT_GROUP` (once per process)."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        cls = ep.load()
        if not (isinstance(cls, type) and issubclass(cls, PPAUnit)):
            raise TypeError(f"entry point {ep.name!r} of {ENTRY_POINT_GROUP} is not a PPAUnit subclass: {cls!r}")
        register(cls)


def unit_kinds(*, placeable: bool = False) -> tuple[str, ...]:
    """Every registered kind (``placeable``: those an architecture file may list in ``core.units``), sorted."""
    _discover()
    return tuple(sorted(k for k, c in _REGISTRY.items() if c.placeable or not placeable))


def placeable_kinds() -> tuple[str, ...]:
    return unit_kinds(placeable=True)


def unit_class(kind: str, field: str = "kind", *, placeable: bool = False) -> type[PPAUnit]:
    """The unit class of ``kind``; unknown: a one-line ConfigError at ``field`` listing the allowed kinds."""
    _discover()
    cls = _REGISTRY.get(kind)
    if cls is None or (placeable and not cls.placeable):
        allowed = ", ".join(unit_kinds(placeable=placeable))
        raise ConfigError([(field, f"{kind!r} is not a unit kind; allowed: {allowed}")])
    return cls


def unit_entry(entry: dict) -> dict:
    """A ``core.units`` entry (``{kind: ..., **parameters}``) validated: the kind's parameters with their defaults.
    A pydantic ``AfterValidator``: a problem is a ``ValueError`` whose message starts with the field it is about."""
    data = dict(entry)
    kind = data.pop("kind", None)
    if kind is None:
        raise ValueError("kind: missing required field; allowed: " + ", ".join(placeable_kinds()))
    try:
        cls = unit_class(kind, placeable=True)
        params = cls.parse(data, "")
    except ConfigError as exc:
        raise ValueError("; ".join(f"{p}: {m}" if p else m for p, m in exc.problems)) from None
    return {"kind": kind, **params.model_dump(mode="json")}
