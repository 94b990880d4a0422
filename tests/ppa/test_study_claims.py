"""The paper-comparison studies' claims (issue 50 item 4): the claim record, the ratios each study computes from its
rows, and bench/fan_vs_sigma_rtl.py's register counts against Yosys's on the same RTL."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from accelgen.ppa.studies import sigma_reduction, tensordash_overhead
from accelgen.ppa.studies.claims import TOLERANCE, claim, claim_notes

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("fan_vs_sigma_rtl", ROOT / "bench" / "fan_vs_sigma_rtl.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)
DATA = json.loads((ROOT / "bench" / "data" / "fan_vs_sigma_rtl.json").read_text())


def test_claim_within_tolerance_boundary():
    inside, outside = claim("r", 1.10, "src", 1.24, "why"), claim("r", 1.10, "src", 1.26, "why")
    assert TOLERANCE == 0.15
    assert inside["within"] and not outside["within"]
    assert outside["difference"] == pytest.approx(0.16, abs=1e-12)
    (line,) = claim_notes([outside])
    assert "r: paper 1.1 (src), accelgen 1.26, difference +0.16 (outside +-0.15); why" == line


def _row(net, area, power, cycles):
    t = cycles / 500e6
    return {"network": net, "n": 512, "area_mm2": area, "power_w": power, "cycles": cycles, "edp": power * t * t}


def test_sigma_reduction_claims_are_the_rows_ratios():
    rows = [_row("linear", 1.0, 2.0, 151200), _row("art", 3.0, 5.0, 101000), _row("fan", 1.5, 3.0, 101000)]
    by = {c["claim"]: c for c in sigma_reduction.claims(rows)}
    assert by["FAN / linear area, n=512"]["accelgen"] == pytest.approx(1.5, rel=1e-12)
    assert by["ART / linear power, n=512"]["accelgen"] == pytest.approx(2.5, rel=1e-12)
    assert by["ART / FAN area, n=512"]["published"] == pytest.approx(1.92 / 1.10, rel=1e-12)
    # EDP = power x time^2: 1.5 x (101000 / 151200)^2
    assert by["FAN / linear EDP, n=512"]["accelgen"] == pytest.approx(1.5 * (101000 / 151200) ** 2, rel=1e-12)
    assert by["FAN / ART EDP, n=512"]["accelgen"] == pytest.approx(0.6, rel=1e-12)
    assert {c["published"] for c in by.values()} >= {1.10, 1.31, 1.92, 1.86, 0.55, 0.66}


def test_tensordash_at_speedup_interpolates_over_the_sweep():
    sweep = [{"dtype": "fp16", "sparsity": s, "speedup": x, "energy_efficiency": e}
             for s, x, e in ((0.4, 1.6, 1.4), (0.5, 1.9, 1.6), (0.6, 2.2, 1.9))]
    value, at = tensordash_overhead._at_speedup(sweep, "fp16", "energy_efficiency", 1.95)
    # a sixth of the way from (1.9, 1.6, 50%) to (2.2, 1.9, 60%)
    assert value == pytest.approx(1.65, rel=1e-12) and at == pytest.approx(0.5 + 0.1 / 6, rel=1e-12)


def test_tensordash_quotes_the_micro_paper():
    # MICRO 2020 sect. V-C: 1.8x for the compute logic, 1.5x with memory (not the 1.89x / 1.6x of a preprint)
    assert tensordash_overhead.PUBLISHED["fp16"]["energy_efficiency"][0] == 1.8
    assert tensordash_overhead.PUBLISHED["fp16"]["chip_energy_efficiency"][0] == 1.5
    assert tensordash_overhead.PUBLISHED["bf16"]["energy_efficiency"][0] == 1.76


@pytest.mark.parametrize("n", [8, 16, 32])
def test_sigma_fan_register_count_equals_yosys(n):
    # the closed form read from SIGMA's generator against Yosys on the generated RTL (the JSON)
    assert bench.sigma_ff_bits(n) == DATA["sigma_rtl"]["ff_bits"][str(n)]
    rows, _ = bench.sigma_levels(n)
    assert sum(r["adders"] for r in rows) == n - 1
    assert all(r["ff_output_buffer"] == n * 33 for r in rows)


def test_sigma_fan_at_512():
    rows, shared = bench.sigma_levels(512)
    assert bench.sigma_ff_bits(512) == 264698
    assert [r["candidates"] for r in rows] == [1, 1, 2, 3, 4, 5, 6, 7, 8]
    assert shared == {"ff_valid_pipeline": 10, "ff_final_sum": 34}


@pytest.mark.parametrize("block, ref", [("fan", 1207), ("linear_reduction", 288)])
def test_accelgen_register_count_equals_yosys(tmp_path, block, ref):
    verilog = bench.emit(block, 8, tmp_path)
    bits = bench.register_bits(verilog, block)
    assert sum(bits.values()) == ref == DATA["accelgen_rtl"]["ff_bits"][block]["8"]
    if block == "fan":
        levels, shared = bench.accelgen_fan_levels(bits, 8)
        assert sum(r["ff_adder_cells"] + r["ff_forwarding"] for r in levels) + sum(
            v for k, v in shared.items() if k.startswith("ff_")) == ref
        assert shared["ff_input_stage"] == 8 * (32 + 1 + 3)


def test_bench_bad_size():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "fan_vs_sigma_rtl.py"), "--n", "24"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "fan_vs_sigma_rtl: --n 24 is not allowed; expected a power of two in 8..512"
