"""The accelerator description: a strict pydantic schema, loaded from YAML, every problem with its field path.

Dependent resources follow automatically (NeuroMeter's rules) and each can be
overridden: vector-unit lanes = the widest tensor unit's width; vector register
file ports = 2 read + 1 write per functional unit; the central data bus joining
the memories and units has the width of the widest unit edge and a length of
sqrt(area of the blocks it joins), pipelined when longer than a cycle allows;
memory banks/ports are chosen from a target bandwidth when ``banks`` is not
given.

Datatypes: tensor units, reduction trees, Flex-DPEs and TensorDash units take
``dtype`` ("int", the default, or "fp16", "bf16", "fp32"; the floating-point
formats of ``accelgen.rtl.fp``). With an fp dtype the operand widths are implied
(16 bits for fp16/bf16, 32 for fp32) and products, accumulations and reductions
are fp32 (accumulator / sum width 32): a width left out is filled in, an explicit
contradictory width is rejected naming the field. A reduction tree reduces fp32
values whatever the operands' format, so its fp model is ``<family>-fp32``. The
estimator evaluates an fp unit with the fitted model variant ``<family>-<dtype>``
(``systolic-bf16``); see :meth:`accelgen.ppa.components.FittedCompute.model`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import ConfigError
from ..problems import schema_problems
from ..fpformat import ACC_WIDTH, FORMATS, FP_DTYPES
from ..util import read_yaml
from .components import DRAM_TYPES
from .process import node_range
from .published import Published

_STRICT = ConfigDict(extra="forbid", frozen=True)
Width = Field(default=8, ge=1, le=32)

DTYPES = ("int", *FP_DTYPES)
DType = Literal["int", "fp16", "bf16", "fp32"]  # static for pydantic; tests/test_fpformat.py checks it is DTYPES
#: operand width in bits of each floating-point format (products and sums are fp32): :mod:`accelgen.fpformat`'s
FP_WIDTH = {name: fmt.width for name, fmt in FORMATS.items()}
FP_ACC_WIDTH = ACC_WIDTH


def _implied_widths(data, operand_fields: tuple[str, ...], acc_fields: tuple[str, ...]):
    """``model_validator(mode="before")`` body: with an fp ``dtype`` fill the implied widths, reject others."""
    if not isinstance(data, dict):
        return data
    dtype = data.get("dtype", "int")
    if dtype not in FP_WIDTH:
        return data   # "int" (widths as given) or an invalid dtype (reported by the Literal check)
    out = dict(data)
    implied = {**{f: FP_WIDTH[dtype] for f in operand_fields}, **{f: FP_ACC_WIDTH for f in acc_fields}}
    for f, want in implied.items():
        if f in out and out[f] != want:
            kind = "operands are" if f in operand_fields else "products and sums are"
            raise ValueError(f"{f}: {out[f]!r} is not allowed with dtype={dtype!r}; {dtype} {kind} {want} bits "
                             f"({f} {want}, or leave it out)")
        out[f] = want
    return out


#: most register stages a multiplier or adder of a generated block takes (``accelgen.rtl.intarith.MAX_STAGES``)
MAX_STAGES = 3


class Stages(BaseModel):
    """Explicit pipelining of a unit: register stages inside its multipliers and its adders."""

    model_config = _STRICT
    mul_stages: int = Field(0, ge=0, le=MAX_STAGES)
    add_stages: int = Field(0, ge=0, le=MAX_STAGES)


class AddStages(BaseModel):
    """Explicit pipelining of a unit without multipliers (a reduction tree): stages inside its adders."""

    model_config = _STRICT
    add_stages: int = Field(0, ge=0, le=MAX_STAGES)


#: ``auto`` (the default): the estimator picks the least pipelining whose fitted delay meets the clock
#: (:mod:`accelgen.ppa.pipelining`); or the stages, given
Pipeline = Literal["auto"] | Stages


class TensorUnit(BaseModel):
    model_config = _STRICT
    count: int = Field(1, ge=1)
    rows: int = Field(ge=1, le=1024)
    cols: int = Field(ge=1, le=1024)
    dataflow: Literal["ws", "os", "is"] = "ws"
    #: WS/IS weight loading: "shift" between folds, or "double" (shadow registers, the TPU's arrangement)
    weight_load: Literal["shift", "double"] = "shift"
    a_width: int = Width
    b_width: int = Width
    acc_width: int = Field(default=32, ge=2, le=64)
    interconnect: Literal["unicast", "multicast"] = "unicast"
    dtype: DType = "int"
    #: fp dtypes: DAZ + FTZ in every PE (subnormal operands and results are zeros), as the systolic generator's option
    flush_subnormals: bool = False
    #: what zeros save in time. "none": every MAC is clocked, zeros included: the systolic generator's array (its
    #: fitted model), the TPUs, and Eyeriss, whose data gating skips the MAC and the filter read of a zero ifmap to
    #: save energy, not cycles (Chen et al., JSSC 2017, sect. V). "block": a WS/IS fold whose stationary tile is all
    #: zero, or an OS stream step whose A or B slice is, is skipped (NeuroMeter's tensor units, Tang et al., HPCA
    #: 2021, sect. VI-B); the fitted area and energy have no such control logic
    zero_skipping: Literal["none", "block"] = "none"
    #: fp WS/IS arrays: products of this many rows summed with the partial sum by one multi-operand fp32 adder, one
    #: rounding per group (TPU v4i: four; the systolic generator's ``sum_group``)
    sum_group: Literal[1, 2, 4, 8] = 1
    #: how the performance model schedules layers on the array: ``systolic`` (im2col GEMMs in the array's dataflow)
    #: or ``row_stationary`` (Eyeriss: filter rows x output rows per PE set, ``mapping.row_stationary_map``; OS
    #: arrays only, an RS PE keeping its partial sums). Either way the area and energy are the array's
    schedule: Literal["systolic", "row_stationary"] = "systolic"
    pipeline: Pipeline = "auto"

    @model_validator(mode="before")
    @classmethod
    def _fp_widths(cls, data):
        return _implied_widths(data, ("a_width", "b_width"), ("acc_width",))

    @model_validator(mode="after")
    def _double_needs_stationary(self):
        if self.weight_load == "double" and self.dataflow == "os":
            raise ValueError("weight_load: 'double' is not allowed with dataflow='os' (no stationary weights); "
                             "allowed: 'shift', or dataflow 'ws' or 'is'")
        if self.schedule == "row_stationary" and self.dataflow != "os":
            raise ValueError(f"schedule: 'row_stationary' is not allowed with dataflow={self.dataflow!r}; allowed: "
                             "dataflow 'os' (a row-stationary PE keeps its partial sums), or schedule 'systolic'")
        if self.schedule == "row_stationary" and self.zero_skipping != "none":
            raise ValueError("schedule: 'row_stationary' is not allowed with zero_skipping='block' (the schedule "
                             "clocks every MAC); allowed: zero_skipping 'none', or schedule 'systolic'")
        if self.flush_subnormals and self.dtype == "int":
            raise ValueError("flush_subnormals: true is not allowed with dtype='int'; allowed with a floating-point "
                             "dtype ('fp16', 'bf16' or 'fp32')")
        if self.sum_group > 1:
            if self.dtype == "int" or self.dataflow == "os":
                raise ValueError(f"sum_group: {self.sum_group} is not allowed with dtype={self.dtype!r} and "
                                 f"dataflow={self.dataflow!r}; allowed: 1, or a floating-point dtype with dataflow "
                                 "'ws' or 'is'")
            if self.rows % self.sum_group:
                raise ValueError(f"sum_group: {self.sum_group} does not divide rows={self.rows}; allowed: a sum_group "
                                 "that divides the rows")
        return self


class ReductionTree(BaseModel):
    model_config = _STRICT
    count: int = Field(1, ge=1)
    inputs: int = Field(ge=2, le=4096)
    kind: Literal["fan", "linear", "tree"] = "fan"
    width: int = Field(default=32, ge=1, le=64)
    dtype: DType = "int"        # format of the products it reduces; an fp tree adds in fp32 (width 32)
    pipeline: Literal["auto"] | AddStages = "auto"

    @model_validator(mode="before")
    @classmethod
    def _fp_widths(cls, data):
        return _implied_widths(data, (), ("width",))


class DotProducts(BaseModel):
    """NeuroMeter's reduction-tree unit (DianNao's NFU neuron): ``inputs`` multipliers feeding a binary adder tree,
    one dot product of two ``inputs``-vectors per cycle (the ``dot_product`` block family). Integer operands."""

    model_config = _STRICT
    count: int = Field(1, ge=1)
    inputs: int = Field(ge=2, le=256)
    a_width: int = Width
    b_width: int = Width
    pipeline: Pipeline = "auto"

    @model_validator(mode="after")
    def _power_of_two(self):
        if self.inputs & (self.inputs - 1):
            raise ValueError(f"inputs: {self.inputs} is not allowed; expected a power of two (2..256)")
        return self


class FlexDPEs(BaseModel):
    model_config = _STRICT
    count: int = Field(ge=1)
    k: int = Field(ge=2, le=1024)
    width: int = Field(default=16, ge=1, le=64)     # operand width
    dtype: DType = "int"
    pipeline: Pipeline = "auto"

    @model_validator(mode="before")
    @classmethod
    def _fp_widths(cls, data):
        return _implied_widths(data, ("width",), ())


class TensorDash(BaseModel):
    model_config = _STRICT
    count: int = Field(ge=1)
    lanes: int = Field(4, ge=2, le=16)
    depth: int = Field(4, ge=1, le=5)       # 1: the dense baseline (no staging, scheduler or operand muxes)
    rows: int = Field(1, ge=1, le=64)       # tile rows R sharing one B-side schedule (1: single PEs)
    cols: int = Field(1, ge=1, le=64)       # PEs per tile row C
    a_width: int = Width
    b_width: int = Width
    acc_width: int = Field(default=32, ge=2, le=64)
    dtype: DType = "int"
    pipeline: Pipeline = "auto"

    @model_validator(mode="before")
    @classmethod
    def _fp_widths(cls, data):
        return _implied_widths(data, ("a_width", "b_width"), ("acc_width",))


class VectorUnit(BaseModel):
    model_config = _STRICT
    lanes: Optional[int] = Field(None, ge=1, le=4096)   # default: widest tensor unit
    width: int = Field(default=32, ge=1, le=64)
    #: each lane is a MAC cell of this type: "int" (``width``-bit operands) or a floating-point format (its
    #: width implied, the sum in fp32: the fitted ``mac-<dtype>`` model)
    dtype: DType = "int"
    pipeline: Pipeline = "auto"

    @model_validator(mode="before")
    @classmethod
    def _fp_width(cls, data):
        return _implied_widths(data, ("width",), ())


class RegisterFile(BaseModel):
    model_config = _STRICT
    entries: int = Field(32, ge=1, le=4096)
    read_ports: Optional[int] = Field(None, ge=1, le=32)    # default: 2 per functional unit
    write_ports: Optional[int] = Field(None, ge=1, le=32)   # default: 1 per functional unit


class Memory(BaseModel):
    model_config = _STRICT
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    capacity_bytes: int = Field(ge=64)
    block_bytes: int = Field(64, ge=1, le=4096)
    cell: Literal["sram", "sram_lp", "dff"] = "sram_lp"
    banks: Optional[int] = Field(None, ge=1, le=1024)
    ports: int = Field(1, ge=1, le=16)
    bandwidth_gbps: Optional[float] = Field(None, gt=0)     # target: choose banks to meet it
    latency_ns: Optional[float] = Field(None, gt=0)
    activity: float = Field(1.0, ge=0, le=1)                # accesses per cycle per port at full load
    count: int = Field(1, ge=1, le=65536)   # identical independent instances (e.g. one scratch pad per PE)
    #: ``shared``: a level of the on-chip memory the units stream from (the performance model's ``sram`` level);
    #: ``pe``: a private scratch pad inside each PE (``count`` = the PEs), read and written with its PE's MACs,
    #: so its activity follows the compute's (``activity.pe_memory``, default ``activity.tensor``)
    level: Literal["shared", "pe"] = "shared"

    @model_validator(mode="after")
    def _fits(self):
        if self.banks is not None and self.capacity_bytes < self.banks * self.block_bytes:
            raise ValueError(f"capacity_bytes {self.capacity_bytes} is smaller than banks x block_bytes "
                             f"= {self.banks * self.block_bytes}")
        return self


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

    @model_validator(mode="after")
    def _has_compute(self):
        if not (self.tensor_units or self.reduction_trees or self.dot_products or self.flex_dpes or self.tensordash
                or self.vector_unit):
            raise ValueError("a core needs at least one compute unit (tensor_units, reduction_trees, dot_products, "
                             "flex_dpes, tensordash or vector_unit)")
        if self.reduction_trees and self.dot_products:
            raise ValueError("give reduction_trees or dot_products, not both (they share the performance model's "
                             "'reduction' compute type)")
        names = [m.name for m in self.memories]
        if len(set(names)) != len(names):
            raise ValueError(f"memory names must be unique; got {names}")
        return self


class NoC(BaseModel):
    model_config = _STRICT
    topology: Literal["mesh", "ring", "bus"] = "mesh"
    tx: int = Field(1, ge=1, le=64)
    ty: int = Field(1, ge=1, le=64)
    flit_bits: int = Field(128, ge=8, le=4096)
    bisection_gbps: Optional[float] = Field(None, gt=0)   # target: widen flits to meet it


class OffChip(BaseModel):
    model_config = _STRICT
    type: Literal[DRAM_TYPES] = "ddr4"  # type: ignore[valid-type]
    bandwidth_gbps: float = Field(gt=0)
    channels: int = Field(1, ge=1, le=64)


class Host(BaseModel):
    model_config = _STRICT
    pcie_gen: int = Field(3, ge=1, le=5)
    lanes: int = Field(16, ge=1, le=32)


class Chip(BaseModel):
    model_config = _STRICT
    noc: NoC = NoC()
    offchip: Optional[OffChip] = None
    host: Optional[Host] = None
    #: share of the die that is white space: a number, or ``die`` for the one rule every shipped chip uses
    #: (:data:`accelgen.ppa.estimate.DIE_WHITE_SPACE`)
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

    def factors(self) -> dict[str, float]:
        out = {k: v for k, v in self.model_dump().items() if v is not None and k not in ("density", "switching")}
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
        raise ConfigError(schema_problems(exc), source) from None


def load_arch(path: str | Path) -> Arch:
    path = Path(path)
    data = read_yaml(path)
    return parse_arch(data, str(path))
