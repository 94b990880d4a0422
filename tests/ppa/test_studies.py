"""``accelgen study NAME``: the papers' studies run end to end, their JSON keys, and bad input."""

import json
import subprocess
import sys

import pytest

from accelgen.cli.study import study_cmd
from accelgen.ppa.studies import run_study, study_names


def accelgen(*args):
    return subprocess.run([sys.executable, "-m", "accelgen", *map(str, args)], capture_output=True, text=True, check=False)


def test_study_names():
    assert set(study_names()) == {"sigma-reduction", "sigma-vs-systolic", "tensordash-overhead", "neurometer-datacenter",
                                  "neurometer-sparsity"}
    # the command's help names every study (it lists them without importing the estimator)
    assert all(name in " ".join(study_cmd.help.split()) for name in study_names())


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


def test_tensordash_overhead_rows(tmp_path):
    res = run_study("tensordash-overhead", tmp_path)
    doc = res.to_json()
    assert doc["study"] == "tensordash-overhead"
    rows = {(r["design"], r["dtype"]): r for r in doc["rows"]}
    assert set(rows) == {(d, t) for d in ("tensordash", "dense") for t in ("fp16", "bf16", "int8")}
    for dtype in ("fp16", "bf16", "int8"):
        td, dense = rows[("tensordash", dtype)], rows[("dense", dtype)]
        assert (td["depth"], dense["depth"]) == (4, 1)
        # the same multipliers and adders: the dense tile gets TensorDash's pipelining
        assert (td["mul_stages"], td["add_stages"]) == (dense["mul_stages"], dense["add_stages"])
        # staging buffers, operand muxes and the scheduler cost area
        assert td["area_mm2"] > dense["area_mm2"] > 0 and td["chip_area_mm2"] > dense["chip_area_mm2"]
        assert td["power_w"] > 0 and dense["power_w"] > 0
        sweep = [r for r in doc["sparsity"] if r["dtype"] == dtype]
        assert [r["sparsity"] for r in sweep] == pytest.approx([0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])
        speedups = [r["speedup"] for r in sweep]
        # skipping B's zeros: faster with more zeros, never more than depth 4 times; the chip's memory roofs can
        # only take speedup away
        assert all(1.0 < a < b <= 4.0 for a, b in zip(speedups, speedups[1:]))
        assert all(r["chip_speedup"] <= r["speedup"] + 1e-12 for r in sweep)
        # the skipped work outweighs the buffers, muxes and scheduler once half the operands are zeros (int8 at
        # 20% zeros: its small MACs make the overhead the larger part, below 1x)
        assert all(r["energy_efficiency"] > 1.0 for r in sweep if r["sparsity"] >= 0.5)
        assert all(td["meets_clock"] in (True, False) and td["achievable_mhz"] > 0 for td in (td, dense))
    assert {r["dtype"] for r in doc["overhead"]} == {"fp16", "bf16", "int8"}
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
    # issue 22: with the NoC roof the throughput optimum is a brawny array (the paper finds 64x64)
    best = {r["objective"]: r for r in res.rows}
    assert best["achieved_tops"]["X"] >= 32 and best["tops_per_tco"]["X"] >= 32
    # the 8x8 meshes of small arrays are bound by the NoC, the one-core 128x128 array by its SRAM
    by_x = {(r["X"], r["batch"]): r for r in res.to_json()["by_x"]}
    assert by_x[(16, 128)]["bound_counts"].get("noc", 0) > 27 and by_x[(16, 128)]["noc_ms"] > 0
    assert by_x[(128, 128)]["noc_ms"] == 0


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
