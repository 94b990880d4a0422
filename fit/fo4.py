"""The FO4 delay of a cell library: the unit in which its mapped delays carry to another process.

A netlist's critical path, expressed in FO4 delays of the library it was timed with, is to first order
independent of that library's speed (Harris, Sutherland, Sproull, *Logical Effort*, 1999, ch. 1; Ho, Mai,
Horowitz, "The future of wires", Proc. IEEE 2001, measure logic in FO4 for that reason). The fitted models'
delays are therefore scaled to a node as ``delay x FO4(node) / FO4(library)`` (:func:`accelgen.fit.model.
tech_factor`), with the node's FO4 from the node table and the library's from :func:`fo4_ps`, and not by the
node table's ratio alone, which would give every node the reference library's speed relative to its process.

Measured for the two libraries the project maps to (``python bench/osu018_compare.py --fo4``): NanGate45
(typical, 1.1 V) 21.7 ps, against the node table's 12.5 ps at 45 nm; Debian's osu018 (180 nm, 1.8 V) 99 ps.
Their ratio, 4.6, is about the ratio of the two libraries' mapped delays of the same designs (medians 4.3-4.4 for
the MAC, systolic array and TensorDash PE, 3.9 for FAN, osu018 mapped at the same clock in FO4 delays; bench/
RESULTS.md), where the node table's 180/45 nm ratio says 6.3.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError
from .sta import FALL, RISE, TimingLibrary

#: a fan-out of four: the inverter drives four copies of its own input pin (pin capacitance only, no wire, as
#: the FO4 of a process is defined and as the node table's figures were simulated)
FANOUT = 4


def _inverters(lib: TimingLibrary):
    for cell in lib.cells.values():
        if cell.clock is None and len(cell.inputs) == 1 and len(cell.outputs) == 1:
            arcs = cell.arcs.get(cell.outputs[0], ())
            if len(arcs) == 1 and arcs[0].sense == "negative_unate" and all(arcs[0].delay + arcs[0].transition):
                yield cell


def fo4_ps(lib: TimingLibrary) -> float:
    """The FO4 delay (ps) of ``lib``: its smallest inverter (least input capacitance) driving ``FANOUT`` copies of
    its input pin, at the steady-state slews of a chain of such stages, the mean of the rising and falling output
    delays."""
    cells = sorted(_inverters(lib), key=lambda c: (next(iter(c.inputs.values())), c.name))
    if not cells:
        raise ConfigError([("liberty", f"{lib.name!r} has no inverter (one input, one negative-unate output): its "
                                       "FO4 delay, the unit fitted delays are scaled to a node in, cannot be measured")])
    inv = cells[0]
    load = FANOUT * next(iter(inv.inputs.values()))
    arc = inv.arcs[inv.outputs[0]][0]
    slew = {RISE: lib.nominal_slew_ps, FALL: lib.nominal_slew_ps}    # of the input, by its edge
    for _ in range(200):     # an inverting chain: a rising output is driven by a falling input, and feeds one
        new = {RISE: arc.transition[RISE].at(slew[FALL], load), FALL: arc.transition[FALL].at(slew[RISE], load)}
        done = all(abs(new[e] - slew[e]) < 1e-6 for e in (RISE, FALL))
        slew = new
        if done:
            break
    return (arc.delay[RISE].at(slew[FALL], load) + arc.delay[FALL].at(slew[RISE], load)) / 2.0


def library_fo4_ps(liberty: str | Path) -> float:
    """:func:`fo4_ps` of a Liberty file."""
    return fo4_ps(TimingLibrary.from_liberty(liberty))
