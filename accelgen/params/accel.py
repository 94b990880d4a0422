"""Parameters and command set of the generated accelerator (:class:`accelgen.rtl.accel.Accelerator`).

An accelerator is one core: a weight-stationary systolic tensor unit, a banked scratchpad of operand lines, a banked
accumulator memory, a DMA engine with an AXI4 master to external memory, a command queue, and an activation stage
on the way out. :class:`AccelParams` is what the generator builds from; :func:`accelgen.gen.accel.accel_params`
derives it from an architecture file (the same file the estimator reads), naming the file's field for every
description it cannot build.

The command set is shared by the generator, which decodes it, and the host driver (:mod:`accelgen.cosim.accel_host`),
which encodes it: each command is one 128-bit word, fields at the bit positions of :data:`FIELDS`. Three units run
their commands in order, each from its own queue, and synchronise through four token counters, as VTA's decoupled
access-execute pipeline does (Moreau et al., IEEE Micro 2019): a command may wait for a token from a neighbouring
unit before it starts and give one when it is done, so that the host overlaps loads, compute and stores on
double-buffered memories and the hardware needs no dependency tracking of its own.

======== ======================================================= =========================================
opcode   fields                                                   unit (prev / next neighbour)
======== ======================================================= =========================================
CONFIG   relu, shift, scale: the activation stage's settings      store (in order with the stores)
LOAD     dram_addr, sp_addr, lines, stride: DRAM -> scratchpad    load (- / compute)
COMPUTE  a_addr, w_addr, acc_addr, m_len, accumulate              execute (load / store)
STORE    dram_addr, acc_addr, lines, stride: accumulator -> DRAM  store (compute / -)
FENCE    -                                                        the dispatcher: waits until all are idle
======== ======================================================= =========================================

Token flags (bits 4..7): ``pop_prev``/``pop_next`` wait for and take a token from the previous / next unit before
the command starts; ``push_prev``/``push_next`` give one when it is done with its data (a load when its last line is
in the scratchpad; a compute gives ``prev`` when it has read its last scratchpad line and ``next`` when its last
sum is in the accumulator; a store gives ``prev`` when it has read its last accumulator line).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..fpformat import width as fp_width
from .base import is_power_of_two
from .systolic import SystolicParams

__all__ = ["COMMAND_BITS", "FIELDS", "OPCODES", "AccelParams", "decode", "encode"]

COMMAND_BITS = 128
#: opcode values (bits 0..3)
OPCODES = {"config": 0, "load": 1, "compute": 2, "store": 3, "fence": 4}
_FLAGS = {"pop_prev": (4, 1), "pop_next": (5, 1), "push_prev": (6, 1), "push_next": (7, 1)}
_TRANSFER = {"dram_addr": (8, 32), "sp_addr": (40, 16), "lines": (56, 16), "stride": (72, 32)}
#: each opcode's fields: name -> (lowest bit, width)
FIELDS: dict[str, dict[str, tuple[int, int]]] = {
    "config": {"relu": (8, 1), "shift": (9, 6), "scale": (32, 32)},
    "load": _FLAGS | _TRANSFER,
    "compute": _FLAGS | {"a_addr": (8, 16), "w_addr": (24, 16), "acc_addr": (40, 16), "m_len": (56, 16),
                         "accumulate": (72, 1)},
    "store": _FLAGS | {"dram_addr": (8, 32), "acc_addr": (40, 16), "lines": (56, 16), "stride": (72, 32)},
    "fence": {},
}
#: widest line address the commands carry (``sp_addr``, ``acc_addr``: 16 bits)
MAX_LINES = 1 << 16


def encode(op: str, **fields: int) -> int:
    """The 128-bit command word of ``op`` with ``fields`` (unnamed fields are 0); ``ValueError`` for an unknown
    opcode or field or a value that does not fit its bits."""
    if op not in OPCODES:
        raise ValueError(f"opcode {op!r} is not allowed; allowed: {', '.join(OPCODES)}")
    word = OPCODES[op]
    for name, value in fields.items():
        if name not in FIELDS[op]:
            raise ValueError(f"{op}: field {name!r} is not allowed; allowed: {', '.join(FIELDS[op]) or 'none'}")
        lsb, width = FIELDS[op][name]
        value = int(value)
        if not 0 <= value < (1 << width):
            raise ValueError(f"{op}.{name}={value} does not fit in {width} bits")
        word |= value << lsb
    return word


def decode(word: int) -> tuple[str, dict[str, int]]:
    """``(opcode, fields)`` of a command word (the inverse of :func:`encode`)."""
    code = word & 0xF
    op = next((name for name, value in OPCODES.items() if value == code), None)
    if op is None:
        raise ValueError(f"opcode {code} is not a command")
    return op, {name: (word >> lsb) & ((1 << width) - 1) for name, (lsb, width) in FIELDS[op].items()}


class AccelParams(BaseModel):
    """What the accelerator generator builds (:mod:`accelgen.gen.accel` derives it from an architecture file).

    ``array``: the tensor unit, a weight-stationary systolic array (:class:`~accelgen.params.systolic.SystolicParams`,
    ``weight_load='shift'``, square, one PE per row and column of a scratchpad line).

    Scratchpad lines hold ``rows`` operands (one activation row of a K-slice, or one weight row of the array);
    accumulator lines hold ``cols`` sums of ``acc_width`` bits. Both are split into ``*_banks`` banks of consecutive
    lines (a bank is its own memory with one write and one read port), so a DMA fills one bank while the tensor unit
    reads another. The AXI4 data bus is one scratchpad line wide: a load moves one line per beat, a store one line
    of activation-stage results (``cols`` operands) per beat.
    """

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    array: SystolicParams
    sp_lines: int = Field(ge=2, le=MAX_LINES, description="scratchpad lines")
    sp_banks: int = Field(1, ge=1, le=64, description="scratchpad banks (consecutive lines)")
    acc_lines: int = Field(ge=2, le=MAX_LINES, description="accumulator lines")
    acc_banks: int = Field(1, ge=1, le=64, description="accumulator banks (consecutive lines)")
    addr_width: Literal[32] = Field(32, description="AXI4 address width")
    queue_depth: int = Field(8, ge=2, le=64, description="commands each unit's queue holds")
    max_burst: int = Field(256, ge=1, le=256, description="longest AXI4 burst the DMA issues, in beats")

    @model_validator(mode="after")
    def _check(self) -> AccelParams:
        a = self.array
        problems = []
        if a.dataflow != "ws" or a.weight_load != "shift":
            problems.append("array: the accelerator's tensor unit is weight-stationary with shifted weights "
                            f"(got dataflow={a.dataflow!r}, weight_load={a.weight_load!r})")
        if a.rows != a.cols:
            problems.append(f"array: rows={a.rows} and cols={a.cols} differ; allowed: a square array (a scratchpad "
                            "line feeds a row of activations or of weights)")
        if a.dtype == "int" and a.a_width != a.b_width:
            problems.append(f"array: a_width={a.a_width} and b_width={a.b_width} differ; allowed: equal widths (a "
                            "scratchpad line holds activations or weights)")
        if a.dtype == "fp16":
            problems.append("array.dtype='fp16' is not built (its activation stage has no fp16 conversion); "
                            "allowed: 'int', 'bf16', 'fp32'")
        if a.sum_group != 1:
            problems.append(f"array.sum_group={a.sum_group} is not built; allowed: 1")
        for name, lines, banks in (("sp", self.sp_lines, self.sp_banks), ("acc", self.acc_lines, self.acc_banks)):
            if lines % banks or not is_power_of_two(lines // banks):
                problems.append(f"{name}_lines={lines} is not {name}_banks={banks} banks of a power-of-two number "
                                "of lines")
        if self.line_bits not in (32, 64, 128, 256, 512, 1024):
            problems.append(f"array: a line of {a.rows} operands is {self.line_bits} bits; allowed: an AXI4 data "
                            "width, 32..1024 bits, a power of two")
        if problems:
            raise ValueError(problems[0])
        return self

    @property
    def operand_bits(self) -> int:
        """Bits of one operand (activation, weight and activation-stage result alike)."""
        return self.array.a_width if self.array.dtype == "int" else fp_width(self.array.dtype)

    @property
    def line_bits(self) -> int:
        """Bits of a scratchpad line, of an activation-stage result line and of the AXI4 data bus."""
        return self.array.rows * self.operand_bits

    @property
    def line_bytes(self) -> int:
        return self.line_bits // 8

    @property
    def acc_width(self) -> int:
        return self.array.acc_width if self.array.dtype == "int" else 32
