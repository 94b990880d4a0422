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
    # the paper's definition: unpipelined adders (a cycle per level; the chain drains in n cycles)
    assert all(r["add_stages"] == 0 for r in rows.values())
    assert (rows[("linear", 512)]["cycles"], rows[("fan", 512)]["cycles"]) == (100 * 1512, 100 * 1010)
    # post-layout power at one vector per cycle: the run's energy is that power over its time, EDP energy x time
    fan = rows[("fan", 512)]
    t = fan["cycles"] / 500e6
    assert fan["edp"] == pytest.approx(fan["power_w"] * t * t, rel=1e-12) and fan["run_edp"] <= fan["edp"]
    claims = {c["claim"]: c for c in doc["claims"]}
    assert len(claims) == 8 and all(c["cause"] for c in claims.values())
    assert claims["FAN / linear area, n=512"]["published"] == 1.10
    assert claims["FAN / linear area, n=512"]["accelgen"] == pytest.approx(
        fan["area_mm2"] / rows[("linear", 512)]["area_mm2"], rel=1e-12)
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
    claims = {c["claim"]: c for c in doc["claims"]}
    assert claims["area SIGMA / systolic"]["published"] == 1.377
    assert claims["power SIGMA / systolic"]["accelgen"] == pytest.approx(
        rows["sigma"]["power_w"] / rows["systolic"]["power_w"], rel=1e-12)
    assert all(0 < g["efficiency"] <= 1.0 + 1e-9 for g in doc["gemms"])
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
    # the paper's figures are for fp16 and bf16; its synthetic-tensor speedups (Fig. 15) are the cycle model's to meet
    claims = {c["claim"]: c for c in doc["claims"]}
    assert not any(name.startswith("int8") for name in claims)
    assert claims["speedup at 20% zeros"]["within"] and claims["speedup at 90% zeros"]["within"]
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
    # the study as published (sect. III): 126 design points, three networks at three batch regimes (minutes)
    res = run_study("neurometer-datacenter", tmp_path)
    doc = res.to_json()
    assert len(doc["points"]) == 126
    rows = {(r["regime"], r["target"]): r for r in res.rows}
    assert len(rows) == 12 and all(r["accelgen"] for r in rows.values())
    # the abstract's finding as a property of accelgen's models: 64x64 arrays lead throughput with a batch
    # (the latency-bound and large batches) and TOPS/TCO at every batch
    for regime in ("bs<=10ms", "bs=256"):
        assert rows[(regime, "throughput")]["X"] == 64
    for regime in ("bs=1", "bs<=10ms", "bs=256"):
        assert rows[(regime, "TOPS/TCO")]["X"] == 64
    # Fig. 8(b): (128, 4, 1, 1) has the best peak TOPS/W and peak TOPS/TCO
    assert all(r["accelgen"] == "(128, 4, 1, 1)" for r in doc["peak_optimum"])
    # small arrays on large meshes are bound by the NoC; the one-core 256x256 array has no NoC traffic
    by_x = {(r["X"], r["batch"]): r for r in doc["by_x"]}
    assert by_x[(16, 256)]["bound_counts"].get("noc", 0) > 27 and by_x[(16, 256)]["noc_ms"] > 0
    assert by_x[(256, 256)]["noc_ms"] == 0


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
