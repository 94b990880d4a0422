"""The TensorDash PE / tile power stimulus (:func:`accelgen.cosim.tensordash.tensordash_activity`): every operand
zero with probability ``1 - density`` (integer and floating point alike), one long stream through the counted
window (no restart or drain charged to a few busy cycles, at any depth), and a pipelined design's fill cycles
simulated but not counted."""

from __future__ import annotations

import numpy as np
import pytest

from accelgen.golden.tensordash import pe_latency
from accelgen.registry import family

INT = {"a_width": 8, "b_width": 8, "acc_width": 24}


def _nonzero(act, side: str, fp: bool) -> np.ndarray:
    cols = [np.asarray(v[act.warmup:], dtype=np.int64) for k, v in act.inputs.items() if k.startswith(f"{side}_next")]
    v = np.concatenate(cols)
    return (v & 0x7FFF if fp else v) != 0     # fp16: -0 is a zero


@pytest.mark.parametrize("fam_name, params", [
    ("tensordash_tile", {"rows": 2, "lanes": 4, "depth": 4, **INT}),
    ("tensordash_tile", {"rows": 2, "lanes": 4, "depth": 1, "dtype": "fp16"}),
    ("tensordash_pe", {"lanes": 4, "depth": 2, **INT}),
])
@pytest.mark.parametrize("density", [0.2, 0.9])
def test_operands_are_zero_with_probability_one_minus_density(fam_name, params, density):
    fam = family(fam_name)
    act = fam.activity_table(fam.validate(params), density, 96, 1)
    for side in ("a", "b"):
        nonzero = float(np.mean(_nonzero(act, side, "dtype" in params)))
        # the window shows each staged row up to depth times: the fraction stays the stream's
        assert nonzero == pytest.approx(density, abs=0.08), side


@pytest.mark.parametrize("depth", [1, 2, 5])
@pytest.mark.parametrize("stages", [(0, 0), (3, 3)])
@pytest.mark.parametrize("density", [0.2, 0.9])
def test_one_stream_through_the_counted_window(depth, stages, density):
    """Every counted cycle is a busy cycle of one long stream (a long dot product of a GEMM), whatever the depth
    (the dense tile used to restart every 16 rows) and the pipeline (whose start and fill cycles are simulated, not counted)."""
    fam = family("tensordash_tile")
    params = fam.validate({"rows": 2, "lanes": 4, "depth": depth, "mul_stages": stages[0], "add_stages": stages[1],
                           **INT})
    act = fam.activity_table(params, density, 64, 3)
    assert act.warmup == pe_latency(4, *stages)   # the start cycle and the pipeline's fill
    assert act.cycles == 64 + act.warmup
    assert act.ops == 64 and act.info["start_cycles"] == 0 and act.info["drain_cycles"] == 0
    assert act.per.startswith("busy cycle")
