"""FAN, linear chain and adder tree in fp32: parameters, the association-order golden, and bit-exact cosim.

The golden sums every vecID cluster in the network's documented association order
(:mod:`accelgen.golden.fan`); the cosim checks every slot bit-exactly (the
adders produce the canonical NaN, bypassed inputs keep their bits). A golden that
sums the clusters in another order (left to right instead of the FAN's tree) must
disagree with the hardware: that is the mutant test. n = 16 and 32 are slow (~1 min build each;
the integer FAN covers n = 16 by default).
"""

import sys
from pathlib import Path

import numpy as np
import pytest

from accelgen.cosim.fan import FP_KINDS, fan_linear_table, fan_stimulus, fan_table
from accelgen.golden.fan import (fan_order_sum, fan_top_adder, fp32_add, linear_order_sum, segmented_sums,
                                       tree_order_sum)
from accelgen.golden.fp import fp_add, special_values
from accelgen.registry import FAMILIES
from accelgen.rtl.fan import AdderTreeParams, FanLinearParams, FANParams

sys.path.insert(0, str(Path(__file__).parent))
from family_cosim import cosim_family  # noqa: E402


def f32(v) -> int:
    return int(np.float32(v).view(np.uint32))


def _trace(s, e):
    """The FAN's pairing of cluster s..e as a string (same recursion as the golden)."""
    if s == e:
        return str(s)
    h = fan_top_adder(s, e)
    return f"({_trace(s, h)}+{_trace(h + 1, e)})"


def test_fan_order_is_the_in_order_tree():
    # SIGMA's FAN: adder i between inputs i and i+1, level = trailing ones of i; a cluster is split at its top adder
    assert _trace(0, 7) == "(((0+1)+(2+3))+((4+5)+(6+7)))"
    assert _trace(1, 6) == "((1+(2+3))+((4+5)+6))"
    assert _trace(5, 9) == "((5+(6+7))+(8+9))"       # top adder 7 (level 3) across the n=8 halves
    assert _trace(4, 4) == "4"


def test_scalar_add_matches_fp_core():
    rng = np.random.default_rng(3)
    sp = special_values("fp32").astype(np.uint32)
    a = np.concatenate([rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32), np.repeat(sp, len(sp))])
    b = np.concatenate([rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32), np.tile(sp, len(sp))])
    ref = fp_add(a, b)
    assert all(fp32_add(int(x), int(y)) == int(r) for x, y, r in zip(a, b, ref))


def test_orders_differ_and_specials():
    x = [f32(v) for v in (1e20, 1.0, -1e20, 1.0)]
    assert fan_order_sum(x, 0, 3) == f32(0.0)          # (1e20+1) + (-1e20+1) = 0
    assert linear_order_sum(x, 0, 3) == f32(1.0)       # ((1e20+1)-1e20)+1 = 1
    assert tree_order_sum(x) == f32(0.0)
    assert fp32_add(0x80000000, 0x80000000) == 0x80000000 and fp32_add(0x80000000, 0) == 0
    assert fp32_add(f32(np.inf), f32(-np.inf)) == 0x7FC00000
    # invalid members are +0.0 in place: a valid -0 plus an invalid input gives +0
    (c,) = segmented_sums([0x80000000, f32(5.0)], [0, 0], [True, False], dtype="fp32")
    assert c.total == 0 and c.valid
    # a singleton passes its bits (a signalling NaN keeps its payload)
    cl = segmented_sums([0x7F800001, f32(1.0)], [0, 1], [True, True], dtype="fp32")
    assert cl[0].total == 0x7F800001


def test_stimulus_has_special_values_and_order_matters():
    p = FANParams(n=8, dtype="fp32")
    stim = fan_stimulus(p, 300, seed=8)
    assert {f"fp_{k}" for k in FP_KINDS} <= set(stim["sections"])
    allx = np.concatenate([x for x, _, _ in stim["vectors"]]).astype(np.uint64)
    mag = allx & 0x7FFFFFFF
    assert (allx == 0x80000000).any() and (mag == 0x7F800000).any() and (mag > 0x7F800000).any()
    assert ((mag > 0) & (mag < 0x00800000)).any() and (mag == 0x7F7FFFFF).any()
    differ = 0
    for x, ids, valid in stim["vectors"]:
        a = segmented_sums(x, ids, valid, dtype="fp32", order="fan")
        b = segmented_sums(x, ids, valid, dtype="fp32", order="linear")
        differ += sum(ca.total != cb.total for ca, cb in zip(a, b))
    assert differ > 10


def test_fp32_params():
    p = FANParams(n=16, dtype="fp32")
    assert (p.width, p.signed, p.sum_width, p.latency) == (32, True, 32, 5)
    assert FanLinearParams(n=8, dtype="fp32", stage_adders=3).latency == FanLinearParams(n=8, stage_adders=3).latency
    assert AdderTreeParams(n=8, dtype="fp32").sum_width == 32
    with pytest.raises(ValueError, match=r"fan: width: 16 is not allowed with dtype='fp32'.*width 32"):
        FANParams.validate_kwargs(dict(n=8, dtype="fp32", width=16))
    with pytest.raises(ValueError, match=r"signed: false is not allowed with dtype='fp32'"):
        AdderTreeParams.validate_kwargs(dict(n=8, dtype="fp32", signed=False))
    with pytest.raises(ValueError, match=r"dtype: 'bf16' is not allowed; expected 'int' or 'fp32'"):
        FANParams.validate_kwargs(dict(n=8, dtype="bf16"))


def test_cli_rejects_contradiction():
    from accelgen.cli import main
    assert main(["gen", "fan", "--n", "8", "--dtype", "fp32", "--width", "12", "-o", "unused"]) == 2


# --------------------------------------------------------------------------- cosim

@pytest.mark.cosim
@pytest.mark.parametrize("n,vectors", [(8, 1500), pytest.param(16, 800, marks=pytest.mark.slow),
                                       pytest.param(32, 1000, marks=pytest.mark.slow)])
def test_fan_fp32_bit_exact(tmp_path, n, vectors):
    """n = 16 and 32 are slow only: the fp32 adders, bypasses and association order are the same at every
    size and n = 8 (this test and the mutant below) checks them; the deeper levels with their forwarding
    links (level 3 from n = 16 on) are the integer FAN's, covered by default in
    tests/cosim/test_fan.py::test_fan_random_layouts_back_to_back[16-6-False-1000]."""
    p, table, result = cosim_family(tmp_path, "fan", dict(n=n, dtype="fp32"), vectors, seed=n)
    assert result.passed, result.summary() + f" {result.error} {result.first_mismatches[:3]}"
    assert result.checks == table.checks and result.cycles == table.info["vectors"] + FANParams(n=n).latency


@pytest.mark.cosim
def test_fan_fp32_golden_in_another_order_fails(tmp_path):
    """Mutant: the FAN's clusters summed left to right (the chain's order) disagree with the hardware."""
    p = FANParams(n=8, dtype="fp32")
    table = fan_table(p, 400, seed=8, order="linear")
    _, _, result = cosim_family(tmp_path, "fan", dict(n=8, dtype="fp32"), 0, table=table)
    assert not result.passed and result.mismatches > 0
    assert all(m["port"].startswith("sum__") for m in result.first_mismatches)


@pytest.mark.cosim
@pytest.mark.parametrize("n,stage_adders", [(8, 3), pytest.param(16, 1, marks=pytest.mark.slow)])
def test_fan_linear_fp32_bit_exact(tmp_path, n, stage_adders):
    params = dict(n=n, dtype="fp32", stage_adders=stage_adders)
    p, table, result = cosim_family(tmp_path, "fan_linear", params, 800, seed=3)
    assert result.passed, result.first_mismatches[:3]
    assert result.checks == table.checks
    # mutant: the chain checked against the FAN's tree order
    mutant = fan_linear_table(p, 800, seed=3, order="fan")
    _, _, bad = cosim_family(tmp_path, "fan_linear", params, 0, table=mutant)
    assert not bad.passed and bad.mismatches > 0


@pytest.mark.cosim
def test_adder_tree_fp32_bit_exact(tmp_path):
    p, table, result = cosim_family(tmp_path, "adder_tree", dict(n=8, dtype="fp32"), 800, seed=5)
    assert result.passed, result.first_mismatches[:3]
    assert result.checks == table.checks


def test_activity_stimulus_is_fp_aware():
    from accelgen.cosim.stimulus import cosim_activity
    from accelgen.cosim.fan import reduction_activity
    p = FANParams(n=8, dtype="fp32")
    a = reduction_activity(p, 0.25, 200, seed=2)
    vals = np.stack([a.inputs[f"value__{i}"] for i in range(8)]).astype(np.uint64)
    zero = (vals & 0x7FFFFFFF) == 0
    assert 0.65 < zero.mean() < 0.85 and (vals == 0x80000000).any()        # +0 and -0 zeros
    exp = (vals[~zero] >> 23) & 0xFF
    assert ((exp > 100) & (exp < 140)).all()                                # normal(0, 1) values
    assert a.ops == 200 - p.latency - 1
    # int keeps the cosim stimulus it had before
    q = FANParams(n=8)
    b, c = reduction_activity(q, 0.5, 96, 3), cosim_activity(FAMILIES["fan"].cycle_table, q, 0.5, 96, 3)
    assert b.ops == c.ops and all(np.array_equal(b.inputs[k], c.inputs[k]) for k in c.inputs)
