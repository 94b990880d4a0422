"""How wide are the glitches of the timed simulation (fit/glitch.py)? A test of the partial-swing hypothesis.

    python bench/glitch_pulse_widths.py mac '{"dtype": "bf16", "input_reg": true}' [--density 1.0] [--lanes 16]

The timed simulation counts every pulse that outlives its cell's inertial delay as two full-swing toggles. If the
glitch energy came mostly from pulses not much wider than that delay, real gates (whose outputs need their
transition time to swing rail to rail) would dissipate much less of it than counted, and the glitch ratios of up
to ~6 (bf16 MAC, unpipelined) would be an artefact of the delay model. This maps one design point of a family as
the sweeps do (default library, 1 GHz), runs the same timed simulation on the same stimulus, records the width of
every pulse (two toggles of one net within one cycle) and prints which share of the pulse energy comes from pulses
narrower than the driving cell's delay plus its output transition time, and other bounds.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from accelgen.fit import sweep
from accelgen.fit.glitch import TimedSim, cell_delays
from accelgen.fit.liberty_read import read_power_library
from accelgen.fit.mapping import OUTPUT_LOAD_FF, map_netlist
from accelgen.fit.power import net_energy
from accelgen.fit.activity import GateSim
from accelgen.fit.netlist import module_of
from accelgen.gen.emit import render
from accelgen.registry import FAMILIES


def transition_ps(netlist: dict, top: str, tlib, load_ff: np.ndarray) -> dict[int, float]:
    """Output transition time (ps) of the cell driving each net, at the nominal input slew and the net's load."""
    out = {}
    for inst in module_of(netlist, top).get("cells", {}).values():
        cell = tlib.cells.get(inst["type"].lstrip("\\"))
        if cell is None:
            continue
        for pin, bits in inst.get("connections", {}).items():
            if pin in cell.outputs and isinstance(bits[0], int):
                vals = [t.at(tlib.nominal_slew_ps, float(load_ff[bits[0]]))
                        for arc in cell.arcs.get(pin, ()) for t in arc.transition if t is not None]
                out[bits[0]] = sum(vals) / len(vals) if vals else 0.0
    return out


class PulseRecorder:
    """Records ``(net, width in steps)`` of every pulse of a :class:`TimedSim` (a net that toggles twice in one
    cycle; a third toggle opens the next pulse), through its ``on_flips`` observer."""

    def __init__(self, timed: TimedSim):
        self.out = timed.out
        self.pulses: list[tuple[int, int]] = []
        self._open: dict[tuple[int, int], int] = {}
        self._cycle = None
        timed.on_flips = self

    def __call__(self, cycle: int, step: int, flips: np.ndarray) -> None:
        if cycle != self._cycle:        # a new cycle: its pulses start afresh
            self._open.clear()
            self._cycle = cycle
        for gi in np.nonzero(flips)[0]:
            net, word = int(self.out[gi]), int(flips[gi])
            for lane in range(64):
                if word >> lane & 1:
                    start = self._open.pop((net, lane), None)
                    if start is None:
                        self._open[(net, lane)] = step
                    else:
                        self.pulses.append((net, step - start))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("family")
    ap.add_argument("params", help="the design point's generator parameters (JSON)")
    ap.add_argument("--density", type=float, default=1.0)
    ap.add_argument("--lanes", type=int, default=16)
    ap.add_argument("--cycles", type=int, default=48)
    args = ap.parse_args()
    fam = FAMILIES[args.family]
    params = fam.validate(json.loads(args.params))
    e = render(fam, params, "dut")
    mapped = map_netlist(e.verilog, "dut", cells=fam.mapped_cells(e.manifest), clock_mhz=1000)
    plib = read_power_library(mapped.library_path)
    energy = net_energy(mapped.netlist, "dut", plib, output_load_ff=OUTPUT_LOAD_FF)
    sim = GateSim(mapped.netlist, "dut", library=plib)
    stims = sweep._stimuli(fam, params, args.density, {"cycles": args.cycles, "seed": 1, "lanes": args.lanes})
    delays = cell_delays(mapped.netlist, "dut", mapped.timing_library, energy.load_ff)
    trans = transition_ps(mapped.netlist, "dut", mapped.timing_library, energy.load_ff)
    timed = TimedSim(sim, delays)
    recorder = PulseRecorder(timed)
    r = timed.run(stims, energy.per_toggle_fj)
    nets = np.array([n for n, _ in recorder.pulses], dtype=np.int64)
    width = np.array([s for _, s in recorder.pulses], dtype=float) * timed.step_ps
    pulse_fj = 2.0 * energy.per_toggle_fj[nets]          # a pulse is two toggles of its net
    d = np.array([delays.get(int(n), 0.0) for n in nets])
    tr = np.array([trans.get(int(n), 0.0) for n in nets])
    counted = r["cycles"] * r["lanes"]
    print(f"{args.family} {args.params} density {args.density}: {len(delays)} cells")
    print(f"  switching energy per cycle: zero-delay {r['zero_delay'] / 1e3:.3f} pJ, timed {r['timed'] / 1e3:.3f} pJ "
          f"(ratio {r['ratio']:.2f}); pulses {pulse_fj.sum() / counted / 1e3:.3f} pJ per cycle")
    total = pulse_fj.sum()
    for label, mask in (("narrower than the cell's output transition", width < tr),
                        ("narrower than delay + transition / 2", width < d + tr / 2),
                        ("narrower than delay + transition", width < d + tr),
                        ("narrower than 2 x delay", width < 2 * d),
                        ("narrower than 3 x delay", width < 3 * d)):
        print(f"  share of the pulse energy {label:44s} {100 * pulse_fj[mask].sum() / total:5.1f}%")
    pct = np.percentile(width, [10, 25, 50, 75, 90])
    print(f"  pulse width ps, percentiles 10/25/50/75/90: {' / '.join(f'{p:.0f}' for p in pct)}; median cell delay "
          f"{np.median(d):.1f} ps, median output transition {np.median(tr):.1f} ps")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
