"""The glitch model (fit/glitch.py's TimedSim) against an independent timed simulation by Icarus Verilog (issue 49).

    python bench/glitch_vs_icarus.py [int8_mac fp16_mac] [--lanes 16] [--exact | --arcs] [--workdir DIR]

Needs Debian's ``iverilog`` (bench only). Each point of bench/energy_points.py is mapped by the flow (default
library, 1 GHz) and simulated twice on the same stimulus (the sweep's, seed 1, its first ``--lanes`` lanes, cut to
the flow's GLITCH_CYCLES counted cycles after the warm-up, as accelgen.fit.measure does):

* TimedSim, the flow's inertial-delay simulation, with each cell's delay from :func:`accelgen.fit.glitch.cell_delays`
  (a rise and a fall delay per output, each the mean of its arcs for that edge at the nominal slew and the net's
  real load) on its 2.5 ps grid;
* Icarus: the mapped netlist as structural Verilog, every cell a module whose output is a continuous assignment
  ``assign #(R, F) Y = f(inputs)`` (Verilog's inertial delay: a pulse shorter than the delay of its edge is
  swallowed, IEEE 1364-2005 6.1.3), each instance's R and F the same delays, rounded to TimedSim's
  2.5 ps steps (``--exact``: to 1 ps), a flip-flop
  ``always @(posedge CK) Q <= D`` (no clock-to-Q: TimedSim's sources switch together at t = 0). One copy of the
  design per lane; a 50 ns clock, long enough for every net to settle; every net's value changes counted from a
  VCD over the counted cycles.

``--arcs`` (a more physical model, which the same-model runs cannot be: they check TimedSim's code, not its
assumptions): every cell keeps its Liberty arcs, a specify path per input pin with the arc's own rise and fall delays
at the input net's transition (its driver's, one stage) and the output net's load (1 ps steps; Icarus, run with
``-gspecify``, rejects a pulse shorter than the path delay, as it does for a delayed assignment: checked on a
two-input cell), the delay taken from the input that changed last (module path delays, IEEE 1364-2005 clause 14;
of simultaneous changes Icarus takes the shortest path, as checked on the same cell), and flip-flop outputs switching
a library clock-to-Q after the edge (the DFF's CK -> Q / QN arcs at their loads); the input ports change one mean
DFF_X1 clock-to-Q after the edge (they come from registers upstream). ``arcs_no_ckq`` (compare_point only): the arcs
with every source switching at the edge, to separate the two.

It prints the total toggles of the cell-driven nets per lane-cycle (zero-delay, TimedSim, Icarus), their energies
(accelgen's energy per toggle of each net), the glitch ratios and the per-net agreement (the share of toggles on
nets whose counts differ by more than 20%, and the correlation).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import energy_points as ep
import numpy as np
import yaml

from accelgen.cosim.stimulus import Activity
from accelgen.fit.cell_library import CLOCK_ARCS
from accelgen.fit.glitch import STEP_PS, TimedSim, cell_delays
from accelgen.fit.measure import glitch_stimulus

PERIOD_PS = 50_000
CELLS_YAML = Path(ep.__file__).resolve().parent.parent / "fit" / "tech" / "nangate45_cells.yaml"


def _verilog_expr(function: str) -> str:
    return function.replace("!", "~").replace("*", "&").replace("+", "|")


def cell_models(types: set[str]) -> str:
    """A Verilog module per cell type: combinational outputs as continuous assignments with a rise and a fall delay
    (parameters DLY_R, DLY_F, ps)."""
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
            body += [f"  assign {p} = {_verilog_expr(c['outputs'][p]['function']).replace('IQN', '~IQ')};"
                     for p in outs]
        else:
            body = [f"  assign #(DLY_R, DLY_F) {p} = {_verilog_expr(c['outputs'][p]['function'])};" for p in outs]
        out += [f"module {t} ({ports});", "  parameter DLY_R = 1;", "  parameter DLY_F = 1;"] + decl + body + [
            "endmodule", ""]
    return "\n".join(out)


def design_verilog(point: ep.Point, delay_ps: dict[int, float], exact: bool) -> str:
    """The mapped netlist with each combinational instance's rise and fall delay parameters."""
    text = ep.netlist_verilog(point.mapped.netlist, ep.TOP, point.plib)
    insts = {iname: conn for iname, _, conn in ep.cell_instances(point.mapped.netlist, ep.TOP)}

    def with_delay(m):
        ctype, iname = m.group(1), m.group(2)
        cell = point.plib.cells[ctype]
        outs = [b for pin, b in insts[iname].items() if pin in cell.outputs and isinstance(b, int)]
        if cell.ff or not outs:
            return m.group(0)
        r, f = (max(1, round(d)) if exact else max(1, round(d / STEP_PS)) * STEP_PS
                for d in delay_ps.get(outs[0], (0.0, 0.0)))
        return f"  {ctype} #(.DLY_R({r}), .DLY_F({f})) {iname} ("
    return re.sub(r"^  (\w+) (c\d+) \(", with_delay, text, flags=re.MULTILINE)


def testbench(point: ep.Point, stims: list[Activity], lanes: int, arrival_ps: int = 0) -> str:
    """One design per lane, the stimulus words applied at each rising clock edge (cycle ``step`` starts at
    ``step * PERIOD_PS``), ``arrival_ps`` after it, a VCD of every lane's nets."""
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
                lines.append(f"    {name}_{k} <= {f'#{arrival_ps} ' if arrival_ps else ''}{len(bits)}'b{bits};")
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

    tick_ps, header = 1.0, None
    with path.open() as f:
        for line in f:
            if header is not None or line.startswith("$timescale"):   # the VCD's time unit, one line or several
                header = (header or "") + line
                if "$end" in header:
                    number, unit = re.fullmatch(r"\s*(\d+)\s*(\w+)\s*", header.replace("$timescale", "")
                                                .replace("$end", "")).groups()
                    tick_ps, header = int(number) * {"fs": 1e-3, "ps": 1.0, "ns": 1e3}[unit], None
            elif line.startswith("$scope"):
                scope = line.split()[2]
            elif line.startswith("$var"):
                parts = line.split()
                width, code, name = int(parts[2]), parts[3], parts[4]
                if scope and scope.startswith("u"):
                    ids[code] = (name, width, len(parts) > 6 and parts[5].startswith("["))
            elif line.startswith("#"):
                flush()
                t = int(line[1:]) * tick_ps
            elif line[0] in "01xz" and line[1:].strip() in ids:
                changed[line[1:].strip()] = line[0]
            elif line[0] == "b":
                v, code = line[1:].split()
                if code in ids:
                    changed[code] = v
    flush()
    return counts


def arc_cell_models(types: set[str], tlib) -> str:
    """``--arcs``: a Verilog module per cell type whose combinational outputs follow their function through specify
    paths, one per (input pin, output) arc with parameters ``<pin>_<out>_R`` / ``_F`` (ps), and whose flip-flop
    outputs switch a parameter ``CK_<out>_R`` / ``_F`` after the clock edge."""
    desc = yaml.safe_load(CELLS_YAML.read_text())["cells"]
    out = []
    for t in sorted(types):
        c, arcs = desc[t], tlib.cells[t].arcs
        ins, outs = list(c["inputs"]), list(c["outputs"])
        names = [f"{a.pin}_{o}_{e}" for o in outs for a in arcs.get(o, ()) for e in "RF"]
        lines = [f"module {t} ({', '.join(ins + outs)});", "  parameter " + ", ".join(f"{n} = 1" for n in names) + ";"]
        lines += [f"  input {p};" for p in ins] + [f"  output {p};" for p in outs]
        if "ff" in c:
            clk, d = c["ff"]["clocked_on"], c["ff"]["next_state"]
            lines += ["  reg IQ = 1'b0;", f"  always @(posedge {clk}) IQ <= {d};"]
            lines += [f"  assign #({clk}_{o}_R, {clk}_{o}_F) {o} = "
                      f"{_verilog_expr(c['outputs'][o]['function']).replace('IQN', '~IQ')};" for o in outs]
        else:
            lines += [f"  assign {o} = {_verilog_expr(c['outputs'][o]['function'])};" for o in outs]
            lines += ["  specify"] + [f"    ({a.pin} => {o}) = ({a.pin}_{o}_R, {a.pin}_{o}_F);"
                                      for o in outs for a in arcs.get(o, ())] + ["  endspecify"]
        out += lines + ["endmodule", ""]
    return "\n".join(out)


def net_slews(point: ep.Point) -> dict[int, tuple[float, float]]:
    """The (rise, fall) transition (ps) of every cell-driven net: the mean of its driver's arcs' transitions at the
    library's nominal input slew and the net's load (one stage of slew propagation, not the full chain)."""
    tlib, out = point.mapped.timing_library, {}
    for _, ctype, conn in ep.cell_instances(point.mapped.netlist, ep.TOP):
        for o, arcs in tlib.cells[ctype].arcs.items():
            b = conn.get(o)
            if not isinstance(b, int):
                continue
            edges = [[t.at(tlib.nominal_slew_ps, float(point.energy.load_ff[b])) for a in arcs
                      if (t := a.transition[e]) is not None] for e in (0, 1)]
            out[b] = tuple(sum(v) / len(v) if v else tlib.nominal_slew_ps for v in edges)
    return out


def arc_delays(tlib, ctype: str, conn: dict, load_ff: np.ndarray, slews: dict[int, tuple[float, float]],
               clock_to_q: bool = True, average: str | None = None) -> dict[str, int]:
    """The ``--arcs`` parameters of one instance: each arc's rise and fall delay (ps, rounded to 1 ps) at the
    transition of the net on its input pin (:func:`net_slews`: the edge that makes the output edge by the arc's
    unateness, the mean of both for a non-unate arc; the nominal slew on a port) and the load of the net the output
    drives (an edge the library leaves out takes the other's); ``clock_to_q=False``: flip-flop outputs switch at the
    edge (TimedSim's assumption). ``average`` takes one of the arcs' distinctions away, to see what each is worth:
    ``"pin"`` (each pin's rise and fall averaged), ``"edge"`` (each edge's delay averaged over the pins) or ``"all"``
    (one delay per output, as TimedSim's, but at the input nets' transitions)."""
    out = {}
    for o, arcs in tlib.cells[ctype].arcs.items():
        b = conn.get(o)
        load = float(load_ff[b]) if isinstance(b, int) else 0.0
        values = []
        for a in arcs:
            rise_in, fall_in = slews.get(conn.get(a.pin), (tlib.nominal_slew_ps,) * 2)
            by_edge = {"positive_unate": (rise_in, fall_in), "negative_unate": (fall_in, rise_in)}
            slew = by_edge.get(a.sense, ((rise_in + fall_in) / 2,) * 2)
            rise, fall = (t.at(sl, load) if t is not None else None for t, sl in zip(a.delay, slew))
            rise, fall = rise if rise is not None else fall, fall if fall is not None else rise
            if a.sense in CLOCK_ARCS and not clock_to_q:
                rise = fall = 0.0
            values.append([a, rise, fall])
        comb = [v for v in values if v[0].sense not in CLOCK_ARCS]
        if comb and average in ("edge", "all"):
            mean_rise, mean_fall = (sum(v[i] for v in comb) / len(comb) for i in (1, 2))
            for v in comb:
                v[1], v[2] = mean_rise, mean_fall
        if comb and average in ("pin", "all"):
            for v in comb:
                v[1] = v[2] = (v[1] + v[2]) / 2
        for a, rise, fall in values:
            out[f"{a.pin}_{o}_R"], out[f"{a.pin}_{o}_F"] = (max(1, round(v)) if v else 0 for v in (rise, fall))
    return out


def arc_design_verilog(point: ep.Point, clock_to_q: bool = True, average: str | None = None) -> str:
    """The mapped netlist with every instance's arc parameters (:func:`arc_delays`)."""
    text = ep.netlist_verilog(point.mapped.netlist, ep.TOP, point.plib)
    insts = {iname: (ctype, conn) for iname, ctype, conn in ep.cell_instances(point.mapped.netlist, ep.TOP)}
    tlib, slews = point.mapped.timing_library, net_slews(point)

    def with_arcs(m):
        ctype, conn = insts[m.group(2)]
        delays = arc_delays(tlib, ctype, conn, point.energy.load_ff, slews, clock_to_q, average)
        values = ", ".join(f".{k}({v})" for k, v in delays.items())
        return f"  {ctype} #({values}) {m.group(2)} ("
    return re.sub(r"^  (\w+) (c\d+) \(", with_arcs, text, flags=re.MULTILINE)


def input_arrival_ps(point: ep.Point) -> int:
    """``--arcs``: when the input ports change after the edge: a DFF_X1's clock-to-Q (mean of its CK -> Q arcs'
    rise and fall at the nominal slew) at the mean load of the input port nets, as if a register upstream drove
    them."""
    mod = ep.module_of(point.mapped.netlist, ep.TOP)
    bits = [b for name, p in mod["ports"].items() if p["direction"] == "input" and name != "clk"
            for b in p["bits"] if isinstance(b, int)]
    load = float(np.mean(point.energy.load_ff[bits])) if bits else 0.0
    tlib = point.mapped.timing_library
    values = [t.at(tlib.nominal_slew_ps, load) for a in tlib.cells["DFF_X1"].arcs["Q"] for t in a.delay
              if t is not None]
    return round(sum(values) / len(values))


def iverilog_version() -> str:
    return subprocess.run(["iverilog", "-V"], capture_output=True, text=True, check=False).stdout.splitlines()[0]


def icarus_count(icarus: dict[str, float], name: str) -> float:
    """A net's toggles from :func:`vcd_toggles`: Icarus writes a one-bit port declared ``[0:0]`` without its range
    (``sum_valid__0``, not ``sum_valid__0[0]``)."""
    if name in icarus:
        return icarus[name]
    return icarus.get(name[:-3], 0.0) if name.endswith("[0]") else 0.0


def compare_point(point: ep.Point, lanes: int, workdir: Path, mode: str = "grid", timeout: float | None = None
                  ) -> dict:
    """TimedSim against Icarus on ``point``'s first ``lanes`` lanes, cut as the flow cuts a glitch run. ``mode``:
    ``grid`` (Icarus with TimedSim's delays on its 2.5 ps grid: the same model), ``exact`` (the same delays to 1 ps) or
    ``arcs`` (the Liberty's arcs, clock-to-Q, input arrival: :func:`arc_cell_models`) or ``arcs_no_ckq`` (the arcs,
    but flip-flops and inputs switching at the edge, as in TimedSim), and without clock-to-Q, one distinction of
    the arcs taken away (:func:`arc_delays`' ``average``): ``arcs_mean`` (TimedSim's one delay per output, at the
    input nets' transitions), ``arcs_pin`` (per pin, rise = fall), ``arcs_edge`` (rise and fall, the same for every
    pin). Returns the toggles per
    lane-cycle and their energies (fJ), zero-delay / TimedSim / Icarus, over the cell-driven nets and, as the flow
    counts them, over every net (the sources included), and the per-net agreement."""
    t0 = time.monotonic()
    _, stims = glitch_stimulus({1.0: point.stimuli[:lanes]})
    delays = cell_delays(point.mapped.netlist, ep.TOP, point.mapped.timing_library, point.energy.load_ff)
    timed = TimedSim(point.sim, delays)
    flips = np.zeros(point.sim.n_nets)

    def on_flips(_cycle, _step, words):
        np.add.at(flips, timed.out, np.bitwise_count(words).astype(float))
    timed.on_flips = on_flips
    r = timed.run(stims, point.energy.per_toggle_fj)
    t_timed = time.monotonic() - t0
    zd, counted, _ = ep.per_net_toggles(point.sim, stims)
    first = max(stims[0].warmup, 1)
    d = workdir / mode
    d.mkdir(parents=True, exist_ok=True)
    cells = {ctype for _, ctype, _ in ep.cell_instances(point.mapped.netlist, ep.TOP)}
    if mode.startswith("arcs"):
        average = {"arcs_mean": "all", "arcs_pin": "pin", "arcs_edge": "edge"}.get(mode)
        (d / "cells.v").write_text("`timescale 1ps/1ps\n" + arc_cell_models(cells, point.mapped.timing_library))
        (d / "design.v").write_text("`timescale 1ps/1ps\n" + arc_design_verilog(point, mode == "arcs", average))
        arrival = input_arrival_ps(point) if mode == "arcs" else 0
    else:
        # TimedSim's grid (2.5 ps) is not whole picoseconds: delays to 100 fs
        (d / "cells.v").write_text("`timescale 1ps/100fs\n" + cell_models(cells))
        (d / "design.v").write_text("`timescale 1ps/1ps\n" + design_verilog(point, delays, mode == "exact"))
        arrival = 0
    (d / "tb.v").write_text(testbench(point, stims, lanes, arrival))
    t1 = time.monotonic()
    subprocess.run(["iverilog", *(["-gspecify"] if mode.startswith("arcs") else []), "-o", "sim", "cells.v", "design.v",
                    "tb.v"], cwd=d, check=True)
    subprocess.run(["vvp", "-n", "sim"], cwd=d, check=True, capture_output=True, timeout=timeout)
    # cycle `step` starts at step * PERIOD_PS; TimedSim counts steps first + 1 .. cycles
    icarus = vcd_toggles(d / "waves.vcd", (first + 1) * PERIOD_PS, (stims[0].cycles + 1) * PERIOD_PS)
    (d / "waves.vcd").unlink()      # large, and read once
    t_icarus = time.monotonic() - t1
    mod = ep.module_of(point.mapped.netlist, ep.TOP)
    nets = sorted({out for _, _, out in point.sim.gates})
    ic = np.array([icarus_count(icarus, ep.net_name(mod, b)) for b in nets])
    ts, z = flips[nets], zd[nets]
    w_all = np.pad(point.energy.per_toggle_fj, (0, max(0, len(zd) - len(point.energy.per_toggle_fj))))[:len(zd)]
    w = w_all[nets]
    sources_fj = zd @ w_all - z @ w        # ports and flip-flop outputs: one toggle per change in every model
    big = np.abs(ic - ts) > 0.2 * np.maximum(ic, ts)
    lc = counted
    out = {"mode": mode, "lanes": lanes, "counted_cycles": stims[0].cycles - first, "cell_driven_nets": len(nets),
           "input_arrival_ps": arrival,
           "toggles_per_lane_cycle": {"zero_delay": z.sum() / lc, "timedsim": ts.sum() / lc, "icarus": ic.sum() / lc},
           "energy_fj_per_lane_cycle": {"zero_delay": z @ w / lc, "timedsim": ts @ w / lc, "icarus": ic @ w / lc,
                                        "sources": sources_fj / lc},
           "toggles_timedsim_over_icarus": ts.sum() / ic.sum(),
           "glitch_ratio_cell_nets": {"timedsim": (ts @ w) / (z @ w), "icarus": (ic @ w) / (z @ w)},
           "glitch_ratio_all_nets": {"timedsim_run": r["ratio"],
                                     "timedsim": (sources_fj + ts @ w) / (sources_fj + z @ w),
                                     "icarus": (sources_fj + ic @ w) / (sources_fj + z @ w)},
           "per_net": {"toggle_share_on_nets_over_20pct": (ic[big].sum() + ts[big].sum()) / (ic.sum() + ts.sum()),
                       "nets_over_20pct": int(big.sum()), "nets_equal": int(np.sum(ic == ts)),
                       "correlation": float(np.corrcoef(ic, ts)[0, 1]) if ic.std() and ts.std() else 1.0},
           "seconds": {"timedsim": round(t_timed, 1), "icarus": round(t_icarus, 1)}}
    tg, en = out["toggles_per_lane_cycle"], out["energy_fj_per_lane_cycle"]
    gr, ga = out["glitch_ratio_cell_nets"], out["glitch_ratio_all_nets"]
    pn = out["per_net"]
    print(f"{point.name} [{mode}]: {len(nets)} cell-driven nets, {lanes} lanes x {out['counted_cycles']} counted cycles"
          f", Icarus {t_icarus:.0f} s, TimedSim {t_timed:.0f} s")
    print(f"  toggles per lane-cycle: zero-delay {tg['zero_delay']:.1f}, TimedSim {tg['timedsim']:.1f}, Icarus "
          f"{tg['icarus']:.1f} (TimedSim / Icarus {out['toggles_timedsim_over_icarus']:.3f})")
    print(f"  energy, pJ per cycle: zero-delay {en['zero_delay'] / 1e3:.3f}, TimedSim {en['timedsim'] / 1e3:.3f}, "
          f"Icarus {en['icarus'] / 1e3:.3f}; glitch ratio of the cell-driven nets TimedSim {gr['timedsim']:.2f}, "
          f"Icarus {gr['icarus']:.2f}; of all nets (the flow's) TimedSim {ga['timedsim']:.2f} (run: "
          f"{ga['timedsim_run']:.2f}), Icarus {ga['icarus']:.2f}")
    print(f"  per net: {100 * pn['toggle_share_on_nets_over_20pct']:.1f}% of the toggles on nets differing by > 20% "
          f"({pn['nets_over_20pct']} of {len(nets)} nets); correlation {pn['correlation']:.4f}; nets equal "
          f"{pn['nets_equal']}")
    return out


def compare(name: str, lanes: int, mode: str, workdir: Path) -> dict:
    return compare_point(ep.prepare(name, lanes=64), lanes, workdir / name, mode)


def main() -> int:
    return ep.main_over_points(
        __doc__.splitlines()[0], "iverilog", "apt-get install iverilog",
        lambda name, args: compare(name, args.lanes, "arcs" if args.arcs else "exact" if args.exact else "grid",
                                   args.workdir), workdir=Path("/tmp/glitch_vs_icarus"),
        options=[(("--lanes",), {"type": int, "default": 16}),
                 (("--exact",), {"action": "store_true",
                                 "help": "Icarus delays rounded to 1 ps instead of TimedSim's grid"}),
                 (("--arcs",), {"action": "store_true",
                                "help": "Icarus with the Liberty's per-pin rise/fall arcs and clock-to-Q"})])


if __name__ == "__main__":
    sys.exit(main())
