"""The design points of issue 49's energy cross-checks, mapped and simulated the way a sweep point is measured.

Shared by bench/opensta_power.py and bench/glitch_vs_icarus.py (and read by bench/library_vs_nangate.py for the
cell histogram): :func:`prepare` renders a family's point, maps it with the flow (:func:`accelgen.fit.mapping.
map_netlist`, default library, the sweep's 1 GHz), computes every net's energy per toggle
(:func:`accelgen.fit.power.net_energy`) and the clock network's, draws the sweep's stimulus
(:func:`accelgen.fit.stimuli.point_stimuli`, seed 1) and runs the zero-delay gate simulation, exactly as
:func:`accelgen.fit.measure.measure` does.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from accelgen.fit.activity import ONES, GateSim
from accelgen.fit.liberty_read import read_power_library
from accelgen.fit.mapping import OUTPUT_LOAD_FF, map_netlist
from accelgen.fit.netlist import module_of
from accelgen.fit.power import clock_network, net_energy
from accelgen.fit.stimuli import point_stimuli
from accelgen.gen.emit import render
from accelgen.registry import FAMILIES

TOP = "dut"
#: the points of the issue's first section (accelgen predict's mac and mac-fp16 at 45 nm)
POINTS = {
    "int8_mac": ("mac", {"a_width": 8, "b_width": 8, "acc_width": 24, "input_reg": True}),
    "fp16_mac": ("mac", {"dtype": "fp16", "input_reg": True}),
    "int16_mac": ("mac", {"a_width": 16, "b_width": 16, "acc_width": 40, "input_reg": True}),
}


@dataclass
class Point:
    name: str
    mapped: object
    plib: object
    energy: object
    clock: dict
    sim: GateSim
    stimuli: list
    zero_delay: dict       # GateSim.run's result on the stimuli, weighted by each net's energy per toggle


def prepare(name: str, *, density: float = 1.0, cycles: int = 160, lanes: int = 64, clock_mhz: float = 1000.0
            ) -> Point:
    family, params = POINTS[name]
    return prepare_params(name, family, params, density=density, cycles=cycles, lanes=lanes, clock_mhz=clock_mhz)


def prepare_params(name: str, family: str, params: dict, *, density: float = 1.0, cycles: int = 160, lanes: int = 64,
                   seed: int = 1, clock_mhz: float = 1000.0) -> Point:
    """:func:`prepare` of any point of a family (a sweep's: its cycles, lanes, seed and clock)."""
    fam = FAMILIES[family]
    p = fam.validate(params)
    e = render(fam, p, TOP)
    mapped = map_netlist(e.verilog, TOP, cells=fam.mapped_cells(e.manifest), clock_mhz=clock_mhz)
    plib = read_power_library(mapped.library_path)
    energy = net_energy(mapped.netlist, TOP, plib, output_load_ff=OUTPUT_LOAD_FF)
    clock = clock_network(plib, energy.flip_flops, energy.clock_pin_ff, energy.clock_internal_fj, energy.area_um2)
    sim = GateSim(mapped.netlist, TOP, library=plib)
    stims = point_stimuli(fam, p, [density], cycles, lanes, seed)[str(density)]
    r = sim.run(stims, weights={"switching_fj": energy.per_toggle_fj, "internal_fj": energy.internal_fj})
    return Point(name, mapped, plib, energy, clock, sim, stims, r)


def per_net_toggles(sim: GateSim, stims: list, *, skip: int | None = None) -> tuple[np.ndarray, int, np.ndarray]:
    """Zero-delay toggles of every net (by Yosys bit) summed over the lanes and the counted cycles (after the
    warm-up, as :meth:`accelgen.fit.glitch.TimedSim.run` counts them), the number of lane-cycles counted, and how
    many of them each net was 1 (its duty, times the lane-cycles)."""
    counts = np.zeros(sim.n_nets)
    ones = np.zeros(sim.n_nets)
    inputs = sim.input_words(stims)
    cycles, warm, lanes = stims[0].cycles, stims[0].warmup, len(stims)
    lane_mask = ONES if lanes == 64 else np.uint64((1 << lanes) - 1)
    val = np.zeros(sim.n_nets, dtype=np.uint64)
    val[1] = lane_mask
    sim.evaluate(val, lane_mask)
    state = np.zeros(len(sim.q_idx), dtype=np.uint64)
    first = max(warm, 1) if skip is None else skip
    for step in range(cycles + 1):
        start = val.copy()
        for pname, words in inputs.items():
            for j, b in enumerate(sim.ports[pname][1]):
                if b >= 2:
                    start[b] = words[step, j]
        q = state[sim.q_ff]
        start[sim.q_idx] = np.where(sim.q_inv, ~q & lane_mask, q)
        sim.evaluate(start, lane_mask)
        if step - 1 >= first:
            counts += np.bitwise_count(start ^ val)
            ones += np.bitwise_count(start & lane_mask)
        val = start
        state = val[sim.d_idx].copy()
    return counts, (cycles - first) * lanes, ones


def cell_instances(netlist: dict, top: str) -> list[tuple[str, str, dict[str, int | str]]]:
    """The top module's cells as ``(instance name, cell type, {pin: net bit or constant "0"/"1"})``, instances named
    ``c0, c1, ...`` in the netlist's order (the Yosys names are not legal plain Verilog identifiers)."""
    mod = module_of(netlist, top)
    out = []
    for inst in mod.get("cells", {}).values():
        ctype = inst["type"].lstrip("\\")
        if ctype == "$scopeinfo":
            continue
        out.append((f"c{len(out)}", ctype, {pin: bits[0] for pin, bits in inst.get("connections", {}).items()}))
    return out


def net_name(mod: dict, b) -> str:
    """A bit's Verilog name: ``port[i]`` for a port bit, ``n<bit>`` otherwise, ``1'b0``/``1'b1`` for constants."""
    if isinstance(b, str):
        return f"1'b{b}" if b in "01" else "1'bx"
    for name, p in mod["ports"].items():
        if b in p["bits"]:
            return f"{name}[{p['bits'].index(b)}]"
    return f"n{b}"


def netlist_verilog(netlist: dict, top: str, plib) -> str:
    """The mapped netlist of ``top`` as structural Verilog (named pin connections to the library's cells)."""
    mod = module_of(netlist, top)
    lines = [f"module {top} ({', '.join(mod['ports'])});"]
    port_bits = set()
    for name, p in mod["ports"].items():
        lines.append(f"  {p['direction']} [{len(p['bits']) - 1}:0] {name};")
        port_bits.update(b for b in p["bits"] if isinstance(b, int))
    insts = cell_instances(netlist, top)
    wires = sorted({b for _, _, conn in insts for b in conn.values() if isinstance(b, int)} - port_bits)
    lines += [f"  wire n{b};" for b in wires]
    # an output port bit that is a constant or another port's bit (no cell drives it under this name)
    for name, p in mod["ports"].items():
        if p["direction"] != "output":
            continue
        for i, b in enumerate(p["bits"]):
            other = net_name(mod, b)
            if other != f"{name}[{i}]":
                lines.append(f"  assign {name}[{i}] = {other};")
    for iname, ctype, conn in insts:
        pins = ", ".join(f".{pin}({net_name(mod, b)})" for pin, b in conn.items())
        lines.append(f"  {ctype} {iname} ({pins});")
    lines.append("endmodule")
    return "\n".join(lines) + "\n"


def main_over_points(description: str, tool: str, install: str, compare, *, workdir: Path, options=()) -> int:
    """The command line the cross-check benches share: the points to compare (default the int8 and fp16 MACs),
    ``--workdir``, and ``options`` (``(flags, add_argument keywords)`` pairs); exit 2 when ``tool`` (the second
    computation) is not on the PATH. ``compare(name, args)`` runs one point."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("points", nargs="*", default=["int8_mac", "fp16_mac"], choices=sorted(POINTS))
    ap.add_argument("--workdir", type=Path, default=workdir)
    for flags, kwargs in options:
        ap.add_argument(*flags, **kwargs)
    args = ap.parse_args()
    if shutil.which(tool) is None:
        print(f"{tool} is not on the PATH: {install}", file=sys.stderr)
        return 2
    for name in args.points:
        compare(name, args)
    return 0
