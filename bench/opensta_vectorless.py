"""A second vectorless computation: OpenSTA's report_power on a FEATHER block mapped by accelgen's flow, against
``accelgen synth --vectorless`` (fit/vectorless.py) on the same netlist and library (issue 49, item 2).

    python bench/opensta_vectorless.py --checkout DIR [--design pe] [--workdir /tmp/opensta_vectorless]

Needs Debian's ``opensta`` (``sta`` on the PATH; bench only) and FEATHER's RTL and reports at a414376 in ``DIR`` (as
bench/third_party_ladder.py). The block is read and mapped as the ladder does (its parameters from DC's design name,
500 MHz, default library), written as structural Verilog (bench/energy_points.py's ``netlist_verilog``) and given to
OpenSTA with the same generated Liberty, a 2 ns clock on ``clk``, the flow's nominal input slew and output load, and
``set_power_activity -input -activity 0.1 -duty 0.5`` (DC's defaults; held inputs at activity 0, duty of their
value). OpenSTA propagates the activity itself, flip-flops included (it derives a register's output activity from its
D input's, where DC and accelgen's vectorless mode pin it at the default rate).

Printed: OpenSTA's dynamic energy per cycle (and with its internal part halved: OpenSTA 2.0.17 charges an output
toggle the sum of its rise and fall internal energies, bench/opensta_power.py's docstring), accelgen's vectorless
zero-delay switching plus the flip-flops' clock pins (internal energy and C V^2; OpenSTA's ideal clock has no tree);
accelgen's energy per toggle weighed with OpenSTA's propagated activities (parting the activity model from the energy
per toggle); and the activities themselves, OpenSTA's against accelgen's densities, on combinational and flip-flop
output pins.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import energy_points as ep
import numpy as np
import third_party_ladder as tpl
from opensta_power import run_sta

from accelgen.fit.activity import GateSim
from accelgen.fit.external import flow_design
from accelgen.fit.liberty_read import read_power_library
from accelgen.fit.mapping import OUTPUT_LOAD_FF, map_netlist
from accelgen.fit.power import net_energy
from accelgen.fit.vectorless import DC_STATIC_PROBABILITY, DC_TOGGLE_RATE, Sources, propagate, source_densities


def tcl(lib: Path, design: Path, top: str, period_ps: float, slew_ps: float, held: dict[str, int], mod: dict) -> str:
    held_lines = "".join(f"sta::set_power_input_port_activity [get_ports {{{name}[{i}]}}] 0 {(value >> i) & 1}\n"
                         for name, value in held.items() for i in range(len(mod["ports"][name]["bits"])))
    return (f"read_liberty {lib}\nread_verilog {design}\nlink_design {top}\n"
            f"create_clock -name clk -period {period_ps} [get_ports clk]\n"
            f"set_input_transition {slew_ps} [all_inputs]\nset_load {OUTPUT_LOAD_FF} [all_outputs]\n"
            f"set_power_activity -input -activity {DC_TOGGLE_RATE} -duty {DC_STATIC_PROBABILITY}\n{held_lines}"
            "sta::set_debug power_activity 3\nreport_power -digits 6\nexit\n")


def compare(key: str, checkout: Path, workdir: Path) -> dict:
    block = next(b for b in tpl.BLOCKS if b.key == key)
    area, _, period_ns = tpl._read_report(checkout)
    rtl = checkout / tpl.RTL_DIR
    files = [rtl / f for f in block.files]
    design_name = area["instances"][block.instance]["design"]
    params = block.params or tpl.design_parameters(design_name, block.module, tpl.declared_parameters(
        files[0].read_text(), block.module))
    _, _, verilog = flow_design(files, block.module, params=params)
    mapped = map_netlist(verilog, block.module, clock_mhz=1000.0 / period_ns)
    plib = read_power_library(mapped.library_path)
    energy = net_energy(mapped.netlist, block.module, plib, output_load_ff=OUTPUT_LOAD_FF)
    sim = GateSim(mapped.netlist, block.module, library=plib)
    _, dens = propagate(sim, Sources(held=block.held))
    simulated = source_densities(sim, Sources(held=block.held))
    workdir.mkdir(parents=True, exist_ok=True)
    netlist_v = workdir / f"{key}.v"
    netlist_v.write_text(ep.netlist_verilog(mapped.netlist, block.module, plib))
    mod = ep.module_of(mapped.netlist, block.module)
    groups, act = run_sta(tcl(mapped.library_path, netlist_v, block.module, period_ns * 1000, plib.nominal_slew_ps,
                              block.held, mod), workdir / f"{key}.tcl")
    vdd = plib.vdd_v
    pins_fj = energy.clock_internal_fj + energy.clock_pin_ff * vdd ** 2
    n = len(energy.per_toggle_fj)
    ours_fj = float(dens[:n] @ energy.per_toggle_fj) + pins_fj
    dc_fj = float(simulated[:n] @ energy.per_toggle_fj) + pins_fj
    # driver pins: accelgen's density and OpenSTA's activity of each, split by the driving cell's kind
    pairs = {"combinational": [], "flip-flop": []}
    at_sta_fj = 0.0
    for iname, ctype, conn in ep.cell_instances(mapped.netlist, block.module):
        cell = plib.cells[ctype]
        for pin, b in conn.items():
            if pin in cell.outputs and isinstance(b, int):
                a = act.get(f"{iname}/{pin}", 0.0)
                at_sta_fj += a * energy.per_toggle_fj[b]
                pairs["flip-flop" if cell.ff else "combinational"].append((dens[b], a, simulated[b]))
    ports_fj = sum(dens[b] * energy.per_toggle_fj[b] for p in mod["ports"].values() if p["direction"] == "input"
                   for b in p["bits"] if isinstance(b, int))
    at_sta_fj += ports_fj + pins_fj
    t = groups["Total"]
    sta_pj = (t["internal"] + t["switching"]) * period_ns * 1000.0        # W x ps = pJ
    halved_pj = (t["internal"] / 2 + t["switching"]) * period_ns * 1000.0
    print(f"{key} ({block.module}, {energy.flip_flops} flip-flops, {sum(energy.cells_by_type.values())} cells), "
          f"pJ per {period_ns:g} ns cycle at 45 nm, 1.1 V:")
    print(f"  accelgen --vectorless --propagation density: switching {(ours_fj - pins_fj) / 1e3:.4f} + flip-flop "
          f"clock pins {pins_fj / 1e3:.4f} = {ours_fj / 1e3:.4f}; with the default (simulation) propagation "
          f"{dc_fj / 1e3:.4f} (OpenSTA halved / that {halved_pj * 1e3 / dc_fj:.3f})")
    print(f"  OpenSTA: internal {t['internal'] * 1e3:.4f} mW, switching {t['switching'] * 1e3:.4f} mW -> "
          f"{sta_pj:.4f} pJ ({sta_pj * 1e3 / ours_fj:.3f}x); internal halved {halved_pj:.4f} pJ "
          f"({halved_pj * 1e3 / ours_fj:.3f}x)")
    print(f"  accelgen's energy per toggle at OpenSTA's activities: {at_sta_fj / 1e3:.4f} pJ "
          f"({at_sta_fj / ours_fj:.3f}x accelgen's vectorless: the activity model); OpenSTA halved / that "
          f"{halved_pj * 1e3 / at_sta_fj:.3f} (energy per toggle)")
    out = {"accelgen_density_pj": ours_fj / 1e3, "accelgen_simulation_pj": dc_fj / 1e3, "opensta_pj": sta_pj, "opensta_internal_halved_pj": halved_pj,
           "accelgen_at_opensta_activity_pj": at_sta_fj / 1e3}
    for kind, pts in pairs.items():
        if not pts:
            continue
        ours, theirs, by_sim = np.array(pts).T
        close = np.isclose(ours, theirs, rtol=1e-3, atol=1e-6).mean()
        print(f"  {kind} output pins ({len(pts)}): mean activity accelgen density {ours.mean():.4f} (simulation "
              f"{by_sim.mean():.4f}), OpenSTA {theirs.mean():.4f}; density equal to OpenSTA's (0.1%) on {close:.1%}")
        out[kind] = {"pins": len(pts), "accelgen_mean": float(ours.mean()), "opensta_mean": float(theirs.mean()),
                     "equal_share": float(close)}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkout", type=Path, required=True, help="directory holding FEATHER_RTL/ (RTL and reports)")
    ap.add_argument("--design", action="append", choices=[b.key for b in tpl.BLOCKS], help="blocks (default: pe)")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/opensta_vectorless"))
    args = ap.parse_args()
    if shutil.which("sta") is None:
        print("OpenSTA (sta) is not on the PATH: apt-get install opensta", file=sys.stderr)
        return 2
    for key in args.design or ["pe"]:
        compare(key, args.checkout, args.workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
