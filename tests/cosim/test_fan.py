"""FAN, linear chain and adder tree: the emitted Verilog on Verilator against the segmented-sum model.

Every table presents a new vector in every cycle and checks every slot's valid
flag in every cycle (so the latency is exactly the documented one and nothing
appears early or twice), and every cluster's sum and vecID in its slot.
n = 32, 64 and the larger baseline variants are marked slow (Verilator builds
dominate; run them with ``-m slow``).
"""

import sys
from pathlib import Path

import numpy as np
import pytest

from accelgen.cosim.fan import fan_table
from accelgen.registry import FAMILIES

sys.path.insert(0, str(Path(__file__).parent))
from family_cosim import cosim_family  # noqa: E402

pytestmark = pytest.mark.cosim


@pytest.mark.parametrize("n,width,signed,vectors", [
    (4, 8, True, 1500), (16, 6, False, 1000),
    # issue 48: n = 8 is the same FAN between [4-8-True-1500] (signed, 8 bits) and [16-6-False-1000] (more levels)
    pytest.param(8, 8, True, 1500, marks=pytest.mark.slow),
    pytest.param(32, 8, True, 600, marks=pytest.mark.slow), pytest.param(64, 8, True, 400, marks=pytest.mark.slow)])
def test_fan_random_layouts_back_to_back(tmp_path, n, width, signed, vectors):
    p, table, result = cosim_family(tmp_path, "fan", dict(n=n, width=width, signed=signed), vectors, seed=n)
    assert result.passed, result.summary() + f" {result.error} {result.first_mismatches[:3]}"
    assert result.checks == table.checks and result.cycles == table.info["vectors"] + p.latency
    assert {"all_singletons", "one_cluster", "random"} <= set(table.info["sections"])
    assert table.info["clusters"] >= vectors


def test_fan_two_inputs(tmp_path):
    p, table, result = cosim_family(tmp_path, "fan", dict(n=2, width=4, signed=True), 300)
    assert result.passed, result.first_mismatches[:3]
    assert p.latency == 2 and result.checks == table.checks


def test_fan_wrong_latency_is_detected(tmp_path):
    """The check is sharp: expecting the results one cycle late must fail."""
    p = FAMILIES["fan"].validate(dict(n=4, width=8, signed=True))
    table = fan_table(p, 50, seed=4)
    late = {k: np.concatenate([[0], v[:-1]]).astype(np.uint64) for k, v in table.expect.items()}
    checks = {k: np.concatenate([[False], v[:-1]]) for k, v in table.check.items()}
    table.expect, table.check = late, checks
    _, _, result = cosim_family(tmp_path, "fan", dict(n=4, width=8, signed=True), 0, table=table)
    assert not result.passed and result.mismatches > 0


@pytest.mark.parametrize("n,stage_adders,signed", [(2, 1, True), (8, 3, True),
                                                   pytest.param(8, 1, True, marks=pytest.mark.slow),
                                                   pytest.param(16, 15, False, marks=pytest.mark.slow)])
def test_fan_linear(tmp_path, n, stage_adders, signed):
    p, table, result = cosim_family(tmp_path, "fan_linear",
                                    dict(n=n, width=7, signed=signed, stage_adders=stage_adders), 600)
    assert result.passed, result.first_mismatches[:3]
    assert result.checks == table.checks and result.cycles == table.info["vectors"] + p.latency


@pytest.mark.parametrize("n,signed", [(8, True), pytest.param(2, True, marks=pytest.mark.slow),
                                     pytest.param(16, False, marks=pytest.mark.slow)])
def test_adder_tree(tmp_path, n, signed):
    p, table, result = cosim_family(tmp_path, "adder_tree", dict(n=n, width=8, signed=signed), 600)
    assert result.passed, result.first_mismatches[:3]
    assert result.checks == table.checks
