"""A second power computation: OpenSTA's report_power on the netlist and library accelgen's flow measures (issue 49).

    python bench/opensta_power.py [int8_mac fp16_mac int16_mac] [--workdir /tmp/opensta_power]

Needs Debian's ``opensta`` (``sta`` on the PATH; bench only). For each point of bench/energy_points.py, mapped by
the flow (default library, 1 GHz), this writes the mapped netlist as structural Verilog and runs OpenSTA with the
same generated Liberty, a 1 ns clock on ``clk``, the flow's nominal input slew (17.19 ps), its output load
(``OUTPUT_LOAD_FF``) and the library's default wire load, in two activity settings:

* ``vectorless 0.5``: ``set_power_activity -input -activity 0.5`` (every input bit toggles in half of the cycles,
  as uniform random data do) and OpenSTA's own propagation through the logic (probabilistic, zero-delay);
* ``per net``: every cell output pin and input port bit gets the activity accelgen's zero-delay gate simulation
  measured on the sweep's stimulus (toggles per cycle), so both tools weigh the same toggles.

OpenSTA has no clock tree (ideal clock): its total is compared with accelgen's zero-delay switching energy per cycle
plus the flip-flops' clock pins (their internal energy and ``C V^2``), accelgen's clock-network wire and buffers
listed apart. Energy per cycle = OpenSTA's power x the 1 ns period.

OpenSTA 2.0.17 (Debian's) charges an output toggle the *sum* of its internal_power rise and fall energies
(search/Power.cc at 3076b8d, Power::findInternalPower: ``port_energy += table_energy * duty`` over both edges, then
``port_energy * activity``) and a clock pin two transitions per cycle of that sum: twice the Liberty meaning (an
energy per transition). OpenSTA's current source averages them (power/Power.cc at d1b2b39,
Power::findOutputInternalPower: ``energy /= rf_count``), as accelgen's net_energy does. So the script also prints
OpenSTA's total with its internal part halved. And OpenSTA 2.0.17 propagates activities itself (probabilistically,
inputs independent): the last line of each run weighs accelgen's energy per toggle with OpenSTA's own activities, to
part the activity model from the energy per toggle.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import energy_points as ep
import numpy as np
from accelgen.fit.mapping import OUTPUT_LOAD_FF

PERIOD_PS = 1000.0


def _tcl(lib: Path, design: Path, top: str, slew_ps: float, activity: str) -> str:
    return (f"read_liberty {lib}\nread_verilog {design}\nlink_design {top}\n"
            f"create_clock -name clk -period {PERIOD_PS} [get_ports clk]\n"
            f"set_input_transition {slew_ps} [all_inputs]\nset_load {OUTPUT_LOAD_FF} [all_outputs]\n"
            f"{activity}report_power -digits 6\nexit\n")


def run_sta(tcl: str, path: Path) -> tuple[dict, dict[str, float]]:
    """OpenSTA's report_power groups (W: internal, switching, leakage, total per group and in all) and the activity
    (toggles per clock period) its propagation gave every driver pin (``inst/PIN``), read from its debug output."""
    path.write_text(tcl)
    out = subprocess.run(["sta", "-no_splash", "-exit", str(path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         check=True).stdout
    groups, activity = {}, {}
    for line in out.splitlines():
        m = re.match(r"^(Sequential|Combinational|Clock|Macro|Pad|Total)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", line)
        if m:
            groups[m.group(1)] = dict(zip(("internal", "switching", "leakage", "total"), map(float, m.groups()[1:])))
        m = re.match(r"^power_activity: set (\S+) (\S+) (\S+)", line)
        if m:
            activity[m.group(1)] = float(m.group(2))
    if "Total" not in groups:
        raise RuntimeError(f"no report_power total in OpenSTA's output:\n{out}")
    return groups, activity


def input_activity(point: ep.Point, data_activity: float | None) -> tuple[str, np.ndarray, int]:
    """Commands giving every input port bit its activity and duty: a single-bit port (a control: enable, clear,
    reset) as simulated, a wider one (an operand) ``data_activity`` and duty 0.5, or as simulated when None
    (OpenSTA 2.0.17's set_power_activity -input_ports calls an undefined get_pins_error: its underlying command is
    called); the simulated toggles of every net and the lane-cycles counted. OpenSTA 2.0.17 cannot take the
    internal nets' activities: its propagation overwrites a driver pin's activity with its function's
    (search/Power.cc, PropActivityVisitor::visit)."""
    counts, counted, ones = ep.per_net_toggles(point.sim, point.stimuli)
    mod = ep.module_of(point.mapped.netlist, ep.TOP)
    lines = []
    for name, p in mod["ports"].items():
        if p["direction"] == "input" and name != "clk":
            for i, b in enumerate(p["bits"]):
                if not isinstance(b, int):
                    continue
                act, duty = counts[b] / counted, ones[b] / counted
                if data_activity is not None and len(p["bits"]) > 1:
                    act, duty = data_activity, 0.5
                lines.append(f"sta::set_power_input_port_activity [get_ports {{{name}[{i}]}}] {act:.6f} {duty:.6f}")
    return "\n".join(lines) + "\n", counts, counted


def energy_at(point: ep.Point, activity: dict[str, float]) -> float:
    """accelgen's energy per cycle (fJ) of the cell-driven nets at OpenSTA's activities: the sum over driver pins of
    OpenSTA's activity times accelgen's energy per toggle of the pin's net."""
    total = 0.0
    for iname, ctype, conn in ep.cell_instances(point.mapped.netlist, ep.TOP):
        cell = point.plib.cells[ctype]
        for pin, b in conn.items():
            if pin in cell.outputs and isinstance(b, int):
                total += activity.get(f"{iname}/{pin}", 0.0) * point.energy.per_toggle_fj[b]
    return total


def compare(name: str, workdir: Path) -> dict:
    point = ep.prepare(name)
    d = workdir / name
    d.mkdir(parents=True, exist_ok=True)
    design = d / "design.v"
    design.write_text(ep.netlist_verilog(point.mapped.netlist, ep.TOP, point.plib))
    lib, slew = point.mapped.library_path, point.plib.nominal_slew_ps
    mod = ep.module_of(point.mapped.netlist, ep.TOP)
    debug = "sta::set_debug power_activity 3\n"
    vectorless, _, _ = input_activity(point, 0.5)
    measured, counts, counted = input_activity(point, None)
    runs = {"operands 0.5": run_sta(_tcl(lib, design, ep.TOP, slew, vectorless + debug), d / "vectorless.tcl"),
            "inputs as simulated": run_sta(_tcl(lib, design, ep.TOP, slew, measured + debug), d / "inputs.tcl")}
    e, r, vdd = point.energy, point.zero_delay["weighted_per_cycle"], point.plib.vdd_v
    pins_fj = e.clock_internal_fj + e.clock_pin_ff * vdd ** 2
    ports_fj = sum(counts[b] / counted * e.per_toggle_fj[b] for p in mod["ports"].values()
                   if p["direction"] == "input" for b in p["bits"] if isinstance(b, int))
    ours = r["switching_fj"] + pins_fj
    driven = counts > 0
    print(f"{name}: {sum(e.cells_by_type.values())} cells, {e.flip_flops} flip-flops, area {e.area_um2:.0f} um^2; "
          f"pJ per 1 ns cycle")
    print(f"  accelgen zero-delay (simulated activity): data nets {r['switching_fj'] / 1e3:.3f} (internal "
          f"{r['internal_fj'] / 1e3:.3f}, loads {(r['switching_fj'] - r['internal_fj']) / 1e3:.3f}, of which input "
          f"ports {ports_fj / 1e3:.3f}) + flip-flop clock pins {pins_fj / 1e3:.3f} = {ours / 1e3:.3f}; clock tree wire"
          f" and buffers {(point.clock['energy_fj'] - pins_fj) / 1e3:.3f} more; leakage {e.leakage_nw / 1e6:.4f} mW;"
          f" mean simulated toggles per toggling net and cycle {counts[driven].sum() / counted / driven.sum():.3f}")
    out = {"accelgen_pj": ours / 1e3}
    for label, (g, act) in runs.items():
        t = g["Total"]
        dyn = (t["internal"] + t["switching"]) * PERIOD_PS       # W x ps = pJ
        same = (energy_at(point, act) + ports_fj + pins_fj) / 1e3
        mean_act = sum(act.values()) / max(1, len(act))
        print(f"  OpenSTA, {label}: internal {t['internal'] * 1e3:.4f} mW, switching {t['switching'] * 1e3:.4f} mW, "
              f"leakage {t['leakage'] * 1e3:.4f} mW -> dynamic {dyn:.3f} pJ/cycle = {dyn * 1e3 / ours:.3f}x "
              f"accelgen's")
        fixed = (t["internal"] / 2 + t["switching"]) * PERIOD_PS
        print(f"      with OpenSTA 2.0.17's internal energy halved (see the docstring): {fixed:.3f} pJ/cycle = "
              f"{fixed * 1e3 / ours:.3f}x accelgen's")
        print(f"      accelgen's energy per toggle at OpenSTA's propagated activities (mean {mean_act:.3f} per pin): "
              f"{same:.3f} pJ; OpenSTA halved / that {fixed / same:.3f} (energy per toggle), that / accelgen "
              f"{same * 1e3 / ours:.3f} (activity)")
        out[label] = {"opensta_pj": dyn, "opensta_internal_halved_pj": fixed, "accelgen_at_sta_activity_pj": same}
    return out


def main() -> int:
    return ep.main_over_points(__doc__.splitlines()[0], "sta", "apt-get install opensta",
                               lambda name, args: compare(name, args.workdir), workdir=Path("/tmp/opensta_power"))


if __name__ == "__main__":
    sys.exit(main())
