"""SIGMA's linear reduction (skewed chain): the emitted Verilog on Verilator against the golden sums and the
closed-form cycle model, and two mutants that must fail.

Every table presents input ``i`` of vector ``t`` in cycle ``t + i * (1 + add_stages)`` and checks every
slot's valid flag in every cycle, so each cluster's sum must appear exactly in cycle
``t + (j + 1) * (1 + add_stages)`` at its last input ``j`` (fp32: bit-exact, summed left to right).

Default builds (three): n = 16 int (also the skew mutant), n = 4 fp32 (also the FAN-order mutant: left to right
is not the FAN's pairwise order from 3 inputs on; small, as fp32 builds are the slow ones) and the degenerate
n = 2 in fp32 (one adder, its bypassed first operand). Everything else, n = 16 and 64 fp32 included, is slow.
"""

import sys
from pathlib import Path

import pytest

from accelgen.cosim.linear_reduction import linear_reduction_table
from accelgen.golden.linear_reduction import linear_reduction_cycles
from accelgen.registry import FAMILIES

sys.path.insert(0, str(Path(__file__).parent))
from family_cosim import cosim_family

pytestmark = pytest.mark.cosim

INT16 = {"n": 16, "width": 8, "signed": True}
FP4 = {"n": 4, "dtype": "fp32"}


def _passes(p, table, result):
    assert result.passed, result.summary() + f" {result.error} {result.first_mismatches[:3]}"
    assert result.checks == table.checks
    # the measured run is the cycle model's: the vectors back to back, then n * (1 + add_stages) to drain
    assert result.cycles == linear_reduction_cycles(table.info["vectors"], p.n, p.add_stages)
    assert table.info["latency"] == p.latency


def test_linear_reduction_int_n16_and_skew_mutant(tmp_path):
    p, table, result = cosim_family(tmp_path / "ok", "linear_reduction", INT16, 1500, seed=16)
    _passes(p, table, result)
    assert p.latency == 16 and result.cycles == table.info["vectors"] + 16
    assert {"all_singletons", "one_cluster", "growing", "straddling", "random"} <= set(table.info["sections"])
    assert table.info["clusters"] >= 1500
    # mutant: a source skewed by 2 cycles per input where the chain advances by 1 (same build)
    bad = linear_reduction_table(p, 200, seed=16, add_stages=1)
    _, _, result = cosim_family(tmp_path / "skew", "linear_reduction", INT16, 0, table=bad)
    assert not result.passed and result.mismatches > 0


def test_linear_reduction_fp32_n4_and_fan_order_mutant(tmp_path):
    p, table, result = cosim_family(tmp_path / "ok", "linear_reduction", FP4, 1200, seed=8)
    _passes(p, table, result)
    assert {"fp_special", "fp_ties", "fp_cancel", "fp_subnormal", "fp_overflow"} <= set(table.info["sections"])
    # mutant: the expected sums in the FAN's association order instead of left to right (same build)
    bad = linear_reduction_table(p, 300, seed=8, order="fan")
    _, _, result = cosim_family(tmp_path / "order", "linear_reduction", FP4, 0, table=bad)
    assert not result.passed and result.mismatches > 0
    assert all(m["port"].startswith("sum__") for m in result.first_mismatches)   # the cycles are right


def test_linear_reduction_fp32_two_inputs(tmp_path):
    p, table, result = cosim_family(tmp_path, "linear_reduction", {"n": 2, "dtype": "fp32"}, 600, seed=2)
    _passes(p, table, result)
    assert p.latency == 2


def _case(**params):
    return pytest.param(params, id="-".join(f"{k}={v}" for k, v in params.items()))


@pytest.mark.slow
@pytest.mark.parametrize("params", [
    _case(n=64, width=8),
    _case(n=64, dtype="fp32"),
    _case(n=16, dtype="fp32"),
    _case(n=2, width=4),
    _case(n=16, width=6, signed=False),
    _case(n=16, width=8, add_stages=1),
    _case(n=16, width=8, add_stages=2),
    _case(n=8, width=7, add_stages=3),
    _case(n=16, dtype="fp32", add_stages=2),
    _case(n=8, dtype="fp32", add_stages=1),
    _case(n=2, dtype="fp32", add_stages=3),
])
def test_linear_reduction_more_configurations(tmp_path, params):
    """Covered by default by the three tests above (the same cell and registers, combinational adders)."""
    p, table, result = cosim_family(tmp_path, "linear_reduction", params, 600, seed=5)
    _passes(p, table, result)


def test_family_is_registered_with_its_pieces():
    fam = FAMILIES["linear_reduction"]
    assert fam.cycle_table is linear_reduction_table and fam.coverage is not None and fam.activity_table is not None
