"""Dot-product unit: the emitted Verilog on Verilator against the exact dot products and the cycle model.

Every table presents a new pair of vectors in every cycle and checks ``sum_valid`` in every cycle (so each
result comes exactly ``latency`` cycles after its vectors, bubbles report nothing and nothing appears twice),
and ``sum`` wherever a valid vector's result is due. The run's measured cycle count is the cycle model's.

Default builds: n = 2 unsigned with stages, n = 16 signed at the defaults (also used by the command line
and both mutants), n = 8 signed with stages at small widths. Larger ones are slow.
"""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from accelgen.cosim.dot_product import dot_product_table
from accelgen.cosim.vectors import CycleTable, to_bits
from accelgen.golden.dot_product import dot_product_cycles, dot_products
from accelgen.registry import FAMILIES

sys.path.insert(0, str(Path(__file__).parent))
from family_cosim import cosim_family

pytestmark = pytest.mark.cosim

#: the defaults at n = 16 (8x8 signed, no stages): the design `accelgen cosim dot_product --n 16` builds
N16 = {"n": 16}


def _passes(p, table, result):
    assert result.passed, result.summary() + f" {result.error} {result.first_mismatches[:3]}"
    assert result.checks == table.checks > table.info["dot_products"]
    # the measured run: every vector back to back, the last result after the cycle model's latency
    assert result.cycles == dot_product_cycles(table.info["vectors"], p.n, p.mul_stages, p.add_stages)


@pytest.mark.parametrize("params,vectors", [
    ({"n": 2, "a_width": 5, "b_width": 3, "signed": False, "mul_stages": 1, "add_stages": 2}, 800),
    (N16, 600),
    # a pipelined tree (3 levels) with two multiplier stages; the deeper n = 32 (5 levels, 13 CPU-s cold: issue 48)
    # and n = 64 (26 s of build in the default suite) are slow below
    ({"n": 8, "a_width": 4, "b_width": 3, "signed": True, "mul_stages": 2, "add_stages": 1}, 300),
    pytest.param({"n": 32, "a_width": 4, "b_width": 3, "signed": True, "mul_stages": 2, "add_stages": 1}, 300,
                 marks=pytest.mark.slow),
    pytest.param({"n": 64, "a_width": 8, "b_width": 8, "signed": False}, 300, marks=pytest.mark.slow),
    pytest.param({"n": 64, "a_width": 4, "b_width": 3, "signed": True, "mul_stages": 2, "add_stages": 1}, 300,
                 marks=pytest.mark.slow),
    pytest.param({"n": 16, "a_width": 16, "b_width": 12, "signed": True, "mul_stages": 3, "add_stages": 3}, 400,
                 marks=pytest.mark.slow),
    pytest.param({"n": 2, "a_width": 1, "b_width": 1, "signed": True}, 300, marks=pytest.mark.slow),
    pytest.param({"n": 256, "a_width": 3, "b_width": 2, "signed": True, "mul_stages": 1, "add_stages": 1}, 100,
                 marks=pytest.mark.slow),
], ids=lambda v: "-".join(f"{k}={x}" for k, x in v.items()) if isinstance(v, dict) else None)
def test_dot_product_exact_and_cycle_exact(tmp_path, params, vectors):
    p, table, result = cosim_family(tmp_path, "dot_product", params, vectors, seed=params["n"])
    _passes(p, table, result)
    assert {"extremes", "zeros", "corners", "one_hot", "idle", "random"} <= set(table.info["sections"])


def test_cli_cosim_at_n16(tmp_path, accelgen_main):
    """``accelgen cosim dot_product --n 16`` runs the family's table on the design emitted under its default name."""
    proc = accelgen_main("cosim", "dot_product", "--n", "16", "--vectors", "200", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout[proc.stdout.index("{"):])
    assert out["passed"] is True and out["mismatches"] == 0 and out["checks"] > 200
    assert out["cycles"] == dot_product_cycles(out["vectors"], 16) == out["vectors"] + 5


# --------------------------------------------------------------------------- mutants (reuse the n = 16 build)

def test_results_expected_one_cycle_early_fail(tmp_path):
    """Mutant cycle model: one register stage short."""
    p = FAMILIES["dot_product"].validate(N16)
    table = dot_product_table(p, 100, seed=4)
    early = {k: np.concatenate([v[1:], v[:1] * 0]).astype(v.dtype) for k, v in table.expect.items()}
    checks = {k: np.concatenate([v[1:], [False]]) for k, v in table.check.items()}
    table = CycleTable(inputs=table.inputs, expect=early, check=checks, info=table.info)
    _, _, result = cosim_family(tmp_path, "dot_product", N16, 0, table=table)
    assert not result.passed and any(m["port"] == "sum_valid" for m in result.first_mismatches)


def test_golden_pairing_lanes_wrongly_fails(tmp_path):
    """Mutant golden: lane i's a multiplied with lane i+1's b (a rotated b) is not what the hardware computes."""
    p = FAMILIES["dot_product"].validate(N16)
    good = dot_product_table(p, 100, seed=5)
    rows, lat = good.info["vectors"], good.info["latency"]
    a = np.stack([good.inputs[f"a__{i}"][:rows].astype(np.int64) for i in range(p.n)], axis=1)
    b = np.stack([good.inputs[f"b__{i}"][:rows].astype(np.int64) for i in range(p.n)], axis=1)
    a, b = np.where(a >= 128, a - 256, a), np.where(b >= 128, b - 256, b)
    wrong = good.expect["sum"].copy()
    wrong[lat:lat + rows] = to_bits(dot_products(a, np.roll(b, 1, axis=1)), p.sum_width)
    table = CycleTable(inputs=good.inputs, expect={**good.expect, "sum": wrong}, check=good.check, info=good.info)
    _, _, result = cosim_family(tmp_path, "dot_product", N16, 0, table=table)
    assert not result.passed and result.mismatches > 0
    assert {m["port"] for m in result.first_mismatches} == {"sum"}
