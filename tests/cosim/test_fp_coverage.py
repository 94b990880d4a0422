"""Floating-point coverage bins (:mod:`accelgen.cosim.fp_coverage`): operand and result classes, rounding against
exact arithmetic (checked with Python fractions), exceptional results, cancellation, flushing, bins a format cannot
reach, and the golden models' operation recording they are collected from."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from accelgen.cosim.coverage import Coverage
from accelgen.cosim.fp_coverage import _exact_sums, _rounding, classes, family_fp_coverage, fp_coverage
from accelgen.golden.fan import fp32_add
from accelgen.golden.fp import (fp_add, fp_mul, from_float32, is_recording, is_zero, recording, special_values,
                                to_float32)
from accelgen.golden.systolic import fp_gemm_reference
from accelgen.registry import family


def f32(*values) -> np.ndarray:
    return np.array(values, dtype=np.float32).view(np.uint32)


@pytest.mark.parametrize("dtype", ["fp16", "bf16", "fp32"])
def test_operand_classes(dtype):
    v = special_values(dtype)
    c = classes(v, dtype)
    x = to_float32(v, dtype)
    assert set(c) == {"+0", "-0", "subnormal", "normal", "+inf", "-inf", "nan"}
    assert np.array_equal(c == "nan", np.isnan(x))
    assert np.array_equal(np.isin(c, ("+inf", "-inf")), np.isinf(x))
    assert np.array_equal(np.isin(c, ("+0", "-0")), x == 0)


def _fraction_class(a: float, b: float, op: str, r: float) -> str:
    exact = Fraction(a) * Fraction(b) if op == "mul" else Fraction(a) + Fraction(b)
    rf = Fraction(r)
    if rf == exact:
        return "exact"
    toward = Fraction(float(np.nextafter(np.float32(r), np.float32(np.inf if exact > rf else -np.inf))))
    if 2 * abs(rf - exact) == abs(toward - rf):
        return "tie to even"
    return "round up" if abs(rf) > abs(exact) else "round down"


@pytest.mark.parametrize("op", ["mul", "add"])
def test_rounding_classes_agree_with_exact_arithmetic(op):
    rng = np.random.default_rng(5)
    n = 3000
    # mantissas with few bits set make exact results and ties common; exponents far apart make the sums that
    # float64 cannot hold exactly
    mant = (1 + rng.integers(0, 1 << 6, n) / 64.0) * np.where(rng.random(n) < 0.5, 1.0, 1 + 2.0 ** -23)
    a = (mant * 2.0 ** rng.integers(-20, 20, n) * rng.choice([-1, 1], n)).astype(np.float32)
    b = (rng.normal(size=n) * 2.0 ** rng.integers(-60, 60, n)).astype(np.float32)
    b[::7] = (a[::7] * np.float32(1 + 2.0 ** -12)).astype(np.float32)
    with np.errstate(all="ignore"):
        r = (a * b) if op == "mul" else (a + b)
    av, bv = a.astype(np.float64), b.astype(np.float64)
    exact = av * bv if op == "mul" else _exact_sums(av, bv)
    got = _rounding(exact, r)
    want = [_fraction_class(float(x), float(y), op, float(z)) for x, y, z in zip(a, b, r)]
    assert list(got) == want
    assert {"exact", "tie to even", "round up", "round down"} <= set(want)


def test_exceptional_results_and_cancellation():
    big, tiny = 2.0 ** 100, 2.0 ** -100
    with recording() as ops:
        fp_mul(f32(3e38, big, tiny, tiny, 1.5), f32(2.0, big, 2.0 ** -30, tiny, 2.0), "fp32")
        fp_add(f32(1.0, 1.0, 3e38, 2.0 ** -126), f32(-(1 - 2.0 ** -20), -1.0, 3e38, -(2.0 ** -127)))
    cov = fp_coverage(ops, "fp32", ("mul", "add"))
    assert cov.hits["mul: overflow to inf"] == 2
    assert cov.hits["mul: underflow to subnormal"] == 1 and cov.hits["mul: underflow to zero"] == 1
    assert cov.hits["add: overflow to inf"] == 1
    assert cov.hits["add: cancellation"] == 1 and cov.hits["add: exact cancellation to zero"] == 1
    assert cov.hits["add result: subnormal"] == 1
    # a subnormal sum is exact: no sum underflows to zero, which is not a bin but unreachable with its reason
    assert "add: underflow to zero" not in cov.bins and "gradual underflow" in cov.unreachable["add: underflow to zero"]


def test_fp16_products_cannot_round_overflow_or_underflow():
    v = special_values("fp16")
    a, b = np.meshgrid(v, v)
    with recording() as ops:
        fp_mul(a.ravel(), b.ravel(), "fp16")
    cov = fp_coverage(ops, "fp16", ("mul",))
    for name in ("mul: overflow to inf", "mul rounding: round up", "mul result: subnormal"):
        assert name not in cov.bins and "fp16 x fp16" in cov.unreachable[name]
    assert cov.missed == [] and cov.hits["mul rounding: exact"] > 0


def test_flush_bins():
    with recording() as ops:
        fp_add(f32(2.0 ** -130, 2.0 ** -126, 1.0), f32(1.0, -(2.0 ** -126) * 1.25, 2.0), flush_subnormals=True)
    cov = fp_coverage(ops, "fp32", ("add",), flush=True)
    assert cov.hits["add: flush: subnormal operand"] == 1
    assert cov.hits["add: flush: subnormal result"] == 1      # 2**-126 - 1.25 * 2**-126 is subnormal: flushed
    assert "add result: subnormal" in cov.unreachable
    # without flushing there are no flush bins
    assert not any("flush" in b for b in fp_coverage(ops, "fp32", ("add",)).bins)


def test_accumulation_order_bins():
    """(1 + u) + u with u = 2**-24: both sums tie and round back to 1; 1 + (u + u) is 1 + 2**-23. The second sum
    continues the first (its operand is the first's result): a chain step whose order matters."""
    u = 2.0 ** -24
    with recording() as ops:
        first = fp_add(f32(1.0, 3.0, 0.0), f32(u, 1.0, 0.0))
        fp_add(first, f32(u, 1.0, 5.0))
    cov = fp_coverage(ops, "fp32", ("add",))
    # 3 + 1 + 1 is 5 in any order; the third lane's link runs through 0: not counted
    assert cov.hits["add order: reassociation changes the sum"] == 1
    assert cov.hits["add order: reassociation keeps the sum"] == 1


def test_merge_keeps_a_bin_reachable_elsewhere():
    one = Coverage({"x"}, {"x": 1}, {"y": "not with these parameters"})
    other = Coverage({"y"}, {})
    merged = one.merge(other)
    assert merged.bins == {"x", "y"} and merged.unreachable == {} and merged.missed == ["y"]
    assert Coverage.from_dict(one.to_dict()) == one


def test_recording_collects_the_golden_models_operations():
    assert not is_recording()
    fp_add(f32(1.0), f32(2.0))           # outside a recording: nothing kept, nothing fails
    with recording() as outer:
        fp32_add(int(f32(1.0)[0]), int(f32(2.0)[0]))          # the FAN golden's scalar adder
        with recording() as inner:
            A = from_float32(np.ones((2, 3), np.float32), "bf16")
            fp_gemm_reference(A, from_float32(np.ones((3, 2), np.float32), "bf16"), "bf16", rows=2, dataflow="ws")
        assert is_recording()
    assert not is_recording()
    assert outer.count == 1
    # WS on 2 rows: K = 3 in two folds of 2, the last one's second row the array's +0 padding (2 x 2 outputs per
    # k), then one host addition per output
    assert len(inner.products("bf16")[0]) == 4 * 4 and len(inner.sums()[0]) == 4 * 4 + 4


@pytest.mark.parametrize("name, params, ops", [("mac", {"dtype": "bf16"}, ("mul", "add")),
                                               ("fan", {"n": 4, "dtype": "fp32"}, ("add",)),
                                               ("mac", {}, ())])
def test_family_fp_coverage(name, params, ops):
    fam = family(name)
    p = fam.validate(params)
    assert fam.fp_operations == (("mul", "add") if name == "mac" else ("add",))
    with recording() as rec:
        fam.cycle_table(p, 64, 1)
    cov = family_fp_coverage(fam, p, rec)
    assert {b.split(" ")[0].rstrip(":") for b in cov.bins} == set(ops)
    if ops:
        assert cov.hits.get(f"{ops[-1]} result: normal", 0) > 0


@pytest.mark.parametrize("name, params, gone", [
    ("mac", {"dtype": "bf16"}, {"add a: -0", "add result: -0"}),
    ("mac", {"dtype": "bf16", "addend_input": True}, set()),
    ("systolic", {"dtype": "fp16", "rows": 2, "cols": 2}, {"add a: -0", "add result: -0"}),
    ("tensordash_pe", {"dtype": "fp16"}, {"mul a: +0", "mul a: -0", "mul b: +0", "mul b: -0"}),
    ("tensordash_tile", {"dtype": "fp16", "rows": 2}, {"mul b: +0", "mul b: -0"}),
    ("tensordash_tile", {"dtype": "bf16", "rows": 2, "depth": 1}, set()),
    # fp16 products are multiples of 2**-48 and below 2**32: sums of them are never subnormal, nor overflow
    ("tensordash_pe", {"dtype": "fp16", "summation": "tree"}, {
        "add a: subnormal", "add result: subnormal", "add: underflow to subnormal", "add: overflow to inf",
        "mul result: +0", "mul result: -0"}),
    # the fused PE: one multi-operand sum with the accumulator (from +0.0) among its operands
    ("tensordash_pe", {"dtype": "fp16", "summation": "fused"}, {"sum operand: subnormal", "sum result: subnormal", "sum result: -0",
                                          "sum: underflow to subnormal", "sum: overflow to inf", "mul result: +0"}),
    ("tensordash_tile", {"dtype": "bf16", "rows": 2, "summation": "fused"}, {"sum result: -0"}),
    ("mac", {"dtype": "fp16"}, {"add b: subnormal", "add: underflow to subnormal", "add: overflow to inf"}),
    # a Flex-DPE multiplies non-zero pairs only
    ("flexdpe", {"dtype": "bf16", "k": 4}, {"mul a: +0", "mul a: -0", "mul b: +0", "mul b: -0"}),
    ("flexdpe", {"dtype": "fp16", "k": 4}, {"mul result: -0", "add result: -0", "add a: subnormal"}),
    # grouped columns: sums of fp16 products starting at +0.0
    ("systolic", {"dtype": "fp16", "rows": 4, "cols": 2, "sum_group": 2}, {"sum result: -0", "sum operand: subnormal",
                                                                           "sum: overflow to inf"}),
])
def test_structure_rules_out_bins(name, params, gone):
    """What a family's structure rules out is unreachable with its reason, and never hit by a run."""
    fam = family(name)
    p = fam.validate(params)
    with recording() as rec:
        fam.cycle_table(p, 256, 2)
    cov = family_fp_coverage(fam, p, rec)
    assert set(cov.unreachable) >= gone and not (gone & cov.bins)
    raw = fp_coverage(rec, p.dtype, fam.fp_operations)
    assert all(raw.hits.get(b, 0) == 0 for b in gone)


def test_flexdpe_sparsity_bins_count_negative_zeros():
    """An fp operand's zeros are +0 and -0 (bit pattern 0x8000 in bf16): a bf16 GEMM with 90% zeros, half of them
    -0, is in the 75-95% bin, not at half its sparsity."""
    fam = family("flexdpe")
    p = fam.validate({"k": 4, "dtype": "bf16"})
    table, plans = fam.cycle_table(p, 0, 3, gemm=[(8, 8, 40)], sparsity_a=0.9, sparsity_b=0.0)
    A = np.asarray(plans[0].A)
    assert (A == 0x8000).any() and 0.75 <= is_zero(A, "bf16").mean() < 0.95
    cov = fam.coverage(p, table, plans)
    assert cov.hits.get("A sparsity 75-95%", 0) == 1 and cov.hits.get("B sparsity 0%", 0) == 1


def test_grouped_systolic_has_sum_bins_and_no_adder_bins():
    """A grouped array (sum_group) adds only with multi-operand adders: its run has the ``sum`` bins, all hit by the
    default stimulus, and no two-operand ``add`` bins."""
    fam = family("systolic")
    p = fam.validate({"dtype": "bf16", "rows": 4, "cols": 3, "sum_group": 2})
    with recording() as rec:
        fam.cycle_table(p, 6, 1)
    assert rec.fused and not rec.add
    cov = family_fp_coverage(fam, p, rec)
    assert not any(b.startswith("add") for b in cov.bins) and cov.missed == []
    assert cov.hits["sum: cancellation to zero"] > 0 and cov.hits["sum result: subnormal"] > 0


@pytest.mark.parametrize("name, params", [("mac", {"dtype": "bf16", "flush_subnormals": True}),
                                          ("systolic", {"dtype": "bf16", "rows": 2, "cols": 2,
                                                        "flush_subnormals": True})])
def test_ftz_makes_negative_zero_sums_reachable(name, params):
    """Under FTZ a negative sum that is subnormal after rounding is -0, so a chain from +0.0 can hold -0: those bins
    stay bins (declared unreachable, a hit would be dropped)."""
    tiny_pos, tiny_neg = np.uint32(0x00C00000), np.uint32(0x80CCCCCD)    # 1.5 * 2**-126 and -1.6 * 2**-126
    assert int(fp_add(np.array([tiny_pos]), np.array([tiny_neg]), flush_subnormals=True)[0]) == 0x80000000
    fam = family(name)
    assert not {"add a: -0", "add result: -0"} & set(fam.fp_unreachable(fam.validate(params)))


def test_flushing_array_reports_the_multipliers_raw_operands():
    """DAZ happens inside the multiplier: a flushing array's recording reports the operands as they arrive, so its
    subnormal-operand and flush bins can be hit (they were recorded after DAZ, as zeros, and never were)."""
    A = np.array([[0x0001, 0x3F80], [0x3F80, 0x4000]], dtype=np.uint16)          # a bf16 subnormal in A
    B = np.array([[0x3F80, 0x8003], [0x4000, 0x3F80]], dtype=np.uint16)          # and one in B
    for sum_group in (1, 2):
        with recording() as rec:
            fp_gemm_reference(A, B, "bf16", 2, "ws", True, sum_group)
        hits = fp_coverage(rec, "bf16", ("mul",), True).hits
        assert hits.get("mul a: subnormal", 0) > 0 and hits.get("mul b: subnormal", 0) > 0, sum_group
        assert hits.get("mul: flush: subnormal operand", 0) > 0, sum_group
