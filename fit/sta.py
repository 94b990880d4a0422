"""Static timing of a mapped netlist with a cell library's delay model (NLDM tables or linear models).

:func:`analyze`: net load = sink pin capacitances + wire load of the fanout (+ ``output_load_ff`` on
top-level outputs); arrival and slew per net and edge propagate in topological order along each arc's
unateness (a net's slew: the worst over its arcs, as in OpenSTA) from top-level inputs (arrival 0) and
flip-flop outputs (ideal clock at 0, then clock -> Q) to flip-flop D pins (+ setup) and top-level
outputs. Loops are cut at the back edges of a depth-first search. Not modelled: hold, clock skew,
latches (as flip-flops), wire resistance, Liberty bus pins; ``when``-conditional arcs count with their worst.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import ConfigError
from .liberty import check_cells, timing_sense

RISE, FALL = 0, 1
EDGES = ("rise", "fall")
_NEG = float("-inf")
#: (output edge, input edge) pairs an arc of each timing sense connects (non-unate: all four)
_PAIRS = {"positive_unate": ((RISE, RISE), (FALL, FALL)), "negative_unate": ((RISE, FALL), (FALL, RISE))}
_ALL_PAIRS = ((RISE, RISE), (RISE, FALL), (FALL, RISE), (FALL, FALL))
_CLOCK_ARCS = ("rising_edge", "falling_edge")


class Table:
    """An NLDM table over (input slew or constrained-pin transition, load or related-pin transition):
    bilinear inside the grid, linear outside it, constant along an axis of one point."""

    __slots__ = ("_dx", "_dy", "loads", "slews", "values")

    def __init__(self, slews, loads, values):
        values = [tuple(row) for row in values]
        if len(slews) == 1:
            slews, values = (slews[0], slews[0] + 1.0), values * 2
        if len(loads) == 1:
            loads, values = (loads[0], loads[0] + 1.0), [row * 2 for row in values]
        self.slews, self.loads, self.values = tuple(slews), tuple(loads), values
        self._dx = tuple(1.0 / (b - a) for a, b in zip(self.slews, self.slews[1:]))
        self._dy = tuple(1.0 / (b - a) for a, b in zip(self.loads, self.loads[1:]))

    def at(self, slew: float, load: float) -> float:
        xs, ys = self.slews, self.loads
        i = bisect_right(xs, slew, 1, len(xs) - 1) - 1        # the grid interval (the first/last one outside)
        j = bisect_right(ys, load, 1, len(ys) - 1) - 1
        t, u = (slew - xs[i]) * self._dx[i], (load - ys[j]) * self._dy[j]
        r0, r1 = self.values[i], self.values[i + 1]
        lo, hi = r0[j] + u * (r0[j + 1] - r0[j]), r1[j] + u * (r1[j + 1] - r1[j])
        return lo + t * (hi - lo)

    @classmethod
    def linear(cls, intrinsic: float, drive: float = 0.0, slew_factor: float = 0.0, nominal: float = 0.0) -> Table:
        """Exactly ``intrinsic + drive * load + slew_factor * (slew - nominal)`` (as ``liberty.arc_value``)."""
        return cls((nominal, nominal + 1), (0.0, 1.0), [(intrinsic, intrinsic + drive),
                                                        (intrinsic + slew_factor, intrinsic + slew_factor + drive)])


@dataclass(frozen=True)
class Arc:
    """An arc into an output pin: ``delay``/``transition`` are (rise, fall) models of the output edge (or
    None); ``sense``: ``positive_unate``, ``negative_unate``, ``non_unate``, or (clock -> Q) ``rising_edge``."""

    pin: str
    sense: str
    delay: tuple
    transition: tuple


@dataclass(frozen=True)
class CellTiming:
    """One cell type: input pin capacitances (fF), output pins, arcs by output pin; a flip-flop has a ``clock``
    pin, ``setup`` models (rise, fall) of (pin slew, clock slew) by D pin, and clock -> Q arcs into ``q_pins``."""

    name: str
    inputs: dict[str, float]
    outputs: tuple[str, ...]
    arcs: dict[str, tuple[Arc, ...]]
    clock: str | None = None
    setup: dict[str, tuple] = field(default_factory=dict)

    @property
    def q_pins(self) -> tuple[str, ...]:
        return tuple(q for q in self.outputs if any(a.sense in _CLOCK_ARCS for a in self.arcs.get(q, ())))


@dataclass(frozen=True)
class TimingLibrary:
    """Cells by name, the default slew of inputs and clocks (ps), and ``wire.at(0, fanout)``: wire cap (fF)."""

    name: str
    cells: dict[str, CellTiming]
    nominal_slew_ps: float
    wire: Table
    max_transition_ps: float | None = None      # the library's default_max_transition, if it states one

    def wire_cap(self, fanout: int) -> float:
        return self.wire.at(0.0, fanout)

    @classmethod
    def from_cells(cls, cells: dict, *, name: str = "cells") -> TimingLibrary:
        """From a cell description (:func:`accelgen.fit.liberty.load_cells`)."""
        if problems := check_cells(cells):
            raise ConfigError(problems)
        nominal, out = cells["nominal_slew_ps"], {}
        for cname, cell in cells["cells"].items():
            ff, pins = cell.get("ff"), list(cell["inputs"])
            clock, arcs = ff["clocked_on"] if ff else None, {}
            for oname, spec in cell["outputs"].items():
                arcs[oname] = tuple(Arc(
                    pin, "rising_edge" if pin == clock else timing_sense(spec["function"], pin, pins),
                    tuple(Table.linear(*spec[k][pin], nominal) for k in ("delay_rise", "delay_fall")),
                    tuple(Table.linear(*spec[k][pin], nominal) for k in ("transition_rise", "transition_fall")))
                    for pin in spec["delay_rise"])
            setup = {ff["next_state"]: tuple(Table.linear(cell["setup_ps"][e]) for e in EDGES)} if ff else {}
            out[cname] = CellTiming(cname, dict(cell["inputs"]), tuple(cell["outputs"]), arcs, clock, setup)
        return cls(cells.get("name", name), out, nominal, Table.linear(0.0, cells["wire_cap_per_fanout_ff"]))

    @classmethod
    def from_liberty(cls, path: str | Path, *, nominal_slew_ps: float | None = None) -> TimingLibrary:
        """From an NLDM Liberty file; ``nominal_slew_ps`` defaults to the first cell_rise table's middle slew."""
        return LibertyReader(read_liberty_groups(path), str(path)).library(nominal_slew_ps)


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}();:,]|[^\s{}();:,"]+')
_TIME_VARS = {"input_net_transition", "constrained_pin_transition", "related_pin_transition", "input_transition_time"}
_FIRST_VARS = {"input_net_transition", "constrained_pin_transition", "input_transition_time"}
_TABLES = (("cell_rise", "cell_fall"), ("rise_transition", "fall_transition"))


@dataclass
class _Group:
    kind: str
    args: list[str]
    attrs: dict[str, str] = field(default_factory=dict)
    complex: dict[str, list[list[str]]] = field(default_factory=dict)
    groups: list[_Group] = field(default_factory=list)

    def all(self, kind: str) -> list[_Group]:
        return [g for g in self.groups if g.kind == kind]


def read_liberty_groups(path: str | Path) -> _Group:
    """The library group of a Liberty file (:func:`parse_liberty_groups`); an unreadable file is a ConfigError.

    Parsed once per file version and process (a sweep point's mapping, timing and power read the same library;
    the readers do not modify the groups)."""
    try:
        st = Path(path).stat()
    except OSError as exc:
        raise ConfigError([("liberty", f"{str(path)!r} cannot be read: {exc.strerror}")]) from None
    return _parsed(str(Path(path).resolve()), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=4)
def _parsed(path: str, mtime_ns: int, size: int) -> _Group:
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise ConfigError([("liberty", f"{path!r} cannot be read: {exc.strerror}")]) from None
    return parse_liberty_groups(text, path)


def parse_liberty_groups(text: str, source: str) -> _Group:
    """Liberty text as nested groups: ``name : value ;``, ``name (args) ;`` and ``name (args) { ... }``."""
    toks = _TOKEN.findall(re.sub(r"/\*.*?\*/", " ", text, flags=re.DOTALL).replace("\\\n", " "))
    stack, i = [_Group("", [])], 0
    try:
        while i < len(toks):
            tok = toks[i]
            if tok in ("}", ";"):                       # popping the root: IndexError at the next use
                stack, i = stack[:-1] if tok == "}" else stack, i + 1
            elif toks[i + 1] == ":":
                stack[-1].attrs[tok] = toks[i + 2].strip('"')
                i += 3
            elif toks[i + 1] == "(":
                end = toks.index(")", i)
                args = [t.strip('"') for t in toks[i + 2:end] if t != ","]
                opens = end + 1 < len(toks) and toks[end + 1] == "{"
                if opens:
                    stack[-1].groups.append(_Group(tok, args))
                    stack.append(stack[-1].groups[-1])
                else:
                    stack[-1].complex.setdefault(tok, []).append(args)
                i = end + 1 + opens
            else:
                raise ValueError(f"unexpected {tok!r}")
    except (IndexError, ValueError) as exc:
        raise ConfigError([("liberty", f"{source!r} cannot be parsed at token {i}: {exc}")]) from None
    if len(stack) != 1 or not stack[0].all("library"):
        raise ConfigError([("liberty", f"{source!r}: unclosed groups, or no library group")])
    return stack[0].all("library")[0]


def _numbers(text: str) -> list[float]:
    return [float(x) for x in re.split(r"[\s,]+", text.strip()) if x]


class LibertyReader:
    def __init__(self, lib: _Group, source: str):
        self.lib, self.source = lib, source
        m = re.fullmatch(r"\s*([\d.]*)\s*(ns|ps|us)\s*", lib.attrs.get("time_unit", "1ns"))
        self.time = float(m.group(1) or 1) * {"ns": 1000.0, "ps": 1.0, "us": 1e6}[m.group(2)] if m else 1000.0
        cap = [*lib.complex.get("capacitive_load_unit", [["1", "pf"]])[0], "pf"]
        self.cap = float(cap[0]) * {"ff": 1.0, "pf": 1000.0}.get(cap[1].lower(), 1000.0)
        self.templates = {g.args[0]: g for g in lib.groups if g.kind.endswith("_template") and g.args}
        self.first_slews: list | None = None

    def table(self, group: _Group | None) -> Table | None:
        if group is None:
            return None
        tmpl = self.templates.get(group.args[0] if group.args else "", _Group("", []))
        merged = {**tmpl.complex, **group.complex}
        variables = [tmpl.attrs.get(f"variable_{i}", "") for i in (1, 2)]
        scales = [self.time if var in _TIME_VARS else self.cap for var in variables]
        axes = [[v * scale for v in _numbers(" ".join(merged[f"index_{i}"][0]))] if f"index_{i}" in merged else [0.0]
                for i, scale in zip((1, 2), scales)]
        rows = [[v * self.time for v in _numbers(a)] for a in merged.get("values", [[]])[0]]
        if len(axes[1]) == 1 and len(rows) == 1 and len(rows[0]) == len(axes[0]) > 1:
            rows = [[v] for v in rows[0]]                       # one-dimensional: a value per index_1 point
        if len(rows) != len(axes[0]) or any(len(r) != len(axes[1]) for r in rows):
            raise ConfigError([("liberty", f"{self.source!r}: a {group.kind} table's values do not fit its indices")])
        if variables[0] and variables[0] not in _FIRST_VARS:    # (load, slew) order: transpose to (slew, load)
            axes, rows = axes[::-1], [list(col) for col in zip(*rows)]
        if self.first_slews is None and group.kind == "cell_rise" and len(axes[0]) > 1:
            self.first_slews = axes[0]
        return Table(axes[0], axes[1], rows)

    def cell(self, group: _Group) -> CellTiming:
        inputs, outputs, arcs, setup, clock = {}, [], {}, {}, None
        for pin in group.all("pin"):
            attrs, names = pin.attrs, pin.args
            if attrs.get("direction") in ("input", "inout"):
                caps = [float(attrs[k]) for k in ("capacitance", "rise_capacitance", "fall_capacitance") if k in attrs]
                inputs |= {name: max(caps, default=0.0) * self.cap for name in names}
                clock = names[0] if attrs.get("clock") == "true" else clock
            outputs += names if attrs.get("direction") in ("output", "inout") else []
            for t, name in ((t, name) for t in pin.all("timing") for name in names):
                kind, sub = t.attrs.get("timing_type", "combinational"), {g.kind: g for g in t.groups}
                for related in t.attrs.get("related_pin", "").split():
                    if kind.startswith("setup_"):
                        clock = clock or related
                        setup[name] = tuple(self.table(sub.get(k)) for k in ("rise_constraint", "fall_constraint"))
                    elif kind in _CLOCK_ARCS or kind.startswith("combinational"):
                        clock = related if kind in _CLOCK_ARCS else clock
                        sense = kind if kind in _CLOCK_ARCS else t.attrs.get("timing_sense", "non_unate")
                        models = [tuple(self.table(sub.get(k)) for k in pair) for pair in _TABLES]
                        arcs.setdefault(name, []).append(Arc(related, sense, *models))
        if any(a.sense in _CLOCK_ARCS for into in arcs.values() for a in into):   # sequential: launches only
            arcs = {q: [a for a in into if a.sense in _CLOCK_ARCS] for q, into in arcs.items()}
        else:
            clock, setup = None, {}
        name = group.args[0] if group.args else "?"
        return CellTiming(name, inputs, tuple(outputs), {q: tuple(a) for q, a in arcs.items()}, clock, setup)

    def library(self, nominal_slew_ps: float | None) -> TimingLibrary:
        cells = {c.name: c for c in map(self.cell, self.lib.all("cell"))}
        if not cells:
            raise ConfigError([("liberty", f"{self.source!r} defines no cells")])
        wire, name = Table.linear(0.0), self.lib.attrs.get("default_wire_load")
        for wl in (g for g in self.lib.all("wire_load") if g.args == [name]):
            # fanout -> length x capacitance, linear between the listed fanouts and by `slope` beyond them
            points = [(0.0, 0.0)] + sorted((float(f), float(n)) for f, n in wl.complex.get("fanout_length", []))
            points.append((points[-1][0] + 1, points[-1][1] + float(wl.attrs.get("slope", 0))))
            per = float(wl.attrs.get("capacitance", 0)) * self.cap
            wire = Table((0.0,), [f for f, _ in points], [[n * per for _, n in points]])
        slews = self.first_slews or [0.0]
        nominal = slews[len(slews) // 2] if nominal_slew_ps is None else float(nominal_slew_ps)
        limit = self.lib.attrs.get("default_max_transition")
        return TimingLibrary(self.lib.args[0] if self.lib.args else "?", cells, nominal, wire,
                             float(limit) * self.time if limit is not None else None)


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


def _clean(name: str) -> str:
    return re.sub(r"\s+\[", "[", name.lstrip("\\").strip())


def _port_bits(mod: dict, direction: str) -> list[tuple[str, int]]:
    return [(_clean(name) + (f"[{i}]" if len(port["bits"]) > 1 else ""), b) for name, port in mod["ports"].items()
            if port["direction"] in (direction, "inout") for i, b in enumerate(port["bits"]) if isinstance(b, int)]


def _net_names(mod: dict, wanted: set[int]) -> dict[int, str]:
    """A readable name per net bit in ``wanted``: names without ``$`` first, then the shortest."""
    best: dict[int, tuple] = {}
    for name, net in mod.get("netnames", {}).items():
        bits, offset, upto = net["bits"], net.get("offset", 0), net.get("upto", 0)
        for i, b in enumerate(bits):
            if b in wanted:
                text = _clean(name) + (f"[{offset + (len(bits) - 1 - i if upto else i)}]" if len(bits) > 1 else "")
                key = ("$" in name, len(text), text)
                best[b] = min(best.get(b, key), key)
    return {b: k[2] for b, k in best.items()} | {b: f"net{b}" for b in wanted - best.keys()}


def module_of(netlist: dict, top: str) -> dict:
    """Module ``top`` of a Yosys JSON netlist (named with or without Yosys' leading backslash)."""
    modules = netlist.get("modules", {})
    mod = next((modules[k] for k in (top, top.lstrip("\\"), "\\" + top) if k in modules), None)
    if mod is None:
        raise ConfigError([("netlist", f"module {top!r} is not in the netlist (modules: {sorted(modules)})")])
    return mod


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
    inputs, outputs = _port_bits(mod, "input"), _port_bits(mod, "output")
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
                raise ConfigError([(f"{top}.cells.{_clean(iname)}", f"net bit {b} has more than one driver")])
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
    steps = [(_clean(insts[end_at][0]), insts[end_at][1].name, end_pin, b, e) if registered else
             (end_at, "output", None, b, e)]        # (instance, cell, pin, net bit, edge) from the end back
    while pred[e][b] is not None:
        k, pin, ib, ei = pred[e][b]
        steps.append((_clean(insts[k][0]), insts[k][1].name, pin, b, e))
        b, e = ib, ei
    start_ff = launch.get(b)
    ff = insts[start_ff] if start_ff is not None else None
    steps.append((_clean(ff[0]), ff[1].name, ff[1].clock, b, e) if ff else (input_names[b], "input", None, b, e))
    steps.reverse()
    end_conn = insts[end_at][2] if registered else {}
    q_bits = [end_conn[q] for q in insts[end_at][1].q_pins if end_conn.get(q) is not None] if registered else []
    names = _net_names(mod, {s[3] for s in steps} | set(q_bits[:1]))
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
