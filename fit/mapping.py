"""Timing-driven mapping of a design to a cell library at a target clock, and static timing of the result.

The generic-gate statistics (:mod:`accelgen.fit.generic_gates`) count Yosys' generic gates and the logic
depth; their delay is the depth times a mean gate delay, and ABC maps for area (``dc2``), which turns Yosys'
log-depth carry chains into ripple. This flow maps the same design with ABC to a Liberty library with the clock
period as its delay target, and times the mapped netlist with the library's delay model (:mod:`accelgen.fit.sta`):

* the library is the default technology's (NanGate45 cells in several drive strengths,
  ``fit/tech/nangate45_cells.yaml``, written as Liberty by :mod:`accelgen.fit.liberty_write` into the cache)
  or a user's Liberty file (``liberty=``), through the same script;
* Yosys: ``synth -flatten -noabc`` (generic gates), ``dfflibmap`` (flip-flops to library cells), then
  ABC with :data:`ABC_SCRIPTS`: structural hashing and choice computation (``dch``), delay-oriented
  mapping ``map -D period``, then ``buffer`` / ``upsize`` / ``dnsize`` at that target (gate sizing and
  buffering: ABC's timer, the library's NLDM tables). Primary inputs are driven by the library's
  smallest buffer and outputs loaded with :data:`OUTPUT_LOAD_FF` (:func:`constraints`);
* electrical repair of the joined netlist (:func:`accelgen.fit.repair.repair_drive`): a module mapped by its own
  ABC run saw :data:`OUTPUT_LOAD_FF` on its outputs, so a net leaving it for many sinks is resized or buffered
  to the library's max capacitance and max transition at its real load;
* static timing of the mapped netlist (:func:`accelgen.fit.sta.analyze`): the worst path from an input
  or a flip-flop (clock-to-Q) to an output or a flip-flop (plus setup), its start and end points.

``delay_ns`` is that path's delay, so ``1000 / delay_ns`` is the fastest clock of the mapped design,
which meets the target when ``delay_ns <= 1000 / clock_mhz``. A target that cannot be met is mapped
as fast as ABC can (the report says it misses).
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from ..errors import ConfigError, ToolFailedError
from ..util import cache_dir, sha256_hex, write_atomic
from .cell_library import PowerLibrary, TimingLibrary
from .cells import DEFAULT_CELLS, load_cells
from .liberty_read import read_power_library, read_timing_library
from .liberty_write import liberty_text
from .netlist import module_of
from .repair import repair_drive
from .sta import analyze
from .yosys import result_cache_path, run_yosys, yosys_version

#: what the default library is called in reports
DEFAULT_LIBRARY = f"{DEFAULT_CELLS} (generated)"
#: the target clock of a mapping when none is given: 1 GHz at the 45 nm reference library
DEFAULT_CLOCK_MHZ = 1000.0
#: load on each primary output (fF): about two X1 input pins and their wire
OUTPUT_LOAD_FF = 3.0
#: ABC after ``dfflibmap``: choices, delay-oriented mapping at the period, then buffering and sizing at it.
#: Commas stand for spaces (Yosys splits a ``-script +...`` argument at spaces). ``map -D`` and not
#: ``&nf``: in this ABC ``&nf`` ignores the delay target (the same mapping for every period; measured on a
#: 16x16-bit MAC: &nf 1843 ps at every target, map -D 1449 ps at 400 ps and 2008 ps at 2000 ps).
#: ``-c``: buffering, sizing and ABC's timer see the library's wire load (without it ABC sizes against a
#: delay 5-10% below what :func:`accelgen.fit.sta.analyze` then reports). No ``&fraig -x`` / ``scorr``: they
#: crash ABC in the WebAssembly build on the fp units. ``dc2`` (area-oriented rewriting) costs delay (a
#: 16x16-bit MAC at 1000 ps: 1.12 ns without it, 1.45 ns with it, +26% cells without), so it is left out,
#: but ABC (WebAssembly build) can still crash on some designs with some scripts, so they are tried in order
#: (best delay first; ``&nf``, which ignores the target, last), and the report names the one used.
#: ``topo`` before ``buffer``: ``buffer`` crashes ABC when the mapped network is not in topological order
#: (measured 2026-11-24: the integer TensorDash PE, 8 lanes, depth 3, 4 bits, fell through every ``map -D``
#: script to ``&nf`` at 2.10 ns; with ``topo`` the first script maps it, 1.46 ns. 31 of the 86 points of its
#: sweep and the bf16 systolic PE needed a fallback). Where the order already was topological, ``topo``
#: changes nothing (same area and delay for a MAC and a 4x4 systolic array).
_SIZE = "topo;buffer,-c;upsize,-c,-D,{period};dnsize,-c,-D,{period};stime,-c,-d"
ABC_SCRIPTS = (
    "+strash;dch,-f;map,-D,{period};" + _SIZE,
    "+strash;dc2;strash;dch,-f;map,-D,{period};" + _SIZE,
    "+strash;dc2;map,-D,{period};" + _SIZE,
    "+strash;&get,-n;&nf,-D,{period};&put;" + _SIZE,
)

#: modules whose generic logic Yosys estimates at more than this many gates (floating-point units, a TensorDash
#: scheduler) keep their hierarchy through mapping and are each mapped by their own ABC run: ABC (WebAssembly build)
#: crashes on some large flat networks with every delay-oriented script (measured: the fp16 TensorDash PE flattened,
#: 25,510 generic cells), and mapping a 32-input fp32 FAN flat took 613 s against 39 s with its levels kept.
MODULE_MIN_COST = 4000

_FRONT = """\
read_liberty -lib lib.lib
read_verilog -sv design.v
hierarchy -check -top {top}
proc
{keep}keep_hierarchy -min_cost {min_cost}
synth -flatten -top {top} -noabc
dfflibmap -liberty lib.lib
"""
_ABC = "abc -liberty lib.lib -constr constr.txt -D {period} -script {abc}{sel}\nopt_clean -purge{sel}\n"
_BACK = """\
setattr -mod -unset keep_hierarchy
flatten
opt_clean -purge
tee -q -o stat.json stat -json -liberty lib.lib
write_json mapped.json
"""

#: the step after :data:`_BACK` (for cache keys): not a Yosys command
_REPAIR = "# repair_drive: max_capacitance, default_max_transition (fit/repair.py)\n"


def flow_text(top: str, cells=(), period: int = 1000) -> str:
    """Every Yosys/ABC command a mapping of ``top`` runs (for cache keys): generic synthesis with ``cells`` and the
    modules above :data:`MODULE_MIN_COST` kept as blocks, ABC per distinct module with :data:`ABC_SCRIPTS` in order,
    and the flattening that joins them (:func:`map_netlist`)."""
    return _front(top, cells) + "".join(_ABC.format(period=period, abc=abc.format(period=period), sel=" M")
                                        for abc in ABC_SCRIPTS) + _BACK + _REPAIR


def _front(top: str, cells) -> str:
    keep = "".join(f"setattr -mod -set keep_hierarchy 1 {c}\n" for c in sorted(cells))
    return _FRONT.format(top=top, keep=keep, min_cost=MODULE_MIN_COST)


@dataclass
class MappedTiming:
    """A design mapped to a library at a target clock, and the static timing of the result."""

    top: str
    library: str
    clock_mhz: float               # the mapping's delay target
    area_um2: float                # cell area of the mapped netlist (no placement)
    cells: int
    cells_by_type: dict[str, int]
    delay_ns: float                # worst path: clock-to-Q or input, logic, setup or output
    logic_ns: float                # its combinational part
    meets_clock: bool
    critical_path: dict            # start, end, their kinds, cells on the path, the path itself
    yosys_version: str
    scope: str = "design, flattened"   # what was mapped and timed (area and cells are of that)
    extra: dict = field(default_factory=dict)

    @property
    def fmax_mhz(self) -> float:
        return 1000.0 / self.delay_ns if self.delay_ns > 0 else float("inf")

    def to_dict(self) -> dict:
        return asdict(self) | {"fmax_mhz": self.fmax_mhz}


def default_liberty() -> Path:
    """The default library as a Liberty file in the cache (written once per description)."""
    text = liberty_text(load_cells())
    path = cache_dir("tech") / f"{DEFAULT_CELLS}-{sha256_hex(text.encode())[:16]}.lib"
    if not path.exists():
        write_atomic(path, text)
    return path


def smallest_buffer(lib: TimingLibrary) -> str:
    """The library's buffer with the smallest input capacitance (one input, one output, positive unate)."""
    buffers = [(min(cell.inputs.values()), name) for name, cell in lib.cells.items()
               if len(cell.inputs) == 1 and len(cell.outputs) == 1 and cell.clock is None
               and all(a.sense == "positive_unate" for arcs in cell.arcs.values() for a in arcs)]
    if not buffers:
        raise ConfigError([("liberty", f"{lib.name}: no buffer cell (one input, positive unate); ABC needs one "
                                       "to drive the inputs and to buffer nets")])
    return min(buffers)[1]


def constraints(lib: TimingLibrary) -> str:
    """ABC's ``-constr`` file: inputs driven by the library's smallest buffer, outputs loaded."""
    return f"set_driving_cell {smallest_buffer(lib)}\nset_load {OUTPUT_LOAD_FF}\n"


def check_clock(clock_mhz) -> float:
    if isinstance(clock_mhz, bool) or not isinstance(clock_mhz, (int, float)) or not 1 <= clock_mhz <= 20000:
        raise ConfigError([("clock_mhz", f"{clock_mhz!r} is not allowed; expected a number in 1..20000 (MHz)")])
    return float(clock_mhz)


@dataclass
class MappedNetlist:
    """What one mapping run produced: the flat mapped netlist (Yosys JSON), its ``stat -liberty`` entry, the
    library it was mapped to and the ABC script that succeeded."""

    top: str
    netlist: dict
    stat: dict
    library_path: Path
    library_name: str
    timing_library: TimingLibrary
    clock_mhz: float
    abc_script: str                # per module when the modules needed different scripts
    repair: dict = field(default_factory=dict)   # what :func:`accelgen.fit.repair.repair_drive` changed


def resolve_library(liberty: str | Path | None) -> tuple[Path, str]:
    """The Liberty file to map to (a user's, or the default technology's generated one) and its report name."""
    lib_path = Path(liberty) if liberty else default_liberty()
    if not lib_path.is_file():
        raise ConfigError([("liberty", f"{str(lib_path)!r} is not a readable file")])
    return lib_path, (str(lib_path.name) if liberty else DEFAULT_LIBRARY)


def map_netlist(verilog: str, top: str, *, cells=(), clock_mhz: float = DEFAULT_CLOCK_MHZ,
                liberty: str | Path | None = None, repair: bool = True) -> MappedNetlist:
    """Map ``verilog`` (top ``top``; ``cells`` and large modules mapped as blocks, see :func:`flow_text`) to
    ``liberty`` with ABC at the period of ``clock_mhz``; not cached.

    One Yosys run synthesizes the generic netlist; then each distinct kept module (cell modules and large units;
    modules whose generic netlists are identical up to names, such as the lane multipliers of every tile row, are
    mapped once) is mapped by a Yosys run of its own, with the first of :data:`ABC_SCRIPTS` that succeeds on it
    (ABC crashes on some designs with some scripts, and a crash ends only that run); a last run joins and
    flattens them (:func:`_map_by_module`), and the joined netlist is repaired
    (:func:`~accelgen.fit.repair.repair_drive`; ``repair=False``: left as ABC mapped it)."""
    clock_mhz = check_clock(clock_mhz)
    lib_path, name = resolve_library(liberty)
    lib = read_timing_library(lib_path)
    period = round(1e6 / clock_mhz)
    # the library sits beside the design: inside the yowasp sandbox only the working directory is visible
    with tempfile.TemporaryDirectory(prefix="accelgen-map-", dir=cache_dir("map-work")) as tmp:
        d = Path(tmp)
        (d / "design.v").write_text(verilog)
        (d / "lib.lib").write_text(lib_path.read_text())
        (d / "constr.txt").write_text(constraints(lib))
        used = _map_by_module(d, top, cells, period, name, set(lib.cells))
        stat = json.loads((d / "stat.json").read_text())
        netlist = json.loads((d / "mapped.json").read_text())
    mod = stat.get("design") or stat["modules"][f"\\{top}"]
    scripts = set(used.values())
    script = scripts.pop() if len(scripts) == 1 else "; ".join(f"{m}: {s}" for m, s in used.items())
    if not repair:          # the netlist as ABC left it (bench/repair_effect.py compares)
        return MappedNetlist(top, netlist, mod, lib_path, name, lib, clock_mhz, script)
    plib = read_power_library(lib_path)
    done = repair_drive(netlist, top, plib, output_load_ff=OUTPUT_LOAD_FF)
    if done.upsized or done.buffers:
        mod = {**mod, **cell_stat(netlist, top, plib)}
    return MappedNetlist(top, netlist, mod, lib_path, name, lib, clock_mhz, script, done.to_dict())


def _map_by_module(d: Path, top: str, cells, period: int, name: str, library: set[str]) -> dict[str, str]:
    """Map the generic netlist one distinct module per Yosys run (:func:`_map_modules`), then join and flatten them
    into ``mapped.json`` and ``stat.json``; return the script per module."""
    used = _map_modules(d, top, cells, period, name, library)
    _join(d, top, len(used))
    return used


def _map_modules(d: Path, top: str, cells, period: int, name: str, library: set[str]) -> dict[str, str]:
    """Synthesize ``design.v`` to generic gates (``cells`` and large modules kept), then map each distinct module by
    a Yosys run of its own, with the first of :data:`ABC_SCRIPTS` that succeeds on it, to ``mapped-<i>.il`` (``i``:
    the module's place in the returned dict, in the generic netlist's order); a module's identical twins get a copy
    of its result. Return the script per module."""
    (d / "front.ys").write_text(_front(top, cells) + "opt_clean -purge\nwrite_rtlil generic.il\n")
    _run(d, "front.ys", f"yosys failed synthesizing {top}")
    # ``library``: the cell names, which read_liberty -lib adds as blackbox modules
    blocks = {m: text for m, text in _module_blocks((d / "generic.il").read_text()).items() if m not in library}
    index = {m: i for i, m in enumerate(blocks)}
    first: dict[str, str] = {}        # signature -> the module mapped for it
    used = {}
    for i, (module, text) in enumerate(blocks.items()):
        twin = first.setdefault(_signature(module, text), module)
        if twin != module:
            used[module] = used[twin]
            mapped = (d / f"mapped-{index[twin]}.il").read_text()
            (d / f"mapped-{i}.il").write_text(mapped.replace(f"module \\{twin}\n", f"module \\{module}\n", 1))
            continue
        for abc in ABC_SCRIPTS:
            script = abc.format(period=period)
            (d / "module.ys").write_text(
                "read_liberty -lib lib.lib\nread_rtlil generic.il\n"
                + _ABC.format(period=period, abc=script, sel=f" {module}")
                + f"select {module}\nwrite_rtlil -selected mapped-{i}.il\n")
            proc = run_yosys(["-q", "-s", "module.ys"], d)
            if proc.returncode == 0:
                used[module] = script
                break
        else:
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-2:]
            raise ToolFailedError(f"yosys/abc failed mapping module {module} of {top} to {name} with every script: "
                                  + " | ".join(tail))
    return used


def _join(d: Path, top: str, count: int) -> None:
    """Read the mapped modules ``mapped-0.il`` .. ``mapped-<count-1>.il``, flatten ``top``, write its netlist
    (``mapped.json``) and ``stat -liberty`` (``stat.json``)."""
    reads = "".join(f"read_rtlil mapped-{i}.il\n" for i in range(count))
    (d / "back.ys").write_text("read_liberty -lib lib.lib\n" + reads + f"hierarchy -top {top}\n" + _BACK)
    _run(d, "back.ys", f"yosys failed joining the mapped modules of {top}")


def cell_stat(netlist: dict, top: str, plib: PowerLibrary) -> dict:
    """``stat -liberty``'s area and cell counts of module ``top`` of a flat netlist, recounted (after a repair)."""
    counts: dict[str, int] = {}
    for inst in module_of(netlist, top).get("cells", {}).values():
        ctype = inst["type"].lstrip("\\")
        if ctype != "$scopeinfo":
            counts[ctype] = counts.get(ctype, 0) + 1
    return {"area": sum(plib.cells[c].area_um2 * n for c, n in counts.items() if c in plib.cells),
            "num_cells": sum(counts.values()), "num_cells_by_type": counts}


def _run(d: Path, script: str, what: str) -> None:
    proc = run_yosys(["-q", "-s", script], d)
    if proc.returncode != 0:
        raise ToolFailedError(what + ": " + " | ".join((proc.stdout + proc.stderr).strip().splitlines()[-2:]))


def _module_blocks(rtlil: str) -> dict[str, str]:
    """The modules of an RTLIL file: name -> its text from ``module`` to ``end``."""
    return {m.group(1): m.group(0) for m in re.finditer(r"^module \\(\S+)\n.*?^end\n", rtlil, re.M | re.S)}


def _signature(name: str, text: str) -> str:
    """A module's RTLIL without its name, source attributes and the numbering of Yosys' internal names: equal for
    modules that differ only in those (the per-instance copies Amaranth emits of one unit)."""
    body = re.sub(r"^\s*attribute \\src .*\n", "", text.replace(f"module \\{name}\n", "module\n", 1), flags=re.M)
    names: dict[str, str] = {}

    def canonical(m):
        token = m.group(0)
        if re.fullmatch(r"\$_[A-Z0-9_]*_|\$[a-z_]+", token):      # a cell type ($_AND_, $_AOI3_, $scopeinfo)
            return token
        return names.setdefault(token, f"$n{len(names)}")

    return re.sub(r"\$[^\s]+", canonical, body)


def timing_of(m: MappedNetlist, scope: str = "design, flattened") -> MappedTiming:
    """Static timing of a mapping run (:func:`accelgen.fit.sta.analyze`) and its area."""
    report = analyze(m.netlist, m.top, m.timing_library, output_load_ff=OUTPUT_LOAD_FF)
    return MappedTiming(
        top=m.top, library=m.library_name, clock_mhz=m.clock_mhz, area_um2=float(m.stat.get("area", 0.0)),
        cells=int(m.stat.get("num_cells", 0)), cells_by_type=dict(sorted(m.stat.get("num_cells_by_type", {}).items())),
        delay_ns=report.delay_ps / 1000, logic_ns=report.logic_ps / 1000,
        meets_clock=report.delay_ps <= 1e6 / m.clock_mhz,
        critical_path={"start": report.start, "start_kind": report.start_kind, "end": report.end,
                       "end_kind": report.end_kind, "cells": report.cells_on_path, "path": report.path},
        yosys_version=yosys_version(), scope=scope,
        extra={"abc_script": m.abc_script, "repair": m.repair,
               "loops_broken": report.loops_broken, "endpoints": report.endpoints})


def map_and_time(verilog: str | Path, top: str, *, cells=(), registered=(), clock_mhz: float = DEFAULT_CLOCK_MHZ,
                 liberty: str | Path | None = None, use_cache: bool = True) -> MappedTiming:
    """Map ``verilog`` (text or a path; top module ``top``; ``cells`` mapped once each) to ``liberty`` (default:
    the default technology's generated library) with ABC at the period of ``clock_mhz``, and time it; cached.

    ``registered``: the modules that are wiring between registered cells (the manifest's ``registered_modules``).
    When the top is one of them, no path crosses a cell, so each cell is timed alone and the area is composed over
    the instances (:func:`_time_registered_cells`) instead of flattening the whole array (a 128x128 bf16 array
    flattened exceeds the WebAssembly build's memory)."""
    clock_mhz = check_clock(clock_mhz)
    text = Path(verilog).read_text() if isinstance(verilog, Path) else verilog
    lib_path, name = resolve_library(liberty)
    lib_text = lib_path.read_text()
    period = round(1e6 / clock_mhz)
    constr = constraints(read_timing_library(lib_path))
    per_cell = bool(cells) and top in set(registered)
    cached = result_cache_path("mapped", text, top, flow=flow_text(top, cells, period), constr=constr,
                               lib=sha256_hex(lib_text), name=name,
                               per_cell=("each outer cell by map_netlist", sorted(registered)) if per_cell else None)
    if use_cache and cached.exists():
        return MappedTiming(**json.loads(cached.read_text()))
    result = _time_registered_cells(text, top, cells, set(registered), clock_mhz, liberty) if per_cell else None
    if result is None:
        scope = ("design, flattened" if not cells else
                 f"design; cell modules {', '.join(sorted(cells))} mapped once each, then flattened and timed whole")
        result = timing_of(map_netlist(text, top, cells=cells, clock_mhz=clock_mhz, liberty=liberty), scope)
    write_atomic(cached, json.dumps(asdict(result)))
    return result


def _time_registered_cells(text: str, top: str, cells, registered: set[str], clock_mhz: float,
                           liberty: str | Path | None) -> MappedTiming | None:
    """A design whose wiring modules (``registered``, the top among them) only connect registered cells: each cell
    module outside them (the PE, with its floating-point units) is mapped, repaired and timed alone by
    :func:`map_netlist` (no path crosses a cell); the area and cell counts are the cells', times their instance
    counts in the emitted hierarchy. None when a wiring module holds logic of its own (then the design is mapped
    whole, so that nothing is left out)."""
    modules = _verilog_modules(text)
    if any(_has_logic(modules[m]) for m in registered if m in modules):
        return None
    children = {m: _verilog_instances(body, modules) for m, body in modules.items()}
    counts = {top: 1}
    for m in _topological(top, children):
        for c, n in children.get(m, {}).items():
            counts[c] = counts.get(c, 0) + counts[m] * n
    outer = [c for c in cells if c not in registered]
    units = sorted(c for c in outer if counts.get(c) and not any(c in children.get(u, {}) for u in outer))
    timed = {u: map_netlist(text, u, clock_mhz=clock_mhz, liberty=liberty) for u in units}
    by_type: dict[str, int] = {}
    for u, m in timed.items():
        for ctype, k in m.stat.get("num_cells_by_type", {}).items():
            by_type[ctype] = by_type.get(ctype, 0) + counts[u] * k
    reports = {u: timing_of(m) for u, m in timed.items()}
    unit, worst = max(reports.items(), key=lambda kv: kv[1].delay_ns)
    path = worst.critical_path
    return replace(worst, top=top, area_um2=sum(counts[u] * r.area_um2 for u, r in reports.items()),
                   cells=sum(by_type.values()), cells_by_type=dict(sorted(by_type.items())),
                   critical_path={**path, "start": f"{unit}.{path['start']}", "end": f"{unit}.{path['end']}"},
                   scope=(f"registered cells: {', '.join(units)} each mapped and timed alone (every path between "
                          f"cells passes a register in a cell); area and cells times their instances"),
                   extra={**worst.extra, "repair": {u: m.repair for u, m in timed.items()},
                          "instances": {u: counts[u] for u in units}})


def _verilog_modules(text: str) -> dict[str, str]:
    """The emitted Verilog's modules: name -> body."""
    return {m.group(1).lstrip("\\"): m.group(2) for m in
            re.finditer(r"^module (\S+?)\s*\((.*?)^endmodule", text, re.M | re.S)}


def _verilog_instances(body: str, modules) -> dict[str, int]:
    """Instances per module type in one module body (Amaranth's ``<type> <name> (`` lines)."""
    out: dict[str, int] = {}
    for ctype in re.findall(r"^\s+\\?([\w.$]+) \\?[\w.$\[\]]+ \($", body, re.M):
        if ctype in modules:
            out[ctype] = out.get(ctype, 0) + 1
    return out


def _has_logic(body: str) -> bool:
    """A process, or an ``assign`` with an operator: more than wiring."""
    return "always" in body or any(re.search(r"[&|^+*~?<>!%]|[^\[:\d]-", rhs)
                                   for rhs in re.findall(r"^\s*assign [^=]+=(.*);", body, re.M))


def _topological(top: str, children: dict[str, dict[str, int]]) -> list[str]:
    """``top`` and the modules below it, each after every module that instantiates it."""
    order, seen = [], set()

    def visit(m):
        if m in seen:
            return
        seen.add(m)
        for c in children.get(m, {}):
            visit(c)
        order.append(m)

    visit(top)
    return order[::-1]
