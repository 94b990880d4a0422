"""Pipelined, double-buffered and input-stationary systolic arrays, co-simulated on the emitted Verilog:
exact results and measured cycles equal to :func:`accelgen.golden.systolic.systolic_cycles`.

Default builds (small arrays, ~5 s each for int, ~20 s for bf16): int 3x2 WS with mul_stages=2,
add_stages=1 under shift and double-buffered loading (the pair that measures what double buffering
saves), OS with mul_stages=1, add_stages=1 (two interleaved sums per PE), IS with add_stages=1, and a
bf16 2x2 OS array with add_stages=2. The issue's 8x8 bf16 commands run with ``-m slow``
(``test_done_when_commands``).
"""

import subprocess
import sys

import numpy as np
import pytest

import accelgen.cosim.systolic as drv
from accelgen.cosim import run_cosim
from accelgen.cosim.check import cosim_emitted
from accelgen.gen import render, write
from accelgen.golden.systolic import fp_gemm_reference, os_capture_spacing, systolic_cycles
from accelgen.registry import family
from accelgen.rtl.systolic import SystolicArray, SystolicParams

INT = dict(rows=3, cols=2, a_width=4, b_width=6, acc_width=24)
WS_SHIFT = SystolicParams(**INT, mul_stages=2, add_stages=1)
WS_DOUBLE = SystolicParams(**INT, mul_stages=2, add_stages=1, weight_load="double")
OS = SystolicParams(**INT, dataflow="os", mul_stages=1, add_stages=1)
IS = SystolicParams(**INT, dataflow="is", add_stages=1)
FP_OS = SystolicParams(rows=2, cols=2, dataflow="os", dtype="bf16", add_stages=2)
# the TPU MXU's arrangement: double-buffered weights, bf16 with DAZ + FTZ (the exact-product multiplier)
FP_WS_FTZ = SystolicParams(rows=2, cols=2, dataflow="ws", dtype="bf16", weight_load="double", mul_stages=1,
                           add_stages=1, flush_subnormals=True)

#: shapes with several folds in every dimension, ragged edges, and K = 1
GEMMS = [(7, 5, 8), (1, 1, 1), (13, 3, 2), (2, 7, 11)]


def _emit(tmp_path, params):
    fam = family("systolic")
    return fam, write(render(fam, params, fam.default_name(params)), tmp_path)


def _check(result):
    assert result.passed, (result.summary(), result.error, result.first_mismatches[:3])
    assert result.mismatches == 0 and result.cycles > 0


def _run_table(e, params, table, runs):
    return run_cosim(e.verilog_path, e.manifest, table, record=tuple(table.info["record"]), waves_on_failure=False,
                     host_check=lambda rec: drv.verify(params, table, runs, rec))


@pytest.mark.parametrize("kw,match", [
    ({"mul_stages": 4}, r"mul_stages: 4 is not allowed; expected an integer in 0\.\.3"),
    ({"add_stages": -1}, r"add_stages: -1 is not allowed; expected an integer in 0\.\.3"),
    ({"dataflow": "os", "weight_load": "double"}, r"weight_load: 'double' is not allowed with dataflow='os'"),
    ({"weight_load": "triple"}, r"weight_load: 'triple' is not allowed; expected 'shift' or 'double'"),
])
def test_bad_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        SystolicArray(**kw)


def test_cli_rejects_double_buffered_os(tmp_path, accelgen_main):
    proc = accelgen_main("gen", "systolic", "--dataflow", "os", "--weight-load", "double", "-o", tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "weight_load" in proc.stderr and "'double'" in proc.stderr
    assert not list(tmp_path.iterdir())


def test_cycle_model_by_hand():
    """The formulas of the module docstring on one case each, counted by hand."""
    # WS shift, 3x2, h = 2, m = 2, M = 7, one fold: 3 (load) + 7 + (2*2 + 1) - 1 = 14, tail h + m + 1 = 5
    assert systolic_cycles(3, 2, 7, 2, 3, mul_stages=2, add_stages=1).cycles == 14 + 5
    # WS double: period max(7, 3 + 4 + 2 - 1) = 8; two folds: 8 + 3 + 1 + 3*2 + 2 + 2 + 7 - 1 = 28
    assert systolic_cycles(3, 2, 7, 4, 3, mul_stages=2, add_stages=1, weight_load="double").cycles == 28
    # IS is WS on the transposed GEMM
    assert systolic_cycles(3, 2, 5, 9, 4, "is").cycles == systolic_cycles(3, 2, 9, 5, 4, "ws").cycles
    # OS, L = 2 sums per PE: D = 3 (>= rows, odd); 2*4 + 3 + 2 - 2 + 3 = 14 per fold; tail 3 + 1 + 1 + 1
    assert os_capture_spacing(3, 1) == 3 and os_capture_spacing(4, 1) == 5 and os_capture_spacing(4, 2) == 4
    t = systolic_cycles(3, 2, 6, 2, 4, "os", mul_stages=1, add_stages=1)
    assert (t.folds, t.fold_cycles, t.cycles) == (1, 14, 14 + 6)


@pytest.mark.parametrize("params", [WS_SHIFT, WS_DOUBLE, OS, IS, FP_OS, FP_WS_FTZ],
                         ids=["ws", "ws-double", "os", "is", "os-bf16", "ws-double-bf16-ftz"])
def test_schedule_rebuilds_the_golden_from_its_own_expectations(params):
    """Without a simulator: the table's expected outputs, assembled, are the golden C, and the last
    expected output is where the model says."""
    rng = np.random.default_rng(3)
    table, runs = drv.gemm_schedule(params, [drv.random_operands(params, s, rng) for s in GEMMS])
    for (C, measured), run in zip(drv.assemble(params, runs, table.expect), runs):
        if params.is_fp:
            assert np.array_equal(C, fp_gemm_reference(run.A, run.B, params.dtype, params.rows, params.dataflow,
                                                       params.flush_subnormals))
        else:
            assert np.array_equal(C, run.A.astype(object) @ run.B.astype(object))
        assert measured == run.cycles


@pytest.mark.cosim
@pytest.mark.parametrize("params", [WS_SHIFT, WS_DOUBLE, OS, IS, FP_OS, FP_WS_FTZ],
                         ids=["ws", "ws-double", "os", "is", "os-bf16", "ws-double-bf16-ftz"])
def test_pipelined_gemms_exact(tmp_path, params):
    fam, e = _emit(tmp_path, params)
    _check(cosim_emitted(fam, params, e, sim="verilator", vectors=3, seed=11))


@pytest.mark.cosim
def test_double_buffering_saves_what_the_model_says(tmp_path):
    """Back-to-back weight tiles: a multi-fold GEMM measured on the shift-loaded and the double-buffered
    array (same PEs, same stages); the saving equals the model's."""
    gemm = (7, 4, 9)  # K folds 3, N folds 2: six weight tiles
    measured = {}
    for params in (WS_SHIFT, WS_DOUBLE):
        _, e = _emit(tmp_path / params.weight_load, params)
        table, runs = drv.systolic_table(params, 0, 4, [gemm])
        result = _run_table(e, params, table, runs)
        _check(result)
        measured[params.weight_load] = drv.assemble(params, runs, result.recorded)[0][1]
    model = {wl: systolic_cycles(3, 2, *gemm, mul_stages=2, add_stages=1, weight_load=wl).cycles
             for wl in ("shift", "double")}
    assert measured == model
    assert measured["shift"] - measured["double"] == model["shift"] - model["double"] > 0


@pytest.mark.cosim
def test_mutant_cycle_model_one_stage_short_is_caught(tmp_path):
    """A cycle model that forgets one multiplier stage predicts one cycle less than the hardware takes."""
    _, e = _emit(tmp_path, WS_SHIFT)
    gemm = (5, 2, 3)
    table, runs = drv.systolic_table(WS_SHIFT, 0, 4, [gemm])
    runs[0].cycles = systolic_cycles(3, 2, *gemm, mul_stages=1, add_stages=1).cycles
    result = _run_table(e, WS_SHIFT, table, runs)
    assert not result.passed and "measured" in result.error and "model predicts" in result.error


@pytest.mark.cosim
def test_mutant_golden_ignoring_the_adder_register_is_caught(tmp_path, monkeypatch):
    """A driver that believes the OS accumulator loop is one cycle (no adder register, one sum per PE)
    expects every output in the wrong place."""
    _, e = _emit(tmp_path, OS)
    table, runs = drv.systolic_table(OS.model_copy(update={"add_stages": 0}), 0, 4, [(6, 2, 5)])
    result = _run_table(e, OS, table, runs)
    assert not result.passed and result.mismatches > 0


@pytest.mark.cosim
@pytest.mark.slow
@pytest.mark.parametrize("args", [["--dataflow", "ws"], ["--dataflow", "os"], ["--dataflow", "is"],
                                  ["--weight-load", "double"]], ids=["ws", "os", "is", "double"])
def test_done_when_commands(tmp_path, args):
    """The issue's commands: 8x8 bf16, mul_stages 2, add_stages 1, GEMM 13x7x29."""
    proc = subprocess.run([sys.executable, "-m", "accelgen", "cosim", "systolic", "--dtype", "bf16", "--rows", "8",
                           "--cols", "8", "--mul-stages", "2", "--add-stages", "1", *args, "--gemm", "13,7,29"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0 and "PASS" in proc.stdout, (proc.stdout, proc.stderr)
