"""The pipelined multi-operand fp32 adder (rtl/fp_sum.py, ``stages``): the combinational sum, ``stages`` cycles later.

Amaranth's simulator against the golden :func:`accelgen.golden.fp.fp_sum` on the cosim test's operand sets
(specials, close and far exponents, cancellation, subnormals, overflow); the emitted Verilog of pipelined sums is
checked inside the grouped systolic arrays (tests/cosim/test_systolic_grouped.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from amaranth.back import verilog

from accelgen.golden import fp as gold
from accelgen.rtl.fp import ADD_CUTS
from accelgen.rtl.fp_sum import FPSum

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "cosim"))
from pipeline_sim import run_rows  # noqa: E402
from test_fp_sum import operand_sets  # noqa: E402


def _simulate(unit: FPSum, ops: np.ndarray) -> np.ndarray:
    """``unit.sum`` in each cycle while column ``t`` of ``ops`` is applied, for ``t`` up to the last column plus
    the latency (zeros after it)."""
    rows = [{f"operands__{i}": ops[i, t] for i in range(unit.n)} for t in range(ops.shape[1])]
    rows += [{f"operands__{i}": 0 for i in range(unit.n)}] * unit.latency
    return np.array(run_rows(unit, rows, "sum"), dtype=np.uint64)


@pytest.mark.parametrize("n, flush", [(3, False), (5, True)])
@pytest.mark.parametrize("stages", [1, 2, 3])
def test_pipelined_sum_is_the_golden_sum_stages_cycles_later(n, flush, stages):
    ops = operand_sets(np.random.default_rng([n, stages]), n, 800)
    unit = FPSum(n, flush, stages=stages)
    assert unit.latency == stages and unit.cuts == ADD_CUTS[stages]
    expected = gold.fp_sum(list(ops), flush).astype(np.uint64)
    got = _simulate(unit, ops)[stages:stages + ops.shape[1]]
    bad = np.nonzero(got != expected)[0]
    assert bad.size == 0, [([hex(x) for x in ops[:, t]], hex(got[t]), hex(expected[t])) for t in bad[:3]]


def test_sum_stages_are_checked_and_registered():
    assert FPSum(4).latency == 0 and "posedge" not in verilog.convert(FPSum(4), name="u", emit_src=False)
    assert "posedge clk" in verilog.convert(FPSum(4, stages=1), name="u", emit_src=False)
    with pytest.raises(ValueError, match=r"stages: 4 is not allowed; expected an integer in 0\.\.3"):
        FPSum(3, stages=4)
