"""The linear reduction's cycle model and cycle table (pure Python): the skew of the inputs, the cycle of
every expected slot, the left-to-right fp32 order, the mutant tables, coverage and activity stimulus."""

import numpy as np
import pytest

from accelgen.cosim.fan import fan_coverage, fan_linear_table, fan_stimulus
from accelgen.cosim.linear_reduction import (linear_reduction_activity, linear_reduction_coverage,
                                             linear_reduction_table)
from accelgen.cosim.vectors import to_bits
from accelgen.golden.fan import segmented_sums
from accelgen.golden.linear_reduction import (
    input_cycle,
    linear_reduction_cycles,
    linear_reduction_latency,
    skew,
    slot_cycle,
)
from accelgen.registry import FAMILIES

FAM = FAMILIES["linear_reduction"]


def test_cycle_model_closed_forms():
    assert [skew(a) for a in range(4)] == [1, 2, 3, 4]
    assert input_cycle(5, 3, 2) == 5 + 9 and slot_cycle(5, 3, 2) == 5 + 12
    assert linear_reduction_latency(16) == 16 and linear_reduction_latency(16, 2) == 48
    assert linear_reduction_cycles(100, 8, 1) == 116       # V vectors back to back, then n*(1+add_stages) to drain
    for bad in (0, 1, 12, True):
        with pytest.raises(ValueError, match=r"^n=.* is not allowed; allowed: a power of two >= 2"):
            linear_reduction_latency(bad)
    with pytest.raises(ValueError, match=r"^add_stages=-1 is not allowed"):
        skew(-1)


@pytest.mark.parametrize("params", [{"n": 8}, {"n": 8, "add_stages": 2}, {"n": 4, "dtype": "fp32", "add_stages": 1},
                                    {"n": 2}])
def test_table_skews_inputs_and_expects_each_slot_skew_cycles_after_its_input(params):
    p = FAM.validate(params)
    table = linear_reduction_table(p, 60, seed=3)
    vecs = fan_stimulus(p, 60, 3)["vectors"]
    d, n, V = 1 + p.add_stages, p.n, len(vecs)
    assert table.info["skew"] == d and table.info["latency"] == p.latency == n * d
    assert table.cycles == linear_reduction_cycles(V, n, p.add_stages)
    for t, (x, ids, valid) in enumerate(vecs):
        for i in range(n):
            row = t + i * d
            assert table.inputs[f"value__{i}"][row] == to_bits([x[i]], p.width)[0]
            assert table.inputs[f"valid__{i}"][row] == int(valid[i])
            assert table.inputs[f"vec_id__{i}"][row] == int(ids[i])
    for i in range(n):   # nothing is presented outside the vector's own rows
        for port in ("valid", "value", "vec_id"):
            col = table.inputs[f"{port}__{i}"]
            assert not col[:i * d].any() and not col[i * d + V:].any()
    # every valid cluster at its last input's slot, (slot + 1) * d rows after its vector, summed left to right
    expected = set()
    for t, (x, ids, valid) in enumerate(vecs):
        for c in segmented_sums(x, ids, valid, dtype=p.dtype, order="linear"):
            if c.valid:
                expected.add((c.end, t + (c.end + 1) * d, int(to_bits([c.total], p.sum_width)[0]), c.vec_id))
    got = set()
    for j in range(n):
        for row in np.flatnonzero(table.expect[f"sum_valid__{j}"]):
            assert table.check[f"sum__{j}"][row] and table.check[f"sum_id__{j}"][row]
            got.add((j, int(row), int(table.expect[f"sum__{j}"][row]), int(table.expect[f"sum_id__{j}"][row])))
        assert table.check[f"sum__{j}"].sum() == table.expect[f"sum_valid__{j}"].sum()
    assert got == expected and len(got) == table.info["clusters"]


def test_table_results_are_fan_linears_delayed_per_slot():
    """Same stimulus, same sums and slots as the unskewed chain (FanLinear): only the cycles differ."""
    p = FAM.validate({"n": 8, "dtype": "fp32"})
    ours = linear_reduction_table(p, 40, seed=2)
    theirs = fan_linear_table(FAMILIES["fan_linear"].validate({"n": 8, "dtype": "fp32"}), 40, seed=2)
    V, lat = ours.info["vectors"], theirs.info["latency"]
    for j in range(8):
        for port in ("sum_valid", "sum", "sum_id"):
            a = ours.expect[f"{port}__{j}"][j + 1:j + 1 + V]
            b = theirs.expect[f"{port}__{j}"][lat:lat + V]
            assert np.array_equal(a, b), (port, j)


def test_mutant_tables_differ_from_the_real_one():
    """The mutants the cosim tests run must really change the expectation (else failing them proves nothing)."""
    p = FAM.validate({"n": 16})
    good = linear_reduction_table(p, 200, seed=5)
    late = linear_reduction_table(p, 200, seed=5, add_stages=1)       # skew 2 where the chain has 1
    assert late.info["skew"] == 2 and late.cycles > good.cycles
    pf = FAM.validate({"n": 16, "dtype": "fp32"})
    lin, fan = linear_reduction_table(pf, 200, seed=5), linear_reduction_table(pf, 200, seed=5, order="fan")
    differ = sum(int((lin.expect[f"sum__{j}"] != fan.expect[f"sum__{j}"]).sum()) for j in range(16))
    assert differ >= 10


def test_coverage_reads_the_vectors_de_skewed():
    """The layout bins of the skewed table are those of the same vectors presented unskewed (FanLinear's)."""
    for add_stages in (0, 2):
        p = FAM.validate({"n": 16, "add_stages": add_stages})
        ours = linear_reduction_coverage(p, linear_reduction_table(p, 300, seed=7), None)
        q = FAMILIES["fan_linear"].validate({"n": 16})
        theirs = fan_coverage(q, fan_linear_table(q, 300, seed=7), None)
        assert ours.bins == theirs.bins and ours.hits == theirs.hits
        assert all(ours.hits.get(b, 0) > 0 for b in ours.bins)


def test_activity_fp32_is_skewed_and_counts_vectors():
    p = FAM.validate({"n": 8, "dtype": "fp32", "add_stages": 1})
    act = linear_reduction_activity(p, 0.5, 64, seed=1)
    assert act.cycles == 64 + act.warmup and act.warmup == p.latency + 1 and act.ops == 64
    for i in range(8):
        valid = np.asarray(act.inputs[f"valid__{i}"])
        assert not valid[:2 * i].any() and valid[2 * i:].all()
    # the vector entering input 0 in cycle t reaches input i in cycle t + 2 i, its cluster ids unchanged
    ids = np.stack([np.asarray(act.inputs[f"vec_id__{i}"])[2 * i:2 * i + 40] for i in range(8)], axis=1)
    assert (ids[:, 0] == 0).all() and (np.diff(ids, axis=1) >= 0).all()
    vals = np.concatenate([np.asarray(act.inputs[f"value__{i}"])[2 * i:] for i in range(8)])
    assert 0.3 < np.mean((vals & 0x7FFFFFFF) != 0) < 0.7
    # the counted window is whole for any n: the chain's fill is warm-up on top of it
    wide = FAM.validate({"n": 64, "add_stages": 3})
    act = linear_reduction_activity(wide, 1.0, 40, seed=1)
    assert act.ops == 40 and act.cycles == 40 + wide.latency + 1
    vals = np.asarray(act.inputs["value__63"])[act.warmup:]
    assert vals.min() >= 0 and vals.max() < 1 << wide.width and (vals >= 1 << (wide.width - 1)).any()
