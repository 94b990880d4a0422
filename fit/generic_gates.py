"""Generic-gate statistics of an emitted design: Yosys' generic cells, transistors and logic depth, and their
costing in a technology description (``accelgen synth``).

This is not the flow the fitted models are measured with (:mod:`accelgen.fit.mapping`: a cell library, static
timing, library energy); it counts what Yosys' generic mapping gives, fast and without a cell library.

The flow maps the design to Yosys' generic gate library
(``synth -flatten``), then ``dffunmap`` turns flip-flops with enables and
synchronous resets into plain ``$_DFF_P_`` cells plus gates, so that every cell
has a CMOS transistor cost in Yosys' table and ``stat -tech cmos`` gives a
complete estimate rather than a lower bound. Logic depth is the longest
topological path between registers/ports (``ltp -noff``), in generic cells.

Arrays of cells (see :mod:`accelgen.rtl._cells`) are synthesized
hierarchically: the cell modules get ``keep_hierarchy``, everything else is
flattened, and each cell is mapped once. ``stat`` runs on each kept module on its
own, and :func:`compose_stats` multiplies each module's counts by its instances
(the numbers Yosys' own hierarchical ``stat`` gives, but Yosys spends ~15 s per
call composing a 128x128 array in WebAssembly, and the composition is a sum).
Logic depth is the longest per-module path, measured in the modules that hold
gates (a module of instances and wires only has none of its own); a path that
crosses a cell boundary is assumed to be registered there (true for the arrays
accelgen generates).

Results are cached by a hash of the Verilog, the top module, the script and the
Yosys version.

:func:`costs` prices one design point in a technology description of generic cells (``fit/tech/generic45.yaml``,
NanGate 45 nm, every number with its source in the file; :func:`load_tech`): cells by type, toggles per cycle by
driving cell, flip-flops and logic depth give

* ``area_um2``   = sum(count * area) over cells,
* ``leakage_uw`` = sum(count * leakage),
* ``energy_pj``  = (sum(toggles_per_cycle[kind] * energy[kind]) + flip_flops * clock_energy) / ops_per_cycle
  (per operation),
* ``delay_ns``   = clk_to_q + setup + logic_depth * mean_gate_delay.
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path

import yaml

from ..errors import ConfigError
from ..util import write_atomic
from .yosys import result_cache_path, run_yosys, yosys_version

SCRIPT = """\
read_verilog -sv {src}
hierarchy -check -top {top}
{keep}synth -flatten -top {top} -run :check
check
dffunmap
opt_clean -purge
setattr -mod -unset top
{stats}tee -q -o ltp.txt ltp -noff {depth_modules}
setattr -mod -set top 1 {top}
"""


def synthesis_script(top: str, cells=(), registered=(), src: str = "design.v") -> str:
    """The Yosys script of :data:`SCRIPT` for ``top`` keeping ``cells`` as separate modules; it writes
    ``stat-<i>.json`` for module ``i`` of :func:`script_modules` and ``ltp.txt``.

    ``registered`` (the manifest's ``registered_modules``) names modules that are wiring between
    registered cells: their paths through instances are not traced (``ltp`` on a 128x128 array top
    takes ~6 s and would report instance hops, not gates), unless they hold gates of their own."""
    keep = "".join(f"setattr -mod -set keep_hierarchy 1 {c}\n" for c in sorted(cells))
    modules = script_modules(top, cells)
    stats = "".join(f"tee -q -o stat-{i}.json stat -json -tech cmos {m}\n" for i, m in enumerate(modules))
    depth_modules = " ".join(["t:$_* %m", *(m for m in modules if m not in set(registered))])
    return SCRIPT.format(src=src, top=top, keep=keep, stats=stats, depth_modules=depth_modules)


#: after :data:`SCRIPT`: the flat gate netlist gate-level activity is simulated on (``net.json``,
#: :class:`~accelgen.fit.activity.GateSim`)
NETLIST_TAIL = "setattr -mod -unset keep_hierarchy\nflatten\nopt_clean -purge\nwrite_json net.json\n"


def netlist_script(top: str, cells=(), registered=(), src: str = "design.v") -> str:
    """:func:`synthesis_script` followed by :data:`NETLIST_TAIL`: statistics and the flat netlist in one run."""
    return synthesis_script(top, cells, registered, src) + NETLIST_TAIL


def script_modules(top: str, cells=()) -> list[str]:
    return [top, *sorted(cells)]


def read_stats(workdir: Path, top: str, cells=()) -> GateStats:
    """Parse what :func:`synthesis_script` wrote into ``workdir``."""
    modules = {}
    for i, _ in enumerate(script_modules(top, cells)):
        modules.update(json.loads((workdir / f"stat-{i}.json").read_text())["modules"])
    return parse_stats({"modules": modules}, (workdir / "ltp.txt").read_text(), top)


_FF = re.compile(r"DFF|DLATCH|SR_")


@dataclass
class GateStats:
    """Gate-level statistics of one synthesized module (generic Yosys cells)."""

    top: str
    cells: int
    cells_by_type: dict[str, int]
    flip_flops: int
    transistors: int
    transistors_complete: bool
    logic_depth: int
    yosys_version: str
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


def _transistors(mod: dict) -> tuple[int, bool]:
    text = str(mod.get("estimated_num_transistors", "0"))
    return int(text.rstrip("+") or 0), not text.endswith("+")


def compose_stats(modules: dict[str, dict], top: str) -> tuple[dict[str, int], int, bool]:
    """Gate counts by type, transistors and whether that estimate is complete, of ``top`` with every
    instance of a submodule replaced by that module's own composed counts. ``modules`` maps module
    names (with or without Yosys' leading backslash) to their ``stat -json`` entries; an instance
    appears in ``num_cells_by_type`` under its module's name, a generic gate under ``$_..._``."""
    by_name = {name.lstrip("\\"): mod for name, mod in modules.items()}
    memo: dict[str, tuple[dict[str, int], int, bool]] = {}

    def visit(name: str):
        if name not in memo:
            mod = by_name[name]
            by_type: dict[str, int] = {}
            transistors, complete = _transistors(mod)
            for cell_type, n in mod.get("num_cells_by_type", {}).items():
                if cell_type.lstrip("\\") in by_name:
                    sub_types, sub_transistors, sub_complete = visit(cell_type.lstrip("\\"))
                    for t, k in sub_types.items():
                        by_type[t] = by_type.get(t, 0) + n * k
                    transistors += n * sub_transistors
                    complete = complete and sub_complete
                elif cell_type.startswith("$"):
                    by_type[cell_type] = by_type.get(cell_type, 0) + n
            memo[name] = (by_type, transistors, complete)
        return memo[name]

    by_type, transistors, complete = visit(top.lstrip("\\"))
    return dict(sorted(by_type.items())), transistors, complete


def parse_stats(stat: dict, ltp_text: str, top: str) -> GateStats:
    """Statistics of ``top`` from per-module ``stat -json`` entries (``stat["modules"]``) and the
    ``ltp`` log."""
    modules = stat.get("modules", {})
    by_type, transistors, complete = compose_stats(modules, top)
    depths = {m.group(1): int(m.group(2))
              for m in re.finditer(r"Longest topological path in (\S+) \(length=(\d+)\)", ltp_text)}
    extra = {}
    if len(modules) > 1:
        extra["modules"] = {
            name.lstrip("\\"): {"cells": m.get("num_cells", 0),
                                 "transistors": str(m.get("estimated_num_transistors", "0")),
                                 "logic_depth": depths.get(name.lstrip("\\"), 0)}
            for name, m in modules.items()}
    return GateStats(
        top=top,
        cells=sum(by_type.values()),
        cells_by_type=by_type,
        flip_flops=sum(n for t, n in by_type.items() if _FF.search(t)),
        transistors=transistors,
        transistors_complete=complete,
        logic_depth=max(depths.values(), default=0),
        yosys_version=yosys_version(),
        extra=extra,
    )


def gate_statistics(verilog: str | Path, top: str, *, cells: list[str] = (), registered: list[str] = (),
                    use_cache: bool = True) -> GateStats:
    """The generic-gate statistics of Verilog (text, or a path to a file) with top module ``top``; cached.

    ``cells`` names modules to keep as separate, once-mapped modules (the
    manifest's ``cells`` list); all other hierarchy is flattened. ``registered``: the manifest's
    ``registered_modules`` (see :func:`synthesis_script`).
    """
    text = Path(verilog).read_text() if isinstance(verilog, Path) else verilog
    script = synthesis_script(top, cells, registered)
    cached = result_cache_path("synth", text, top, script=script)
    if use_cache and cached.exists():
        return GateStats(**json.loads(cached.read_text()))
    with tempfile.TemporaryDirectory(prefix="accelgen-synth-") as tmp:
        tmpdir = Path(tmp)
        (tmpdir / "design.v").write_text(text)
        (tmpdir / "flow.ys").write_text(script)
        proc = run_yosys(["-q", "-l", "yosys.log", "-s", "flow.ys"], tmpdir)
        if proc.returncode != 0:
            log = (tmpdir / "yosys.log")
            tail = log.read_text().strip().splitlines()[-5:] if log.exists() else proc.stderr.splitlines()[-5:]
            raise RuntimeError(f"yosys failed on {top}: " + " | ".join(tail))
        stats = read_stats(tmpdir, top, cells)
    write_atomic(cached, json.dumps(stats.to_dict()))
    return stats


# --------------------------------------------------------------------------- costing in a technology description

DEFAULT_TECH = "generic45"


def load_tech(name_or_path: str | Path = DEFAULT_TECH) -> dict:
    """A technology description: a shipped name (``generic45``) or a YAML file path.

    Its ``scaling`` table (keys as strings) is the node scaling the fitted models used before they carried the
    node table's (:func:`accelgen.technology.model_scaling`); nothing scales by it now, and ``accelgen tech show
    --node`` prints it only beside the node table's factors, for comparison."""
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml") and p.exists():
        text = p.read_text()
    else:
        res = resources.files("accelgen.fit") / "tech" / f"{name_or_path}.yaml"
        if not res.is_file():
            raise ConfigError([("tech", f"{str(name_or_path)!r} is neither a shipped technology "
                                        f"({DEFAULT_TECH}) nor a YAML file")])
        text = res.read_text()
    tech = yaml.safe_load(text)
    tech["scaling"] = {str(k): v for k, v in tech.get("scaling", {}).items()}
    return tech


def costs(tech: dict, cells_by_type: dict[str, int], flip_flops: int, logic_depth: int,
          toggles_per_cycle: dict[str, float] | None = None, ops_per_cycle: float | None = None) -> dict:
    """Area, leakage, delay (and energy per operation if toggles are given) of one design point."""
    cells = tech["cells"]
    missing = [t for t in cells_by_type if t not in cells]
    if missing:
        raise ConfigError([("cells", f"cell type {missing[0]!r} has no entry in technology {tech.get('name')!r}")])
    out = {
        "area_um2": float(sum(n * cells[t]["area_um2"] for t, n in cells_by_type.items())),
        "leakage_uw": float(sum(n * cells[t]["leakage_nw"] for t, n in cells_by_type.items())) / 1000.0,
        "delay_ns": (tech["clk_to_q_ps"] * (flip_flops > 0) + tech["setup_ps"] * (flip_flops > 0)
                     + logic_depth * tech["mean_gate_delay_ps"]) / 1000.0,
    }
    if toggles_per_cycle is not None and ops_per_cycle:
        fj = 0.0
        for kind, tog in toggles_per_cycle.items():
            per = cells.get(kind, {}).get("energy_fj", tech.get("toggle_energy_fj"))
            fj += tog * (tech["port_energy_fj"] if kind == "port" else per)
        fj += flip_flops * tech["clock_energy_fj"]
        out["energy_pj"] = fj / 1000.0 / ops_per_cycle
    return out
