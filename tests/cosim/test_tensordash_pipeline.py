"""Pipelined TensorDash PE and tile (issue 19): ``mul_stages`` / ``add_stages`` on the emitted Verilog.

The schedule and the busy cycles are those of the unpipelined PE; ``done`` comes ``latency - 1 =
mul_stages + ceil(log2 L) * add_stages + fold`` cycles after the last busy cycle. With ``add_stages`` the
accumulator interleaves ``add_stages + 1`` partial sums and folds them at the end (fp32 results in that
order); without, its output is the unpipelined one delayed. The cycle tables check every cycle (selects,
``take``, ``done``, and every accumulator: each cycle, or with interleaving whenever ``done``) against that
model, so results are bit-exact and the measured cycles equal the model's. Two mutants show the checks can
fail: a cycle model one stage short, and a golden that ignores one register of the accumulator loop.

Builds: three by default (an fp16 PE, an odd-lane int PE, a two-row fp16 tile); the mutants and the
reactive run reuse them. The fp16 PE and the tile carry the CLI's default module names, so the
commands of the issue's done-when list share their builds.
"""

import numpy as np
import pytest

from accelgen.cli import main
from accelgen.cosim import run_cosim
from accelgen.cosim import tensordash as td_host
from accelgen.cosim import tensordash_speedup
from accelgen.cosim.tensordash import pe_streams, pe_table
from accelgen.cosim.tensordash_speedup import run_streams
from accelgen.gen import render, write
from accelgen.golden.tensordash import pe_latency
from accelgen.registry import FAMILIES
from accelgen.rtl.tensordash import TensorDashPEParams, TensorDashTileParams

pytestmark = pytest.mark.cosim


@pytest.fixture(autouse=True)
def _slow_only_when_selected(request):
    if request.node.get_closest_marker("slow") and "slow" not in (request.config.getoption("-m") or ""):
        pytest.skip("large configuration: select with -m slow")


#: the fp16 PE of ``accelgen cosim tensordash_pe --dtype fp16 --mul-stages 2 --add-stages 1``
FP16_PE = dict(dtype="fp16", mul_stages=2, add_stages=1)
#: three lanes: lane 2's product moves up the first tree level past an adder and waits add_stages
#: cycles for its partner; integers through PipelinedMultiplier / PipelinedAdder
INT_PE = dict(lanes=3, depth=3, a_width=7, b_width=6, acc_width=16, mul_stages=1, add_stages=2)
#: two rows of the tile of ``accelgen cosim tensordash_tile --dtype fp16 --mul-stages 2 --add-stages 1``
FP16_TILE = dict(dtype="fp16", rows=2, mul_stages=2, add_stages=1)
#: the module name of the integer PE here and of run_streams' (one build for both)
INT_PE_NAME = "tensordash"


def _family(params):
    return FAMILIES["tensordash_tile" if hasattr(params, "rows") else "tensordash_pe"]


def _cosim(params, table, tmp_path, name=None):
    fam = _family(params)
    e = write(render(fam, params, name or fam.default_name(params)), tmp_path)
    return run_cosim(e.verilog_path, e.manifest, table, sim="verilator", seed=1, waves_on_failure=False)


def _exact(params, table, tmp_path, name=None):
    """The table's run passes: every cycle's selects, take, done and accumulators equal the model's."""
    assert table.info["latency"] == params.latency > 1
    result = _cosim(params, table, tmp_path, name)
    assert result.passed, result.summary() + str(result.first_mismatches[:3])
    assert result.checks == table.checks and result.cycles == table.cycles
    return result


def test_pe_fp16_pipelined_bit_exact(tmp_path):
    """fp16 PE, 2 multiplier and 1 adder stages (latency 1 + 2 + 2 * 1 + 3 = 8: two interleaved partial
    sums folded in 3 cycles): fp32 sums bit-exact with every special value, done 7 cycles after the last busy
    cycle; the CLI run shares the build."""
    params = TensorDashPEParams(**FP16_PE)
    assert params.latency == pe_latency(4, 2, 1) == 8
    _exact(params, pe_table(params, vectors=48, seed=7), tmp_path)
    assert main(["cosim", "tensordash_pe", "--dtype", "fp16", "--mul-stages", "2", "--add-stages", "1",
                 "--vectors", "8"]) == 0


def test_pe_int_pipelined_odd_lanes_bit_exact(tmp_path):
    params = TensorDashPEParams(**INT_PE)
    assert params.latency == 1 + 1 + 2 * 2 + 7
    _exact(params, pe_table(params, vectors=64, seed=5), tmp_path, INT_PE_NAME)


def test_pe_int_pipelined_reactive_counts_busy_cycles_and_drain(monkeypatch):
    """The reactive testbench follows take: busy cycles equal the model's, the drain (cycles from the last
    busy cycle to done) is latency - 1 for every stream, results exact. Without the drain in its table it
    expects the unpipelined PE's cycles from start to done and fails. Reuses the integer PE's build."""
    params = TensorDashPEParams(**INT_PE)
    streams = pe_streams(params, 16, seed=3)
    run = run_streams(_family(params), params, streams, name=INT_PE_NAME)
    assert not run.passed and run.results_exact and run.measured_cycles == run.model_cycles
    assert {m["port"] for m in run.cosim.first_mismatches} == {"cycles"}

    real = tensordash_speedup.run_cosim

    def with_drain(verilog, manifest, table, **kw):  # the table asks the testbench for the pipelined drain
        table.expect["drain"] = np.full(len(streams), params.latency - 1, np.uint64)
        table.check["drain"] = np.ones(len(streams), bool)
        return real(verilog, manifest, table, **kw)

    monkeypatch.setattr(tensordash_speedup, "run_cosim", with_drain)
    run = run_streams(_family(params), params, streams, name=INT_PE_NAME)
    assert run.passed and run.results_exact, run.cosim.summary()
    assert run.measured_cycles == run.model_cycles
    assert run.cosim.checks == len(streams) * 3  # cycles, drain, acc


def test_tile_fp16_pipelined_bit_exact(tmp_path):
    """Two fp16 rows, one shift register in the tile delaying both accumulators' clear and enable."""
    params = TensorDashTileParams(**FP16_TILE)
    e = render(_family(params), params, "tensordash_tile")
    assert e.verilog.count("module tensordash_tile__row(") == 1 and "acc_clear" in e.verilog
    _exact(params, pe_table(params, vectors=32, seed=5), tmp_path)


# --------------------------------------------------------------------------- mutants (reuse the builds above)

def test_mutant_cycle_model_one_stage_short_fails(tmp_path, monkeypatch):
    """A cycle model that counts one pipeline stage fewer (drain and acc delay one cycle short) fails on
    done (and acc) on the correct RTL."""
    params = TensorDashPEParams(**INT_PE)
    monkeypatch.setattr(td_host, "pe_latency", lambda lanes, mul, add, **kw: pe_latency(lanes, mul, add, **kw) - 1)
    table = pe_table(params, vectors=64, seed=5)
    assert table.info["latency"] == params.latency - 1
    result = _cosim(params, table, tmp_path, INT_PE_NAME)
    assert not result.passed and result.mismatches > 0
    assert "done" in {m["port"] for m in result.first_mismatches}


def test_mutant_golden_ignoring_a_pipeline_register_fails(tmp_path, monkeypatch):
    """A golden that ignores one register of the accumulator loop (one interleaved partial sum fewer: the
    plain running sum for ``add_stages=1``; done still right) fails on acc only."""
    params = TensorDashPEParams(**FP16_PE)
    real = td_host.simulate_pe
    monkeypatch.setattr(td_host, "simulate_pe", lambda *a, threads, **kw: real(*a, threads=threads - 1, **kw))
    result = _cosim(params, pe_table(params, vectors=48, seed=7), tmp_path)
    assert not result.passed and result.mismatches > 0
    assert {m["port"] for m in result.first_mismatches} == {"acc"}


# --------------------------------------------------------------------------- larger configurations (slow)

@pytest.mark.slow
@pytest.mark.parametrize("kw", [
    # the done-when tile (four rows); test_tile_fp16_pipelined_bit_exact covers it with two rows
    dict(dtype="fp16", mul_stages=2, add_stages=1),
    # integer tile, every stage count 3; the integer datapath is test_pe_int_pipelined_odd_lanes_bit_exact's
    dict(lanes=4, depth=4, rows=3, mul_stages=3, add_stages=3),
], ids=["fp16_r4_m2a1", "int_r3_m3a3"])
def test_tile_pipelined_larger(tmp_path, kw):
    params = TensorDashTileParams(**kw)
    _exact(params, pe_table(params, vectors=48, seed=9), tmp_path)  # the CLI's module name


@pytest.mark.slow
@pytest.mark.parametrize("kw", [
    # 8 lanes, 3 tree levels: latency 1 + 3 + 3 * 3 + 11 = 24 (test_pe_int_pipelined_odd_lanes_bit_exact at size)
    dict(lanes=8, depth=5, mul_stages=3, add_stages=3),
    # odd fp lanes with FTZ: 5 lanes, lane 4 skips two adders (test_pe_fp16_pipelined_bit_exact at size)
    dict(lanes=5, depth=4, dtype="bf16", flush_subnormals=True, mul_stages=1, add_stages=2),
    # multipliers only / adders only
    dict(lanes=4, depth=4, dtype="fp32", mul_stages=3),
    dict(lanes=16, depth=3, a_width=16, b_width=16, acc_width=40, add_stages=1),
], ids=["int_l8_m3a3", "bf16_l5_ftz_m1a2", "fp32_m3", "int_l16_a1"])
def test_pe_pipelined_larger(tmp_path, kw):
    params = TensorDashPEParams(**kw)
    _exact(params, pe_table(params, vectors=64, seed=9), tmp_path)
