"""The dot-product unit's golden and cycle model, its cycle table, coverage, activity stimulus and sweep file."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from accelgen.cosim.dot_product import (IDLE_PATTERN, dot_product_activity, dot_product_coverage, dot_product_stimulus,
                                        dot_product_table)
from accelgen.cosim.vectors import from_bits
from accelgen.fit.model import compile_feature
from accelgen.fit.sweep import load_sweep
from accelgen.golden.dot_product import dot_product_cycles, dot_product_latency, dot_products
from accelgen.registry import FAMILIES
from accelgen.rtl import DotProductParams


def test_dot_products_small_example():
    assert dot_products([1, -2, 3], [4, 5, -6]) == 4 - 10 - 18
    assert dot_products([[1, 2], [3, 4]], [[5, 6], [7, 8]]).tolist() == [17, 53]


def test_dot_products_exact_beyond_int64():
    """256 products of 32-bit extremes exceed int64: the model must not wrap."""
    lo = -(1 << 31)
    assert dot_products(np.full(256, lo, dtype=np.int64), np.full(256, lo, dtype=np.int64)) == 256 * lo * lo
    assert dot_products(np.full(256, (1 << 32) - 1, dtype=np.uint64), np.full(256, (1 << 32) - 1, dtype=np.uint64)) \
        == 256 * ((1 << 32) - 1) ** 2


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(-(1 << 40), 1 << 40), st.integers(-(1 << 40), 1 << 40)), min_size=1,
                max_size=64))
def test_dot_products_is_the_sum_of_products(pairs):
    a, b = zip(*pairs)
    assert dot_products(list(a), list(b)) == sum(x * y for x, y in pairs)


def test_dot_products_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match=r"a and b differ in shape: \(3,\) and \(2,\)"):
        dot_products([1, 2, 3], [1, 2])


@pytest.mark.parametrize("mul_stages", [0, 1, 3])
@pytest.mark.parametrize("add_stages", [0, 2, 3])
@pytest.mark.parametrize("n", [2, 4, 64, 256])
def test_cycle_model_matches_declared_latency(n, mul_stages, add_stages):
    p = DotProductParams(n=n, mul_stages=mul_stages, add_stages=add_stages)
    assert dot_product_latency(n, mul_stages, add_stages) == p.latency
    # one result per cycle: v vectors back to back take v + latency cycles until the last result
    assert dot_product_cycles(100, n, mul_stages, add_stages) == 100 + p.latency
    assert dot_product_cycles(0, n, mul_stages, add_stages) == p.latency


@pytest.mark.parametrize("n", [1, 3, 12])
def test_cycle_model_rejects_a_non_power_of_two(n):
    with pytest.raises(ValueError, match=rf"n={n} is not allowed; allowed: a power of two >= 2"):
        dot_product_latency(n)


# --------------------------------------------------------------------------- cycle table

@pytest.mark.parametrize("params", [
    {"n": 8}, {"n": 2, "a_width": 5, "b_width": 3, "signed": False, "mul_stages": 2},
    {"n": 64, "a_width": 4, "b_width": 3, "add_stages": 3}])
def test_table_checks_valid_every_cycle_and_exact_sums(params):
    p = DotProductParams(**params)
    t = dot_product_table(p, 200, seed=3)
    lat, rows = p.latency, t.info["vectors"]
    assert t.info["latency"] == lat and t.cycles == rows + lat
    assert t.check["sum_valid"].all()                       # a result early, late or twice is a mismatch
    assert not t.expect["sum_valid"][:lat].any()
    valid = t.inputs["valid"][:rows].astype(bool)
    assert np.array_equal(t.expect["sum_valid"][lat:].astype(bool), valid)
    assert np.array_equal(t.check["sum"][lat:], valid) and t.info["dot_products"] == valid.sum() < rows
    # the expected sums are the dot products of the driven bit patterns, read back as the ports' integers
    for row in np.flatnonzero(valid)[::7]:
        a = [from_bits(t.inputs[f"a__{i}"][row], p.a_width, p.signed) for i in range(p.n)]
        b = [from_bits(t.inputs[f"b__{i}"][row], p.b_width, p.signed) for i in range(p.n)]
        assert from_bits(t.expect["sum"][row + lat], p.sum_width, p.signed) == sum(x * y for x, y in zip(a, b))


def test_table_is_reproducible_and_seeded():
    p = DotProductParams(n=4)
    t1, t2, t3 = (dot_product_table(p, 30, seed=s) for s in (4, 4, 5))
    assert all(np.array_equal(t1.inputs[k], t2.inputs[k]) for k in t1.inputs)
    assert not all(np.array_equal(t1.inputs[k], t3.inputs[k]) for k in t1.inputs)


def test_directed_sections_reach_the_exact_sum_width():
    """n = 4 signed 4x4: 4 * (-8) * (-8) = 256 and 4 * (-8) * 7 = -224 need all 10 bits of the sum."""
    p = DotProductParams(n=4, a_width=4, b_width=4)
    stim = dot_product_stimulus(p, 0, seed=1)
    assert stim["sections"] == {"extremes": 4, "zeros": 3, "corners": 4, "one_hot": 4, "idle": len(IDLE_PATTERN)}
    t = dot_product_table(p, 0, seed=1)
    sums = {from_bits(v, 10, True) for v, c in zip(t.expect["sum"], t.check["sum"]) if c}
    assert {256, -224, 0} <= sums
    # one-hot rows: each lane's product alone, with its own b
    for i in range(4):
        row = 11 + i
        assert np.count_nonzero(stim["a"][row]) == 1 and stim["a"][row, i] == 7


def test_directed_only_table_has_idle_bubbles():
    t = dot_product_table(DotProductParams(n=2), 0, seed=2)
    assert t.info["dot_products"] == t.info["vectors"] - IDLE_PATTERN.count(0)


def test_stages_shift_the_expected_results_only():
    """Pipeline registers delay every result alike: the expectations of add/mul stages are those without, later."""
    t0 = dot_product_table(DotProductParams(n=8), 50, seed=6)
    t1 = dot_product_table(DotProductParams(n=8, mul_stages=2, add_stages=1), 50, seed=6)
    shift = t1.info["latency"] - t0.info["latency"]
    assert shift == 2 + 3 * 1
    for k, v in t0.expect.items():
        assert np.array_equal(t1.expect[k][shift:], v) and not t1.expect[k][:shift].any()
        assert np.array_equal(t1.check[k][shift:], t0.check[k])


# --------------------------------------------------------------------------- coverage

@pytest.mark.parametrize("params", [
    {"n": 8}, {"n": 4, "a_width": 6, "b_width": 5, "signed": False},
    {"n": 2, "a_width": 1, "b_width": 2}, {"n": 2, "a_width": 1, "b_width": 1, "signed": False}])
def test_a_random_run_covers_every_bin(params):
    p = DotProductParams(**params)
    cov = dot_product_coverage(p, dot_product_table(p, 300, seed=1), None)
    assert cov.missed == [] and len(cov.bins) >= 7


def test_coverage_bins_follow_the_operands():
    signed = dot_product_coverage(DotProductParams(n=4), dot_product_table(DotProductParams(n=4), 0, 1), None)
    assert {"a=min x b=max", "sum: smallest", "sum: negative", "vectors: bubble between valid ones"} <= signed.bins
    p = DotProductParams(n=4, signed=False)
    unsigned = dot_product_coverage(p, dot_product_table(p, 0, 1), None)
    assert not any("min" in b or "negative" in b or "smallest" in b for b in unsigned.bins)


def test_coverage_misses_what_the_run_lacks():
    """A run without idle vectors or extreme operands leaves those bins empty."""
    p = DotProductParams(n=4)
    t = dot_product_table(p, 0, 1)
    rows = t.info["vectors"]
    t.inputs["valid"][:rows] = 1
    for i in range(p.n):
        t.inputs[f"a__{i}"][:rows] = 3
    missed = dot_product_coverage(p, t, None).missed
    assert "vectors: idle" in missed and "a=min x b=min" in missed and "sum: largest" in missed


# --------------------------------------------------------------------------- activity stimulus

def test_activity_zeros_follow_the_density():
    p = DotProductParams(n=16, a_width=8, b_width=8)
    act = dot_product_activity(p, 0.25, 400, seed=3)
    assert set(act.inputs) == {f"{s}__{i}" for s in "ab" for i in range(16)} | {"valid"}
    assert act.inputs["valid"].all() and act.cycles == 400
    assert act.warmup == p.latency + 1 and act.ops == 400 - act.warmup
    a = np.stack([act.inputs[f"a__{i}"] for i in range(16)])
    assert a.min() < 0 < a.max()
    assert abs(np.mean(a == 0) - 0.75) < 0.03
    dense = np.stack([dot_product_activity(p, 1.0, 400, seed=3).inputs[f"b__{i}"] for i in range(16)])
    assert np.mean(dense == 0) < 0.02


def test_activity_is_declared_with_the_family():
    fam = FAMILIES["dot_product"]
    assert fam.activity_table is dot_product_activity and fam.coverage is dot_product_coverage
    assert fam.cycle_table is dot_product_table


# --------------------------------------------------------------------------- sweep file

def test_sweep_file_validates_and_its_features_evaluate():
    spec = load_sweep("dot_product", families=FAMILIES)
    points = spec.points()
    train = [q for s, q in points if s == "train"]
    held = [q for s, q in points if s == "heldout"]
    assert {q["n"] for q in train} == {4, 8, 16, 32} and len(held) >= 4
    stages = {(q.get("mul_stages", 0), q.get("add_stages", 0)) for q in train if q["n"] == 16 and q["a_width"] == 8
              and q["b_width"] == 8}
    assert stages == {(m, a) for m in range(4) for a in range(4)}
    assert set(spec.targets) == {"area_um2", "leakage_uw", "energy_pj", "delay_ns"}
    names = set(DotProductParams.model_fields) | {"density"}
    env = {k: np.array([float(getattr(DotProductParams(**q), k)) for q in train]) for k in names - {"density", "dtype"}}
    env["density"] = np.full(len(train), 0.5)
    for target, tdef in spec.targets.items():
        for feature in tdef["features"]:
            values = compile_feature(feature, names)(env)
            assert np.all(np.isfinite(values)), (target, feature)
