"""The parameter schemas of the PPA units (strict pydantic models): what an architecture file gives for each.

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

from typing import ClassVar, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator, model_validator

from ...errors import ConfigError
from ...fpformat import ACC_WIDTH, FORMATS, FP_DTYPES, is_fp
from ...params import base as block
from ...params.base import MAX_STAGES, MAX_WIDTH, check_flush_subnormals, fill_implied, is_power_of_two
from ...params.systolic import systolic_timing_problems
from ..components import DRAM_TYPES
from ..sram_ports import PortConfig, parse_ports

# Field types, bounds and rules shared with the block families' schemas come from :mod:`accelgen.params.base`
# (declared once there); what is the architecture file's own (counts, sizes a unit allows) is declared here.
_STRICT = ConfigDict(extra="forbid", frozen=True)

DTYPES = ("int", *FP_DTYPES)
#: the datatypes of a multiply-accumulate block (:data:`accelgen.params.base.MacDtype`)
DType = block.MacDtype
#: operand width in bits of each floating-point format (products and sums are fp32): :mod:`accelgen.fpformat`'s
FP_WIDTH = {name: fmt.width for name, fmt in FORMATS.items()}
FP_ACC_WIDTH = ACC_WIDTH


def _implied_widths(data, operand_fields: tuple[str, ...], acc_fields: tuple[str, ...]):
    """``model_validator(mode="before")`` body: with an fp ``dtype`` fill the implied widths, reject others
    (:func:`accelgen.params.base.fill_implied`, the block schemas' rule and message)."""
    if not isinstance(data, dict) or not is_fp(data.get("dtype")):
        return data   # "int" (widths as given) or an invalid dtype (reported by the Literal check)
    dtype = data["dtype"]
    implied = {f: (FP_WIDTH[dtype], "operands are") for f in operand_fields}
    implied |= {f: (FP_ACC_WIDTH, "products and sums are") for f in acc_fields}
    return fill_implied(data, dtype, {f: (want, f"{dtype} {kind} {want} bits ({f} {want}, or leave it out)")
                                      for f, (want, kind) in implied.items()})


class DatatypeUnit(BaseModel):
    """A unit with a ``dtype``: a floating-point one implies the widths of its ``fp_operand_fields`` (the format's)
    and of its ``fp_sum_fields`` (fp32), filled in when left out, rejected naming the field when contradicted."""

    model_config = _STRICT
    fp_operand_fields: ClassVar[tuple[str, ...]] = ()
    fp_sum_fields: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="before")
    @classmethod
    def _fp_widths(cls, data):
        return _implied_widths(data, cls.fp_operand_fields, cls.fp_sum_fields)


class Stages(BaseModel):
    """Explicit pipelining of a unit: register stages inside its multipliers and its adders."""

    model_config = _STRICT
    mul_stages: block.MulStages = 0
    add_stages: block.AddStages = 0


class AddStages(BaseModel):
    """Explicit pipelining of a unit without multipliers (a reduction tree): stages inside its adders."""

    model_config = _STRICT
    add_stages: block.AddStages = 0


#: ``auto`` (the default): the estimator picks, among the stages whose fitted delay meets the clock, those with the
#: least energy per operation (:mod:`accelgen.ppa.pipelining`); or the stages, given
Pipeline = Literal["auto"] | Stages


class TensorUnit(DatatypeUnit):
    count: int = Field(1, ge=1)
    rows: int = Field(ge=1, le=1024)
    cols: int = Field(ge=1, le=1024)
    dataflow: Literal["ws", "os", "is"] = "ws"
    #: WS/IS weight loading: "shift" between folds, or "double" (shadow registers, the TPU's arrangement)
    weight_load: Literal["shift", "double"] = "shift"
    a_width: block.AWidth = 8
    b_width: block.BWidth = 8
    acc_width: block.AccWidth = 32
    interconnect: Literal["unicast", "multicast"] = "unicast"
    dtype: DType = "int"
    #: fp dtypes: DAZ + FTZ in every PE (subnormal operands and results are zeros), as the systolic generator's option
    flush_subnormals: block.FlushSubnormals = False
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

    fp_operand_fields = ("a_width", "b_width")
    fp_sum_fields = ("acc_width",)

    @model_validator(mode="after")
    def _double_needs_stationary(self):
        # the generator's timing rules (double-buffered weights, sum_group), declared once in its schema
        timing = systolic_timing_problems(self.dataflow, self.rows, self.weight_load, self.sum_group, self.dtype)
        if timing and timing[0].startswith("weight_load"):
            raise ValueError(timing[0])
        if self.schedule == "row_stationary" and self.dataflow != "os":
            raise ValueError(f"schedule: 'row_stationary' is not allowed with dataflow={self.dataflow!r}; allowed: "
                             "dataflow 'os' (a row-stationary PE keeps its partial sums), or schedule 'systolic'")
        if self.schedule == "row_stationary" and self.zero_skipping != "none":
            raise ValueError("schedule: 'row_stationary' is not allowed with zero_skipping='block' (the schedule "
                             "clocks every MAC); allowed: zero_skipping 'none', or schedule 'systolic'")
        check_flush_subnormals(self)
        if timing:
            raise ValueError(timing[0])
        return self




class ReductionTreeParams(DatatypeUnit):
    """A reduction tree of any kind (:mod:`accelgen.ppa.units.reduction`): ``inputs`` products reduced per pass."""
    count: int = Field(1, ge=1)
    inputs: int = Field(ge=2, le=4096)
    width: int = Field(default=32, ge=1, le=MAX_WIDTH)
    dtype: DType = "int"        # format of the products it reduces; an fp tree adds in fp32 (width 32)
    pipeline: Literal["auto"] | AddStages = "auto"

    fp_sum_fields = ("width",)


class ReductionTree(ReductionTreeParams):
    """A reduction tree in ``core.reduction_trees``: its ``kind`` names the network (``fan``; ``linear``: FAN's
    linear variant ``fan_linear``; ``tree``: a plain ``adder_tree``; ``art``: MAERI's augmented reduction tree;
    ``linear_reduction``: the skewed linear chain; :data:`accelgen.ppa.units.reduction.TREE_KINDS`)."""

    kind: Literal["fan", "linear", "tree", "art", "linear_reduction"] = "fan"


class DotProducts(BaseModel):
    """NeuroMeter's reduction-tree unit (DianNao's NFU neuron): ``inputs`` multipliers feeding a binary adder tree,
    one dot product of two ``inputs``-vectors per cycle (the ``dot_product`` block family). Integer operands."""

    model_config = _STRICT
    count: int = Field(1, ge=1)
    inputs: int = Field(ge=2, le=256)
    a_width: block.AWidth = 8
    b_width: block.BWidth = 8
    pipeline: Pipeline = "auto"

    @model_validator(mode="after")
    def _power_of_two(self):
        if not is_power_of_two(self.inputs):
            raise ValueError(f"inputs: {self.inputs} is not allowed; expected a power of two (2..256)")
        return self


class FlexDPEs(DatatypeUnit):
    count: int = Field(ge=1)
    k: int = Field(ge=2, le=1024)
    width: int = Field(default=16, ge=1, le=MAX_WIDTH)     # operand width
    dtype: DType = "int"
    pipeline: Pipeline = "auto"

    fp_operand_fields = ("width",)


class TensorDash(DatatypeUnit):
    count: int = Field(ge=1)
    lanes: int = Field(4, ge=2, le=16)
    depth: int = Field(4, ge=1, le=5)       # 1: the dense baseline (no staging, scheduler or operand muxes)
    rows: int = Field(1, ge=1, le=64)       # tile rows R sharing one B-side schedule (1: single PEs)
    cols: int = Field(1, ge=1, le=64)       # PEs per tile row C
    a_width: block.AWidth = 8
    b_width: block.BWidth = 8
    acc_width: block.AccWidth = 32
    dtype: DType = "int"
    pipeline: Pipeline = "auto"

    fp_operand_fields = ("a_width", "b_width")
    fp_sum_fields = ("acc_width",)


class VectorUnit(DatatypeUnit):
    lanes: Optional[int] = Field(None, ge=1, le=4096)   # default: widest tensor unit
    width: int = Field(default=32, ge=1, le=MAX_WIDTH)
    #: each lane is a MAC cell of this type: "int" (``width``-bit operands) or a floating-point format (its
    #: width implied, the sum in fp32: the fitted ``mac-<dtype>`` model)
    dtype: DType = "int"
    pipeline: Pipeline = "auto"

    fp_operand_fields = ("width",)


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
    #: bit cell: "sram_lp" (low-power cells, the default), "sram" (high-performance cells), "dff" (flip-flops), or
    #: "auto": the low-power cells unless their macro's cycle is longer than the clock period, then the
    #: high-performance cells (what a designer does when the low-power macro cannot make the chip's clock;
    #: :func:`accelgen.ppa.units.memory.sram_macro`)
    cell: Literal["sram", "sram_lp", "dff", "auto"] = "sram_lp"
    banks: Optional[int] = Field(None, ge=1, le=1024)
    #: ports of each bank: an integer N (N read/write ports) or a port string, case-insensitive: "1rw" (single
    #: port), "1r1w" (two-port: one read, one write), "2rw" (dual-port), "2r1w" (two read, one write)
    #: (:mod:`accelgen.ppa.sram_ports`)
    ports: StrictInt | StrictStr = 1
    bandwidth_gbps: Optional[float] = Field(None, gt=0)     # target: choose banks to meet it
    latency_ns: Optional[float] = Field(None, gt=0)
    activity: float = Field(1.0, ge=0, le=1)                # accesses per cycle per port at full load
    count: int = Field(1, ge=1, le=65536)   # identical independent instances (e.g. one scratch pad per PE)
    #: ``shared``: a level of the on-chip memory the units stream from (the performance model's ``sram`` level);
    #: ``pe``: a private scratch pad inside each PE (``count`` = the PEs), read and written with its PE's MACs,
    #: so its activity follows the compute's (``activity.pe_memory``, default ``activity.tensor``)
    level: Literal["shared", "pe"] = "shared"
    #: what it holds: ``operands`` (the units' inputs) or ``sums`` (a weight-stationary tensor unit's output tiles, as
    #: an accumulator memory holds them). A ``sums`` memory bounds how many rows of A one fold streams: two output
    #: tiles of ``cols`` sums per row fit in it (double-buffered, so a tile is stored while the next is computed), and
    #: the performance model then pays each tile's fold overhead and the fill of a double-buffered schedule
    #: (:func:`accelgen.ppa.mapping.systolic_map`, :mod:`accelgen.ppa.perf`)
    holds: Literal["operands", "sums"] = "operands"

    @field_validator("ports", mode="before")
    @classmethod
    def _ports(cls, value):
        try:
            parse_ports(value)
        except ConfigError as e:
            raise ValueError(e.problems[0][1]) from None
        return value

    @model_validator(mode="after")
    def _fits(self):
        if self.banks is not None and self.capacity_bytes < self.banks * self.block_bytes:
            raise ValueError(f"capacity_bytes {self.capacity_bytes} is smaller than banks x block_bytes "
                             f"= {self.banks * self.block_bytes}")
        return self

    @property
    def port_config(self) -> PortConfig:
        """The ports of each bank (read/write, read-only, write-only)."""
        return parse_ports(self.ports)

    @property
    def port_count(self) -> int:
        """Ports of each bank: its accesses per cycle."""
        return self.port_config.total


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


class DieBlock(BaseModel):
    """A block of the die that accelgen has no generator for (an inter-chip link, a transpose unit, an activation
    pipeline): its area, leakage and energy per cycle as published at ``ref_node_nm``, scaled to the chip's node
    (area with the logic area, energy with C V^2, leakage with the area)."""

    model_config = _STRICT
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    count: int = Field(1, ge=1)
    area_mm2: float = Field(gt=0)
    energy_pj_per_cycle: float = Field(0.0, ge=0)
    leakage_mw: float = Field(0.0, ge=0)
    ref_node_nm: float = Field(gt=0)
    ref_vdd_v: float = Field(gt=0.3, le=2.0)
    #: the activity factor its dynamic power follows (``activity.<key>``, else ``activity.default``)
    activity_key: str = "default"


class ScalarCore(BaseModel):
    """A small in-order core (``core.scalar_unit: true``): it has no parameters."""

    model_config = _STRICT


# --------------------------------------------------------------------------- die blocks with their own models
# (ppa/units/transpose.py, fifo.py, multicast.py, codec.py, ici.py; docs/ppa-units.md "Die blocks")

class Transpose(BaseModel):
    """A transpose unit: ``size x size`` registers of ``width`` bits, each with a 2:1 multiplexer choosing its row
    or its column neighbour, so that rows shift in and columns shift out (one vector per cycle each way)."""

    model_config = _STRICT
    count: int = Field(1, ge=1, le=64)
    size: int = Field(ge=2, le=1024)
    width: int = Field(ge=1, le=64)


class PEFifo(BaseModel):
    """A flip-flop FIFO between a PE and its network: ``depth`` words of the wider side, written ``in_bits`` and read
    ``out_bits`` at a time (a width converter when they differ: one must divide the other). ``count`` FIFOs."""

    model_config = _STRICT
    count: int = Field(1, ge=1, le=65536)
    depth: int = Field(ge=1, le=1024)
    in_bits: int = Field(ge=1, le=1024)
    out_bits: int = Field(ge=1, le=1024)

    @model_validator(mode="after")
    def _divides(self):
        wide, narrow = max(self.in_bits, self.out_bits), min(self.in_bits, self.out_bits)
        if wide % narrow:
            raise ValueError(f"out_bits: {self.out_bits} is not allowed with in_bits {self.in_bits}; allowed: one "
                             "width a multiple of the other")
        return self


class MulticastNoC(BaseModel):
    """A multicast network over a ``rows x cols`` PE array (Eyeriss's GIN/GON, NeuroMeter's multicast inner-TU
    interconnect): per network one Y-bus along the rows and one X-bus per row, a multicast controller (an ID register
    and comparator) at every X-bus on the Y-bus and at every PE on its X-bus. ``pe_pitch_um``: the PE's side (the
    bus segment between two controllers)."""

    model_config = _STRICT
    rows: int = Field(ge=1, le=1024)
    cols: int = Field(ge=1, le=1024)
    networks: int = Field(1, ge=1, le=16)
    data_bits: int = Field(ge=1, le=1024)
    pe_pitch_um: float = Field(gt=0, le=10000)
    #: ID widths; default: the fewest bits that name every row / column
    row_id_bits: int | None = Field(None, ge=1, le=16)
    col_id_bits: int | None = Field(None, ge=1, le=16)


class RLCCodec(BaseModel):
    """A run-length encoder and decoder of ``level_bits`` values into words of ``pairs`` (run, level) pairs with a
    ``run_bits`` run of zeros each (Eyeriss's off-chip compression), with a ReLU on the encoder's input
    (``relu``). ``count`` codecs, each encoding and decoding one value per cycle at full activity."""

    model_config = _STRICT
    count: int = Field(1, ge=1, le=64)
    level_bits: int = Field(ge=1, le=64)
    run_bits: int = Field(ge=1, le=16)
    pairs: int = Field(ge=1, le=16)
    relu: bool = True


SERDES_KINDS = ("short_reach", "long_reach")


class InterChipLink(BaseModel):
    """Inter-chip interconnect: ``links`` full-duplex links of ``gbps_per_link`` each direction over SerDes lanes
    of ``lane_gbps`` (default: the SerDes reference's rate), a network interface per link and a switch of
    ``links + local_ports`` ports, all ``flit_bits`` wide."""

    model_config = _STRICT
    links: int = Field(ge=1, le=64)
    gbps_per_link: float = Field(gt=0, le=10000)
    serdes: Literal[SERDES_KINDS] = "long_reach"  # type: ignore[valid-type]
    lane_gbps: float | None = Field(None, gt=0)
    flit_bits: int = Field(ge=8, le=4096)
    local_ports: int = Field(1, ge=1, le=16)


class Activation(BaseModel):
    """The compare-and-select stages of an activation pipeline beside the vector unit's multiply-adds (which scale,
    add the bias and average-pool): per lane a ReLU, a clamp to ``out_bits`` and a max-pool register, on
    ``width``-bit values. ``lanes`` elements per cycle."""

    model_config = _STRICT
    lanes: int = Field(ge=1, le=4096)
    width: int = Field(ge=2, le=64)
    out_bits: int = Field(ge=1, le=64)
    relu: bool = True
    clamp: bool = True
    max_pool: bool = True
    #: the scale each value is multiplied by before the ReLU (``none``: the vector unit's MAC lanes scale): ``int``,
    #: a ``width x scale_bits`` multiplier, a rounding adder and an arithmetic right shift; ``fp32``, an fp32
    #: multiplier, and rounding to ``out_bits`` (bf16) when narrower
    scale: Literal["none", "int", "fp32"] = "none"
    scale_bits: int = Field(16, ge=2, le=32)

    @model_validator(mode="after")
    def _narrower(self):
        if self.out_bits > self.width:
            raise ValueError(f"out_bits: {self.out_bits} is not allowed with width {self.width}; allowed: at most "
                             f"{self.width}")
        return self


class Dma(BaseModel):
    """The DMA engine and command path of a decoupled access-execute accelerator: ``queues`` command queues of
    ``queue_depth`` commands of ``command_bits``, a burst splitter and an address generator per direction of an AXI4
    master of ``line_bits`` data (one line a beat) and ``addr_bits`` addresses, ``pending`` outstanding transfers
    tracked per unit, ``tokens`` counters of ``token_bits`` between the units, and a write queue of
    ``write_queue_lines`` lines in front of the write channel."""

    model_config = _STRICT
    line_bits: int = Field(ge=8, le=4096)
    addr_bits: int = Field(32, ge=16, le=64)
    queues: int = Field(3, ge=1, le=8)
    queue_depth: int = Field(8, ge=2, le=64)
    command_bits: int = Field(128, ge=32, le=512)
    pending: int = Field(4, ge=1, le=64)
    tokens: int = Field(4, ge=0, le=16)
    token_bits: int = Field(8, ge=1, le=32)
    write_queue_lines: int = Field(16, ge=1, le=1024)


class ArrayIO(BaseModel):
    """A weight-stationary systolic array's edges in an accelerator: the skew of its ``rows`` operand inputs
    (``in_bits``, a valid bit each), the de-skew of its ``cols`` sums (``out_bits``), the write-back register of a
    line of sums and its ``cols`` accumulate adders (``accumulate``: integer of ``out_bits``, fp32, or ``none``)."""

    model_config = _STRICT
    rows: int = Field(ge=1, le=1024)
    cols: int = Field(ge=1, le=1024)
    in_bits: int = Field(ge=1, le=64)
    out_bits: int = Field(ge=1, le=64)
    accumulate: Literal["none", "int", "fp32"] = "int"
