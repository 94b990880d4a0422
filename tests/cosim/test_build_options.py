"""Verilator build options per use (issue 18): the C++ optimization level, parallel compiles, and the
build/run split that a cosim result reports."""

import json
import os

import pytest

from accelgen.cosim import pch_compile, simulators
from accelgen.cosim.simulators import OPT_LEVELS, build_jobs, build_key, check_opt, long_run_opt, resolve_opt
from accelgen.errors import ConfigError
from accelgen.util import cache_dir


def one_line_usage_error(proc) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


# ---- the optimization level

def test_levels_and_defaults():
    assert OPT_LEVELS == ("-O0", "-O1", "-O2", "-O3")
    assert simulators.SHORT_RUN_OPT == "-O0" and simulators.LONG_RUN_NATIVE_OPT == "-O2"
    assert long_run_opt("native") == "-O2" and long_run_opt("cocotb") == "-O0"


@pytest.mark.parametrize("bad", ["-O9", "O2", "-Os", "", "-O2 -g"])
def test_bad_level_names_the_value_and_the_allowed_ones(bad):
    with pytest.raises(ConfigError, match=rf"^opt: {bad!r} is not allowed; allowed: -O0, -O1, -O2, -O3$"):
        check_opt(bad)
    with pytest.raises(ConfigError, match=r"^opt: .* is not allowed"):
        resolve_opt(bad)


def test_environment_replaces_the_default_but_not_an_explicit_level(monkeypatch):
    monkeypatch.delenv(simulators.OPT_ENV, raising=False)
    assert resolve_opt() == "-O0"
    assert resolve_opt(default="-O2") == "-O2"
    monkeypatch.setenv(simulators.OPT_ENV, "-O3")
    assert resolve_opt() == "-O3" and resolve_opt(default="-O2") == "-O3"
    assert resolve_opt("-O1") == "-O1"
    monkeypatch.setenv(simulators.OPT_ENV, "-O7")
    with pytest.raises(ConfigError, match=r"^ACCELGEN_VERILATOR_OPT: '-O7' is not allowed; allowed: -O0, -O1"):
        resolve_opt()


def test_each_level_is_its_own_build():
    keys = {build_key("module m; endmodule\n", "m", "verilator", False, opt) for opt in OPT_LEVELS}
    assert len(keys) == len(OPT_LEVELS)
    # the default level keeps the key builds had before the level became a choice (caches stay warm)
    assert build_key("module m; endmodule\n", "m", "verilator", False) == \
        build_key("module m; endmodule\n", "m", "verilator", False, "-O0")


# ---- parallel compiles

def test_build_jobs(monkeypatch):
    monkeypatch.delenv(simulators.JOBS_ENV, raising=False)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert build_jobs() == 1  # the xdist workers already fill the cores
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert build_jobs() == min(simulators.MAX_BUILD_JOBS, len(os.sched_getaffinity(0)))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)))
    assert build_jobs() == simulators.MAX_BUILD_JOBS
    monkeypatch.setenv(simulators.JOBS_ENV, "3")
    assert build_jobs() == 3
    monkeypatch.setenv(simulators.JOBS_ENV, "zero")
    with pytest.raises(ConfigError, match=r"^ACCELGEN_BUILD_JOBS: 'zero' is not allowed; expected an integer >= 1"):
        build_jobs()


# ---- the command line

def test_cli_rejects_a_bad_level(accelgen_main):
    line = one_line_usage_error(accelgen_main("cosim", "mac", "--opt", "-O9"))
    assert "'-O9' is not one of '-O0', '-O1', '-O2', '-O3'" in line
    line = one_line_usage_error(accelgen_main("regress", "default", "--opt", "fast"))
    assert "--opt" in line and "'fast' is not one of" in line


def test_cli_rejects_a_bad_level_from_the_environment_before_rendering(accelgen_main, monkeypatch):
    monkeypatch.setenv("ACCELGEN_VERILATOR_OPT", "-O")
    line = one_line_usage_error(accelgen_main("cosim", "mac"))
    assert line == "accelgen: error: ACCELGEN_VERILATOR_OPT: '-O' is not allowed; allowed: -O0, -O1, -O2, -O3"


@pytest.mark.cosim
def test_cosim_reports_level_and_build_run_split(accelgen_main, monkeypatch):
    """An explicit --opt wins over the environment; the second run finds the build in the cache."""
    args = ("cosim", "mac", "--a-width", 5, "--b-width", 3, "--acc-width", 13, "--vectors", 40, "--opt", "-O0")
    monkeypatch.setenv("ACCELGEN_VERILATOR_OPT", "-O2")
    first = accelgen_main(*args, "--json")
    assert first.returncode == 0, first.stderr
    res = json.loads(first.stdout)
    assert res["passed"] and res["opt"] == "-O0" and res["build_s"] > 0 and res["run_s"] > 0
    second = accelgen_main(*args)
    assert second.returncode == 0, second.stderr
    assert "(cached) at -O0, run " in second.stdout.splitlines()[0], second.stdout


def fresh_counter_build(tmp_path, top: str = "counter") -> simulators.Built:
    """A Verilator build of a small counter that no earlier run made (a fresh comment), so the test sees this
    code's build."""
    src = tmp_path / f"{top}.v"
    src.write_text(f"// {os.urandom(6).hex()}\nmodule {top}(input clk, output reg [7:0] q);\n"
                   "  always @(posedge clk) q <= q + 8'd1;\nendmodule\n")
    return simulators.ensure_built(src, top, "verilator")


@pytest.mark.cosim
def test_a_finished_build_keeps_no_intermediates(tmp_path):
    """A cached build holds the executable, not the ~140 MB of precompiled headers and objects."""
    built = fresh_counter_build(tmp_path)
    assert not built.cached and (built.path / "counter").is_file()
    leftovers = [p.name for pattern in simulators.BUILD_LEFTOVERS for p in built.path.rglob(pattern)]
    assert leftovers == []


@pytest.mark.cosim
def test_a_build_reads_the_runtime_header_precompiled(tmp_path):
    """A design's own compiles go through cosim/pch_compile.py and GCC accepts the header it made."""
    built = fresh_counter_build(tmp_path, "counter_pch")
    log = (built.path / "build.log").read_text()
    assert "pch_compile.py" in log and "not used because" not in log, log
    assert list(cache_dir("pch").glob(f"*/{pch_compile.HEADER_NAME}.gch"))
    assert not list(cache_dir("pch").glob("*/failed"))
