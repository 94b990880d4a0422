"""MAERI's augmented reduction tree (ART): the emitted Verilog on Verilator against the golden slots and
sums and the cycle model, and two mutants that must fail.

Every table presents a new vector in every cycle and checks every slot's valid flag in every cycle, so
each cluster's sum must appear exactly ``1 + log2 n * (1 + add_stages)`` cycles after its vector, once,
in the slot :func:`accelgen.golden.art.art_sums` names (fp32: bit-exact in the ART's order).

Default builds (three): n = 8 int (also the one-cycle-short mutant), n = 8 fp32 (also the FAN-order
mutant: its first level has a forwarding link; small, as fp32 builds are the slow ones) and the degenerate
n = 2 in fp32 (one switch, the root, its second result the bypassed input). Everything else (n = 2 int,
n = 16 int since issue 48, n = 16 and 64 fp32, pipelined adders) is slow.
"""

import sys
from pathlib import Path

import pytest

from accelgen.cosim.art import art_table
from accelgen.registry import FAMILIES

sys.path.insert(0, str(Path(__file__).parent))
from family_cosim import cosim_family

pytestmark = pytest.mark.cosim

INT16 = {"n": 16, "width": 8, "signed": True}
FP8 = {"n": 8, "dtype": "fp32"}


def _passes(p, table, result):
    assert result.passed, result.summary() + f" {result.error} {result.first_mismatches[:3]}"
    assert result.checks == table.checks
    assert result.cycles == table.info["vectors"] + p.latency and table.info["latency"] == p.latency


# issue 48: n = 16 (the costliest default cosim, 38 CPU-s cold) is slow; n = 8 has the same switch kinds and every
# operation (add3, links, splits, ride-ups: the table's "ops" below) at four levels instead of five
@pytest.mark.parametrize("n,latency", [(8, 4), pytest.param(16, 5, marks=pytest.mark.slow)])
def test_art_int_and_short_latency_mutant(tmp_path, n, latency):
    params = {**INT16, "n": n}
    p, table, result = cosim_family(tmp_path / "ok", "art", params, 1500, seed=n)
    _passes(p, table, result)
    assert p.latency == latency
    assert {"all_singletons", "one_cluster", "growing", "straddling", "random"} <= set(table.info["sections"])
    assert table.info["clusters"] >= 1500
    assert {"add2", "add3", "add2 over link", "split at link", "ride up"} <= set(table.info["ops"])
    # mutant: a cycle model one cycle short (same build)
    bad = art_table(p, 200, seed=n, latency=p.latency - 1)
    _, _, result = cosim_family(tmp_path / "short", "art", params, 0, table=bad)
    assert not result.passed and result.mismatches > 0


def test_art_fp32_n8_and_fan_order_mutant(tmp_path):
    p, table, result = cosim_family(tmp_path / "ok", "art", FP8, 1200, seed=8)
    _passes(p, table, result)
    assert {"fp_special", "fp_ties", "fp_cancel", "fp_subnormal", "fp_overflow"} <= set(table.info["sections"])
    # mutant: the expected sums in the FAN's association order, in the ART's slots (same build)
    bad = art_table(p, 300, seed=8, order="fan")
    _, _, result = cosim_family(tmp_path / "order", "art", FP8, 0, table=bad)
    assert not result.passed and result.mismatches > 0
    assert all(m["port"].startswith("sum__") for m in result.first_mismatches)   # the cycles are right


def test_art_fp32_two_inputs(tmp_path):
    p, table, result = cosim_family(tmp_path, "art", {"n": 2, "dtype": "fp32"}, 600, seed=2)
    _passes(p, table, result)
    assert p.latency == 2


def _case(**params):
    return pytest.param(params, id="-".join(f"{k}={v}" for k, v in params.items()))


@pytest.mark.slow
@pytest.mark.parametrize("params", [
    _case(n=2, width=4),
    _case(n=64, width=8),
    _case(n=64, dtype="fp32"),
    _case(n=16, dtype="fp32"),
    _case(n=8, width=6, signed=False),
    _case(n=16, width=8, add_stages=1),
    _case(n=16, width=8, add_stages=2),
    _case(n=8, width=7, add_stages=3),
    _case(n=16, dtype="fp32", add_stages=2),
    _case(n=8, dtype="fp32", add_stages=1),
    _case(n=64, dtype="fp32", add_stages=2),
    _case(n=2, dtype="fp32", add_stages=3),
])
def test_art_more_configurations(tmp_path, params):
    """Covered by default by the three tests above (the same cells and registers, combinational adders)."""
    p, table, result = cosim_family(tmp_path, "art", params, 600, seed=5)
    _passes(p, table, result)


def test_family_is_registered_with_its_pieces():
    fam = FAMILIES["art"]
    assert fam.cycle_table is art_table and fam.coverage is not None and fam.activity_table is not None
