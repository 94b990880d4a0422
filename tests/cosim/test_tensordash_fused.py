"""TensorDash's two fp summation structures on the emitted Verilog (``summation``): the fused sum (one
:class:`~accelgen.rtl.fp_sum.FPSum` of the accumulator and the lane products, the default) and the lane tree of
two-operand FPAdders, each against its golden model (:func:`accelgen.golden.tensordash.simulate_pe` with
``summation``): every cycle's selects, ``take``, ``done`` and accumulator bits.

The fused fp16 and bf16 PEs unpipelined, the fused fp16 PE and tile pipelined are
tests/cosim/test_tensordash_fp.py's and test_tensordash_pipeline.py's (the default ``summation``); here the
fused bf16 PE pipelined with an odd lane count and three interleaved partial sums, the fused dense fp16 tile with
adder stages only (interleaved threads with no pipeline in front of the loop), the lane tree unpipelined
(whose build the left-fold mutant of test_tensordash_fp.py reuses) and pipelined (slow), and a mutant: the
tree's golden against the fused RTL fails on ``acc`` only (the two structures give different bits, with
the same schedule and cycles).
"""

import pytest

from accelgen.cosim import run_cosim
from accelgen.cosim import tensordash as td_host
from accelgen.cosim.tensordash import pe_streams, pe_table
from accelgen.gen import render, write
from accelgen.golden.tensordash import pe_latency
from accelgen.registry import FAMILIES
from accelgen.rtl.tensordash import TensorDashPEParams, TensorDashTileParams

pytestmark = pytest.mark.cosim


@pytest.fixture(autouse=True)
def _slow_only_when_selected(request):
    if request.node.get_closest_marker("slow") and "slow" not in (request.config.getoption("-m") or ""):
        pytest.skip("large configuration: select with -m slow")


def _cosim(params, table, tmp_path, name):
    fam = FAMILIES["tensordash_tile" if hasattr(params, "rows") else "tensordash_pe"]
    e = write(render(fam, params, name), tmp_path)
    return run_cosim(e.verilog_path, e.manifest, table, sim="verilator", seed=1, waves_on_failure=False)


def _exact(params, table, tmp_path, name):
    assert table.info["latency"] == params.latency
    result = _cosim(params, table, tmp_path, name)
    assert result.passed, result.summary() + str(result.first_mismatches[:3])
    assert result.checks == table.checks and result.cycles == table.cycles


def test_pe_bf16_fused_pipelined_odd_lanes_bit_exact(tmp_path):
    """Three bf16 lanes, 1 multiplier and 2 adder stages: FPSum(4) in a loop of three interleaved partial sums,
    folded through the same unit in 7 cycles (latency 1 + 1 + 7 = 9; the tree's would be 1 + 1 + 2 * 2 + 7)."""
    params = TensorDashPEParams(lanes=3, depth=3, dtype="bf16", mul_stages=1, add_stages=2, summation="fused")
    assert params.latency == pe_latency(3, 1, 2, dtype="bf16", summation="fused") == 9
    _exact(params, pe_table(params, vectors=40, seed=11), tmp_path, "tdpe_bf16_fused_m1a2")


def test_tile_fp16_fused_adder_stages_only_bit_exact(tmp_path):
    """The dense fp16 tile (two rows), fused, 0 multiplier and 1 adder stage: nothing delays the accumulators'
    control (the products reach the loop in their own cycle), yet the loop interleaves two threads, whose
    selects the tile drives into both rows from start and step directly (latency 1 + 0 + 3 = 4)."""
    params = TensorDashTileParams(depth=1, rows=2, dtype="fp16", add_stages=1, summation="fused")
    assert params.pipeline_delay == 0 and params.threads == 2 and params.latency == 4
    _exact(params, pe_table(params, vectors=32, seed=3), tmp_path, "tdtile_fp16_dense_a1")


def test_pe_fp16_tree_bit_exact(tmp_path):
    """The lane tree (``summation: tree``), unpipelined: acc <- acc + ((p0 + p1) + (p2 + p3)) every cycle."""
    params = TensorDashPEParams(dtype="fp16", summation="tree")
    streams = pe_streams(params, 48, seed=7)
    _exact(params, pe_table(params, streams=streams, seed=7), tmp_path, "tdpe_fp16_tree")


@pytest.mark.slow
@pytest.mark.parametrize("kw", [
    dict(dtype="fp16", mul_stages=2, add_stages=1),
    dict(lanes=5, depth=4, dtype="bf16", flush_subnormals=True, mul_stages=1, add_stages=2),
], ids=["fp16_m2a1", "bf16_l5_ftz_m1a2"])
def test_pe_tree_pipelined_bit_exact(tmp_path, kw):
    """The lane tree pipelined: 1 + m + ceil(log2 L) * a + fold cycles (fp16 at 2 + 1: 8)."""
    params = TensorDashPEParams(summation="tree", **kw)
    assert params.latency == pe_latency(params.lanes, params.mul_stages, params.add_stages, dtype=params.dtype,
                                        summation="tree")
    assert params.lanes != 4 or params.latency == 8
    _exact(params, pe_table(params, vectors=48, seed=7), tmp_path, "tdpe_tree_piped")


def test_mutant_tree_golden_on_fused_rtl_fails(tmp_path, monkeypatch):
    """The fused fp16 PE checked against the lane tree's golden: the schedule and cycles agree, the
    accumulator's bits do not."""
    params = TensorDashPEParams(lanes=4, depth=4, dtype="fp16", summation="fused")
    real = td_host.simulate_pe
    monkeypatch.setattr(td_host, "simulate_pe", lambda *a, summation, **kw: real(*a, summation="tree", **kw))
    result = _cosim(params, pe_table(params, streams=pe_streams(params, 48, seed=7), seed=7), tmp_path, "tdpe_fp16_fused")
    assert not result.passed and result.mismatches > 0
    assert {m["port"] for m in result.first_mismatches} == {"acc"}
