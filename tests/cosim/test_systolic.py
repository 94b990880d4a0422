"""Systolic arrays co-simulated: whole GEMMs, exact results and exact cycle counts.

The default run covers 1x1 and a non-square 4x8 array in both dataflows (and a 5x7 WS array
emitted as tiles, 3x5 unsigned WS, 2x2 and 2x3 corner cases); 4x4 (the 4x8 array's rows), the OS
tiled and unsigned arrays (issue 48), 8x8 (the same behaviour as 4x8, at twice the build), 16x16
and 8x16 (~45 s each) run with ``-m slow``.
"""

import numpy as np
import pytest

from accelgen.cosim.systolic import gemm_schedule, random_operands, systolic_table
from accelgen.registry import family
from accelgen.gen import render, write
from accelgen.cosim.check import cosim_emitted
from accelgen.rtl.systolic import SystolicParams

pytestmark = pytest.mark.cosim


def _run(tmp_path, params, name, **kw):
    fam = family("systolic")
    e = write(render(fam, params, name), tmp_path)
    return cosim_emitted(fam, params, e, sim="verilator", **kw)


def _check(result):
    assert result.passed, (result.summary(), result.error, result.first_mismatches[:3])
    assert result.mismatches == 0 and result.cycles > 0


# 4x4 is slow (issue 48): the 4-row array of the default 4x8 (both dataflows), with fewer columns
ARRAYS = [(1, 1), pytest.param(4, 4, marks=pytest.mark.slow), (4, 8)]
SLOW_ARRAYS = [(8, 8), (16, 16), (8, 16)]


@pytest.mark.parametrize("dataflow", ["ws", "os"])
@pytest.mark.parametrize("rows,cols", ARRAYS)
def test_directed_and_random_gemms(tmp_path, rows, cols, dataflow):
    params = SystolicParams(rows=rows, cols=cols, dataflow=dataflow, a_width=8, b_width=8, acc_width=32)
    _check(_run(tmp_path, params, f"sa_{rows}x{cols}_{dataflow}", vectors=4, seed=rows * 100 + cols))


@pytest.mark.slow
@pytest.mark.parametrize("dataflow", ["ws", "os"])
@pytest.mark.parametrize("rows,cols", SLOW_ARRAYS)
def test_large_arrays(tmp_path, rows, cols, dataflow):
    params = SystolicParams(rows=rows, cols=cols, dataflow=dataflow, a_width=8, b_width=8, acc_width=32)
    _check(_run(tmp_path, params, f"sa_{rows}x{cols}_{dataflow}", vectors=6, seed=7))


# [os] is slow (issue 48): tile emission is the same in both dataflows ([ws] covers it), the OS array is
# test_directed_and_random_gemms's
@pytest.mark.parametrize("dataflow", ["ws", pytest.param("os", marks=pytest.mark.slow)])
def test_tiled_emission_with_remainder_tiles(tmp_path, dataflow):
    """``emit_tile=2`` on a 5x7 array: full 2x2 tiles plus 2x1, 1x2 and 1x1 edge tiles, the structure
    a 128x128 array is emitted in (16x16 tiles); results and cycle counts as for the flat array."""
    params = SystolicParams(rows=5, cols=7, dataflow=dataflow, emit_tile=2)
    e = render(family("systolic"), params, f"sa_tiled_{dataflow}")
    assert sorted(e.manifest["cells"]) == sorted(
        f"sa_tiled_{dataflow}__{c}" for c in ("pe", "tile_2x2", "tile_2x1", "tile_1x2", "tile_1x1"))
    assert e.verilog.count(f"module sa_tiled_{dataflow}__pe(") == 1
    _check(_run(tmp_path, params, f"sa_tiled_{dataflow}", vectors=4, seed=57))


# [os] is slow (issue 48): unsigned operands are the multiplier's, the same in both dataflows ([ws] covers
# them), the OS array is test_directed_and_random_gemms's
@pytest.mark.parametrize("dataflow", ["ws", pytest.param("os", marks=pytest.mark.slow)])
def test_unsigned_narrow_operands_and_primes(tmp_path, dataflow):
    params = SystolicParams(rows=3, cols=5, dataflow=dataflow, a_width=4, b_width=6, acc_width=18, signed=False)
    gemm = [(7, 11, 13), (2, 1, 17), (13, 2, 1), (1, 23, 3)]
    _check(_run(tmp_path, params, f"sa_u_{dataflow}", seed=3, options={"gemm": gemm}))


def test_wrapping_sums_match_the_wrapped_model(tmp_path):
    """An accumulator narrower than the dot product wraps; the cycle table checks the wrapped values."""
    params = SystolicParams(rows=2, cols=2, dataflow="os", a_width=4, b_width=4, acc_width=8)
    with pytest.warns(UserWarning, match="must be at least"):
        result = _run(tmp_path, params, "sa_wrap", seed=2, options={"gemm": [(3, 3, 40)]})
    _check(result)


_MUTANT_ARRAY = SystolicParams(rows=2, cols=3, dataflow="ws", a_width=4, b_width=4, acc_width=12)


def test_wrong_cycle_model_is_caught(tmp_path):
    """If the model predicted one cycle less than the hardware takes, the measured count must disagree."""
    import accelgen.cosim.systolic as drv
    from accelgen.cosim import run_cosim

    params = _MUTANT_ARRAY
    e = write(render(family("systolic"), params, "sa_mutant"), tmp_path)
    table, runs = systolic_table(params, 0, 1, [(3, 3, 3)])
    runs[0].cycles -= 1
    result = run_cosim(e.verilog_path, e.manifest, table, record=tuple(table.info["record"]), waves_on_failure=False,
                       host_check=lambda rec: drv.verify(params, table, runs, rec))
    assert not result.passed and "measured" in result.error and "model predicts" in result.error


def test_wrong_result_is_caught(tmp_path):
    """A corrupted B operand (after scheduling) must show up as a numpy mismatch and table mismatches."""
    import accelgen.cosim.systolic as drv
    from accelgen.cosim import run_cosim

    params = _MUTANT_ARRAY
    e = write(render(family("systolic"), params, "sa_mutant"), tmp_path)  # one build for both mutant tests
    rng = np.random.default_rng(5)
    A, B = random_operands(params, (3, 3, 4), rng)
    table, runs = gemm_schedule(params, [(A, B)])
    runs[0].B = B + 1  # the host now believes different operands were used
    result = run_cosim(e.verilog_path, e.manifest, table, record=tuple(table.info["record"]), waves_on_failure=False,
                       host_check=lambda rec: drv.verify(params, table, runs, rec))
    assert not result.passed and "numpy gives" in result.error
