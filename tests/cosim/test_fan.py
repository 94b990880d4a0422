"""FAN, linear chain and adder tree: the emitted Verilog on Verilator against the segmented-sum model.

Every table presents a new vector in every cycle and checks every slot's valid
flag in every cycle (so the latency is exactly the documented one and nothing
appears early or twice), and every cluster's sum and vecID in its slot.
n = 32, 64 and the larger baseline variants are marked slow (Verilator builds
dominate; run them with ``-m slow``).
"""

import numpy as np
import pytest

from accelgen.cosim import run_cosim
from accelgen.cosim.fan import fan_table
from accelgen.registry import FAMILIES
from accelgen.gen import render, write

pytestmark = pytest.mark.cosim


def _cosim(tmp_path, family, params, vectors, seed=1, table=None):
    fam = FAMILIES[family]
    p = fam.validate(params)
    # the family's own name, as regressions, the flow and the CLI name it: equal parameters, one build
    e = write(render(fam, p, fam.default_name(p)), tmp_path)
    table = table if table is not None else fam.cycle_table(p, vectors, seed)
    result = run_cosim(e.verilog_path, e.manifest, table, sim="verilator", seed=seed, waves_on_failure=False)
    return p, table, result


@pytest.mark.parametrize("n,width,signed,vectors", [
    (4, 8, True, 1500), (8, 8, True, 1500), (16, 6, False, 1000),
    pytest.param(32, 8, True, 600, marks=pytest.mark.slow), pytest.param(64, 8, True, 400, marks=pytest.mark.slow)])
def test_fan_random_layouts_back_to_back(tmp_path, n, width, signed, vectors):
    p, table, result = _cosim(tmp_path, "fan", dict(n=n, width=width, signed=signed), vectors, seed=n)
    assert result.passed, result.summary() + f" {result.error} {result.first_mismatches[:3]}"
    assert result.checks == table.checks and result.cycles == table.info["vectors"] + p.latency
    assert {"all_singletons", "one_cluster", "random"} <= set(table.info["sections"])
    assert table.info["clusters"] >= vectors


def test_fan_two_inputs(tmp_path):
    p, table, result = _cosim(tmp_path, "fan", dict(n=2, width=4, signed=True), 300)
    assert result.passed, result.first_mismatches[:3]
    assert p.latency == 2 and result.checks == table.checks


def test_fan_wrong_latency_is_detected(tmp_path):
    """The check is sharp: expecting the results one cycle late must fail."""
    p = FAMILIES["fan"].validate(dict(n=4, width=8, signed=True))
    table = fan_table(p, 50, seed=4)
    late = {k: np.concatenate([[0], v[:-1]]).astype(np.uint64) for k, v in table.expect.items()}
    checks = {k: np.concatenate([[False], v[:-1]]) for k, v in table.check.items()}
    table.expect, table.check = late, checks
    _, _, result = _cosim(tmp_path, "fan", dict(n=4, width=8, signed=True), 0, table=table)
    assert not result.passed and result.mismatches > 0


@pytest.mark.parametrize("n,stage_adders,signed", [(2, 1, True), (8, 3, True), pytest.param(8, 1, True, marks=pytest.mark.slow),
                                                      pytest.param(16, 15, False, marks=pytest.mark.slow)])
def test_fan_linear(tmp_path, n, stage_adders, signed):
    p, table, result = _cosim(tmp_path, "fan_linear", dict(n=n, width=7, signed=signed, stage_adders=stage_adders),
                              600)
    assert result.passed, result.first_mismatches[:3]
    assert result.checks == table.checks and result.cycles == table.info["vectors"] + p.latency


@pytest.mark.parametrize("n,signed", [(8, True), pytest.param(2, True, marks=pytest.mark.slow),
                                     pytest.param(16, False, marks=pytest.mark.slow)])
def test_adder_tree(tmp_path, n, signed):
    p, table, result = _cosim(tmp_path, "adder_tree", dict(n=n, width=8, signed=signed), 600)
    assert result.passed, result.first_mismatches[:3]
    assert result.checks == table.checks
