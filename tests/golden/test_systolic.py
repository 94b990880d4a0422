"""Systolic arrays without a simulator: parameters, the cycle model, the GEMM driver."""

import warnings

import numpy as np
import pytest

from accelgen.golden.systolic import required_acc_width, systolic_cycles
from accelgen.cosim.systolic import (assemble, check_operands, directed_shapes, gemm_schedule, parse_gemm,
                                     random_operands)
from accelgen.registry import family
from accelgen.gen import render
from accelgen.rtl.systolic import SystolicArray, SystolicParams


@pytest.mark.parametrize("kw,match", [
    ({"rows": 0}, r"systolic\.rows: 0 is not allowed; expected an integer in 1\.\.256"),
    ({"cols": -2}, r"cols: -2 .*1\.\.256"),
    ({"rows": 257}, r"rows: 257"),
    ({"dataflow": "xs"}, r"dataflow: 'xs' is not allowed; expected 'ws' or 'os' or 'is'"),
    ({"acc_width": 8}, r"acc_width=8 is too narrow"),
])
def test_bad_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        SystolicArray(**kw)


@pytest.mark.parametrize("kw,match", [
    ({"sum_group": 3}, r"systolic\.sum_group: 3 is not allowed; expected 1 or 2 or 4 or 8"),
    ({"sum_group": 4}, r"sum_group: 4 is not allowed with dtype='int'; it needs a floating-point dtype"),
    ({"sum_group": 2, "dtype": "bf16", "dataflow": "os"}, r"sum_group: 2 is not allowed with dataflow='os' \(no "
                                                          r"partial sums flow down the columns\); allowed: 1, or "
                                                          r"dataflow 'ws' or 'is'"),
    ({"sum_group": 4, "dtype": "bf16", "rows": 6}, r"sum_group: 4 is not allowed with rows=6; allowed: a divisor of "
                                                   r"rows among 1, 2, 4 and 8"),
])
def test_bad_sum_group(kw, match):
    with pytest.raises(ValueError, match=match):
        SystolicArray(**kw)


def test_sum_group_allowed_and_latency():
    for kw in ({"dtype": "bf16", "rows": 8, "sum_group": 8}, {"dtype": "fp32", "rows": 4, "sum_group": 2,
                                                             "dataflow": "is", "weight_load": "double"}):
        assert SystolicParams(**kw).row_groups == kw["rows"] // kw["sum_group"]
    # a partial sum passes rows / sum_group PEs, one cycle each (add_stages + 1 when pipelined)
    assert SystolicArray(rows=8, dtype="bf16", sum_group=4).latency == 2
    assert SystolicArray(rows=8, dtype="bf16").latency == 8


@pytest.mark.parametrize("weight_load", ["shift", "double"])
@pytest.mark.parametrize("dataflow", ["ws", "is"])
def test_sum_group_cycle_formula(weight_load, dataflow):
    """With groups of G rows the skew and the partial-sum path are those of rows / G PEs; the weight load still
    takes one cycle per row."""
    rows, cols, G = 8, 4, 4
    M, N, K = 10, 9, 19
    t = systolic_cycles(rows, cols, M, N, K, dataflow, weight_load=weight_load, sum_group=G)
    stream = N if dataflow == "is" else M
    folds = 3 * (3 if dataflow == "ws" else 3)   # ceil(K / rows) * ceil(N or M / cols)
    P = rows // G
    assert t.folds == folds and t.skew_cycles == (P - 1) + cols - 1
    if weight_load == "shift":
        assert t.fold_cycles == rows + stream + (P - 1) + cols - 2
        assert t.cycles == folds * t.fold_cycles + 2
    else:
        assert t.fold_cycles == max(stream, rows + (P - 1) + cols - 1)
        assert t.cycles == (folds - 1) * t.fold_cycles + rows + 1 + P + cols + stream - 1
    # G = 1 is the array of single PEs
    assert systolic_cycles(rows, cols, M, N, K, dataflow, weight_load=weight_load, sum_group=1) == \
        systolic_cycles(rows, cols, M, N, K, dataflow, weight_load=weight_load)


@pytest.mark.parametrize("kw", [{"sum_group": 3}, {"sum_group": 4, "rows": 6}, {"sum_group": 2, "dataflow": "os"}])
def test_cycle_model_rejects_bad_sum_group(kw):
    args = {"rows": 8, "dataflow": "ws"} | kw
    with pytest.raises(ValueError, match=f"sum_group={kw['sum_group']} is not allowed"):
        systolic_cycles(args["rows"], 4, 8, 8, 8, args["dataflow"], sum_group=kw["sum_group"])


def test_ws_cycle_formula_small_cases():
    # one fold on a 1x1 array: load, stream, result register
    assert systolic_cycles(1, 1, 1, 1, 1, "ws").cycles == 3
    t = systolic_cycles(4, 4, 10, 4, 4, "ws")
    assert (t.folds, t.load_cycles, t.stream_cycles, t.skew_cycles) == (1, 4, 10, 6)
    assert t.cycles == 4 + 10 + 6 + 1
    t = systolic_cycles(4, 8, 3, 17, 9, "ws")  # K folds 3, N folds 3
    assert t.folds == 9 and t.cycles == 9 * (3 + 8 + 8 - 3) + 2


def test_os_cycle_formula_small_cases():
    assert systolic_cycles(1, 1, 1, 1, 1, "os").cycles == 3
    t = systolic_cycles(4, 4, 9, 4, 5, "os")  # M folds 3
    assert t.folds == 3 and t.cycles == 3 * (5 + 6) + 4 + 1


def test_cycle_model_is_vectorized_and_bounded():
    M = np.array([1, 16, 256, 1000])
    t = systolic_cycles(16, 16, M, 64, 300, "ws")
    assert t.cycles.shape == (4,)
    assert np.all(t.utilization > 0) and np.all(t.utilization <= 1)
    assert t.utilization[-1] > t.utilization[0]  # longer streams amortize load and skew


def test_cycle_model_rejects_bad_input():
    with pytest.raises(ValueError, match="dataflow='xs'"):
        systolic_cycles(4, 4, 1, 1, 1, "xs")
    with pytest.raises(ValueError, match="M, N, K must all be >= 1"):
        systolic_cycles(4, 4, 0, 1, 1)


def test_required_acc_width():
    assert required_acc_width(8, 8, True, 1) == 16       # (-128)^2 = 16384 needs 16 signed bits
    assert required_acc_width(8, 8, False, 1) == 16
    assert required_acc_width(8, 8, False, 2) == 17
    assert required_acc_width(8, 8, True, 1024) == 26


def test_operand_checks():
    p = SystolicParams(a_width=4, b_width=4, acc_width=12, signed=True)
    with pytest.raises(ValueError, match=r"shapes A\(2, 3\) and B\(2, 2\)"):
        check_operands(p, np.zeros((2, 3)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"operand A has values in -9\.\.-9; allowed for signed 4-bit: -8\.\.7"):
        check_operands(p, np.full((2, 2), -9), np.zeros((2, 2)))
    with pytest.warns(UserWarning, match=r"acc_width=12 cannot hold a K=100-long .* at least 14 bits"):
        check_operands(p, np.zeros((1, 100), dtype=int), np.zeros((100, 1), dtype=int))


def test_parse_gemm():
    assert parse_gemm("64,32,128") == (64, 32, 128)
    assert parse_gemm("2x3x4") == (2, 3, 4)
    for bad in ("1,2", "0,1,1", "a,b,c", ""):
        with pytest.raises(ValueError, match="expected M,N,K"):
            parse_gemm(bad)


def test_directed_shapes_cover_smaller_equal_larger():
    shapes = directed_shapes(8, 16)
    assert (1, 1, 1) in shapes and (8, 16, 8) in shapes
    assert any(n > 16 for _, n, _ in shapes) and any(k > 8 for _, _, k in shapes)
    assert any(m > 16 for m, _, _ in shapes)


@pytest.mark.parametrize("dataflow", ["ws", "os"])
@pytest.mark.parametrize("rows,cols", [(1, 1), (3, 2), (4, 4)])
def test_schedule_length_and_ideal_outputs_rebuild_numpy(dataflow, rows, cols):
    """Feeding the schedule's *expected* outputs to the assembler must give numpy's C and the model's cycles."""
    p = SystolicParams(rows=rows, cols=cols, dataflow=dataflow, a_width=5, b_width=4, acc_width=20)
    rng = np.random.default_rng(0)
    gemms = [random_operands(p, s, rng) for s in [(1, 1, 1), (5, 3, 7), (rows + 2, 2 * cols + 1, 3 * rows + 1)]]
    table, runs = gemm_schedule(p, gemms)
    assert table.cycles == sum(systolic_cycles(rows, cols, *r.shape, dataflow).cycles for r in runs)
    for (C, measured), run in zip(assemble(p, runs, table.expect), runs):
        assert np.array_equal(C, run.A.astype(object) @ run.B.astype(object))
        assert measured == run.cycles


def test_emission_is_hierarchical():
    e = render(family("systolic"), SystolicParams(rows=8, cols=8), "sa8")
    assert e.verilog.count("module sa8__pe(") == 1
    assert e.verilog.count("sa8__pe pe_") == 64
    ports = {p["name"] for p in e.manifest["ports"]}
    assert {"a_in__7", "w_in__7", "w_load", "psum_out__0", "out_valid__7"} <= ports


@pytest.mark.parametrize("emit_tile,tiles,tile_shape,pe_instances", [(16, 0, None, 8), (4, 2, "4x4", 4),
                                                                    (2, 4, "4x2", 2)])
def test_grouped_emission(emit_tile, tiles, tile_shape, pe_instances):
    """One group PE module, instantiated rows / G x cols times (in the top, or once per tile shape); tiles hold
    whole groups (emit_tile 2 with G = 4: tiles of 4 rows)."""
    p = SystolicParams(rows=8, cols=4, dtype="bf16", sum_group=4, emit_tile=emit_tile)
    e = render(family("systolic"), p, "sg")
    assert e.verilog.count("module sg__pe(") == 1
    assert e.verilog.count("sg__pe pe_") == pe_instances
    assert e.verilog.count(f"sg__tile_{tile_shape} tile_") == tiles
    assert e.verilog.count("FPMultiplier") == 0 and e.verilog.count("module sg__pe__mul") == 4
    ports = {q["name"] for q in e.manifest["ports"]}
    assert {"a_in__7", "a_valid__7", "w_in__3", "psum_out__3", "out_valid__3"} <= ports
    assert e.manifest["latency"] == 2


def test_warning_is_not_an_error():
    p = SystolicParams(rows=2, cols=2, a_width=8, b_width=8, acc_width=16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gemm_schedule(p, [(np.ones((1, 50), dtype=int), np.ones((50, 1), dtype=int))])
    assert any("must be at least" in str(w.message) for w in caught)


def test_cycle_model_imports_without_amaranth():
    """The estimator (ppa) uses this model and must not pull in Amaranth."""
    import subprocess
    import sys
    code = ("import sys, accelgen.golden.systolic as m; "
            "assert m.systolic_cycles(4, 4, 8, 8, 8).cycles > 0; "
            "assert not any(k.startswith('amaranth') for k in sys.modules), sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)
