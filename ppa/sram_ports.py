"""The port configuration of an SRAM: how many read/write, read-only and write-only ports each bank has, and what
each costs in the bitcell.

A designer states it as memory compilers name it: ``"1rw"`` (single-port 6T), ``"1r1w"`` (two-port: one read,
one write port), ``"2rw"`` (dual-port: two read/write ports), ``"2r1w"`` (two read ports and one write port), ...
An integer ``N`` means ``N`` read/write ports (``2`` is ``"2rw"``), the meaning ``ports`` had before.

The cell (after CACTI 7's multi-port cell, HewlettPackard/cacti ``parameter.cc``, ``DynamicParameter``: the
cell's height and width are the single-port cell's plus ``2 x wire_local.pitch`` per port beyond the first)
grows by two local-wire pitches in each direction per extra port: one word line (and its spacing) across the
cell's height, one bit-line pair across its width. The local pitch is 2.5 F (CACTI 7 ``tech_params/*.dat``,
``-wire_pitch`` local row, the ITRS local-wire pitch). Every read and every write port here is differential (a
bit-line pair, as CACTI's default ``single ended read ports 0``).

Each extra port adds two access transistors to the 6T cell (a dual-port cell is "a 6T cell with two additional
pass gates for the second set of bit lines": 8T; 1R1W and 2RW cells are both 8T, 2R1W is 10T); the cell's leakage
follows its transistor count (CACTI 7 ``mat.cc`` adds one access transistor's leakage per extra read/write or
write port and one read port's leakage per read port).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError

#: local-wire pitch in F: CACTI 7 ``tech_params/<node>.dat`` ``-wire_pitch`` (local 2.5 F, semi-global 4 F, global 8 F)
LOCAL_PITCH_F = 2.5
#: local pitches the cell grows by per extra port, in height and in width (CACTI 7 ``parameter.cc``: ``2 x
#: wire_local.pitch`` per port beyond the first)
PITCHES_PER_PORT = 2.0
#: transistors of the single-port cell and per extra differential port (two pass gates)
CELL_TRANSISTORS_1RW = 6
TRANSISTORS_PER_PORT = 2
#: the most ports a bank may have (the limit ``ports`` had)
MAX_PORTS = 16
_TOKEN = re.compile(r"(\d+)(rw|r|w)")
ALLOWED = ("an integer N (N read/write ports) or a port string such as '1rw', '1r1w', '2rw', '2r1w' "
           f"(counts of rw, r, w ports; at least one read and one write; at most {MAX_PORTS} ports)")


@dataclass(frozen=True)
class PortConfig:
    """Ports of one bank: ``rw`` read/write, ``r`` read-only, ``w`` write-only."""

    rw: int = 1
    r: int = 0
    w: int = 0

    @property
    def total(self) -> int:
        """Ports of the bank: its accesses per cycle (reads and writes)."""
        return self.rw + self.r + self.w

    @property
    def read_capable(self) -> int:
        return self.rw + self.r

    @property
    def write_capable(self) -> int:
        return self.rw + self.w

    @property
    def transistors(self) -> int:
        """Transistors of the bitcell: the 6T cell and two pass gates per extra port."""
        return CELL_TRANSISTORS_1RW + TRANSISTORS_PER_PORT * (self.total - 1)

    @property
    def label(self) -> str:
        return "".join(f"{n}{k}" for n, k in ((self.rw, "rw"), (self.r, "r"), (self.w, "w")) if n)

    def reads_writes_per_cycle(self) -> tuple[float, float]:
        """Reads and writes per cycle of one bank at full activity: a read/write port does one of each every other
        cycle (half reads, half writes), a read port a read, a write port a write."""
        return self.r + self.rw / 2.0, self.w + self.rw / 2.0


def cell_pitch_um(cell_um2, feature_um, ports):
    """Side of a ``ports``-port cell (um, square-cell approximation) whose single-port cell is ``cell_um2``: the
    single-port side plus :data:`PITCHES_PER_PORT` local pitches of :data:`LOCAL_PITCH_F` F per extra port.
    Numbers or numpy arrays."""
    return np.sqrt(cell_um2) + (np.asarray(ports, dtype=float) - 1.0) * PITCHES_PER_PORT * LOCAL_PITCH_F * feature_um


def parse_ports(value, path: str = "ports") -> PortConfig:
    """``value`` (an integer or a port string, case-insensitive) as a :class:`PortConfig`; a :class:`ConfigError`
    naming ``path``, the value and what is allowed otherwise."""
    if isinstance(value, PortConfig):
        return value
    bad = ConfigError([(path, f"{value!r} is not allowed; expected {ALLOWED}")])
    if isinstance(value, bool):
        raise bad
    if isinstance(value, int):
        if not 1 <= value <= MAX_PORTS:
            raise bad
        return PortConfig(rw=value)
    if not isinstance(value, str):
        raise bad
    text = value.strip().lower()
    if text.isdigit():          # "2" (a command line's integer): N read/write ports
        return parse_ports(int(text), path)
    tokens = _TOKEN.findall(text)
    if not tokens or "".join(n + k for n, k in tokens) != text:
        raise bad
    counts = {"rw": 0, "r": 0, "w": 0}
    for n, k in tokens:
        if counts[k] or int(n) == 0:  # each kind once, a count of at least 1
            raise bad
        counts[k] = int(n)
    cfg = PortConfig(**counts)
    if not cfg.read_capable or not cfg.write_capable or cfg.total > MAX_PORTS:
        raise bad
    return cfg
