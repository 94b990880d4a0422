"""Reading Liberty files: the text as nested groups, and one reader that turns them into a cell library.

:func:`parse_liberty_groups` reads ``name : value ;``, ``name (args) ;`` and ``name (args) { ... }`` into
groups; :func:`read_liberty_groups` does so once per file version (a sweep point's mapping, timing and power
read the same library). :class:`LibertyReader` converts units and templates and reads each cell's pins,
timing arcs (NLDM tables; ``when``-conditional arcs kept, each counted with its worst), setup constraints,
area, leakage, functions and internal power: :func:`read_timing_library` and :func:`read_power_library` give the
two views of :mod:`accelgen.fit.cell_library`. Not read: bus pins, latches and state tables (such cells are left
out of the power view), CCS tables.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError
from .cell_library import CLOCK_ARCS, Arc, CellPower, CellTiming, PowerLibrary, Table, TimingLibrary, scaled
from .cells import function_inputs, parse_function

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
    """Reads the cells of a parsed Liberty library into its timing view (:meth:`timing_library`) and its power
    view (:meth:`power_library`), every table and figure in ps, fF, fJ and nW."""

    def __init__(self, lib: _Group, source: str):
        self.lib, self.source = lib, source
        m = re.fullmatch(r"\s*([\d.]*)\s*(ns|ps|us)\s*", lib.attrs.get("time_unit", "1ns"))
        self.time = float(m.group(1) or 1) * {"ns": 1000.0, "ps": 1.0, "us": 1e6}[m.group(2)] if m else 1000.0
        cap = [*lib.complex.get("capacitive_load_unit", [["1", "pf"]])[0], "pf"]
        self.cap = float(cap[0]) * {"ff": 1.0, "pf": 1000.0}.get(cap[1].lower(), 1000.0)
        self.templates = {g.args[0]: g for g in lib.groups if g.kind.endswith("_template") and g.args}
        self.first_slews: list | None = None
        m = lib.attrs.get("leakage_power_unit", "1nW").strip().lower()
        scale = {"w": 1e9, "mw": 1e6, "uw": 1e3, "nw": 1.0, "pw": 1e-3, "fw": 1e-6}
        num = "".join(ch for ch in m if ch.isdigit() or ch == ".")
        self.leak = float(num or 1) * scale.get(m[len(num):], 1.0)
        # internal power tables are energies in capacitive_load_unit x voltage_unit^2 (volts here): fF V^2 = fJ;
        # :meth:`table` scales every table value by the time unit, so energy values are rescaled by this
        self.energy_scale = self.cap / self.time

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

    def timing_cell(self, group: _Group) -> CellTiming:
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
                    elif kind in CLOCK_ARCS or kind.startswith("combinational"):
                        clock = related if kind in CLOCK_ARCS else clock
                        sense = kind if kind in CLOCK_ARCS else t.attrs.get("timing_sense", "non_unate")
                        models = [tuple(self.table(sub.get(k)) for k in pair) for pair in _TABLES]
                        arcs.setdefault(name, []).append(Arc(related, sense, *models))
        if any(a.sense in CLOCK_ARCS for into in arcs.values() for a in into):   # sequential: launches only
            arcs = {q: [a for a in into if a.sense in CLOCK_ARCS] for q, into in arcs.items()}
        else:
            clock, setup = None, {}
        name = group.args[0] if group.args else "?"
        return CellTiming(name, inputs, tuple(outputs), {q: tuple(a) for q, a in arcs.items()}, clock, setup)

    def timing_library(self, nominal_slew_ps: float | None = None) -> TimingLibrary:
        """The timing view; ``nominal_slew_ps`` defaults to the first cell_rise table's middle slew."""
        cells = {c.name: c for c in map(self.timing_cell, self.lib.all("cell"))}
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

    def power_library(self) -> PowerLibrary:
        """The power view, with the timing view beside it; a library without ``nom_voltage`` is refused (the
        supply is needed for C V^2)."""
        cells = {c.name: c for c in map(self.power_cell, self.lib.all("cell")) if c is not None}
        vdd = float(self.lib.attrs.get("nom_voltage", 0) or 0)
        if vdd <= 0:
            raise ConfigError([("liberty", f"{self.source!r}: no nom_voltage; the supply is needed for C V^2")])
        return PowerLibrary(self.timing_library(), vdd, cells)

    def _energy_tables(self, group) -> tuple[Table, Table] | None:
        sub = {g.kind: g for g in group.groups}
        rise, fall = sub.get("rise_power", sub.get("power")), sub.get("fall_power", sub.get("power"))
        if rise is None or fall is None:
            return None
        return tuple(scaled(self.table(t), self.energy_scale) for t in (rise, fall))

    def power_cell(self, group) -> CellPower | None:
        name = group.args[0] if group.args else "?"
        attrs = group.attrs
        inputs, outputs, energy, clock_tables, max_cap = {}, {}, {}, (), {}
        ffs = group.all("ff")
        ff_state = tuple(ffs[0].args) if ffs else ()
        for pin in group.all("pin"):
            direction = pin.attrs.get("direction")
            for pname in pin.args:
                if direction in ("input", "inout"):
                    caps = [float(pin.attrs[k]) for k in ("capacitance", "rise_capacitance", "fall_capacitance")
                            if k in pin.attrs]
                    inputs[pname] = max(caps, default=0.0) * self.cap
                    if pin.attrs.get("clock") == "true":
                        clock_tables = tuple(t for g in pin.all("internal_power") if (t := self._energy_tables(g)))
                if direction in ("output", "inout"):
                    if "function" not in pin.attrs:
                        return None          # not a logic cell ABC or dfflibmap would use (e.g. a tie or analog cell)
                    outputs[pname] = parse_function(pin.attrs["function"])
                    energy[pname] = tuple(t for g in pin.all("internal_power") if (t := self._energy_tables(g)))
                    if "max_capacitance" in pin.attrs:
                        max_cap[pname] = float(pin.attrs["max_capacitance"]) * self.cap
        ff = None
        if ffs:
            g = ffs[0]
            clock = g.attrs.get("clocked_on", "").strip()
            trees = [parse_function(g.attrs[k]) if k in g.attrs else None for k in ("next_state", "clear", "preset")]
            if trees[0] is None or clock not in inputs:
                return None
            ff = (clock, *trees, ff_state[0] if ff_state else "IQ", ff_state[1] if len(ff_state) > 1 else "IQN")
        elif group.all("latch") or group.all("statetable"):
            return None
        for pname, tree in outputs.items():
            allowed = set(inputs) | set(ff_state)
            if not function_inputs(tree) <= allowed:
                return None
        return CellPower(name, float(attrs.get("area", 0) or 0), float(attrs.get("cell_leakage_power", 0) or 0)
                         * self.leak, inputs, outputs, energy, ff, clock_tables, max_cap)


def read_timing_library(path: str | Path, *, nominal_slew_ps: float | None = None) -> TimingLibrary:
    """The timing view of an NLDM Liberty file; ``nominal_slew_ps`` defaults to the first cell_rise table's middle
    slew."""
    return LibertyReader(read_liberty_groups(path), str(path)).timing_library(nominal_slew_ps)


def read_power_library(path: str | Path) -> PowerLibrary:
    """The power view (with the timing view beside it) of a Liberty file."""
    return LibertyReader(read_liberty_groups(path), str(path)).power_library()
