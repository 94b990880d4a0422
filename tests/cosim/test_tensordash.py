"""TensorDash on the emitted Verilog (Verilator): schedules, results and cycle counts against the golden model.

The cycle-table runs check every cycle: each lane's select, ``take`` (= AS while
busy), ``done`` and the running sum(s), so the RTL's schedule, cycle count and
dot products all equal the golden model's. The reactive runs let the testbench
follow the RTL's ``take`` and count cycles on its own.
"""

import numpy as np
import pytest

from accelgen.cosim import run_cosim
from accelgen.golden.tensordash import cycle_counts
from accelgen.cosim.tensordash import Stream, pe_streams, pe_table, sched_table
from accelgen.cosim.tensordash_speedup import run_streams, sweep_streams
from accelgen.registry import FAMILIES
from accelgen.family import BlockFamily
from accelgen.cli import main
from accelgen.gen import render, write
from accelgen.rtl.tensordash import (TensorDashPEParams, TensorDashScheduler, TensorDashSchedParams,
                                     TensorDashTileParams)

pytestmark = pytest.mark.cosim


@pytest.fixture(autouse=True)
def _slow_only_when_selected(request):
    if request.node.get_closest_marker("slow") and "slow" not in (request.config.getoption("-m") or ""):
        pytest.skip("large configuration: select with -m slow")


def _cosim(fam, params, table, tmp_path, name):
    e = write(render(fam, params, name), tmp_path)
    return run_cosim(e.verilog_path, e.manifest, table, sim="verilator", seed=1, waves_on_failure=False)


def _name(prefix, params):
    return prefix + "_" + "_".join(str(v).lower() for v in params.model_dump().values())


#: The module name of every PE design here: the name :func:`run_streams` (and so ``accelgen
#: tensordash-sweep``) gives the PE. Equal parameters then mean equal Verilog and one simulator build
#: for the table runs, the reactive runs and the sweep command below.
PE_NAME = "tensordash"


# --------------------------------------------------------------------------- scheduler (combinational)

@pytest.mark.parametrize("lanes, depth, pattern", [
    # issue 48: 4x4 is slow; its scheduler is the default PE's, whose selects test_pe_directed_trace_selects
    # compares cycle by cycle, and [16-3-default] checks the scheduler on its own
    pytest.param(4, 4, "default", marks=pytest.mark.slow), (16, 3, "default"),
    pytest.param(2, 2, "default", marks=pytest.mark.slow), pytest.param(8, 5, "lookahead", marks=pytest.mark.slow)])
def test_sched_all_z_patterns(tmp_path, lanes, depth, pattern):
    params = TensorDashSchedParams(lanes=lanes, depth=depth, pattern=pattern)
    table = sched_table(params, vectors=400, seed=lanes)
    result = _cosim(FAMILIES["tensordash_sched"], params, table, tmp_path, _name("tds", params))
    assert result.passed, result.summary() + str(result.first_mismatches[:3])
    assert result.checks == table.cycles * (lanes + 1)


def test_sched_priority_mutant_is_caught(tmp_path):
    """A scheduler with the two lookaside options of row +1 swapped must fail the default table."""
    params = TensorDashSchedParams()
    swapped = ((0, 0), (1, 0), (2, 0), (3, 0), (1, -1), (1, 1), (2, 2), (3, 3))
    mutant = BlockFamily("m", "mutant", TensorDashSchedParams, lambda p: TensorDashScheduler(options=swapped),
                         golden="accelgen.golden.tensordash_sched", cycle_table=sched_table)
    result = _cosim(mutant, params, sched_table(params, vectors=200, seed=3), tmp_path, "tds_mutant")
    assert not result.passed and result.mismatches > 0
    assert any(m["port"].startswith("sel") for m in result.first_mismatches)


# --------------------------------------------------------------------------- PE

PE_CONFIGS = [
    # issue 48: depth 2 and 3 are slow, the 4-lane PE of [lanes4-depth4] with a shallower buffer; depth 3 (not a
    # power of two) is tests/cosim/test_tensordash_pipeline.py::test_pe_int_pipelined_odd_lanes_bit_exact's
    pytest.param(dict(lanes=4, depth=2), marks=pytest.mark.slow),
    pytest.param(dict(lanes=4, depth=3), marks=pytest.mark.slow),
    dict(lanes=4, depth=4),
    # slow only: 16 lanes is the 4-lane PE at a larger size. The scheduler's 16-lane lookaside edges are
    # checked by default in test_sched_all_z_patterns[16-3-default], the PE datapath with 4 lanes above.
    pytest.param(dict(lanes=16, depth=3), marks=pytest.mark.slow),
    # degenerate: two lanes, shallowest buffer, unsigned narrow operands, accumulator wraps
    # (also run in the Amaranth simulator by default, see tests/golden/test_tensordash.py)
    pytest.param(dict(lanes=2, depth=2, a_width=4, b_width=4, acc_width=8, signed=False), marks=pytest.mark.slow),
]


@pytest.mark.parametrize("kw", PE_CONFIGS, ids=lambda kw: "-".join(f"{k}{v}" for k, v in kw.items()))
def test_pe_streams_exact_results_and_cycles(tmp_path, kw):
    params = TensorDashPEParams(**kw)
    table = pe_table(params, vectors=64, seed=7)
    info = table.info
    for rows, cycles in zip(info["stream_rows"], info["model_cycles"]):
        # never slower than the dense schedule, never faster than dense / D
        assert -(-rows // params.depth) <= cycles <= rows
    result = _cosim(FAMILIES["tensordash_pe"], params, table, tmp_path, PE_NAME)
    assert result.passed, result.summary() + str(result.first_mismatches[:3])
    assert result.checks == table.checks and result.cycles == table.cycles


def test_pe_directed_trace_selects(tmp_path):
    """Directed streams only; every cycle's per-lane select is compared with the golden schedule."""
    params = TensorDashPEParams()
    streams = [s for s in pe_streams(params, 0, seed=11)]
    table = pe_table(params, streams=streams, seed=11)
    sel_checks = sum(int(table.check[f"sel__{l}"].sum()) for l in range(4))
    assert sel_checks == 4 * table.cycles
    # the trace really exercises lookahead and lookaside options
    used = set(np.concatenate([table.expect[f"sel__{l}"] for l in range(4)]).tolist())
    assert {1, 2, 3, 4, 5, 6, 7, 8} <= used
    result = _cosim(FAMILIES["tensordash_pe"], params, table, tmp_path, PE_NAME)
    assert result.passed, result.summary() + str(result.first_mismatches[:3])


def test_pe_reactive_cycle_counts_equal_fast_model():
    """The testbench follows the RTL's take; its measured cycle counts equal the fast model's."""
    params = TensorDashPEParams()
    streams = []
    for i, s in enumerate((0.0, 0.5, 0.9, 0.999)):
        streams += sweep_streams(4, 4, s, count=6, rows=int(5 + 7 * i), seed=i)
    z = np.zeros((9, 4), np.int64)
    streams += [Stream("zeros", z, z), Stream("empty", z[:0], z[:0]), Stream("one", z[:1] + 1, z[:1] + 2)]
    run = run_streams(FAMILIES["tensordash_pe"], params, streams)
    assert run.passed and run.results_exact, run.cosim.summary()
    assert run.measured_cycles == run.model_cycles
    fast = [int(cycle_counts((s.a != 0) & (s.b != 0), depth=4)[0]) for s in streams]
    assert run.measured_cycles == fast
    assert run.measured_cycles[-3:] == [3, 0, 1]
    for s, c in zip(streams, run.measured_cycles):
        assert -(-s.rows // 4) <= c <= s.rows


def test_sweep_command_cosim_equals_fast_model(capsys):
    import json
    rc = main(["tensordash-sweep", "--lanes", "4", "--depth", "4", "--sparsity", "0,0.5,0.99", "--streams", "6",
               "--rows", "32", "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert rc == 0
    for r in rows:
        assert r["agree"] and r["exact"]
        assert r["cosim_cycles"] == r["model_cycles"]
        assert 1.0 <= r["speedup_cosim"] <= 4.0 + 1e-9
    assert rows[0]["speedup_cosim"] == 1.0 and rows[2]["speedup_cosim"] == pytest.approx(4.0, abs=0.2)


@pytest.mark.slow
@pytest.mark.parametrize("kw", [dict(lanes=8, depth=5), dict(lanes=16, depth=4), dict(lanes=4, depth=4,
                                                                                         pattern="lookahead")])
def test_pe_larger_configs(tmp_path, kw):
    params = TensorDashPEParams(**kw)
    table = pe_table(params, vectors=96, seed=9)
    result = _cosim(FAMILIES["tensordash_pe"], params, table, tmp_path, PE_NAME)
    assert result.passed, result.summary() + str(result.first_mismatches[:3])


# --------------------------------------------------------------------------- tile

def test_tile_4x4_exact_results_and_cycles(tmp_path):
    params = TensorDashTileParams(lanes=4, depth=4, rows=4)
    table = pe_table(params, vectors=48, seed=5)
    e = render(FAMILIES["tensordash_tile"], params, "tdtile44")
    assert e.verilog.count("module tdtile44__row(") == 1 and e.verilog.count("tdtile44__row ") == 4
    result = _cosim(FAMILIES["tensordash_tile"], params, table, tmp_path, "tdtile44")
    assert result.passed, result.summary() + str(result.first_mismatches[:3])
    assert result.checks == table.checks


@pytest.mark.slow
def test_tile_one_row_two_lanes(tmp_path):
    params = TensorDashTileParams(lanes=2, depth=2, rows=1, a_width=5, b_width=3, acc_width=10)
    table = pe_table(params, vectors=48, seed=6)
    result = _cosim(FAMILIES["tensordash_tile"], params, table, tmp_path, "tdtile_r1")
    assert result.passed, result.summary() + str(result.first_mismatches[:3])
