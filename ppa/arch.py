"""The accelerator description: a strict pydantic schema, loaded from YAML, every problem with its field path.

Dependent resources follow automatically (NeuroMeter's rules) and each can be
overridden: vector-unit lanes = the widest tensor unit's width; vector register
file ports = 2 read + 1 write per functional unit; the central data bus joining
the memories and units has the width of the widest unit edge and a length of
sqrt(area of the blocks it joins), pipelined when longer than a cycle allows;
memory banks/ports are chosen from a target bandwidth when ``banks`` is not
given.

The units' parameter schemas are :mod:`accelgen.ppa.units.params` (datatypes and implied widths there). Beside
the fixed fields (``tensor_units``, ``reduction_trees``, ...), ``core.units`` lists units by kind with their
parameters (``{kind: art, inputs: 64, dtype: fp32}``): any kind of :func:`accelgen.ppa.units.placeable_kinds`,
a unit class found by name (:mod:`accelgen.ppa.units`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Optional

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import ConfigError
from ..operand_profiles import PROFILES
from ..problems import schema_problems
from ..util import read_yaml
from .process import node_range
from .published import Published
from .units import unit_class, unit_entry
from .units.params import (DTYPES, FP_ACC_WIDTH, FP_WIDTH, MAX_STAGES, AddStages, DotProducts, DType, FlexDPEs,
                           Host, Memory, NoC, OffChip, Pipeline, ReductionTree, RegisterFile, Stages, TensorDash,
                           TensorUnit, VectorUnit)

__all__ = ["DTYPES", "FP_ACC_WIDTH", "FP_WIDTH", "MAX_STAGES", "AddStages", "Activity", "Arch", "Chip", "Core",
           "DType", "DotProducts", "FlexDPEs", "Host", "Memory", "NoC", "OffChip", "Pipeline", "ReductionTree",
           "RegisterFile", "Stages", "TensorDash", "TensorUnit", "VectorUnit", "load_arch", "mesh_mismatch",
           "parse_arch"]

_STRICT = ConfigDict(extra="forbid", frozen=True)


class Core(BaseModel):
    model_config = _STRICT
    tensor_units: list[TensorUnit] = []
    reduction_trees: list[ReductionTree] = []
    dot_products: list[DotProducts] = []
    flex_dpes: Optional[FlexDPEs] = None
    tensordash: Optional[TensorDash] = None
    vector_unit: Optional[VectorUnit] = None
    vector_regfile: Optional[RegisterFile] = None
    scalar_unit: bool = False
    memories: list[Memory] = []
    bus_bits: Optional[int] = Field(None, ge=1)        # central data bus width (default: widest unit edge)
    #: units by kind with their parameters (``{kind: art, inputs: 64}``), after the fixed fields' units
    units: list[Annotated[dict, AfterValidator(unit_entry)]] = []

    @model_validator(mode="after")
    def _has_compute(self):
        if not (self.tensor_units or self.reduction_trees or self.dot_products or self.flex_dpes or self.tensordash
                or self.vector_unit or any(unit_class(u["kind"]).compute_type for u in self.units)):
            raise ValueError("a core needs at least one compute unit (tensor_units, reduction_trees, dot_products, "
                             "flex_dpes, tensordash, vector_unit or a compute unit in units)")
        if self.reduction_trees and self.dot_products:
            raise ValueError("give reduction_trees or dot_products, not both (they share the performance model's "
                             "'reduction' compute type)")
        names = [m.name for m in self.memories]
        if len(set(names)) != len(names):
            raise ValueError(f"memory names must be unique; got {names}")
        # a multicast array's X/Y buses are not in its fitted model: the multicast_noc unit costs them
        multicast = [i for i, t in enumerate(self.tensor_units) if t.interconnect == "multicast"]
        if multicast and not any(u["kind"] == "multicast_noc" for u in self.units):
            raise ValueError(f"tensor_units[{multicast[0]}].interconnect: 'multicast' is costed by a multicast_noc "
                             "unit beside the array, and core.units has none; allowed: add {kind: multicast_noc, "
                             "rows, cols, data_bits, pe_pitch_um} to core.units, or interconnect 'unicast'")
        return self




class Chip(BaseModel):
    model_config = _STRICT
    noc: NoC = NoC()
    offchip: Optional[OffChip] = None
    host: Optional[Host] = None
    #: share of the die that is white space: a number, or ``die`` for the one rule every shipped chip uses
    #: (:data:`accelgen.ppa.tree.DIE_WHITE_SPACE`)
    white_space_fraction: Literal["die"] | Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    die_budget_mm2: Optional[float] = Field(None, gt=0)


class Activity(BaseModel):
    model_config = _STRICT
    default: float = Field(1.0, ge=0, le=1)
    tensor: Optional[float] = Field(None, ge=0, le=1)
    vector: Optional[float] = Field(None, ge=0, le=1)
    memory: Optional[float] = Field(None, ge=0, le=1)
    noc: Optional[float] = Field(None, ge=0, le=1)
    dram: Optional[float] = Field(None, ge=0, le=1)
    host: Optional[float] = Field(None, ge=0, le=1)
    scalar: Optional[float] = Field(None, ge=0, le=1)
    pe_memory: Optional[float] = Field(None, ge=0, le=1)   # per-PE scratch pads; default: the tensor activity
    density: float = Field(1.0, ge=0, le=1)           # operand density for fitted energy models
    #: how the fitted units' switching is counted: ``timed`` with the glitches of a timed simulation (as silicon
    #: switches: TDP, measurements), ``zero_delay`` each net at most once per cycle (as averaged-mode power
    #: analysis of zero-delay or vectorless activity counts it: the fitted ``energy_zero_delay_pj``)
    switching: Literal["timed", "zero_delay"] = "timed"
    #: how the fitted units' non-zero operands were drawn (accelgen.operand_profiles): unset, each model's own (the
    #: worst case for integers); ``dnn`` for real tensors, the models fitted on that profile (``mac-dnn``)
    profile: Optional[Literal[tuple(PROFILES)]] = None

    def factors(self) -> dict[str, float]:
        out = {k: v for k, v in self.model_dump().items()
               if v is not None and k not in ("density", "switching", "profile")}
        if "pe_memory" not in out and "tensor" in out:
            out["pe_memory"] = out["tensor"]
        return out


def mesh_mismatch(tx: int, ty: int, cores: int) -> str:
    """Why a mesh of ``tx x ty`` cannot hold ``cores`` cores (the description's and the batch estimator's words)."""
    return f"chip.noc: mesh {tx} x {ty} holds {tx * ty} cores but cores is {cores}"


class Arch(BaseModel):
    """A whole accelerator (see ``examples/arch/*.yaml``)."""

    model_config = _STRICT
    name: str = "accelerator"
    node_nm: float
    vdd_v: Optional[float] = Field(None, gt=0.3, le=2.0)
    #: MHz, or ``auto``: the fastest clock any supported pipelining of the units reaches
    clock_mhz: Literal["auto"] | float | None = Field(None)
    target_tops: Optional[float] = Field(None, gt=0)
    cores: int = Field(1, ge=1)
    core: Core
    chip: Chip = Chip()
    activity: Optional[Activity] = None
    models: dict[str, str] = {}          # model name (family or variant, "systolic-bf16") -> fitted model file
    sources: dict[str, str] = {}         # citations for the parameters (free text)
    published: Optional[Published] = None   # what the paper reports, with scope and kind (validate-chips)

    @model_validator(mode="after")
    def _checks(self):
        lo, hi = node_range()
        if not lo <= self.node_nm <= hi:
            raise ValueError(f"node_nm: {self.node_nm!r} is outside the technology table; allowed: {lo:g}..{hi:g} nm")
        if (self.clock_mhz is None) == (self.target_tops is None):
            raise ValueError("give exactly one of clock_mhz and target_tops")
        if self.clock_mhz is not None and self.clock_mhz != "auto" and not 0 < self.clock_mhz <= 10000:
            raise ValueError(f"clock_mhz: {self.clock_mhz!r} is not allowed; expected a number in (0, 10000] MHz "
                             "or 'auto'")
        noc = self.chip.noc
        if noc.topology == "mesh" and noc.tx * noc.ty != self.cores:
            raise ValueError(mesh_mismatch(noc.tx, noc.ty, self.cores))
        return self

    @property
    def density(self) -> float:
        """The operand density the fitted units are costed at (``activity.density``; 1.0 without an activity)."""
        return self.activity.density if self.activity else 1.0

    @property
    def switching(self) -> str:
        """How the fitted units' switching is counted (``activity.switching``; ``timed`` without an activity)."""
        return self.activity.switching if self.activity else "timed"

    @property
    def profile(self) -> str | None:
        """The stimulus profile of the fitted units' operands (``activity.profile``; ``None``: each model's own)."""
        return self.activity.profile if self.activity else None

    def with_switching(self, switching: str) -> "Arch":
        """This description with its fitted units' switching counted as ``switching`` (``timed``/``zero_delay``)."""
        act = self.activity or Activity()
        return self.model_copy(update={"activity": act.model_copy(update={"switching": switching})})


def parse_arch(data: dict, source: str | None = None) -> Arch:
    """Validate a description (a dict); all problems together in one :class:`ConfigError`."""
    if not isinstance(data, dict):
        raise ConfigError([("", f"expected a mapping at the top level, got {type(data).__name__}")], source)
    try:
        return Arch.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(schema_problems(exc, root=Arch), source) from None


def load_arch(path: str | Path) -> Arch:
    path = Path(path)
    data = read_yaml(path)
    return parse_arch(data, str(path))
