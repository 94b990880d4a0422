"""Golden model of MAERI's ART: every cluster reduced exactly once for every layout (exhaustively for
n <= 16), integer sums against numpy, fp32 against an independent re-implementation of the ART's
order, the cycle table, and mutants (the FAN's order, a cycle short) that the checks must tell apart."""

import itertools

import numpy as np
import pytest

from accelgen.cosim.art import art_table
from accelgen.cosim.fan import fp32_values
from accelgen.golden.art import art_latency, art_plan, art_slot, art_sums, piece_width_growth
from accelgen.golden.fan import segmented_sums
from accelgen.registry import FAMILIES


def _clusters(ids):
    starts = [0] + [i for i in range(1, len(ids)) if ids[i] != ids[i - 1]]
    return list(zip(starts, [s - 1 for s in starts[1:]] + [len(ids) - 1]))


def _leaves(tree):
    return [tree] if isinstance(tree, int) else _leaves(tree[0]) + _leaves(tree[1])


def _layouts(n):
    for cuts in itertools.product((0, 1), repeat=n - 1):
        yield np.concatenate([[0], np.cumsum(cuts)])


def _check_plan(ids):
    plan = art_plan(ids)
    n = len(ids)
    got = sorted((s, e) for s, e, _ in plan.slots.values())
    assert got == _clusters(list(ids)), ids
    assert all(0 <= slot < n for slot in plan.slots)
    for s, e, tree in plan.slots.values():
        assert _leaves(tree) == list(range(s, e + 1))   # every input once, in input order
    return plan


@pytest.mark.parametrize("n", [2, 4, 8, 16])
def test_art_reduces_every_layout_exactly_once(n):
    """All 2**(n-1) layouts: each cluster emitted once, complete, in one slot (the model also raises
    when a piece outgrows its level's width or pieces disagree about their joins)."""
    ops = {}
    for ids in _layouts(n):
        for k, c in _check_plan(ids).ops.items():
            ops[k] = ops.get(k, 0) + c
    if n >= 8:   # the layouts use every switch operation, the forwarding links included
        assert set(ops) == {"add2", "add3", "add2 over link", "split at link", "ride up"}


@pytest.mark.parametrize("n", [32, 64, 512])
def test_art_random_layouts_large_n(n):
    rng = np.random.default_rng(n)
    for _ in range(200 if n < 512 else 30):
        _check_plan(np.cumsum(rng.random(n) < rng.choice([0.02, 0.1, 0.3, 0.7])))


def test_art_all_singletons_and_one_cluster():
    n = 8
    plan = art_plan(np.arange(n))
    assert sorted(plan.slots) == list(range(n))          # n singletons fill all n slots
    assert all(s == e for s, e, _ in plan.slots.values())
    one = art_plan(np.zeros(n, dtype=int))
    assert list(one.slots) == [art_slot(n, 3, 0)] == [3]  # one cluster: the root's slot
    assert one.slots[3][2] == (((0, 1), (2, 3)), ((4, 5), (6, 7)))   # a plain tree (the pairs split)


def test_maeri_vn_sizes_three_two_three_use_the_links():
    """Virtual neurons 3, 2, 3 on n = 8 (MAERI's irregular case): the pair of level-1 switches
    [2,3] | [4,5] reduces (x3 + x4) over its link; the 3-input adders add their children first."""
    got = {c.start: (c.slot, c.tree) for c in art_sums(range(1, 9), [0, 0, 0, 1, 1, 2, 2, 2], [1] * 8)}
    assert got == {0: (1, ((0, 1), 2)), 3: (2, (3, 4)), 5: (5, (5, (6, 7)))}


def test_int_sums_equal_numpy_and_the_fan():
    rng = np.random.default_rng(3)
    for n in (2, 8, 16, 64):
        for _ in range(100):
            ids = np.cumsum(rng.random(n) < 0.3)
            x = rng.integers(-128, 128, n)
            valid = rng.random(n) >= 0.1
            got = art_sums(x, ids, valid)
            xm = np.where(valid, x, 0)
            assert [(c.start, c.end, c.total) for c in got] == [(s, e, int(np.sum(xm[s:e + 1])))
                                                                 for s, e in _clusters(list(ids))]
            assert [(c.start, c.total, c.valid, c.vec_id) for c in got] == \
                [(c.start, c.total, c.valid, c.vec_id) for c in segmented_sums(x, ids, valid)]


# ---------------------------------------------------------------- an independent fp32 re-implementation

def _f32_add(a, b):
    with np.errstate(all="ignore"):
        s = np.float32(a) + np.float32(b)
    return np.float32(np.uint32(0x7FC00000).view(np.float32)) if np.isnan(s) else s


def _reference_fp32(values, ids):
    """The ART's rules written out per linked pair (v1..v4 in input order), summing float32 directly:
    {start: (slot, bits)}."""
    n = len(ids)
    x = np.asarray(values, dtype=np.uint32).view(np.float32)
    # a piece: [start, end, value]; open flags come from the vecIDs at its ends
    def ol(p):
        return p is not None and p[0] > 0 and ids[p[0] - 1] == ids[p[0]]

    def orr(p):
        return p is not None and p[1] < n - 1 and ids[p[1]] == ids[p[1] + 1]

    row = [[i, i, x[i], False, False] for i in range(n)]   # [start, end, value, forced_ol, forced_or]
    out = {}
    levels = n.bit_length() - 1
    for h in range(1, levels + 1):
        m = n >> h
        nxt = [None] * m
        for j in range(m):
            slot = j * 2 ** h + 2 ** (h - 1) - 1
            root = h == levels
            linked = m >= 4 and 0 < j < m - 1
            left, right = row[2 * j], row[2 * j + 1]
            if j % 2 == 1 or root:            # odd switch: v1 = left, v2 = right, v3 = neighbour's left child
                v3 = row[2 * j + 2] if linked else None
                v4 = row[2 * j + 3] if linked else None
                j1 = left is not None and right is not None and (orr(left) or left[4])
                j2 = right is not None and v3 is not None and (orr(right) or right[4])
                j3 = v3 is not None and v4 is not None and (orr(v3) or v3[4])
                far_open = left is not None and (ol(left) or left[3])
                s = [left[0], right[1], _f32_add(left[2], right[2]), left[3], False] if j1 else right
                if j2 and not j3:
                    s = [s[0], v3[1], _f32_add(s[2], v3[2]), s[3], False]
                split = j1 and j2 and j3
                if split:
                    s = [s[0], s[1], s[2], s[3], True]
                far = left
            else:                             # even switch: mirrored, v1 = right, v2 = left
                v3 = row[2 * j - 1] if linked else None
                v4 = row[2 * j - 2] if linked else None
                j1 = left is not None and right is not None and (ol(right) or right[3])
                j2 = left is not None and v3 is not None and (ol(left) or left[3])
                j3 = v3 is not None and v4 is not None and (ol(v3) or v3[3])
                far_open = right is not None and (orr(right) or right[4])
                s = [left[0], right[1], _f32_add(left[2], right[2]), False, right[4]] if j1 else left
                if j1 and j2 and not j3:
                    s = [v3[0], s[1], _f32_add(v3[2], s[2]), False, s[4]]
                split = j1 and j2 and j3
                if split:
                    s = [s[0], s[1], s[2], True, s[4]]
                far = right
            up = em = None
            if j1:
                up, em = (s, None) if (far_open or split) else (None, s)
            elif j2 and (j3 or not (j % 2 == 1 or root)):
                up, em = (far, None) if far_open else (None, far)
            else:
                up, em = far, s
            if em is not None:
                out[em[0]] = (slot, int(np.float32(em[2]).view(np.uint32)))
            if root and up is not None:
                out[up[0]] = (n - 1, int(np.float32(up[2]).view(np.uint32)))
            nxt[j] = up
        row = nxt
    return out


@pytest.mark.parametrize("n", [2, 8, 16, 64])
def test_fp32_sums_equal_an_independent_reimplementation(n):
    rng = np.random.default_rng(n + 7)
    for t in range(150):
        ids = np.cumsum(rng.random(n) < rng.choice([0.1, 0.3, 0.6]))
        x = fp32_values(rng, n)
        got = {c.start: (c.slot, c.total) for c in art_sums(x, ids, np.ones(n, bool), dtype="fp32")}
        assert got == _reference_fp32(x, list(ids)), (t, ids)


def test_fp32_order_is_not_the_fans():
    """Mutant: the FAN's association order gives other fp32 bits for some clusters (so a cosim table in
    the FAN's order must fail on the ART)."""
    rng = np.random.default_rng(5)
    differ = 0
    for _ in range(200):
        n = 16
        ids = np.cumsum(rng.random(n) < 0.25)
        x = fp32_values(rng, n, "ties")
        art = {c.start: c.total for c in art_sums(x, ids, np.ones(n, bool), dtype="fp32")}
        fan = {c.start: c.total for c in segmented_sums(x, ids, np.ones(n, bool), dtype="fp32", order="fan")}
        differ += sum(art[s] != fan[s] for s in art)
    assert differ > 0


def test_latency_and_widths():
    assert [art_latency(n, s) for n, s in [(2, 0), (16, 0), (16, 2), (512, 3)]] == [2, 5, 13, 37]
    assert [piece_width_growth(16, h) for h in range(5)] == [0, 2, 3, 4, 4]
    with pytest.raises(ValueError, match=r"n=12 is not allowed; allowed: a power of two >= 2"):
        art_latency(12)
    with pytest.raises(ValueError, match=r"dtype='fp16' is not allowed"):
        art_sums([1, 2], [0, 0], [1, 1], dtype="fp16")


def test_cycle_table_expects_every_valid_cluster_once_latency_cycles_later():
    p = FAMILIES["art"].validate({"n": 8})
    table = art_table(p, 60, seed=2)
    lat = p.latency
    sv = np.stack([table.expect[f"sum_valid__{j}"] for j in range(8)], axis=1)
    assert not sv[:lat].any()
    assert int(sv.sum()) == table.info["clusters"] > 60
    assert table.info["latency"] == lat == 4 and set(table.info["ops"]) >= {"add2", "add3", "split at link"}
    short = art_table(p, 60, seed=2, latency=lat - 1)          # mutant: one cycle short
    assert not np.array_equal(short.expect["sum_valid__3"][:len(sv)], table.expect["sum_valid__3"])
    with pytest.raises(ValueError, match="order='tree' is not allowed"):
        art_table(p, 1, order="tree")
