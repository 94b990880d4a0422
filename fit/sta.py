"""Static timing of a mapped netlist with a cell library's delay model (NLDM tables or linear models).

:func:`analyze`: net load = sink pin capacitances + wire load of the fanout (+ ``output_load_ff`` on
top-level outputs); arrival and slew per net and edge propagate in topological order along each arc's
unateness (a net's slew: the worst over its arcs, as in OpenSTA) from top-level inputs (arrival 0) and
flip-flop outputs (ideal clock at 0, then clock -> Q) to flip-flop D pins (+ setup) and top-level
outputs. Loops are cut at the back edges of a depth-first search. Not modelled: hold, clock skew,
latches (as flip-flops), wire resistance, Liberty bus pins; ``when``-conditional arcs count with their worst.

:func:`fo4_ps` measures a library's FO4 delay with the same delay model: the unit in which its mapped delays carry
to another node (:func:`accelgen.technology.tech_factor`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import ConfigError
from .cell_library import EDGES, FALL, RISE, TimingLibrary
from .liberty_read import read_timing_library
from .netlist import clean_name, module_of, net_names, port_bits

_NEG = float("-inf")
#: (output edge, input edge) pairs an arc of each timing sense connects (non-unate: all four)
_PAIRS = {"positive_unate": ((RISE, RISE), (FALL, FALL)), "negative_unate": ((RISE, FALL), (FALL, RISE))}
_ALL_PAIRS = ((RISE, RISE), (RISE, FALL), (FALL, RISE), (FALL, FALL))


@dataclass
class TimingReport:
    """The worst path: ``delay_ps`` (the minimum clock period) = ``launch_ps`` (clock -> Q, or 0) + ``logic_ps`` +
    ``setup_ps`` (or 0). ``path``: per point from start to end ``instance``, ``cell``, input ``pin``, output ``net``,
    ``arrival_ps``, ``edge``; ports are points of ``cell`` ``input``/``output``, a register end is its D pin."""

    delay_ps: float
    logic_ps: float
    launch_ps: float
    setup_ps: float
    start: str
    end: str
    start_kind: str
    end_kind: str
    path: list[dict]
    cells_on_path: int
    loops_broken: int
    endpoints: int

    def to_dict(self) -> dict:
        return asdict(self)


def _instances(netlist: dict, top: str, lib: TimingLibrary) -> tuple[dict, list]:
    """Module ``top`` and its cells as (instance, cell, {pin: net bit, or None for a constant})."""
    modules = netlist.get("modules", {})      # to tell a submodule instance from an unknown cell
    mod = module_of(netlist, top)
    insts = []
    for iname, inst in mod.get("cells", {}).items():
        ctype, where = inst["type"].lstrip("\\"), f"{top}.cells.{iname}"
        if ctype == "$scopeinfo":
            continue
        cell, conn = lib.cells.get(ctype), {}
        if cell is None:
            flat = " (a submodule: analyze needs a flat netlist)" if ctype in modules else ""
            raise ConfigError([(where, f"cell type {ctype!r} is not in the timing library {lib.name!r}{flat}")])
        for pin, bits in inst.get("connections", {}).items():
            if (pin not in cell.inputs and pin not in cell.outputs) or len(bits) != 1:
                raise ConfigError([(where, f"pin {pin!r} with {len(bits)} bit(s) is not a one-bit pin of {ctype!r}")])
            conn[pin] = bits[0] if isinstance(bits[0], int) else None    # constants are not timed
        insts.append((iname, cell, conn))
    return mod, insts


def _order(fanin: list[list[tuple[str, int]]]) -> tuple[list[int], list[tuple[int, str]]]:
    """Cells in topological order (depth-first, netlist order); the back edges cut, one per structural loop."""
    state, order, cut = [0] * len(fanin), [], []
    for root in range(len(fanin)):
        if state[root]:
            continue
        state[root], stack = 1, [(root, iter(fanin[root]))]
        while stack:
            k, edges = stack[-1]
            for pin, d in edges:
                if state[d] == 0:
                    state[d] = 1
                    stack.append((d, iter(fanin[d])))
                    break
                if state[d] == 1:
                    cut.append((k, pin))
            else:
                stack.pop()
                state[k] = 2
                order.append(k)
    return order, cut


def analyze(netlist: dict, top: str, lib: TimingLibrary, *, input_slew_ps: float | None = None,
            output_load_ff: float = 0.0) -> TimingReport:
    """Static timing of module ``top`` of a flat Yosys ``write_json`` netlist mapped to ``lib``'s cells."""
    mod, insts = _instances(netlist, top, lib)
    slew0 = lib.nominal_slew_ps if input_slew_ps is None else float(input_slew_ps)
    inputs, outputs = port_bits(mod, "input"), port_bits(mod, "output")
    size = 3 + max([0] + [b for _, b in inputs + outputs] + [b for *_, c in insts for b in c.values() if b])
    # loads; drivers: -1 none, -2 an input port, else the driving cell
    cap, fan, driver, launch = [0.0] * size, [0] * size, [-1] * size, {}
    for _, b in inputs:
        driver[b] = -2
    for k, (iname, cell, conn) in enumerate(insts):
        for pin, b in conn.items():
            if b is None:
                continue
            if pin in cell.inputs:
                cap[b] += cell.inputs[pin]
                fan[b] += 1
            elif driver[b] != -1:
                raise ConfigError([(f"{top}.cells.{clean_name(iname)}", f"net bit {b} has more than one driver")])
            else:
                driver[b] = k
                if cell.clock:
                    launch[b] = k
    for _, b in outputs:
        cap[b] += output_load_ff
        fan[b] += 1
    load = [c + lib.wire_cap(f) for c, f in zip(cap, fan)]
    order, cut = _order([[] if cell.clock else [(pin, driver[b]) for pin, b in conn.items() if pin in cell.inputs
                          and b is not None and driver[b] >= 0 and not insts[driver[b]][1].clock]
                         for _, cell, conn in insts])
    for k, pin in cut:
        insts[k][2][pin] = None                         # a loop cut here: the input is not timed
    # arrival, slew, and the arc that set the arrival, per edge and net bit
    arr, slw, pred = ([_NEG] * size, [_NEG] * size), ([0.0] * size, [0.0] * size), ([None] * size, [None] * size)
    for _, b in inputs:
        arr[RISE][b] = arr[FALL][b] = 0.0
        slw[RISE][b] = slw[FALL][b] = slew0
    for b, k in launch.items():
        _, cell, conn = insts[k]
        for arc in (a for q, into in cell.arcs.items() if conn.get(q) == b for a in into):
            for e, model, trans in zip((RISE, FALL), arc.delay, arc.transition):
                if model is not None and model.at(slew0, load[b]) > arr[e][b]:
                    arr[e][b] = model.at(slew0, load[b])
                    slw[e][b] = trans.at(slew0, load[b]) if trans is not None else slew0
    for k in order:
        _, cell, conn = insts[k]
        for q, into in cell.arcs.items() if not cell.clock else ():
            ob = conn.get(q)
            for arc in into if ob is not None else ():
                ib = conn.get(arc.pin)
                for eo, ei in _PAIRS.get(arc.sense, _ALL_PAIRS) if ib is not None else ():
                    a_in, model, trans = arr[ei][ib], arc.delay[eo], arc.transition[eo]
                    if a_in == _NEG or model is None:
                        continue
                    s_in = slw[ei][ib]
                    slw[eo][ob] = max(slw[eo][ob], trans.at(s_in, load[ob]) if trans is not None else s_in)
                    a = a_in + model.at(s_in, load[ob])
                    if a > arr[eo][ob]:
                        arr[eo][ob], pred[eo][ob] = a, (k, arc.pin, ib, ei)
    # end points: flip-flop pins with a setup constraint, then top-level outputs
    best, endpoints = (_NEG,), 0
    checks = [(k, pin, conn.get(pin), models) for k, (_, cell, conn) in enumerate(insts)
              for pin, models in cell.setup.items()] + [(name, None, b, None) for name, b in outputs]
    for at, pin, b, models in checks:
        timed = [e for e in (RISE, FALL) if b is not None and arr[e][b] != _NEG]
        endpoints += bool(timed)
        for e in timed:
            setup = models[e].at(slw[e][b], slew0) if models and models[e] is not None else 0.0
            if arr[e][b] + setup > best[0]:
                best = (arr[e][b] + setup, b, e, setup, at, pin)
    if len(best) == 1:
        return TimingReport(0.0, 0.0, 0.0, 0.0, "", "", "", "", [], 0, len(cut), 0)
    return _report(best, arr, pred, insts, launch, {b: n for n, b in inputs}, mod, len(cut), endpoints)


def _report(best, arr, pred, insts, launch, input_names, mod, loops, endpoints) -> TimingReport:
    total, b, e, setup, end_at, end_pin = best
    registered = end_pin is not None
    steps = [(clean_name(insts[end_at][0]), insts[end_at][1].name, end_pin, b, e) if registered else
             (end_at, "output", None, b, e)]        # (instance, cell, pin, net bit, edge) from the end back
    while pred[e][b] is not None:
        k, pin, ib, ei = pred[e][b]
        steps.append((clean_name(insts[k][0]), insts[k][1].name, pin, b, e))
        b, e = ib, ei
    start_ff = launch.get(b)
    ff = insts[start_ff] if start_ff is not None else None
    steps.append((clean_name(ff[0]), ff[1].name, ff[1].clock, b, e) if ff else (input_names[b], "input", None, b, e))
    steps.reverse()
    end_conn = insts[end_at][2] if registered else {}
    q_bits = [end_conn[q] for q in insts[end_at][1].q_pins if end_conn.get(q) is not None] if registered else []
    names = net_names(mod, {s[3] for s in steps} | set(q_bits[:1]))
    path = [{"instance": inst, "cell": ctype, "pin": pin, "arrival_ps": arr[edge][bit], "edge": EDGES[edge],
             "net": inst if ctype in ("input", "output") else names[bit]}     # a port bit: the port's name
            for inst, ctype, pin, bit, edge in steps]
    end = names[q_bits[0]] if q_bits else path[-1]["instance" if registered else "net"]
    launch_ps = path[0]["arrival_ps"]
    return TimingReport(
        delay_ps=total, logic_ps=path[-1]["arrival_ps"] - launch_ps, launch_ps=launch_ps, setup_ps=setup,
        start=path[0]["net"], end=end, start_kind="register" if start_ff is not None else "input",
        end_kind="register" if registered else "output", path=path, cells_on_path=len(path) - 2,
        loops_broken=loops, endpoints=endpoints)


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
        raise ConfigError([("liberty", f"{lib.name!r} has no inverter (one input, one negative-unate output): its FO4 "
                                       "delay, the unit fitted delays are scaled to a node in, cannot be measured")])
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
    return fo4_ps(read_timing_library(liberty))
