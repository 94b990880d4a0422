"""FAN, linear chain and adder tree with pipelined adders (``add_stages``): bit-exact and cycle-exact on the
emitted Verilog, and two mutants that must fail.

``add_stages`` puts registers inside every adder and delays everything that bypasses it alike, so each
network's results are those of ``add_stages=0`` (the same golden, in the same association order) and
only the latency grows, as the closed-form cycle model of :mod:`accelgen.golden.fan` says. Every table
checks every slot's valid flag in every cycle, so a result one cycle early or late is a mismatch.

Default builds (n = 8): the fp32 FAN with 2 stages (also the two mutants), the integer FAN with 3, the
fp32 chain with 3 adders per chain stage and 2 stages (adders in series inside a chain stage, and the
chain's bypassed first operand). The rest is slow and named after the default test that covers it.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

import accelgen.cosim.fan as fan_host
from accelgen.cosim.vectors import CycleTable, to_bits
from accelgen.golden.fan import fan_latency, segmented_sums
from accelgen.registry import FAMILIES

sys.path.insert(0, str(Path(__file__).parent))
from family_cosim import cosim_family  # noqa: E402

pytestmark = pytest.mark.cosim

FAN_FP = dict(n=8, dtype="fp32", add_stages=2)


def _passes(p, table, result):
    assert result.passed, result.summary() + f" {result.error} {result.first_mismatches[:3]}"
    assert result.checks == table.checks
    # the measured run is the vectors plus the latency the params declare, which is the cycle model's
    assert result.cycles == table.info["vectors"] + p.latency and table.info["latency"] == p.latency


def test_fan_fp32_add_stages_bit_exact(tmp_path):
    p, table, result = cosim_family(tmp_path, "fan", FAN_FP, 1200, seed=8)
    _passes(p, table, result)
    assert p.latency == 1 + 3 * 3
    assert {"all_singletons", "one_cluster", "fp_special", "random"} <= set(table.info["sections"])


def test_fan_int_add_stages_bit_exact(tmp_path):
    p, table, result = cosim_family(tmp_path, "fan", dict(n=8, width=8, signed=True, add_stages=3), 1200, seed=3)
    _passes(p, table, result)
    assert p.latency == 1 + 3 * 4


def test_fan_linear_fp32_add_stages_bit_exact(tmp_path):
    """Three adders per chain stage, each with two registers: the running sum passes 6 adder registers
    and one stage register per chain stage."""
    p, table, result = cosim_family(tmp_path, "fan_linear", dict(n=8, dtype="fp32", stage_adders=3, add_stages=2),
                                    800, seed=3)
    _passes(p, table, result)
    assert p.latency == 1 + 3 + 7 * 2


def _case(family, **params):
    return pytest.param(family, params, id=family + "-" + "-".join(f"{k}={v}" for k, v in params.items()))


@pytest.mark.slow
@pytest.mark.parametrize("family,params", [
    # the done-when configurations of issue 19 (the same builds as the CLI's)
    _case("fan", n=32, dtype="fp32", add_stages=2),
    _case("fan_linear", n=8, add_stages=1),
    _case("adder_tree", n=8, dtype="fp32", add_stages=1),
    # deeper forwarding links (level 3), unsigned; the integer chain and tree; the degenerate n = 2
    _case("fan", n=16, width=6, signed=False, add_stages=1),
    _case("fan_linear", n=8, width=7, stage_adders=3, add_stages=2),
    _case("fan_linear", n=8, dtype="fp32", stage_adders=7, add_stages=1),
    _case("adder_tree", n=8, add_stages=3),
    _case("fan", n=2, width=4, add_stages=2),
    _case("fan_linear", n=2, add_stages=3),
])
def test_add_stages_more_configurations(tmp_path, family, params):
    """Covered by default by the three tests above (same cells and delay lines at n = 8)."""
    p, table, result = cosim_family(tmp_path, family, params, 600, seed=5)
    _passes(p, table, result)


# --------------------------------------------------------------------------- mutants (reuse the fp32 FAN build)

def test_cycle_model_one_stage_short_fails(tmp_path, monkeypatch):
    """Mutant: a cycle model that forgets one register stage expects every result a cycle early."""
    p = FAMILIES["fan"].validate(FAN_FP)
    monkeypatch.setattr(fan_host, "fan_latency", lambda n, add_stages=0: fan_latency(n, add_stages) - 1)
    table = fan_host.fan_table(p, 300, seed=8)
    assert table.info["latency"] == p.latency - 1
    _, _, result = cosim_family(tmp_path, "fan", FAN_FP, 0, table=table)
    assert not result.passed and result.mismatches > 0
    assert any(m["port"].startswith("sum_valid__") for m in result.first_mismatches)


def _golden_without_bypass_register(p, vectors: int, seed: int) -> CycleTable:
    """The FAN's table from a golden that ignores one pipeline register on the bypass path: a singleton
    cluster (bypassed by every adder it passes) is expected one cycle before the adders' sums."""
    stim = fan_host.fan_stimulus(p, vectors, seed)
    good = fan_host.fan_table(p, vectors, seed)
    lat, total, n = good.info["latency"], len(stim["vectors"]) + good.info["latency"], p.n
    expect = {k: np.zeros(total, dtype=np.uint64) for k in good.expect}
    check = {k: np.zeros(total, dtype=bool) for k in good.check}
    for t, (x, ids, valid) in enumerate(stim["vectors"]):
        for c in segmented_sums(x, ids, valid, dtype=p.dtype, order="fan"):
            if c.valid:
                j = fan_host.fan_slot(c.start, c.end)
                row = t + lat - (c.start == c.end)
                expect[f"sum_valid__{j}"][row] = 1
                expect[f"sum__{j}"][row] = to_bits([c.total], p.sum_width)[0]
                expect[f"sum_id__{j}"][row] = c.vec_id
                check[f"sum__{j}"][row] = check[f"sum_id__{j}"][row] = True
    assert len(expect) == 3 * n
    return CycleTable(inputs=good.inputs, expect=expect, check=check, info=good.info)


def test_golden_ignoring_a_bypass_register_fails(tmp_path):
    p = FAMILIES["fan"].validate(FAN_FP)
    table = _golden_without_bypass_register(p, 300, seed=8)
    _, _, result = cosim_family(tmp_path, "fan", FAN_FP, 0, table=table)
    assert not result.passed and result.mismatches > 0
