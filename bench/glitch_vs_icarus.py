"""The glitch model (fit/glitch.py's TimedSim) against an independent timed simulation by Icarus Verilog (issue 49).

    python bench/glitch_vs_icarus.py [int8_mac fp16_mac] [--lanes 16] [--exact] [--workdir /tmp/glitch_vs_icarus]

Needs Debian's ``iverilog`` (bench only). Each point of bench/energy_points.py is mapped by the flow (default
library, 1 GHz) and simulated twice on the same stimulus (the sweep's, seed 1, its first ``--lanes`` lanes, cut to
the flow's GLITCH_CYCLES counted cycles after the warm-up, as accelgen.fit.measure does):

* TimedSim, the flow's inertial-delay simulation, with each cell's delay from :func:`accelgen.fit.glitch.cell_delays`
  (the mean of its arcs at the nominal slew and the net's real load) on its 5 ps grid;
* Icarus: the mapped netlist as structural Verilog, every cell a module whose output is a continuous assignment
  ``assign #(D) Y = f(inputs)`` (Verilog's inertial delay: a pulse shorter than D is swallowed, IEEE 1364-2005 6.1.3),
  each instance's D the same delay, rounded to TimedSim's 5 ps steps (``--exact``: to 1 ps), a flip-flop
  ``always @(posedge CK) Q <= D`` (no clock-to-Q: TimedSim's sources switch together at t = 0). One copy of the
  design per lane; a 50 ns clock, long enough for every net to settle; every net's value changes counted from a
  VCD over the counted cycles.

It prints the total toggles of the cell-driven nets per lane-cycle (zero-delay, TimedSim, Icarus), their energies
(accelgen's energy per toggle of each net), the glitch ratios and the per-net agreement (the share of toggles on
nets whose counts differ by more than 20%, and the correlation).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import energy_points as ep
import numpy as np
import yaml

from accelgen.cosim.stimulus import Activity
from accelgen.fit.glitch import STEP_PS, TimedSim, cell_delays
from accelgen.fit.measure import GLITCH_CYCLES

PERIOD_PS = 50_000
CELLS_YAML = Path(ep.__file__).resolve().parent.parent / "fit" / "tech" / "nangate45_cells.yaml"


def _verilog_expr(function: str) -> str:
    return function.replace("!", "~").replace("*", "&").replace("+", "|")


def cell_models(types: set[str]) -> str:
    """A Verilog module per cell type: combinational outputs as delayed continuous assignments (parameter D, ps)."""
    desc = yaml.safe_load(CELLS_YAML.read_text())["cells"]
    out = []
    for t in sorted(types):
        c = desc[t]
        ins, outs = list(c["inputs"]), list(c["outputs"])
        ports = ", ".join(ins + outs)
        decl = [f"  input {p};" for p in ins] + [f"  output {p};" for p in outs]
        if "ff" in c:
            clk, d = c["ff"]["clocked_on"], c["ff"]["next_state"]
            body = ["  reg IQ = 1'b0;", f"  always @(posedge {clk}) IQ <= {d};"]
            body += [f"  assign {p} = {_verilog_expr(c['outputs'][p]['function']).replace('IQN', '~IQ')};" for p in outs]
        else:
            body = [f"  assign #(DLY) {p} = {_verilog_expr(c['outputs'][p]['function'])};" for p in outs]
        out += [f"module {t} ({ports});", "  parameter DLY = 1;"] + decl + body + ["endmodule", ""]
    return "\n".join(out)


def design_verilog(point: ep.Point, delay_ps: dict[int, float], exact: bool) -> str:
    """The mapped netlist with each combinational instance's delay parameter."""
    text = ep.netlist_verilog(point.mapped.netlist, ep.TOP, point.plib)
    insts = {iname: conn for iname, _, conn in ep.cell_instances(point.mapped.netlist, ep.TOP)}

    def with_delay(m):
        ctype, iname = m.group(1), m.group(2)
        cell = point.plib.cells[ctype]
        outs = [b for pin, b in insts[iname].items() if pin in cell.outputs and isinstance(b, int)]
        if cell.ff or not outs:
            return m.group(0)
        d = delay_ps.get(outs[0], 0.0)
        d = max(1, round(d)) if exact else max(1, round(d / STEP_PS)) * STEP_PS
        return f"  {ctype} #(.DLY({d})) {iname} ("
    return re.sub(r"^  (\w+) (c\d+) \(", with_delay, text, flags=re.M)


def testbench(point: ep.Point, stims: list[Activity], lanes: int) -> str:
    """One design per lane, the stimulus words applied at each rising clock edge (cycle ``step`` starts at
    ``step * PERIOD_PS``), a VCD of every lane's nets."""
    inputs = point.sim.input_words(stims)
    mod = ep.module_of(point.mapped.netlist, ep.TOP)
    cycles = stims[0].cycles
    lines = ["`timescale 1ps/1ps", "module tb;", "  reg clk = 1'b0;"]
    for name, p in mod["ports"].items():
        kind = "reg" if p["direction"] == "input" else "wire"
        lines += [f"  {kind} [{len(p['bits']) - 1}:0] {name}_{k};" for k in range(lanes)]
    for k in range(lanes):
        conns = ", ".join(f".{name}({'clk' if name == 'clk' else f'{name}_{k}'})" for name in mod["ports"])
        lines.append(f"  {ep.TOP} u{k} ({conns});")
    lines += ["  initial begin", '    $dumpfile("waves.vcd");']
    lines += [f"    $dumpvars(1, u{k});" for k in range(lanes)]
    for step in range(cycles + 1):
        if step:
            lines.append(f"    #{PERIOD_PS // 2} clk = 1'b0; #{PERIOD_PS // 2} clk = 1'b1;")
        for name, words in inputs.items():
            if name == "clk":
                continue
            for k in range(lanes):
                bits = "".join(str(int(words[step, j]) >> k & 1) for j in reversed(range(words.shape[1])))
                # non-blocking: a flip-flop fed by a port samples the value before this edge's new one
                lines.append(f"    {name}_{k} <= {len(bits)}'b{bits};")
    lines += [f"    #{PERIOD_PS} $finish;", "  end", "endmodule", ""]
    return "\n".join(lines)


def vcd_toggles(path: Path, start_ps: int, end_ps: int) -> dict[str, float]:
    """Bit toggles per net name (summed over the lanes) between ``start_ps`` and ``end_ps``, from a VCD: at each
    time stamp the last value of a variable is compared bit by bit with its value at the previous time stamp."""
    ids: dict[str, tuple[str, int, bool]] = {}
    scope = None
    value: dict[str, str] = {}
    changed: dict[str, str] = {}
    counts: dict[str, float] = {}
    t = 0

    def flush():
        for code, v in changed.items():
            old = value.get(code)
            if old is not None and start_ps <= t < end_ps:
                name, width, ranged = ids[code]
                a, b = old.rjust(width, "0"), v.rjust(width, "0")
                for i in range(width):
                    if a[width - 1 - i] != b[width - 1 - i]:
                        key = f"{name}[{i}]" if ranged else name
                        counts[key] = counts.get(key, 0) + 1
            value[code] = v
        changed.clear()

    with path.open() as f:
        for line in f:
            if line.startswith("$scope"):
                scope = line.split()[2]
            elif line.startswith("$var"):
                parts = line.split()
                width, code, name = int(parts[2]), parts[3], parts[4]
                if scope and scope.startswith("u"):
                    ids[code] = (name, width, len(parts) > 6 and parts[5].startswith("["))
            elif line.startswith("#"):
                flush()
                t = int(line[1:])
            elif line[0] in "01xz" and line[1:].strip() in ids:
                changed[line[1:].strip()] = line[0]
            elif line[0] == "b":
                v, code = line[1:].split()
                if code in ids:
                    changed[code] = v
    flush()
    return counts


def compare(name: str, lanes: int, exact: bool, workdir: Path) -> dict:
    point = ep.prepare(name, lanes=64)
    stims = point.stimuli[:lanes]
    n = GLITCH_CYCLES + max(s.warmup for s in stims)
    stims = [Activity({k: v[:n] for k, v in s.inputs.items()}, ops=s.ops, per=s.per, warmup=s.warmup)
             if s.cycles > n else s for s in stims]
    delays = cell_delays(point.mapped.netlist, ep.TOP, point.mapped.timing_library, point.energy.load_ff)
    timed = TimedSim(point.sim, delays)
    flips = np.zeros(point.sim.n_nets)

    def on_flips(_cycle, _step, words):
        np.add.at(flips, timed.out, np.bitwise_count(words).astype(float))
    timed.on_flips = on_flips
    r = timed.run(stims, point.energy.per_toggle_fj)
    zd, counted, _ = ep.per_net_toggles(point.sim, stims)
    first = max(stims[0].warmup, 1)
    d = workdir / name
    d.mkdir(parents=True, exist_ok=True)
    cells = {ctype for _, ctype, _ in ep.cell_instances(point.mapped.netlist, ep.TOP)}
    (d / "cells.v").write_text("`timescale 1ps/1ps\n" + cell_models(cells))
    (d / "design.v").write_text("`timescale 1ps/1ps\n" + design_verilog(point, delays, exact))
    (d / "tb.v").write_text(testbench(point, stims, lanes))
    subprocess.run(["iverilog", "-o", "sim", "cells.v", "design.v", "tb.v"], cwd=d, check=True)
    subprocess.run(["vvp", "-n", "sim"], cwd=d, check=True, capture_output=True)
    # cycle `step` starts at step * PERIOD_PS; TimedSim counts steps first + 1 .. cycles
    icarus = vcd_toggles(d / "waves.vcd", (first + 1) * PERIOD_PS, (stims[0].cycles + 1) * PERIOD_PS)
    mod = ep.module_of(point.mapped.netlist, ep.TOP)
    nets = sorted({out for _, _, out in point.sim.gates})
    ic = np.array([icarus.get(ep.net_name(mod, b), 0.0) for b in nets])
    ts, z = flips[nets], zd[nets]
    w = point.energy.per_toggle_fj[nets]
    lc = counted
    big = np.abs(ic - ts) > 0.2 * np.maximum(ic, ts)
    out = {"zero_delay": z.sum() / lc, "timedsim": ts.sum() / lc, "icarus": ic.sum() / lc,
           "zero_delay_fj": z @ w / lc, "timedsim_fj": ts @ w / lc, "icarus_fj": ic @ w / lc}
    print(f"{name}: {len(nets)} cell-driven nets, {lanes} lanes x {stims[0].cycles - first} counted cycles, delays "
          f"{'rounded to 1 ps' if exact else f'on the {STEP_PS:g} ps grid'}")
    print(f"  toggles per lane-cycle: zero-delay {out['zero_delay']:.1f}, TimedSim {out['timedsim']:.1f}, Icarus "
          f"{out['icarus']:.1f} (TimedSim / Icarus {out['timedsim'] / out['icarus']:.3f})")
    print(f"  energy of those toggles, pJ per cycle: zero-delay {out['zero_delay_fj'] / 1e3:.3f}, TimedSim "
          f"{out['timedsim_fj'] / 1e3:.3f}, Icarus {out['icarus_fj'] / 1e3:.3f}; glitch ratio of the cell-driven nets "
          f"TimedSim {out['timedsim_fj'] / out['zero_delay_fj']:.2f}, Icarus {out['icarus_fj'] / out['zero_delay_fj']:.2f}"
          f"; the flow's ratio (all nets, TimedSim.run) {r['ratio']:.2f}")
    print(f"  per net: {100 * (ic[big].sum() + ts[big].sum()) / (ic.sum() + ts.sum()):.1f}% of the toggles on nets "
          f"differing by > 20% ({big.sum()} of {len(nets)} nets); correlation {np.corrcoef(ic, ts)[0, 1]:.4f}; "
          f"nets equal {np.sum(ic == ts)}")
    return out


def main() -> int:
    return ep.main_over_points(
        __doc__.splitlines()[0], "iverilog", "apt-get install iverilog",
        lambda name, args: compare(name, args.lanes, args.exact, args.workdir), workdir=Path("/tmp/glitch_vs_icarus"),
        options=[(("--lanes",), {"type": int, "default": 16}),
                 (("--exact",), {"action": "store_true",
                                 "help": "Icarus delays rounded to 1 ps instead of TimedSim's grid"})])


if __name__ == "__main__":
    sys.exit(main())
