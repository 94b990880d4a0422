"""Cycle tables: the stimulus and expected response of a cosim run, cycle by cycle.

A :class:`CycleTable` is what the host hands the generic table testbench
(:mod:`accelgen.cosim.tb.table_tb`): for each cycle ``t`` the value of every
driven input port and, for each checked output port, the expected value and
whether it is checked in that cycle. Values are stored as unsigned bit patterns
(``uint64``), so signed ports are compared bit-exactly.

Cycle ``t`` convention: inputs of row ``t`` are applied right after clock edge
``t`` (the first edge after reset deasserts is edge 0); outputs of row ``t`` are
sampled after they settle, before edge ``t + 1``. A register that captures
input row ``t`` is therefore visible in output row ``t + 1``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

MAX_PORT_WIDTH = 64


def to_bits(values, width: int) -> np.ndarray:
    """Two's-complement bit patterns of integers (signed or unsigned) as ``uint64``."""
    if not 1 <= width <= MAX_PORT_WIDTH:
        raise ValueError(f"port width {width} outside 1..{MAX_PORT_WIDTH}")
    mask = (1 << width) - 1
    return np.array([int(v) & mask for v in values], dtype=np.uint64)


def operand_range(width: int, signed: bool) -> tuple[int, int]:
    """Smallest and largest integer of a ``width``-bit two's-complement (or unsigned) operand."""
    return (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)


def from_bits(bits: int, width: int, signed: bool) -> int:
    bits = int(bits)
    if signed and bits >> (width - 1) & 1:
        return bits - (1 << width)
    return bits


@dataclass
class CycleTable:
    """Per-cycle stimulus and expected outputs of one cosim run.

    ``inputs[port]`` and ``expect[port]`` are ``uint64`` arrays of length
    :attr:`cycles`; ``check[port]`` is a ``bool`` array saying in which cycles
    ``expect[port]`` is compared (cycles where the output is don't-care are
    ``False``). ``info`` carries free-form facts for the summary (e.g. the number
    of operand pairs, which directed sections ran).
    """

    inputs: dict[str, np.ndarray]
    expect: dict[str, np.ndarray]
    check: dict[str, np.ndarray] = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        lengths = {len(v) for v in self.inputs.values()} | {len(v) for v in self.expect.values()}
        if len(lengths) != 1:
            raise ValueError(f"cycle table columns have different lengths: {sorted(lengths)}")
        for name in self.expect:
            self.check.setdefault(name, np.ones(self.cycles, dtype=bool))

    @property
    def cycles(self) -> int:
        return len(next(iter(self.inputs.values())))

    @property
    def checks(self) -> int:
        """Number of (cycle, port) comparisons the table asks for."""
        return int(sum(int(np.count_nonzero(c)) for c in self.check.values()))

    def save(self, path: Path) -> None:
        arrays = {f"in:{k}": v.astype(np.uint64) for k, v in self.inputs.items()}
        arrays |= {f"out:{k}": v.astype(np.uint64) for k, v in self.expect.items()}
        arrays |= {f"chk:{k}": v.astype(bool) for k, v in self.check.items()}
        with open(path, "wb") as fh:
            np.savez_compressed(fh, **arrays)

    @classmethod
    def load(cls, path: Path) -> "CycleTable":
        with np.load(path) as data:
            inputs = {k[3:]: data[k] for k in data.files if k.startswith("in:")}
            expect = {k[4:]: data[k] for k in data.files if k.startswith("out:")}
            check = {k[4:]: data[k] for k in data.files if k.startswith("chk:")}
        return cls(inputs, expect, check)


def parse_gemm(text: str) -> tuple[int, int, int]:
    """``"M,N,K"`` -> ``(M, N, K)``; raises ``ValueError`` naming what is wrong."""
    parts = text.replace("x", ",").split(",")
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        dims = ()
    if len(dims) != 3 or min(dims) < 1:
        raise ValueError(f"gemm={text!r} is not allowed; expected M,N,K with three integers >= 1 (e.g. 64,32,128)")
    return dims
