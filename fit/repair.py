"""Electrical repair of a mapped netlist: drive the loads that ABC did not see.

:func:`accelgen.fit.mapping.map_netlist` maps large modules (floating-point units, a TensorDash scheduler) and cell
modules by ABC runs of their own, in which each module output drives :data:`~accelgen.fit.mapping.OUTPUT_LOAD_FF`.
A net that leaves such a module for many sinks keeps the small driver ABC sized for that load: measured
2026-11-24, the select lines of the integer TensorDash tile's scheduler (4 rows x 6 lanes, depth 2) leave it on a
NOR3_X1 whose real load puts 930 ps on that one gate, and the tile times at 3.53 ns where its depth-4 twin times at
2.41 ns. A flat mapping would have buffered it; a physical-synthesis flow repairs it after linking (OpenROAD's
``repair_design``: max capacitance and max slew from the library).

:func:`repair_drive` does the same on the flat netlist, with the library's own limits: each output pin's
``max_capacitance`` and the library's ``default_max_transition`` (the characterized range). A net whose driver
exceeds either at its real load (pins plus the wire load) gets the smallest cell of the same function that
stays within both; if even the strongest cannot, the strongest drives one level of the library's strongest
buffer, each buffer taking as many sinks as it drives within the limits. Passes repeat until no net
violates, so a driver that now sees too many buffers gets its own level (a tree). Nets driven by the design's
inputs, top-level outputs (which stay on their net) and the clock are left alone. A netlist without violations is
returned unchanged, so designs ABC mapped whole keep their results.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .cell_library import CellPower, PowerLibrary
from .netlist import module_of

#: passes of :func:`repair_drive`: each one adds at most a level of buffers, so 8 levels fan out to
#: (sinks per buffer)^8, far beyond any block here
MAX_PASSES = 8


@dataclass(frozen=True)
class RepairReport:
    upsized: int             # cells swapped for a stronger cell of the same function
    buffers: int             # buffers inserted
    area_added_um2: float
    passes: int              # passes that changed something

    def to_dict(self) -> dict:
        return {"upsized": self.upsized, "buffers": self.buffers, "area_added_um2": self.area_added_um2,
                "passes": self.passes}


def _function_key(cell: CellPower) -> tuple:
    return (tuple(sorted(cell.inputs)), tuple(sorted((p, repr(t)) for p, t in cell.outputs.items())), repr(cell.ff))


def same_function(plib: PowerLibrary) -> dict[str, list[CellPower]]:
    """Every cell's drive-strength family: the library's cells of the same pins and functions, smallest area
    first."""
    groups: dict[tuple, list[CellPower]] = {}
    for cell in plib.cells.values():
        groups.setdefault(_function_key(cell), []).append(cell)
    return {c.name: sorted(group, key=lambda x: (x.area_um2, x.name))
            for group in groups.values() for c in group}


class _Limits:
    def __init__(self, plib: PowerLibrary):
        self.plib, self.tlib = plib, plib.timing
        self.max_transition = self.tlib.max_transition_ps

    def transition(self, cell: str, pin: str, load: float) -> float:
        timing = self.tlib.cells.get(cell)
        values = [t.at(self.tlib.nominal_slew_ps, load) for arc in (timing.arcs.get(pin, ()) if timing else ())
                  for t in arc.transition if t is not None]
        return max(values, default=0.0)

    def ok(self, cell: str, pin: str, load: float) -> bool:
        if load > self.plib.cells[cell].max_cap_ff.get(pin, math.inf):
            return False
        return self.max_transition is None or self.transition(cell, pin, load) <= self.max_transition


def repair_drive(netlist: dict, top: str, plib: PowerLibrary, *, output_load_ff: float = 0.0,
                 clock: str = "clk") -> RepairReport:
    """Resize and buffer, in place, the nets of module ``top`` of a flat netlist mapped to ``plib``'s cells whose
    driver exceeds its pin's max capacitance or the library's max transition (module docstring)."""
    mod = module_of(netlist, top)
    limits, family = _Limits(plib), same_function(plib)
    buf = plib.buffer()
    buf_in, buf_out = next(iter(buf.inputs)), next(iter(buf.outputs))
    clock_bits = {b for name, p in mod["ports"].items() if name == clock for b in p["bits"] if isinstance(b, int)}
    upsized = buffers = passes = 0
    added = 0.0
    next_bit = 1 + max([1] + [b for p in mod["ports"].values() for b in p["bits"] if isinstance(b, int)]
                       + [b for inst in mod.get("cells", {}).values() for bits in inst.get("connections", {}).values()
                          for b in bits if isinstance(b, int)]
                       + [b for net in mod.get("netnames", {}).values() for b in net["bits"] if isinstance(b, int)])
    for _ in range(MAX_PASSES):
        nets = _nets(mod, plib, output_load_ff)
        changed = False
        for b, (inst, pin, sinks, ports, pin_cap) in nets.items():
            if b in clock_bits:
                continue
            load = pin_cap + plib.wire_cap(len(sinks) + ports)
            ctype = mod["cells"][inst]["type"].lstrip("\\")
            if limits.ok(ctype, pin, load):
                continue
            options = family.get(ctype, [plib.cells[ctype]])
            fits = [c for c in options if limits.ok(c.name, pin, load)]
            best = fits[0] if fits else max(options, key=lambda c: (c.max_cap_ff.get(pin, 0.0), -c.area_um2))
            if best.name != ctype:
                mod["cells"][inst]["type"] = best.name
                added += best.area_um2 - plib.cells[ctype].area_um2
                upsized += 1
                changed = True
            if fits or not sinks:
                continue
            for group in _groups(sinks, mod, plib, limits, buf.name, buf_out):
                nb, next_bit = next_bit, next_bit + 1
                name = f"$repair${nb}"
                mod["cells"][name] = {"hide_name": 1, "type": buf.name, "parameters": {}, "attributes": {},
                                      "port_directions": {buf_in: "input", buf_out: "output"},
                                      "connections": {buf_in: [b], buf_out: [nb]}}
                for sink, spin in group:
                    mod["cells"][sink]["connections"][spin] = [nb]
                buffers += 1
                added += buf.area_um2
                changed = True
        if not changed:
            break
        passes += 1
    return RepairReport(upsized, buffers, added, passes)


def _nets(mod: dict, plib: PowerLibrary, output_load_ff: float) -> dict[int, tuple]:
    """Per driven net bit: (driving instance, its pin, the sink (instance, pin)s, the top-level outputs on it, the
    sinks' pin capacitance plus the outputs' load)."""
    drivers, sinks, cap = {}, {}, {}
    for iname, inst in mod.get("cells", {}).items():
        cell = plib.cells.get(inst["type"].lstrip("\\"))
        if cell is None:
            continue
        for pin, bits in inst.get("connections", {}).items():
            b = bits[0] if len(bits) == 1 and isinstance(bits[0], int) else None
            if b is None:
                continue
            if pin in cell.outputs:
                drivers[b] = (iname, pin)
            elif pin in cell.inputs:
                sinks.setdefault(b, []).append((iname, pin))
                cap[b] = cap.get(b, 0.0) + cell.inputs[pin]
    ports = {}
    for p in mod["ports"].values():
        if p["direction"] in ("output", "inout"):
            for b in p["bits"]:
                if isinstance(b, int):
                    ports[b] = ports.get(b, 0) + 1
    return {b: (inst, pin, sinks.get(b, []), ports.get(b, 0), cap.get(b, 0.0) + ports.get(b, 0) * output_load_ff)
            for b, (inst, pin) in drivers.items()}


def _groups(sinks, mod, plib, limits, buf_name, buf_out):
    """The sinks split, in netlist order, into groups that one buffer drives within the limits."""
    groups, group, cap = [], [], 0.0
    for sink, pin in sinks:
        c = plib.cells[mod["cells"][sink]["type"].lstrip("\\")].inputs[pin]
        if group and not limits.ok(buf_name, buf_out, cap + c + plib.wire_cap(len(group) + 1)):
            groups.append(group)
            group, cap = [], 0.0
        group.append((sink, pin))
        cap += c
    return groups + [group] if group else groups
