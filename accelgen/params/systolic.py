"""Parameters of the systolic arrays (:class:`accelgen.rtl.systolic.SystolicArray`) and the timing rules
that every description of an array (generator, architecture file, command line, cycle model) shares."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field, model_validator

from ..fpformat import is_fp
from .base import AddStages, FlushSubnormals, FPOperandParams, MacDtype, MulStages, check_flush_subnormals

__all__ = ["SUM_GROUPS", "SYSTOLIC_DTYPES", "SystolicParams", "systolic_timing_problems"]

#: operand datatypes of the array; the floating-point ones accumulate in fp32
SYSTOLIC_DTYPES: tuple[str, ...] = get_args(MacDtype)
#: rows whose products one multi-operand adder sums (``sum_group``)
SUM_GROUPS = (1, 2, 4, 8)


def systolic_timing_problems(dataflow: str, rows: int, weight_load: str = "shift", sum_group: int = 1,
                             dtype: str | None = None) -> list[str]:
    """What is wrong with an array's timing options, each message starting with the field it names:
    ``weight_load='double'`` needs stationary weights (not ``os``); ``sum_group`` > 1 needs a floating-point
    ``dtype`` (not checked when ``dtype`` is None: the cycle model does not depend on it), partial sums
    flowing down the columns (not ``os``) and whole groups (``rows`` a multiple of it). Empty: allowed."""
    out = []
    if weight_load == "double" and dataflow == "os":
        out.append("weight_load: 'double' is not allowed with dataflow='os' (no stationary weights); "
                   "allowed: 'shift', or dataflow 'ws' or 'is'")
    g = sum_group
    if g == 1:
        return out
    if dtype is not None and not is_fp(dtype):
        out.append(f"sum_group: {g} is not allowed with dtype={dtype!r}; it needs a floating-point dtype "
                   "('fp16', 'bf16' or 'fp32'); allowed with 'int': 1")
    elif dataflow == "os":
        out.append(f"sum_group: {g} is not allowed with dataflow={dataflow!r} (no partial sums flow down "
                   "the columns); allowed: 1, or dataflow 'ws' or 'is'")
    elif rows % g:
        out.append(f"sum_group: {g} is not allowed with rows={rows}; allowed: a divisor of rows among "
                   "1, 2, 4 and 8")
    return out


class SystolicParams(FPOperandParams):
    """Parameters of :class:`~accelgen.rtl.systolic.SystolicArray`.

    ``dataflow``: weight-stationary (weights preloaded, activations from the left, partial sums flow down),
    output-stationary (A from the left, B from the top, each PE keeps one output element, then drains) or
    input-stationary (the weight-stationary array holding A, K x M, and streaming B's columns: C comes out
    transposed; ``a_in`` then carries B (``b_width``) and ``w_in`` carries A (``a_width``)).

    Widths and ``signed`` as for :class:`~accelgen.params.mac.MACParams` (implied by a floating-point
    ``dtype``); sums wrap around modulo ``2**acc_width``. With a floating-point dtype every PE multiplies
    with an fp32-product multiplier and adds with an fp32 adder (RNE), both combinational between the
    registers of the integer PE, so latency and cycle counts are those of the integer array.

    ``sum_group`` (WS/IS, floating point, ``rows`` a multiple of it): each column is built of
    ``rows / sum_group`` group PEs, each holding ``sum_group`` rows' weights and multipliers and one
    multi-operand fp32 adder that adds the incoming partial sum and the group's products with a single
    rounding (the TPU v4i MXU: 4). The rows of a group take their activations in the same cycle.

    ``weight_load`` (WS/IS): ``shift`` shifts every column's weight registers down one row per cycle
    while ``w_load`` is high (``rows`` cycles per load, between folds); ``double`` (the TPU's arrangement)
    loads shadow registers while the current fold computes and swaps them in as the wavefront passes, so
    folds follow each other without a load gap. Not allowed with ``os``.

    ``mul_stages``, ``add_stages``: register stages inside each PE's multiplier and adder; results are
    bit-identical to the unpipelined array. WS/IS: a partial sum spends ``add_stages + 1`` cycles in a PE.
    OS: the accumulator loop keeps ``add_stages + 1`` interleaved sums per PE (C-slow).

    ``emit_tile`` (emission only): an array with more than ``emit_tile`` PEs on a side is built as a grid
    of tile modules of at most ``emit_tile`` x ``emit_tile`` PEs (one module per tile shape), so emission
    and synthesis scale with the PE count; with ``sum_group`` a tile's rows are ``emit_tile`` rounded down
    to a multiple of it (at least ``sum_group``). Ports, behaviour and cycle counts do not depend on it.
    """

    block = "systolic"

    rows: int = Field(4, ge=1, le=256, description="PE rows (WS: reduction dimension K; OS: M)")
    cols: int = Field(4, ge=1, le=256, description="PE columns (output dimension N)")
    dataflow: Literal["ws", "os", "is"] = Field(
        "ws", description="weight-stationary, output-stationary or input-stationary (the WS array with A held "
                          "in the PEs and B streamed)")
    a_width: int = Field(8, ge=1, le=32, description="width of operand A (activations) in bits")
    b_width: int = Field(8, ge=1, le=32, description="width of operand B (weights) in bits")
    acc_width: int = Field(32, ge=2, le=64, description="partial-sum / accumulator width in bits")
    signed: bool = Field(True, description="two's-complement operands and sums (else unsigned)",
                         json_schema_extra={"cli_negative": "unsigned"})
    weight_load: Literal["shift", "double"] = Field(
        "shift", description="WS/IS weight loading: 'shift' moves weights down the columns, one row per cycle, "
                             "between folds; 'double' shifts the next fold's weights into shadow registers "
                             "while the current fold computes and swaps them in with the wavefront (TPU)")
    mul_stages: MulStages = 0
    add_stages: AddStages = 0
    dtype: MacDtype = Field(
        "int", description="operand datatype: 'int' (widths and signed as given) or fp16/bf16/fp32 operands "
                           "with fp32 products and accumulation (widths implied)")
    flush_subnormals: FlushSubnormals = False
    sum_group: Literal[1, 2, 4, 8] = Field(
        1, description="products summed by one fp32 adder with a single rounding: each column's PEs form groups of "
                       "sum_group rows whose products and the incoming partial sum are added by one multi-operand "
                       "adder (TPU v4i: 4)")
    emit_tile: int = Field(
        16, ge=1, le=256, description="emission only: an array with more than emit_tile PEs on a side is emitted "
                                      "as a grid of tile modules of at most emit_tile x emit_tile PEs (one module "
                                      "per tile shape); behaviour is identical")

    @model_validator(mode="after")
    def _check_cross_fields(self) -> "SystolicParams":
        if self.dtype == "int" and self.acc_width < self.a_width + self.b_width:
            raise ValueError(
                f"acc_width={self.acc_width} is too narrow for a {self.a_width}x{self.b_width}-bit product; "
                f"allowed: acc_width >= a_width + b_width = {self.a_width + self.b_width}")
        check_flush_subnormals(self)
        timing = systolic_timing_problems(self.dataflow, self.rows, self.weight_load, self.sum_group, self.dtype)
        if timing:
            raise ValueError(timing[0])
        return self

    @property
    def latency(self) -> int:
        """Cycles from an activation entering row 0, column 0 to its result at the bottom of column 0
        (WS/IS: ``rows / sum_group * (add_stages + 1) + mul_stages``), or from ``capture`` to the first
        drained sum (OS: 1)."""
        return self.row_groups * self.row_hop + self.mul_stages if self.stationary else 1

    @property
    def is_fp(self) -> bool:
        """Floating-point operands (fp32 products and accumulation)."""
        return self.dtype != "int"

    @property
    def stationary(self) -> bool:
        """Weight- or input-stationary: one operand held in the PEs, partial sums flowing down."""
        return self.dataflow != "os"

    @property
    def pipelined(self) -> bool:
        """The PEs use the pipelined datapath (any stage, or double-buffered weights)."""
        return self.mul_stages > 0 or self.add_stages > 0 or self.weight_load == "double"

    @property
    def row_hop(self) -> int:
        """Cycles a partial sum spends in a WS/IS PE (``add_stages + 1``): the host skews row ``r``'s
        stream by ``(r // sum_group) * row_hop``."""
        return self.add_stages + 1

    @property
    def row_groups(self) -> int:
        """WS/IS: the PEs (groups of ``sum_group`` rows) a partial sum passes on its way down a column."""
        return self.rows // self.sum_group

    @property
    def pes(self) -> int:
        return self.rows * self.cols
