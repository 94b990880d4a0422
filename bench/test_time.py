"""Where the cold test time goes (issue 48): the default suite from empty caches, ranked.

Runs ``pytest -n 2`` in a checkout with fresh ``ACCELGEN_CACHE_DIR``, ``XDG_CACHE_HOME`` (the YoWASP and
wasmtime compile caches) and ``PIP_CACHE_DIR``, writing a JUnit report, then prints: wall and CPU time,
the slowest tests, seconds per test file and per folder, and the simulator builds the run made (count and
seconds per kind, read from the build directories: the Verilog copy is written when a build starts and
``.accelgen-built`` when it ends). ``--analyze JUNIT CACHE`` ranks an earlier run without running it.

Seconds per test are the worker's wall time (setup, call and teardown): on a shared machine they are
inflated, but their ranking holds. A build waited for by the other worker (the same design on both)
counts in both tests.

    python bench/test_time.py [--repo .] [--top 40] [-- extra pytest args]
    python bench/test_time.py --analyze report.xml /tmp/cache
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path


def test_seconds(junit: Path) -> dict[str, float]:
    """``file::test`` -> seconds, from a JUnit report (pytest writes ``classname`` as a dotted module path)."""
    seconds = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        module = case.get("classname", "").replace(".", "/")
        seconds[f"{module}.py::{case.get('name')}"] = float(case.get("time", 0.0))
    return seconds


def builds(cache: Path) -> list[tuple[str, str, float]]:
    """``(kind, top module, seconds)`` of every finished simulator build in an accelgen cache."""
    found = []
    sim = cache / "sim"
    for bdir in sim.iterdir() if sim.is_dir() else ():
        done = bdir / ".accelgen-built"
        sources = sorted(bdir.glob("*.v")) if bdir.is_dir() else []
        if done.exists() and sources:
            found.append((bdir.name.split("-")[0], sources[0].stem, done.stat().st_mtime - sources[0].stat().st_mtime))
    return found


def report(junit: Path, cache: Path, top: int) -> str:
    seconds = test_seconds(junit)
    by_file, by_folder = defaultdict(float), defaultdict(float)
    for test, s in seconds.items():
        path = test.split("::")[0]
        by_file[path] += s
        by_folder[str(Path(path).parent)] += s
    lines = [f"{len(seconds)} tests, {sum(seconds.values()):.0f} worker-seconds", "", "| folder | s |", "|---|---:|"]
    lines += [f"| {k} | {v:.0f} |" for k, v in sorted(by_folder.items(), key=lambda kv: -kv[1])]
    lines += ["", "| file | s |", "|---|---:|"]
    lines += [f"| {k} | {v:.0f} |" for k, v in sorted(by_file.items(), key=lambda kv: -kv[1])[:top]]
    lines += ["", "| test | s |", "|---|---:|"]
    lines += [f"| {k} | {v:.1f} |" for k, v in sorted(seconds.items(), key=lambda kv: -kv[1])[:top]]
    made = builds(cache)
    kinds = defaultdict(lambda: [0, 0.0])
    for kind, _, s in made:
        kinds[kind][0] += 1
        kinds[kind][1] += s
    lines += ["", "| simulator builds | count | s |", "|---|---:|---:|"]
    lines += [f"| {kind} | {n} | {s:.0f} |" for kind, (n, s) in sorted(kinds.items())]
    lines += ["", "slowest builds: " + ", ".join(f"{top_} ({kind}) {s:.0f} s"
                                                for kind, top_, s in sorted(made, key=lambda b: -b[2])[:top // 2])]
    return "\n".join(lines)


def run(repo: Path, extra: list[str]) -> tuple[Path, Path, str]:
    work = Path(tempfile.mkdtemp(prefix="accelgen-test-time-"))
    env = dict(os.environ)
    for var in ("ACCELGEN_CACHE_DIR", "XDG_CACHE_HOME", "PIP_CACHE_DIR"):
        env[var] = str(work / var.lower())
    junit = work / "report.xml"
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", f"--junitxml={junit}", *extra], cwd=repo,
                          env=env, check=False)
    wall = time.monotonic() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary = (f"pytest rc {proc.returncode}: wall {wall:.0f} s, CPU user {usage.ru_utime:.0f} s + sys "
               f"{usage.ru_stime:.0f} s (load average at the end {os.getloadavg()[0]:.1f})")
    return junit, Path(env["ACCELGEN_CACHE_DIR"]), summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, default=Path("."), help="checkout to test (default: .)")
    ap.add_argument("--top", type=int, default=40, help="slowest tests and files to list")
    ap.add_argument("--analyze", nargs=2, type=Path, metavar=("JUNIT", "CACHE"), help="rank an earlier run")
    ap.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = ap.parse_args()
    if args.analyze:
        print(report(*args.analyze, args.top))
        return
    junit, cache, summary = run(args.repo, args.pytest_args)
    print(summary)
    print(report(junit, cache, args.top))


if __name__ == "__main__":
    main()
