"""Shared fixtures, and a summary of the simulator builds a test session made.

Simulator builds are cached by the hash of the Verilog and the build options
(:mod:`accelgen.cosim.simulators`, :mod:`accelgen.cosim.native`), also across
pytest-xdist workers (a file lock per build). The module name is part of the Verilog:
tests that simulate the same parameters should give the design the same name (the
family's default name, or the name another test already uses) so that they share one
build. The terminal summary counts this session's builds and names every design that
was built more than once under different module names, so a new test that misses a
shared build shows up.

``accelgen_main`` runs a command in the test process (a ``python -m accelgen`` subprocess costs about
1 s of CPU in its imports alone): for tests of what a command does, not of the process.
"""

import contextlib
import hashlib
import io
import os
import re
import shutil
import sys
import time
import warnings
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

# Every simulator run is a fresh Python (cocotb's) that imports accelgen's modules. With PYTHONDONTWRITEBYTECODE
# set (CI images and this project's sandbox set it) no bytecode is ever cached, so each run compiled them again:
# 2.05 against 0.95 CPU-s for a 92-cycle MAC run (measured 2026-11-28, 2-core machine). The suite lets Python
# cache bytecode (``__pycache__`` beside the sources, as any local run does), for its workers and their children.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

from accelgen.cli import main
from accelgen.cosim.simulators import available_simulators
from accelgen.util import cache_dir

_SESSION_START = time.time()


def pytest_report_header(config):
    return f"accelgen simulators available: {', '.join(available_simulators()) or 'none'}"


@pytest.fixture(scope="session")
def has_icarus():
    return shutil.which("iverilog") is not None


@dataclass(frozen=True)
class Ran:
    """What a finished ``accelgen`` command left: its exit code and what it wrote (as ``subprocess.run`` gives)."""
    returncode: int
    stdout: str
    stderr: str


def run_accelgen(*args, cwd=None) -> Ran:
    """``accelgen ARGS`` run by :func:`accelgen.cli.main` (what ``python -m accelgen`` calls) in this process."""
    out, err = io.StringIO(), io.StringIO()
    here, showwarning = Path.cwd(), warnings.showwarning   # main() installs its one-line warning printer
    try:
        os.chdir(cwd or here)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            returncode = main([str(a) for a in args])
    finally:
        os.chdir(here)
        warnings.showwarning = showwarning
    return Ran(returncode, out.getvalue(), err.getvalue())


@pytest.fixture(scope="session")
def accelgen_main():
    """:func:`run_accelgen`: ``accelgen_main("gen", "mac", cwd=tmp_path)`` has ``returncode``, ``stdout``, ``stderr``."""
    return run_accelgen


def _session_builds(since: float) -> list[tuple[str, str, bool, str]]:
    """``(kind, top, waves, normalised Verilog hash)`` of every build finished after ``since``."""
    builds = []
    for d in cache_dir("sim").iterdir():
        done = d / ".accelgen-built"
        if not d.is_dir() or not done.exists() or done.stat().st_mtime < since:
            continue
        sources = sorted(d.glob("*.v"))
        if not sources:
            continue
        top = sources[0].stem
        text = re.sub(rf"\b{re.escape(top)}(?=\b|__)", "TOP", sources[0].read_text())
        waves = any(d.glob("**/*__Trace__*"))
        builds.append((d.name.split("-")[0], top, waves, hashlib.sha256(text.encode()).hexdigest()))
    return builds


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if hasattr(config, "workerinput"):  # an xdist worker: the controller reports
        return
    try:
        builds = _session_builds(_SESSION_START)
    except OSError:
        return
    if not builds:
        return
    kinds = defaultdict(int)
    by_design = defaultdict(list)
    for kind, top, waves, digest in builds:
        kinds[kind] += 1
        by_design[(kind, waves, digest)].append(top)
    counts = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    terminalreporter.write_line(f"accelgen: {len(builds)} simulator builds in {cache_dir('sim')} ({counts})")
    for (kind, waves, _), tops in sorted(by_design.items()):
        if len(set(tops)) > 1:  # (one name built twice: other build options, e.g. the C++ -O level)
            terminalreporter.write_line(f"accelgen: one {kind}{' (waves)' if waves else ''} design built "
                                        f"{len(tops)} times under the names {', '.join(sorted(tops))}: "
                                        "give the tests one name to share a build")
