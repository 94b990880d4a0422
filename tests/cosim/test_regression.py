"""``accelgen regress``: description parsing, resume after a kill, reports, a mutant design, Dask, timeouts."""

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from accelgen.cli import blocks as cli_blocks
from accelgen.cosim.regression import (STATE_FORMAT, load_regression, parse_regression, reproduce_command,
                                       run_job, run_regression, write_html, write_junit)
from accelgen.cosim.simulators import ensure_built
from accelgen.errors import ConfigError
from accelgen.gen.emit import render, write
from accelgen.registry import FAMILIES

REPO = Path(__file__).resolve().parents[2]
#: small designs whose builds are shared by the cosim tests below, and (regressions name a design after its
#: family) with tests/cosim/test_mac.py's ``s4`` variant, tests/test_flow.py and tests/test_build.py
MAC_SMALL = {"a_width": 4, "b_width": 4, "acc_width": 10}


# --------------------------------------------------------------------------- description (no simulator)

def test_regress_matrix_expands_modes_seeds_and_sims():
    reg = parse_regression({"modes": ["directed", "random"], "seeds": [1, 2], "sim": "verilator", "blocks": [
        {"block": "mac", "params": {"b_width": 8}, "matrix": {"a_width": [4, 8], "signed": [True, False]}},
        {"block": "fan", "modes": ["stress"], "seeds": [7], "sim": ["verilator", "icarus"], "vectors": {"stress": 9}},
    ]}, FAMILIES)
    mac = [t for t in reg.tests if t.family == "mac"]
    fan = [t for t in reg.tests if t.family == "fan"]
    assert len(mac) == 4 * 2 * 2 and len(fan) == 2
    assert {t.vectors for t in mac if t.mode == "directed"} == {0}
    assert {t.vectors for t in mac if t.mode == "random"} == {4096}
    assert {(t.sim, t.vectors, t.seed) for t in fan} == {("verilator", 9, 7), ("icarus", 9, 7)}
    assert {(t.params["a_width"], t.params["signed"]) for t in mac} == {(4, True), (4, False), (8, True), (8, False)}
    # overrides from the command line replace every list
    reg2 = parse_regression({"seeds": [1, 2], "blocks": [{"block": "mac"}]}, FAMILIES, seeds=[5], sims=["icarus"])
    assert {(t.seed, t.sim) for t in reg2.tests} == {(5, "icarus")}


def test_regress_stress_mode_scales_the_default_vectors():
    reg = parse_regression({"modes": ["stress"], "blocks": [{"block": "systolic"}]}, FAMILIES)
    assert [t.vectors for t in reg.tests] == [4 * 6]


def test_regress_bad_description_lists_every_problem_with_its_path():
    with pytest.raises(ConfigError) as exc:
        parse_regression({"blocks": [
            {"block": "nope"},
            {"block": "mac", "matrix": {"a_width": [4, 99]}},
            {"block": "systolic", "options": {"gemm": ["1,2"]}},
        ]}, FAMILIES, "r.yaml")
    msg = str(exc.value)
    assert msg.startswith("r.yaml: ")
    assert "blocks[0].block: unknown block 'nope'" in msg
    assert "blocks[1].matrix[1].a_width: 99 is not allowed; expected an integer in 1..32" in msg
    assert "blocks[2].options.gemm" in msg and "M,N,K" in msg
    # structural problems (the schema pass) are reported together too
    with pytest.raises(ConfigError) as exc:
        parse_regression({"seeds": [], "blocks": [{"block": "fan", "modes": ["soak"], "typo": 1}]}, FAMILIES)
    msg = str(exc.value)
    assert "blocks[0].modes[0]: 'soak' is not allowed; input should be 'directed', 'random' or 'stress'" in msg
    assert "blocks[0].typo: unknown field" in msg and "seeds: " in msg


def test_regress_cli_bad_input_is_one_line_exit_2(tmp_path, accelgen_main):
    reg = tmp_path / "r.yaml"
    reg.write_text("blocks:\n  - {block: mac, matrix: {a_width: [0]}}\n")
    proc = accelgen_main("regress", reg, "--report", tmp_path / "out")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and "blocks[0].matrix[0].a_width: 0 is not allowed" in proc.stderr
    assert not (tmp_path / "out").exists()
    proc = accelgen_main("regress", tmp_path / "missing.yaml")
    assert proc.returncode == 2 and "file not found" in proc.stderr
    for args, fragment in ((("--max-tests", "5"), "--max-tests is not allowed without --until-covered"),
                           (("--until-covered", "--rerun-failed"), "--until-covered is not allowed with")):
        proc = accelgen_main("regress", "default", "--report", tmp_path / "out2", *args)
        assert proc.returncode == 2 and fragment in proc.stderr, proc.stderr
        assert not (tmp_path / "out2").exists()


def test_regress_reproduce_command_round_trips_params_and_options():
    reg = parse_regression({"modes": ["random"], "seeds": [3], "blocks": [
        {"block": "systolic", "params": {"rows": 2, "cols": 3, "signed": False, "dataflow": "os"},
         "options": {"gemm": ["4,5,6", "1,1,1"]}},
        {"block": "flexdpe", "options": {"sparsity_a": 0.0, "stationary": "inputs"}}]}, FAMILIES)
    sys_t, flex_t = reg.tests
    assert reproduce_command(sys_t) == ("accelgen cosim systolic --rows 2 --cols 3 --dataflow os --unsigned "
                                        "--gemm 4,5,6 --gemm 1,1,1 --vectors 6 --seed 3 --sim verilator")
    assert "--sparsity-a 0.0 --stationary inputs" in reproduce_command(flex_t)
    # the command parses back into the same parameters and options
    from accelgen.cli import cli
    words = shlex.split(reproduce_command(sys_t))[1:]
    ctx = cli.make_context("accelgen", list(words), resilient_parsing=True)
    sub = ctx.command.get_command(ctx, "cosim").get_command(ctx, "systolic")
    sctx = sub.make_context("systolic", words[2:])
    assert sctx.params["rows"] == 2 and sctx.params["gemm"] == [(4, 5, 6), (1, 1, 1)] and sctx.params["seed"] == 3


def test_regress_keys_change_with_design_seed_and_mode():
    reg = parse_regression({"modes": ["directed", "random"], "seeds": [1, 2], "blocks": [{"block": "mac"}]},
                           FAMILIES)
    for t in reg.tests:
        t.design = "d" * 64
    keys = {t.key for t in reg.tests}
    assert len(keys) == 4
    reg.tests[0].design = "e" * 64
    assert reg.tests[0].key not in keys


def test_example_regressions_validate():
    default = load_regression(REPO / "examples/regress/default.yaml", FAMILIES)
    assert {t.family for t in default.tests} == set(FAMILIES)
    nightly = load_regression(REPO / "examples/regress/nightly.yaml", FAMILIES)
    assert len(nightly.tests) > 5 * len(default.tests)
    assert {t.mode for t in nightly.tests} == {"directed", "random", "stress"}
    fp = load_regression(REPO / "examples/regress/fp.yaml", FAMILIES)
    # every family with a floating-point datapath, in fp only
    assert {t.family for t in fp.tests} == {n for n, f in FAMILIES.items() if f.fp_operations}
    assert all(t.params.get("dtype", "int") != "int" for t in fp.tests)


# --------------------------------------------------------------------------- running (Verilator)

def _tiny(seeds, tmp_path, name="tiny"):
    path = tmp_path / f"{name}.yaml"
    path.write_text(json.dumps({"name": name, "modes": ["directed"], "seeds": seeds, "timeout_s": 300,
                                "blocks": [{"block": "mac", "params": MAC_SMALL}]}))
    return path


@pytest.mark.cosim
def test_regress_killed_midway_reruns_nothing_that_passed(tmp_path):
    reg = _tiny([1, 2, 3, 4, 5, 6], tmp_path)
    out = tmp_path / "out"
    state = out / "state.json"
    args = [sys.executable, "-m", "accelgen", "regress", str(reg), "-j", "1", "--report", str(out)]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 240
    passed_before = {}
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if state.exists():
                tests = json.loads(state.read_text())["tests"]
                passed_before = {k: v for k, v in tests.items() if v["status"] == "passed"}
                if len(passed_before) >= 2:
                    break
            time.sleep(0.2)
        assert proc.poll() is None, "the regression finished before it could be killed"
        proc.send_signal(signal.SIGKILL)  # no chance to clean up: only the state file survives
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    data = json.loads(state.read_text())
    assert data["format"] == STATE_FORMAT
    passed_before = {k: v for k, v in data["tests"].items() if v["status"] == "passed"}
    assert 2 <= len(passed_before) < 6

    junit = tmp_path / "j.xml"
    proc2 = subprocess.run(args + ["--junit", str(junit)], capture_output=True, text=True, timeout=600)
    assert proc2.returncode == 0, proc2.stdout + proc2.stderr
    res = json.loads((out / "results.json").read_text())
    assert res["counts"]["passed"] == 6 and res["reused"] == len(passed_before)
    after = {t["key"]: t for t in res["tests"]}
    for key, before in passed_before.items():
        assert after[key]["reused"] and after[key]["run_id"] == before["run_id"]  # not rerun
    new_runs = {t["run_id"] for t in res["tests"] if not t["reused"]}
    assert len(new_runs) == 1 and new_runs.isdisjoint({v["run_id"] for v in passed_before.values()})

    # reports: JUnit for CI, HTML with the reproduce commands, coverage per family
    root = ET.parse(junit).getroot()
    assert root.get("tests") == "6" and root.get("failures") == "0"
    assert len(root.findall(".//testcase")) == 6
    page = (out / "report.html").read_text()
    assert page.count("accelgen cosim mac --a-width 4 --b-width 4 --acc-width 10 --vectors 0 --seed") == 6
    assert "Functional coverage" in page and "a=min x b=max" in page
    assert "mac" in res["coverage"] and res["coverage"]["mac"]["covered"] > 0

    # a third run with the same arguments runs nothing
    proc3 = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert proc3.returncode == 0
    assert json.loads((out / "results.json").read_text())["reused"] == 6


def _flip_adder_bit(render):
    """A mutant ``render``: bit 0 of the first adder's sum in the emitted Verilog is inverted."""
    def mutant(fam, params, name):
        e = render(fam, params, name)
        text, n = re.subn(r"(assign\s+\S+\s*=\s*)([^;]*\+[^;]*);", r"\1(\2) ^ 1'b1;", e.verilog, count=1)
        assert n == 1, "no adder found to mutate"
        e.verilog = text
        from accelgen.util import sha256_hex
        e.manifest = {**e.manifest, "verilog_sha256": sha256_hex(text)}
        return e
    return mutant


@pytest.mark.cosim
def test_regress_mutant_fails_and_its_reproduce_command_fails_the_same_way(tmp_path, monkeypatch, capsys):
    mutant = _flip_adder_bit(render)
    # the command line's cosim renders with the same mutant generator (for the reproduce command)
    monkeypatch.setattr(cli_blocks, "render", mutant)
    reg = parse_regression({"name": "mutant", "modes": ["directed"], "seeds": [4],
                            "blocks": [{"block": "mac", "params": MAC_SMALL}]}, FAMILIES)
    res = run_regression(reg, tmp_path / "out", jobs=1, render=mutant)
    assert not res.passed
    (r,) = res.results
    assert r.status == "failed" and r.mismatches > 0 and r.waveform and Path(r.waveform).exists()
    write_junit(res, tmp_path / "j.xml")
    case = ET.parse(tmp_path / "j.xml").getroot().find(".//testcase")
    assert case.find("failure") is not None and r.reproduce in case.find("system-out").text
    assert "FAIL" in write_html(res, tmp_path / "r.html").read_text()

    # the reproduce command, run with the same (mutant) generator, fails with the same first mismatch
    from accelgen.cli import main
    words = shlex.split(r.reproduce)
    assert words[:3] == ["accelgen", "cosim", "mac"]
    capsys.readouterr()
    assert main(words[1:]) == 1
    printed = capsys.readouterr().out
    first = r.first_mismatches[0]
    assert f"{r.mismatches} mismatches" in printed
    assert f"cycle {first['cycle']}: {first['port']} expected {first['expected']}, got {first['got']}" in printed

    # and the same regression on the real generator passes
    monkeypatch.undo()
    assert run_regression(reg, tmp_path / "clean", jobs=1).passed


# issue 48: slow; a regression on a Dask LocalCluster (its results and coverage coming back) is run by default by
# tests/cosim/test_code_coverage.py::test_cocotb_tests_on_dask_workers_merge_their_coverage
@pytest.mark.cosim
@pytest.mark.slow
def test_regress_on_a_dask_local_cluster(tmp_path):
    distributed = pytest.importorskip("dask.distributed", reason="the Dask path needs dask[distributed]")
    reg = parse_regression({"name": "dask", "modes": ["directed"], "seeds": [1, 2],
                            "blocks": [{"block": "mac", "params": MAC_SMALL}, {"block": "fan", "params": {"n": 4}}]},
                           FAMILIES)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        res = run_regression(reg, tmp_path / "out", scheduler=cluster.scheduler_address)
    assert res.passed and res.count("passed") == 4 and res.jobs.startswith("Dask scheduler tcp://127.0.0.1")
    assert all(r.cycles > 0 and r.checks > 0 and not r.reused for r in res.results)
    assert set(res.coverage()) == {"mac", "fan"}


@pytest.mark.cosim
def test_regress_timeout_kills_a_hung_simulation(tmp_path):
    psutil = pytest.importorskip("psutil", reason="process checks need psutil (a dask dependency)")
    # ~600k cycles: at least half a minute of cocotb simulation (<= ~20k cycles/s), far past the 5 s limit
    reg = parse_regression({"modes": ["random"], "blocks": [
        {"block": "mac", "params": MAC_SMALL, "vectors": {"random": 600_000}}]}, FAMILIES)
    (t,) = reg.tests
    fam = FAMILIES["mac"]
    e = write(render(fam, fam.validate(t.params), "mac"), tmp_path / "design")
    # build first (the cached build the other MAC_SMALL tests share), so that the limit is spent on the
    # simulation, not on a cold build: the simulator is what must be killed
    ensure_built(e.verilog_path, "mac", "verilator")
    job = {"kind": "test", "fam": fam, "params": t.params, "mode": t.mode, "seed": 1, "sim": "verilator",
           "vectors": t.vectors, "options": {}, "verilog": e.verilog, "manifest": e.manifest, "waves": False,
           "work_dir": str(tmp_path / "run")}
    t0 = time.monotonic()
    out = run_job(job, timeout_s=5)
    assert out["status"] == "timeout" and "5 s" in out["error"]
    assert time.monotonic() - t0 < 90
    assert psutil.Process(os.getpid()).children(recursive=True) == []  # the simulator went with it


@pytest.mark.cosim
def test_regress_native_testbench_passes_and_catches_the_mutant(tmp_path, monkeypatch, capsys):
    # -O0 like the in-process reproduce run below, which then reuses the regression's build of the mutant
    # (a regression's default for the compiled testbench is -O2: a second, slower build of each design)
    monkeypatch.setenv("ACCELGEN_VERILATOR_OPT", "-O0")
    desc = {"name": "native", "modes": ["random"], "testbench": "native", "seeds": [2],
            "blocks": [{"block": "mac", "params": MAC_SMALL, "vectors": {"random": 500}},
                       {"block": "systolic", "params": {"rows": 2, "cols": 3}}]}
    res = run_regression(parse_regression(desc, FAMILIES), tmp_path / "ok", jobs=2, waves=False)
    assert res.passed, [r.error for r in res.results]
    assert all(r.reproduce.endswith("--testbench native") and r.checks > 0 for r in res.results)

    mutant = _flip_adder_bit(render)
    monkeypatch.setattr(cli_blocks, "render", mutant)
    desc["blocks"] = desc["blocks"][:1]
    bad = run_regression(parse_regression(desc, FAMILIES), tmp_path / "bad", jobs=1, waves=False, render=mutant)
    (r,) = bad.results
    assert r.status == "failed" and r.mismatches > 0
    from accelgen.cli import main
    capsys.readouterr()
    assert main(shlex.split(r.reproduce)[1:]) == 1
    first = r.first_mismatches[0]
    assert f"cycle {first['cycle']}: {first['port']} expected {first['expected']}, got {first['got']}" \
        in capsys.readouterr().out
