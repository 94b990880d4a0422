"""The synthesis comparison's inputs (issue 52), without a synthesis: the layer's accesses counted from its commands,
and the array's stream cut into lanes of equal length that cover every cycle once."""

import numpy as np

from accelgen.cosim.accel_host import plan_gemm
from accelgen.params.accel import AccelParams
from accelgen.params.systolic import SystolicParams
from accelgen.system.layers import AccelLayer
from accelgen.system.synthesis import array_stimulus, lane_warmup, memory_accesses

PARAMS = AccelParams(array=SystolicParams(rows=4, cols=4), sp_lines=64, sp_banks=2, acc_lines=32, acc_banks=2)


def test_accesses_are_the_commands_lines():
    rng = np.random.default_rng(1)
    # 3 K-slices, 2 N-slices; the scratchpad holds two tiles of 9 rows: 3 tiles of 7, 7 and 6 rows
    A, B = rng.integers(-8, 8, (20, 9)), rng.integers(-8, 8, (9, 6))
    program = plan_gemm(PARAMS, A, B)
    acc = memory_accesses(program, PARAMS)
    folds = 3 * 2 * 3
    assert program.folds == folds and program.m_tile == 7
    # loads: every row's three A slices once, a 4-line weight slice per fold
    assert acc["scratchpad"]["write"] == 3 * 20 + folds * 4
    assert acc["scratchpad"]["read"] == folds * 4 + 2 * 3 * 20
    # every fold writes its tile's lines; two K-slices of three accumulate (read first); every output line is stored
    assert acc["accumulator"]["write"] == 2 * 3 * 20
    assert acc["accumulator"]["read"] == 2 * 2 * 20 + 2 * 20


def test_the_stream_is_cut_into_equal_lanes_that_count_every_cycle_once():
    rng = np.random.default_rng(2)
    layer = AccelLayer("g", rng.integers(-8, 8, (200, 8)), rng.integers(-8, 8, (8, 8)), {})
    lanes, cycles = array_stimulus(PARAMS, layer, m_tile=100, lanes=8)
    warm = lane_warmup(PARAMS)
    assert len({s.cycles for s in lanes}) == 1 and all(s.warmup == warm for s in lanes)
    assert sum(s.ops for s in lanes) >= cycles > sum(s.ops for s in lanes) - len(lanes)
    # lane i's counted cycles continue lane i-1's: its warm-up repeats the end of the previous share
    a0 = lanes[0].inputs["a_in__0"]
    a1 = lanes[1].inputs["a_in__0"]
    assert list(a1[:warm]) == list(a0[-warm:])
