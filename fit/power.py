"""Energy, clock network, leakage and area of a mapped netlist, from its cell library.

A :class:`PowerLibrary` is read from a Liberty file, the default technology's generated one
(:func:`accelgen.fit.mapped.default_liberty`) or a user's, through the same code: per cell its area,
``cell_leakage_power``, input pin capacitances, output functions (the gate simulator evaluates them:
:meth:`PowerLibrary.cell_functions`), the internal energy of each output transition (``internal_power``
``rise_power``/``fall_power`` tables at the net's real load) and, for a flip-flop, the internal energy
of its clock pin.

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
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from .liberty import function_inputs, parse_function
from .sta import LibertyReader, Table, TimingLibrary, module_of, read_liberty_groups

#: Placed area = cell area / row utilization (0.7: the common target of place-and-route flows; Kahng, Lienig,
#: Markov, Hu, *VLSI Physical Design*, Springer 2011; the value accelgen.ppa.process.STD_CELL_UTILIZATION uses)
UTILIZATION = 0.7
#: Clock wire capacitance per length, fF/um: ITRS 2007 Interconnect, ~0.2 fF/um for intermediate copper wires,
#: nearly node-independent (the figure accelgen.ppa.process uses for wires)
CLOCK_WIRE_FF_PER_UM = 0.2
#: The clock tree's wire length: an H-tree to N = 4^k sinks over a square of side D has 4^j H's of width
#: D / 2^j at level j, each of three segments of D / 2^(j+1): 1.5 D per level-sum 2^j, in all
#: 1.5 D (2^k - 1) ~ 1.5 sqrt(N A). Geometry, not a fitted number.
HTREE_LENGTH_FACTOR = 1.5


@dataclass(frozen=True)
class CellPower:
    """One cell: area, leakage, input pin capacitances (fF), output functions (``parse_function`` trees of the
    input pins, or of the state variables), internal energy tables per output and, for a flip-flop, ``ff``:
    ``(clock pin, next-state tree, clear tree or None, preset tree or None, state variable, inverted state)``."""

    name: str
    area_um2: float
    leakage_nw: float
    inputs: dict[str, float]
    outputs: dict[str, tuple]
    energy: dict[str, tuple[tuple[Table, Table], ...]] = field(default_factory=dict)
    ff: tuple | None = None
    clock_energy: tuple[tuple[Table, Table], ...] = ()
    max_cap_ff: dict[str, float] = field(default_factory=dict)

    def clock_energy_fj(self, slew_ps: float) -> float:
        """Internal energy of one clock cycle at the clock pin (its rising and falling edge)."""
        tables = self.clock_energy
        return sum(r.at(slew_ps, 0.0) + f.at(slew_ps, 0.0) for r, f in tables) / len(tables) if tables else 0.0

    def energy_fj(self, pin: str, load_ff: float, slew_ps: float) -> float:
        """Internal energy of one transition of output ``pin`` (mean of rise and fall, and of the related pins)."""
        tables = self.energy.get(pin, ())
        if not tables:
            return 0.0
        return sum((r.at(slew_ps, load_ff) + f.at(slew_ps, load_ff)) / 2 for r, f in tables) / len(tables)


@dataclass(frozen=True)
class PowerLibrary:
    """The cells' power view of a Liberty file, beside its timing view (``timing``: slews, wire load, arcs)."""

    timing: TimingLibrary
    vdd_v: float
    cells: dict[str, CellPower]

    @property
    def name(self) -> str:
        return self.timing.name

    @property
    def nominal_slew_ps(self) -> float:
        return self.timing.nominal_slew_ps

    def wire_cap(self, fanout: int) -> float:
        return self.timing.wire_cap(fanout)

    @classmethod
    def from_liberty(cls, path: str | Path) -> PowerLibrary:
        reader = _PowerReader(read_liberty_groups(path), str(path))
        cells = {c.name: c for c in map(reader.power_cell, reader.lib.all("cell")) if c is not None}
        vdd = float(reader.lib.attrs.get("nom_voltage", 0) or 0)
        if vdd <= 0:
            raise ConfigError([("liberty", f"{str(path)!r}: no nom_voltage; the supply is needed for C V^2")])
        return cls(reader.library(None), vdd, cells)

    def buffer(self, strongest: bool = True) -> CellPower:
        """The library's buffer (one input, output = that input) with the largest (or smallest) drive."""
        bufs = [c for c in self.cells.values() if c.ff is None and len(c.inputs) == 1 and len(c.outputs) == 1
                and next(iter(c.outputs.values())) == ("var", next(iter(c.inputs)))]
        if not bufs:
            raise ConfigError([("liberty", f"{self.name}: no buffer cell; the clock tree needs one")])
        return (max if strongest else min)(bufs, key=lambda c: (next(iter(c.inputs.values())), c.name))


class _PowerReader(LibertyReader):
    """The timing reader's tables and units, and the attributes power needs."""

    def __init__(self, lib, source):
        super().__init__(lib, source)
        m = lib.attrs.get("leakage_power_unit", "1nW").strip().lower()
        scale = {"w": 1e9, "mw": 1e6, "uw": 1e3, "nw": 1.0, "pw": 1e-3, "fw": 1e-6}
        num = "".join(ch for ch in m if ch.isdigit() or ch == ".")
        self.leak = float(num or 1) * scale.get(m[len(num):], 1.0)
        # internal power tables are energies in capacitive_load_unit x voltage_unit^2 (volts here): fF V^2 = fJ;
        # the timing reader scales every table value by the time unit, so values are rescaled below
        self.energy_scale = self.cap / self.time

    def _energy_tables(self, group) -> tuple[Table, Table] | None:
        sub = {g.kind: g for g in group.groups}
        rise, fall = sub.get("rise_power", sub.get("power")), sub.get("fall_power", sub.get("power"))
        if rise is None or fall is None:
            return None
        return tuple(_scaled(self.table(t), self.energy_scale) for t in (rise, fall))

    def power_cell(self, group) -> CellPower | None:
        name = group.args[0] if group.args else "?"
        attrs = group.attrs
        inputs, outputs, energy, clock_tables, max_cap = {}, {}, {}, (), {}
        ffs = group.all("ff")
        ff_state = tuple(ffs[0].args) if ffs else ()
        for pin in group.all("pin"):
            direction = pin.attrs.get("direction")
            for pname in pin.args:
                if direction in ("input", "inout"):
                    caps = [float(pin.attrs[k]) for k in ("capacitance", "rise_capacitance", "fall_capacitance")
                            if k in pin.attrs]
                    inputs[pname] = max(caps, default=0.0) * self.cap
                    if pin.attrs.get("clock") == "true":
                        clock_tables = tuple(t for g in pin.all("internal_power") if (t := self._energy_tables(g)))
                if direction in ("output", "inout"):
                    if "function" not in pin.attrs:
                        return None          # not a logic cell ABC or dfflibmap would use (e.g. a tie or analog cell)
                    outputs[pname] = parse_function(pin.attrs["function"])
                    energy[pname] = tuple(t for g in pin.all("internal_power") if (t := self._energy_tables(g)))
                    if "max_capacitance" in pin.attrs:
                        max_cap[pname] = float(pin.attrs["max_capacitance"]) * self.cap
        ff = None
        if ffs:
            g = ffs[0]
            clock = g.attrs.get("clocked_on", "").strip()
            trees = [parse_function(g.attrs[k]) if k in g.attrs else None for k in ("next_state", "clear", "preset")]
            if trees[0] is None or clock not in inputs:
                return None
            ff = (clock, *trees, ff_state[0] if ff_state else "IQ", ff_state[1] if len(ff_state) > 1 else "IQN")
        elif group.all("latch") or group.all("statetable"):
            return None
        for pname, tree in outputs.items():
            allowed = set(inputs) | set(ff_state)
            if not function_inputs(tree) <= allowed:
                return None
        return CellPower(name, float(attrs.get("area", 0) or 0), float(attrs.get("cell_leakage_power", 0) or 0)
                         * self.leak, inputs, outputs, energy, ff, clock_tables, max_cap)


def _scaled(table: Table, factor: float) -> Table:
    return Table(table.slews, table.loads, [[v * factor for v in row] for row in table.values])


# --------------------------------------------------------------------------- a netlist's loads and energies

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

    Wire: an H-tree to every flip-flop over the placed area (``area / UTILIZATION``), ``HTREE_LENGTH_FACTOR
    * sqrt(N A)`` long at ``CLOCK_WIRE_FF_PER_UM``. Buffers: the library's strongest buffer, each loaded up to
    its output ``max_capacitance`` (taken as the load its tables are characterized for), level by level until
    one buffer drives the tree: a buffer's own input capacitance is the load of the level above. Every clock
    net charges and discharges once per cycle: ``C V^2``; the buffers' internal energy counts both edges."""
    if flip_flops == 0:
        return {"energy_fj": 0.0, "area_um2": 0.0, "leakage_nw": 0.0, "buffers": 0, "wire_um": 0.0, "pin_ff": 0.0}
    wire_um = HTREE_LENGTH_FACTOR * math.sqrt(flip_flops * area_um2 / UTILIZATION)
    buf = plib.buffer()
    buf_in = next(iter(buf.inputs.values()))
    out_pin = next(iter(buf.outputs))
    max_load = buf.max_cap_ff.get(out_pin)
    if not max_load:
        raise ConfigError([("liberty", f"{plib.name}: buffer {buf.name} has no max_capacitance; the clock tree "
                                       "model loads each buffer up to it")])
    load = clock_pin_ff + wire_um * CLOCK_WIRE_FF_PER_UM
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

