"""The reduction golden models, the slot placement and the FAN stimulus."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accelgen.cosim.fan import adder_tree_table, fan_slot, fan_stimulus, fan_table, linear_slot
from accelgen.golden.fan import Cluster, dot_sum, fan_latency, linear_latency, segmented_sums, tree_latency
from accelgen.registry import FAMILIES
from accelgen.rtl import AdderTreeParams, FanLinearParams, FANParams


def test_segmented_sums_small_example():
    got = segmented_sums([1, 2, 3, 4, 5], [7, 7, 2, 2, 7], [1, 1, 1, 0, 1])
    assert got == [Cluster(0, 1, 7, 3, True), Cluster(2, 3, 2, 3, True), Cluster(4, 4, 7, 5, True)]


def test_segmented_sums_all_invalid_cluster_is_not_valid():
    assert segmented_sums([5, 6], [0, 0], [0, 0]) == [Cluster(0, 1, 0, 0, False)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-100, 100), st.integers(0, 3), st.booleans()), min_size=1, max_size=40))
def test_segmented_sums_partition_and_total(items):
    values, ids, valid = zip(*items)
    clusters = segmented_sums(values, ids, valid)
    # the clusters tile the inputs, neighbours differ, and the totals add up
    assert clusters[0].start == 0 and clusters[-1].end == len(values) - 1
    for a, b in zip(clusters, clusters[1:]):
        assert b.start == a.end + 1 and a.vec_id != b.vec_id
    assert sum(c.total for c in clusters) == dot_sum(values, valid)[0]
    for c in clusters:
        assert all(ids[i] == c.vec_id for i in range(c.start, c.end + 1))


def test_fan_slot_is_highest_adder():
    assert fan_slot(5, 5) == 5
    assert fan_slot(0, 1) == 0
    assert fan_slot(0, 7) == 3          # root of n=8
    assert fan_slot(2, 5) == 3
    assert fan_slot(4, 7) == 5
    assert linear_slot(2, 5) == 5


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 6).flatmap(lambda k: st.lists(st.integers(1, 1 << k), min_size=1).map(
    lambda sizes, k=k: (k, sizes))))
def test_fan_slots_are_distinct(case):
    """Every cluster of any layout gets its own slot (the injectivity the output interface relies on)."""
    k, sizes = case
    n = 1 << k
    starts, pos = [], 0
    for s in sizes:
        if pos + s > n:
            break
        starts.append((pos, pos + s - 1))
        pos += s
    if pos < n:
        starts.append((pos, n - 1))
    slots = [fan_slot(a, b) for a, b in starts]
    assert len(set(slots)) == len(slots)
    assert all(a <= s <= b for s, (a, b) in zip(slots, starts))


def test_stimulus_covers_directed_layouts():
    stim = fan_stimulus(FANParams(n=16), vectors=50, seed=2)
    assert {"all_singletons", "one_cluster", "idle", "aligned_blocks", "growing", "straddling",
            "random"} <= set(stim["sections"])
    layouts = [len(segmented_sums(x, ids, v)) for x, ids, v in stim["vectors"]]
    assert 16 in layouts and 1 in layouts


def test_fan_table_checks_valid_in_every_cycle_and_is_reproducible():
    p = FANParams(n=8)
    t1, t2 = fan_table(p, 30, seed=4), fan_table(p, 30, seed=4)
    assert all(np.array_equal(t1.inputs[k], t2.inputs[k]) for k in t1.inputs)
    assert t1.check["sum_valid__0"].all()
    # nothing may appear before the documented latency
    assert not any(t1.expect[f"sum_valid__{j}"][:p.latency].any() for j in range(8))
    assert t1.info["clusters"] > 30


def test_adder_tree_table_extreme_sum_fits():
    p = AdderTreeParams(n=4, width=4, signed=True)
    t = adder_tree_table(p, 5, seed=1)
    # the directed one-cluster vector of minimum values: 4 * -8 = -32 in 6 bits is 0b100000
    assert 0b100000 in t.expect["sum"].tolist()


@pytest.mark.parametrize("add_stages", [0, 1, 2, 3])
@pytest.mark.parametrize("n", [2, 4, 8, 64, 512])
def test_cycle_model_matches_declared_latency(n, add_stages):
    """The closed-form cycle model (golden) and the generators' declared latency agree for every option."""
    assert fan_latency(n, add_stages) == FANParams(n=n, add_stages=add_stages).latency
    assert tree_latency(n, add_stages) == AdderTreeParams(n=n, add_stages=add_stages).latency
    for r in sorted({1, 3, n - 1} & set(range(1, n))):
        assert linear_latency(n, r, add_stages) == \
            FanLinearParams(n=n, stage_adders=r, add_stages=add_stages).latency


def test_add_stages_change_only_the_latency_of_the_tables():
    """Pipelined adders delay every result alike: the expected slots are those of add_stages=0, later."""
    for family in ("fan", "fan_linear", "adder_tree"):
        fam = FAMILIES[family]
        t0 = fam.cycle_table(fam.validate(dict(n=8)), 40, 6)
        t2 = fam.cycle_table(fam.validate(dict(n=8, add_stages=2)), 40, 6)
        shift = t2.info["latency"] - t0.info["latency"]
        assert shift == {"fan": 6, "fan_linear": 14, "adder_tree": 6}[family]
        for k, v in t0.expect.items():
            assert np.array_equal(t2.expect[k][shift:], v) and not t2.expect[k][:shift].any()
            if k in t0.check:
                assert np.array_equal(t2.check[k][shift:], t0.check[k])
