"""Energy, clock network, leakage and area of a mapped netlist, from its cell library.

The library is a :class:`~accelgen.fit.cell_library.PowerLibrary` read from a Liberty file, the default
technology's generated one (:func:`accelgen.fit.mapping.default_liberty`) or a user's, through the same code
(:func:`accelgen.fit.liberty_read.read_power_library`): per cell its area, ``cell_leakage_power``, input pin
capacitances, output functions (the gate simulator evaluates them), the internal energy of each output
transition (``internal_power`` ``rise_power``/``fall_power`` tables at the net's real load) and, for a
flip-flop, the internal energy of its clock pin.

Switching energy of a net per toggle (:func:`net_energy`):
``E = (E_int,rise + E_int,fall) / 2 + 1/2 * C_load * V^2``, with ``C_load`` the net's sink pin
capacitances plus the library's wire load for its fanout (plus the output load on a top-level output).
A rising output draws ``C V^2`` from the supply and a falling one nothing, so a toggle costs half of
that on average; internal power excludes the load, as Liberty defines it. A net driven by a top-level
input costs its load only (the driver is outside the block).

The clock network (:func:`clock_network`) is charged every cycle whatever the data do: the clock pins
of the flip-flops (internal energy of both edges plus ``C V^2``), the wire of an H-tree spanning the
block's placed area and reaching every flip-flop, and the buffers that drive it, each loaded up to its
``max_capacitance``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..technology import STD_CELL_UTILIZATION, WIRE_C_FF_PER_UM
from .cell_library import PowerLibrary
from .netlist import module_of

#: The clock tree's wire length: an H-tree to N = 4^k sinks over a square of side D has 4^j H's of width
#: D / 2^j at level j, each of three segments of D / 2^(j+1): 1.5 D per level-sum 2^j, in all
#: 1.5 D (2^k - 1) ~ 1.5 sqrt(N A). Geometry, not a fitted number.
HTREE_LENGTH_FACTOR = 1.5


@dataclass
class NetEnergy:
    """Per-net energy of one toggle (fJ, indexed by Yosys net bit), and the design's static figures."""

    per_toggle_fj: np.ndarray
    internal_fj: np.ndarray       # the driving cells' share of ``per_toggle_fj``
    area_um2: float
    leakage_nw: float
    flip_flops: int
    clock_pin_ff: float           # total flip-flop clock pin capacitance
    clock_internal_fj: float      # the flip-flops' clock-pin internal energy per cycle (both edges)
    cells_by_type: dict[str, int]
    load_ff: np.ndarray           # each net's load: sink pins, wire, output load


def net_energy(netlist: dict, top: str, plib: PowerLibrary, *, output_load_ff: float = 0.0,
               clock: str = "clk") -> NetEnergy:
    """The energy of one toggle of every net of module ``top`` of a flat netlist mapped to ``plib``'s cells."""
    mod = module_of(netlist, top)
    size = 2
    for p in mod["ports"].values():
        size = max(size, 1 + max((b for b in p["bits"] if isinstance(b, int)), default=0))
    insts = []
    for iname, inst in mod.get("cells", {}).items():
        ctype = inst["type"].lstrip("\\")
        if ctype == "$scopeinfo":
            continue
        cell = plib.cells.get(ctype)
        if cell is None:
            raise ConfigError([(f"{top}.cells.{iname}", f"cell type {ctype!r} is not in the library {plib.name!r}")])
        conn = {pin: bits[0] for pin, bits in inst.get("connections", {}).items() if isinstance(bits[0], int)}
        size = max(size, 1 + max(conn.values(), default=0))
        insts.append((cell, conn))
    cap, fanout = np.zeros(size), np.zeros(size, dtype=np.int64)
    clock_nets = {b for name, p in mod["ports"].items() if name == clock for b in p["bits"] if isinstance(b, int)}
    pin_ff = internal = 0.0
    ffs = 0
    for cell, conn in insts:
        for pin, b in conn.items():
            if pin in cell.inputs:
                if cell.ff and pin == cell.ff[0]:
                    pin_ff += cell.inputs[pin]          # the clock network, charged every cycle
                    internal += cell.clock_energy_fj(plib.nominal_slew_ps)
                    continue
                cap[b] += cell.inputs[pin]
                fanout[b] += 1
        ffs += cell.ff is not None
    for name, p in mod["ports"].items():
        if p["direction"] in ("output", "inout"):
            for b in p["bits"]:
                if isinstance(b, int):
                    cap[b] += output_load_ff
    wire = np.array([plib.wire_cap(int(f)) if f else 0.0 for f in fanout])
    load = cap + wire
    per = 0.5 * load * plib.vdd_v ** 2
    own = np.zeros(size)
    for cell, conn in insts:
        for pin, b in conn.items():
            if pin in cell.outputs:
                own[b] += cell.energy_fj(pin, float(load[b]), plib.nominal_slew_ps)
    per[list(clock_nets)] = 0.0
    counts: dict[str, int] = {}
    for cell, _ in insts:
        counts[cell.name] = counts.get(cell.name, 0) + 1
    return NetEnergy(per + own, own, sum(c.area_um2 for c, _ in insts), sum(c.leakage_nw for c, _ in insts), ffs,
                     pin_ff, internal, dict(sorted(counts.items())), load)


def clock_network(plib: PowerLibrary, flip_flops: int, clock_pin_ff: float, clock_internal_fj: float,
                  area_um2: float) -> dict:
    """Energy per cycle (fJ), area and leakage of the clock network of a block of ``area_um2`` cell area.

    Wire: an H-tree to every flip-flop over the placed area (cell area over the standard-cell utilization,
    :data:`accelgen.technology.STD_CELL_UTILIZATION`), ``HTREE_LENGTH_FACTOR * sqrt(N A)`` long at the wire
    capacitance per length of :data:`accelgen.technology.WIRE_C_FF_PER_UM`. Buffers: the library's strongest
    buffer, each loaded up to its output ``max_capacitance`` (taken as the load its tables are characterized
    for), level by level until one buffer drives the tree: a buffer's own input capacitance is the load of the
    level above. Every clock net charges and discharges once per cycle: ``C V^2``; the buffers' internal energy
    counts both edges."""
    if flip_flops == 0:
        return {"energy_fj": 0.0, "area_um2": 0.0, "leakage_nw": 0.0, "buffers": 0, "wire_um": 0.0, "pin_ff": 0.0}
    wire_um = HTREE_LENGTH_FACTOR * math.sqrt(flip_flops * area_um2 / STD_CELL_UTILIZATION)
    buf = plib.buffer()
    buf_in = next(iter(buf.inputs.values()))
    out_pin = next(iter(buf.outputs))
    max_load = buf.max_cap_ff.get(out_pin)
    if not max_load:
        raise ConfigError([("liberty", f"{plib.name}: buffer {buf.name} has no max_capacitance; the clock tree "
                                       "model loads each buffer up to it")])
    load = clock_pin_ff + wire_um * WIRE_C_FF_PER_UM
    buffers, internal, total_cap = 0, 0.0, load
    while True:
        n = max(1, math.ceil(load / max_load))
        buffers += n
        internal += n * 2 * buf.energy_fj(out_pin, load / n, plib.nominal_slew_ps)
        load = n * buf_in
        total_cap += load
        if n == 1:
            break
    energy = clock_internal_fj + internal + total_cap * plib.vdd_v ** 2
    return {"energy_fj": energy, "area_um2": buffers * buf.area_um2, "leakage_nw": buffers * buf.leakage_nw,
            "buffers": buffers, "wire_um": wire_um, "pin_ff": clock_pin_ff}

