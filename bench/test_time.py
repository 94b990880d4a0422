"""Where the cold test time goes (issue 48): the default suite from empty caches, ranked.

Runs ``pytest -n 2`` in a checkout with fresh ``ACCELGEN_CACHE_DIR``, ``XDG_CACHE_HOME`` (the YoWASP and
wasmtime compile caches) and ``PIP_CACHE_DIR``, writing a JUnit report, then prints: wall and CPU time,
the slowest tests, seconds per test file and per folder, and the simulator builds the run made (count and
seconds per kind, read from the build directories: the Verilog copy is written when a build starts and
``.accelgen-built`` when it ends). ``--analyze JUNIT CACHE`` ranks an earlier run without running it.

Seconds per test are the worker's wall time (setup, call and teardown): on a shared machine they are
inflated, but their ranking holds. A build waited for by the other worker (the same design on both)
counts in both tests. CPU seconds per test are less sensitive to a shared machine: this module is also a
pytest plugin (``-p test_time`` with ``bench`` on ``PYTHONPATH``, which ``run`` adds) that writes, per test,
the user+sys CPU time of the worker and of the children it waited for (``getrusage`` of ``RUSAGE_SELF`` and
``RUSAGE_CHILDREN`` before and after setup, call and teardown) and its start and end time, one JSON line per
test, to ``$ACCELGEN_TEST_TIME_LOG/<worker>.jsonl``; the report ranks tests and files by CPU seconds and
says how long each worker idled after its last test.

    python bench/test_time.py [--repo .] [--top 40] [-- extra pytest args]
    python bench/test_time.py --analyze report.xml /tmp/cache [--cpu LOGDIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import pytest


LOG_VARIABLE = "ACCELGEN_TEST_TIME_LOG"


def _cpu_seconds() -> float:
    return sum(u.ru_utime + u.ru_stime for u in (resource.getrusage(resource.RUSAGE_SELF),
                                                  resource.getrusage(resource.RUSAGE_CHILDREN)))


def pytest_configure(config):
    """As a plugin: open this worker's log of per-test CPU seconds (nothing without ``ACCELGEN_TEST_TIME_LOG``)."""
    log_dir = os.environ.get(LOG_VARIABLE)
    if log_dir:
        worker = getattr(config, "workerinput", {}).get("workerid", "main")
        config._test_time_log = open(Path(log_dir) / f"{worker}.jsonl", "a", encoding="utf-8")  # noqa: SIM115


def pytest_unconfigure(config):
    log = getattr(config, "_test_time_log", None)
    if log:
        log.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Time one test's setup, call and teardown (a module fixture's setup counts in its first test)."""
    log = getattr(item.config, "_test_time_log", None)
    cpu0, t0 = _cpu_seconds(), time.time()
    yield
    if log:
        record = {"test": item.nodeid, "cpu": _cpu_seconds() - cpu0, "start": t0, "end": time.time()}
        log.write(json.dumps(record) + "\n")
        log.flush()


def cpu_records(log_dir: Path) -> dict[str, list[dict]]:
    """worker -> its per-test records, in the order it ran them (the xdist controller runs none)."""
    workers = {f.stem: [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
               for f in sorted(log_dir.glob("*.jsonl"))}
    return {worker: recs for worker, recs in workers.items() if recs}


def cpu_report(log_dir: Path, top: int) -> str:
    workers = cpu_records(log_dir)
    tests = [r for recs in workers.values() for r in recs]
    if not tests:
        return "no per-test CPU log"
    first = min(r["start"] for r in tests)
    last = max(r["end"] for r in tests)
    lines = [f"{len(tests)} tests, {sum(r['cpu'] for r in tests):.0f} CPU-seconds in the workers and their children, "
             f"{last - first:.0f} s from the first test's start to the last test's end"]
    for worker, recs in workers.items():
        end = max(r["end"] for r in recs)
        lines.append(f"worker {worker}: {len(recs)} tests, {sum(r['cpu'] for r in recs):.0f} CPU-s, last test "
                     f"ended {end - first:.0f} s after the first start (idle {last - end:.0f} s at the end)")
    by_file = defaultdict(float)
    for r in tests:
        by_file[r["test"].split("::")[0]] += r["cpu"]
    lines += ["", "| file | CPU s |", "|---|---:|"]
    lines += [f"| {k} | {v:.0f} |" for k, v in sorted(by_file.items(), key=lambda kv: -kv[1])[:top]]
    lines += ["", "| test | CPU s | wall s |", "|---|---:|---:|"]
    lines += [f"| {r['test']} | {r['cpu']:.1f} | {r['end'] - r['start']:.1f} |"
              for r in sorted(tests, key=lambda r: -r["cpu"])[:top]]
    return "\n".join(lines)


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
    env[LOG_VARIABLE] = str(work / "cpu")
    (work / "cpu").mkdir()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parent), env.get("PYTHONPATH")]))
    t0 = time.monotonic()
    command = [sys.executable, "-m", "pytest", "-n", "2", "-p", "test_time", f"--junitxml={junit}", *extra]
    proc = subprocess.run(command, cwd=repo, env=env, check=False)
    wall = time.monotonic() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary = (f"pytest rc {proc.returncode}: wall {wall:.0f} s, CPU user {usage.ru_utime:.0f} s + sys "
               f"{usage.ru_stime:.0f} s (load average at the end {os.getloadavg()[0]:.1f})")
    print(f"run directory: {work}")
    return junit, Path(env["ACCELGEN_CACHE_DIR"]), summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, default=Path("."), help="checkout to test (default: .)")
    ap.add_argument("--top", type=int, default=40, help="slowest tests and files to list")
    ap.add_argument("--analyze", nargs=2, type=Path, metavar=("JUNIT", "CACHE"), help="rank an earlier run")
    ap.add_argument("--cpu", type=Path, help="with --analyze: the run's per-test CPU log directory")
    ap.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = ap.parse_args()
    if args.analyze:
        print(report(*args.analyze, args.top))
        if args.cpu:
            print("\n" + cpu_report(args.cpu, args.top))
        return
    junit, cache, summary = run(args.repo, args.pytest_args)
    print(summary)
    print(report(junit, cache, args.top))
    print("\n" + cpu_report(junit.parent / "cpu", args.top))


if __name__ == "__main__":
    main()
