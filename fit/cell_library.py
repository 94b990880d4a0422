"""A cell library in memory: the timing view (NLDM tables, arcs, setup) and the power view (area, leakage,
functions, internal energy) of its cells, as static timing, power, repair and the gate simulators use them.

A :class:`TimingLibrary` comes from a cell description (:meth:`TimingLibrary.from_cells`) or a Liberty file
(:func:`accelgen.fit.liberty_read.read_timing_library`); a :class:`PowerLibrary`, which holds the timing view
beside its own, from a Liberty file (:func:`accelgen.fit.liberty_read.read_power_library`). Times are ps,
capacitances fF, energies fJ, leakage nW.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from ..errors import ConfigError
from .cells import check_cells, timing_sense

RISE, FALL = 0, 1
EDGES = ("rise", "fall")
#: the timing types of a clock -> Q arc
CLOCK_ARCS = ("rising_edge", "falling_edge")


class Table:
    """An NLDM table over (input slew or constrained-pin transition, load or related-pin transition):
    bilinear inside the grid, linear outside it, constant along an axis of one point."""

    __slots__ = ("_dx", "_dy", "loads", "slews", "values")

    def __init__(self, slews, loads, values):
        values = [tuple(row) for row in values]
        if len(slews) == 1:
            slews, values = (slews[0], slews[0] + 1.0), values * 2
        if len(loads) == 1:
            loads, values = (loads[0], loads[0] + 1.0), [row * 2 for row in values]
        self.slews, self.loads, self.values = tuple(slews), tuple(loads), values
        self._dx = tuple(1.0 / (b - a) for a, b in zip(self.slews, self.slews[1:]))
        self._dy = tuple(1.0 / (b - a) for a, b in zip(self.loads, self.loads[1:]))

    def at(self, slew: float, load: float) -> float:
        xs, ys = self.slews, self.loads
        i = bisect_right(xs, slew, 1, len(xs) - 1) - 1        # the grid interval (the first/last one outside)
        j = bisect_right(ys, load, 1, len(ys) - 1) - 1
        t, u = (slew - xs[i]) * self._dx[i], (load - ys[j]) * self._dy[j]
        r0, r1 = self.values[i], self.values[i + 1]
        lo, hi = r0[j] + u * (r0[j + 1] - r0[j]), r1[j] + u * (r1[j + 1] - r1[j])
        return lo + t * (hi - lo)

    @classmethod
    def linear(cls, intrinsic: float, drive: float = 0.0, slew_factor: float = 0.0, nominal: float = 0.0) -> Table:
        """Exactly ``intrinsic + drive * load + slew_factor * (slew - nominal)`` (as ``cells.arc_value``)."""
        return cls((nominal, nominal + 1), (0.0, 1.0), [(intrinsic, intrinsic + drive),
                                                        (intrinsic + slew_factor, intrinsic + slew_factor + drive)])


@dataclass(frozen=True)
class Arc:
    """An arc into an output pin: ``delay``/``transition`` are (rise, fall) models of the output edge (or
    None); ``sense``: ``positive_unate``, ``negative_unate``, ``non_unate``, or (clock -> Q) ``rising_edge``."""

    pin: str
    sense: str
    delay: tuple
    transition: tuple


@dataclass(frozen=True)
class CellTiming:
    """One cell type: input pin capacitances (fF), output pins, arcs by output pin; a flip-flop has a ``clock``
    pin, ``setup`` models (rise, fall) of (pin slew, clock slew) by D pin, and clock -> Q arcs into ``q_pins``."""

    name: str
    inputs: dict[str, float]
    outputs: tuple[str, ...]
    arcs: dict[str, tuple[Arc, ...]]
    clock: str | None = None
    setup: dict[str, tuple] = field(default_factory=dict)

    @property
    def q_pins(self) -> tuple[str, ...]:
        return tuple(q for q in self.outputs if any(a.sense in CLOCK_ARCS for a in self.arcs.get(q, ())))


@dataclass(frozen=True)
class TimingLibrary:
    """Cells by name, the default slew of inputs and clocks (ps), and ``wire.at(0, fanout)``: wire cap (fF)."""

    name: str
    cells: dict[str, CellTiming]
    nominal_slew_ps: float
    wire: Table
    max_transition_ps: float | None = None      # the library's default_max_transition, if it states one

    def wire_cap(self, fanout: int) -> float:
        return self.wire.at(0.0, fanout)

    @classmethod
    def from_cells(cls, cells: dict, *, name: str = "cells") -> TimingLibrary:
        """From a cell description (:func:`accelgen.fit.cells.load_cells`)."""
        if problems := check_cells(cells):
            raise ConfigError(problems)
        nominal, out = cells["nominal_slew_ps"], {}
        for cname, cell in cells["cells"].items():
            ff, pins = cell.get("ff"), list(cell["inputs"])
            clock, arcs = ff["clocked_on"] if ff else None, {}
            for oname, spec in cell["outputs"].items():
                arcs[oname] = tuple(Arc(
                    pin, "rising_edge" if pin == clock else timing_sense(spec["function"], pin, pins),
                    tuple(Table.linear(*spec[k][pin], nominal) for k in ("delay_rise", "delay_fall")),
                    tuple(Table.linear(*spec[k][pin], nominal) for k in ("transition_rise", "transition_fall")))
                    for pin in spec["delay_rise"])
            setup = {ff["next_state"]: tuple(Table.linear(cell["setup_ps"][e]) for e in EDGES)} if ff else {}
            out[cname] = CellTiming(cname, dict(cell["inputs"]), tuple(cell["outputs"]), arcs, clock, setup)
        return cls(cells.get("name", name), out, nominal, Table.linear(0.0, cells["wire_cap_per_fanout_ff"]))


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

    def buffer(self, strongest: bool = True) -> CellPower:
        """The library's buffer (one input, output = that input) with the largest (or smallest) drive."""
        bufs = [c for c in self.cells.values() if c.ff is None and len(c.inputs) == 1 and len(c.outputs) == 1
                and next(iter(c.outputs.values())) == ("var", next(iter(c.inputs)))]
        if not bufs:
            raise ConfigError([("liberty", f"{self.name}: no buffer cell; the clock tree needs one")])
        return (max if strongest else min)(bufs, key=lambda c: (next(iter(c.inputs.values())), c.name))


def scaled(table: Table, factor: float) -> Table:
    """``table`` with every value times ``factor``."""
    return Table(table.slews, table.loads, [[v * factor for v in row] for row in table.values])
