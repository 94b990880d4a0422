"""``accelgen study NAME``: the papers' studies run end to end, their JSON keys, and bad input."""

import json
import subprocess
import sys

import pytest

from accelgen.ppa.studies import run_study, study_names


def accelgen(*args):
    return subprocess.run([sys.executable, "-m", "accelgen", *map(str, args)], capture_output=True, text=True, check=False)


def test_study_names():
    assert {"sigma-reduction", "sigma-vs-systolic", "neurometer-datacenter", "neurometer-sparsity"} <= set(study_names())


def test_sigma_reduction_rows(tmp_path):
    res = run_study("sigma-reduction", tmp_path)
    doc = res.to_json()
    assert doc["study"] == "sigma-reduction"
    rows = {(r["network"], r["n"]): r for r in doc["rows"]}
    assert set(rows) == {(net, n) for net in ("linear", "art", "fan") for n in (16, 32, 64, 128, 256, 512)}
    for r in rows.values():
        assert r["area_mm2"] > 0 and r["power_w"] > 0 and r["edp"] > 0 and r["meets_clock"]
    for n in (16, 512):
        # Fig. 6b's run: 100 folds of 1000 vectors; the chain drains in n cycles per fold, the trees in log2 n levels
        # (ART's linked switches put two fp32 adders in a level: it needs more stages for 500 MHz than FAN)
        assert rows[("linear", n)]["cycles"] > rows[("art", n)]["cycles"] >= rows[("fan", n)]["cycles"] >= 100 * 1000
        # ART's linked switches add n - 2 log2 n adders to the n - 1 of a tree: SIGMA's argument against it
        assert rows[("art", n)]["area_mm2"] > rows[("fan", n)]["area_mm2"]
    assert all(f.exists() for f in res.files)


def test_sigma_vs_systolic_rows(tmp_path):
    res = run_study("sigma-vs-systolic", tmp_path)
    doc = res.to_json()
    assert doc["study"] == "sigma-vs-systolic"
    rows = {r["design"]: r for r in doc["rows"]}
    assert set(rows) == {"sigma", "systolic"}
    for r in rows.values():
        assert r["area_mm2"] > 0 and r["power_w"] > 0
        assert r["dense_tflops"] > 0 and r["dense_tflops_per_w"] > 0
    # the systolic array is the reference of the speedups
    assert rows["systolic"]["dense_speedup"] == pytest.approx(1.0)
    assert rows["systolic"]["sparse_speedup"] == pytest.approx(1.0)
    # SIGMA's claims, as properties of the performance model: irregular GEMMs map better on Flex-DPEs, and
    # skipping zeros widens the gap (a systolic array multiplies its zeros)
    assert rows["sigma"]["dense_speedup"] > 1.0
    assert rows["sigma"]["sparse_speedup"] > rows["sigma"]["dense_speedup"]
    # one row per GEMM of the suite, run and design
    assert len(doc["gemms"]) == 2 * 2 * 10
    assert all(f.exists() for f in res.files)


def test_study_cli_json_and_table(tmp_path):
    proc = accelgen("study", "neurometer-sparsity", "--json", "--out", tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["study"] == "neurometer-sparsity"
    assert {r["objective"] for r in doc["rows"]} == {"tops_per_w", "achieved_tops"}
    assert len(doc["points"]) == 80
    proc = accelgen("study", "neurometer-sparsity", "--out", tmp_path)   # a rerun reuses the chunks
    assert proc.returncode == 0, proc.stderr
    assert "80 points, 80 feasible" in proc.stdout


@pytest.mark.slow
def test_neurometer_datacenter_study(tmp_path):
    res = run_study("neurometer-datacenter", tmp_path)
    assert {r["objective"] for r in res.rows} >= {"achieved_tops", "tops_per_tco"}
    assert any(n.startswith("accelgen: best achieved_tops at X=") for n in res.notes)


@pytest.mark.parametrize("args, fragment", [
    (("nope",), "'nope' is not a study"),
    (("sigma-vs-systolic", "--out", "FILE"), "--out"),
])
def test_study_bad_input(tmp_path, args, fragment):
    f = tmp_path / "f"
    f.write_text("x")
    proc = accelgen("study", *[str(f) if a == "FILE" else a for a in args])
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], proc.stderr
    assert f.read_text() == "x"
