"""SIGMA Flex-DPE co-simulated on Verilator: whole sparse / irregular GEMMs, exact C, exact cycles.

Every run checks the FAN slots in every cycle against the controller's expectation,
rebuilds C from the recorded slots (host accumulation across folds) and compares it
with numpy, and compares each GEMM's measured cycles with the model.
k = 4 and 8 run by default; k = 16 (~30 s build on a loaded machine) and k = 32 (~70 s) are ``-m slow``.
"""

import numpy as np
import pytest
from click.testing import CliRunner

from accelgen.cosim import run_cosim
from accelgen.cosim.flexdpe import directed_gemms, flexdpe_table, gemm_schedule, sparse_operands
from accelgen.cosim.flexdpe import verify as sigma_verify
from accelgen.registry import family
from accelgen.gen import render, write
from accelgen.cosim.check import cosim_emitted
from accelgen.rtl.flexdpe import FlexDPEParams

pytestmark = pytest.mark.cosim


def _emit(tmp_path, params, name):
    return write(render(family("flexdpe"), params, name), tmp_path)


def _run(tmp_path, params, name, **kw):
    return cosim_emitted(family("flexdpe"), params, _emit(tmp_path, params, name), sim="verilator", **kw)


def _check(result):
    assert result.passed, (result.summary(), result.error, result.first_mismatches[:3])
    assert result.mismatches == 0 and result.checks > 0


@pytest.mark.parametrize("k", [8, pytest.param(16, marks=pytest.mark.slow)])
def test_directed_and_random_gemms(tmp_path, k):
    """Dense regular / irregular, sparse 0..95% on either or both operands, zero rows/columns, auto stationary.

    k = 16 is slow only: the same GEMMs on a larger Flex-DPE. k = 8 (here) and k = 4
    (test_forced_stationary_unsigned_pipelined_benes) cover the controller and the glue by default; the
    16-input FAN and Benes are covered by default in tests/cosim/test_fan.py and tests/cosim/test_benes.py."""
    _check(_run(tmp_path, FlexDPEParams(k=k, width=8), f"fd{k}", vectors=3, seed=k))


@pytest.mark.slow
def test_k32_directed_and_random_gemms(tmp_path):
    _check(_run(tmp_path, FlexDPEParams(k=32, width=8), "fd32", vectors=3, seed=32))


@pytest.mark.parametrize("stationary", ["weights", "inputs"])
def test_forced_stationary_unsigned_pipelined_benes(tmp_path, stationary):
    """k=4 (the smallest), unsigned 5-bit operands, Benes registered after every stage: latency 4+2+3."""
    params = FlexDPEParams(k=4, width=5, signed=False, benes_pipeline_every=1)
    assert params.latency == 9
    result = _run(tmp_path, params, "flexdpe", seed=5, options={  # the CLI's name: test_cli_cosim_and_report shares
        "gemm": [(3, 5, 7), (1, 9, 2), (9, 1, 13), (4, 4, 4)], "sparsity_a": 0.3, "sparsity_b": 0.6,
        "stationary": stationary})
    _check(result)


def test_extreme_sparsity_both_operands(tmp_path):
    params = FlexDPEParams(k=8, width=8)
    _check(_run(tmp_path, params, "fd8", seed=9, options={
        "gemm": [(20, 20, 20), (40, 3, 17), (1, 30, 50)], "sparsity_a": 0.95, "sparsity_b": 0.95}))


def _mutant_run(tmp_path, params, table, plans, name):
    e = _emit(tmp_path, params, name)
    return run_cosim(e.verilog_path, e.manifest, table, record=tuple(table.info["record"]), waves_on_failure=False,
                     host_check=lambda rec: sigma_verify(params, table, plans, rec))


def test_wrong_cycle_model_is_caught(tmp_path):
    params = FlexDPEParams(k=8, width=8)
    table, plans = flexdpe_table(params, 0, 1, gemm=[(5, 6, 11)], sparsity_a=0.4, sparsity_b=0.2)
    plans[0].cycles -= 1
    result = _mutant_run(tmp_path, params, table, plans, "fd8")
    assert not result.passed and "measured" in result.error and "model predicts" in result.error


def test_wrong_operand_is_caught(tmp_path):
    params = FlexDPEParams(k=8, width=8)
    rng = np.random.default_rng(2)
    A, B = sparse_operands(params, (6, 5, 9), 0.3, 0.3, rng)
    table, plans = gemm_schedule(params, [(A, B)])
    plans[0].B = np.where(B != 0, B ^ 1, 0)   # the host now believes different weights were used
    result = _mutant_run(tmp_path, params, table, plans, "fd8")
    assert not result.passed and "numpy gives" in result.error


def test_corrupted_routing_bits_are_caught(tmp_path):
    """Cross one Benes switch in one streaming cycle: the delivered words change and the sums disagree."""
    params = FlexDPEParams(k=8, width=8)
    table, plans = flexdpe_table(params, 0, 1, gemm=[(8, 8, 8)], sparsity_a=0.0, sparsity_b=0.0)
    t = plans[0].folds[0].steps[3].cycle
    table.inputs["ctrl__4"][t] ^= np.uint64(3)
    result = _mutant_run(tmp_path, params, table, plans, "fd8")
    assert not result.passed and result.mismatches > 0


def test_cli_cosim_and_report():
    from accelgen.cli import cli

    runner = CliRunner()
    # the design of test_forced_stationary_unsigned_pipelined_benes (one build for both)
    r = runner.invoke(cli, ["cosim", "flexdpe", "--k", "4", "--width", "5", "--unsigned", "--benes-pipeline-every", "1",
                            "--gemm", "3,5,7", "--gemm", "1,1,9", "--sparsity-a", "0", "--sparsity-b", "0.5",
                            "--stationary", "inputs"])
    assert r.exit_code == 0, r.output
    assert "PASS" in r.output and "2 GEMMs" in r.output
    r = runner.invoke(cli, ["cosim", "flexdpe", "--sparsity-a", "2"])
    assert r.exit_code == 2 and "fraction of zeros in 0..1" in r.output
    r = runner.invoke(cli, ["sigma-report", "--k", "8", "--gemm", "8,8,8", "--sparsity", "0/0,0.9/0.5", "--json"])
    assert r.exit_code == 0, r.output
    import json
    rows = json.loads(r.output)
    assert len(rows) == 2 and rows[0]["compute_efficiency"] == 1.0 and rows[0]["cycles"] == 8 + 64 + 7
    r = runner.invoke(cli, ["sigma-report", "--sparsity", "0.5"])
    assert r.exit_code == 2 and "A/B pairs" in r.output


def test_directed_list_covers_the_issue_cases():
    params = FlexDPEParams(k=8)
    names = [n for n, _, _ in directed_gemms(params, np.random.default_rng(0))]
    for want in ("dense_regular", "dense_k_small", "dense_k_large", "dense_m1", "dense_n1", "zero_row_a",
                 "zero_col_b", "all_zero_a", "single_nonzero", "sparse_0.95_0.3", "sparse_0.9_0.9"):
        assert want in names


def test_slot_of_a_missing_cluster_is_reported_not_raised():
    """Host check alone (no simulator): a recorded slot whose sum_id names no cluster of its fold poisons C; the
    integer check reports it, also when a later fold adds a partial to the poisoned entry (that used to raise
    TypeError). Dense, inputs stationary, K = 12 > k: row 0 fills fold 0 (one cluster) and ends in fold 1."""
    params = FlexDPEParams(k=8, width=8)
    A, B = sparse_operands(params, (3, 2, 12), 0.0, 0.0, np.random.default_rng(1))
    table, plans = gemm_schedule(params, [(A, B)], stationary="inputs")
    recorded = {name: v.copy() for name, v in table.expect.items()}
    assert sigma_verify(params, table, plans, recorded) == []
    fold, later = plans[0].folds[:2]
    assert fold.cluster_rows == [0] and later.cluster_rows[0] == 0
    step = fold.steps[0]
    recorded[f"sum_id__{next(iter(step.expect))}"][step.cycle + params.latency] = 1   # fold 0 has cluster 0 only
    problems = sigma_verify(params, table, plans, recorded)
    assert problems and problems[0].startswith("GEMM 3x2x12: C(0, 0) = None, numpy gives")
