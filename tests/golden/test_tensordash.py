"""TensorDash: golden scheduler/PE model, fast cycle model, levels, parameter validation, Amaranth simulation."""

import itertools

import numpy as np
import pytest
from amaranth.sim import Simulator
from hypothesis import given, settings, strategies as st

from accelgen.cli import main
from accelgen.cosim.tensordash import pe_streams, pe_table, sched_table
from accelgen.golden.fp import fp_add, fp_mul
from accelgen.golden.tensordash import (
    cycle_counts,
    delayed,
    fold_cycles,
    ideal_speedup,
    lane_tree_levels,
    pass_cycles,
    pattern_options,
    pe_latency,
    schedule_levels,
    schedule_step,
    simulate_pe,
)
from accelgen.rtl.tensordash import (
    TensorDashPE,
    TensorDashPEParams,
    TensorDashScheduler,
    TensorDashTile,
    TensorDashTileParams,
    tensordash_levels,
    tensordash_options,
)
from accelgen.rtl.tensordash_datapath import FOLD_SCHEDULE, accumulator_fold_cycles

DEFAULT = ((0, 0), (1, 0), (2, 0), (3, 0), (1, 1), (1, 3), (2, 2), (3, 3))


# --------------------------------------------------------------------------- connectivity and levels

def test_default_pattern_l4_d4_is_the_eight_options():
    assert pattern_options("default", 4, 4) == DEFAULT


def test_pattern_depth_drops_options_beyond_d_minus_1():
    assert pattern_options("default", 4, 2) == ((0, 0), (1, 0), (1, 1), (1, 3))
    assert pattern_options("default", 4, 3) == ((0, 0), (1, 0), (2, 0), (1, 1), (1, 3), (2, 2))
    assert pattern_options("lookahead", 8, 3) == ((0, 0), (1, 0), (2, 0))


def test_pattern_two_lanes_drops_duplicate_slots():
    # (+1,i+1) and (+1,i-1) name the same slot when L = 2; (+2,i+2) is (+2,i)
    assert pattern_options("default", 2, 4) == ((0, 0), (1, 0), (2, 0), (3, 0), (1, 1), (3, 1))


def test_levels_l4_default_one_lane_each():
    assert schedule_levels(DEFAULT, 4) == ((0,), (1,), (2,), (3,))


def test_levels_l16_default_cut_to_four():
    assert schedule_levels(pattern_options("default", 16, 4), 16) == tuple(
        tuple(range(c, 16, 4)) for c in range(4))
    assert schedule_levels(pattern_options("default", 16, 3), 16) == (
        (0, 3, 6, 9, 12), (1, 4, 7, 10, 13), (2, 5, 8, 11, 14), (15,))
    assert schedule_levels(pattern_options("default", 8, 4), 8) == ((0, 4), (1, 5), (2, 6), (3, 7))
    assert schedule_levels(pattern_options("default", 8, 3), 8) == ((0, 3), (1, 5), (2, 6), (4, 7))


def test_levels_lookahead_single_level():
    assert schedule_levels(pattern_options("lookahead", 16, 5), 16) == (tuple(range(16)),)


def _chromatic(options, lanes):
    """Brute force: the fewest colours of the lane conflict graph."""
    slots = [{(s, (i + o) % lanes) for s, o in options} for i in range(lanes)]
    edges = [(i, j) for i in range(lanes) for j in range(i + 1, lanes) if slots[i] & slots[j]]
    for k in range(1, lanes + 1):
        for col in itertools.product(range(k), repeat=lanes):
            if all(col[i] != col[j] for i, j in edges):
                return k
    return lanes


@pytest.mark.parametrize("lanes", [2, 3, 4, 5, 6, 7, 8])
@pytest.mark.parametrize("depth", [2, 3, 4])
def test_levels_are_disjoint_and_minimal(lanes, depth):
    opts = pattern_options("default", lanes, depth)
    levels = schedule_levels(opts, lanes)
    assert sorted(x for g in levels for x in g) == list(range(lanes))
    for group in levels:
        for i, j in itertools.combinations(group, 2):
            assert not ({(s, (i + o) % lanes) for s, o in opts} & {(s, (j + o) % lanes) for s, o in opts})
    assert len(levels) == _chromatic(opts, lanes)


@pytest.mark.parametrize("pattern", ["default", "lookahead"])
def test_rtl_and_model_derive_the_same_options_and_levels(pattern):
    """The generator and the golden model derive options and levels independently; they must agree."""
    for lanes in range(2, 17):
        for depth in range(2, 6):
            opts = pattern_options(pattern, lanes, depth)
            assert tensordash_options(pattern, lanes, depth) == opts
            assert tensordash_levels(opts, lanes) == schedule_levels(opts, lanes)
    assert TensorDashScheduler(lanes=16, depth=3).levels == schedule_levels(pattern_options("default", 16, 3), 16)


# --------------------------------------------------------------------------- one scheduler decision

def _live(depth, lanes, *slots):
    x = np.zeros((depth, lanes), bool)
    for s, l in slots:
        x[s, l] = True
    return x


def test_step_priority_lookahead_before_lookaside():
    levels = schedule_levels(DEFAULT, 4)
    # lane 0 could take (1,0) [option 2] or (1,1) [option 5]: lookahead first; lane 1 then takes (1,1) itself
    sel, after, as_rows = schedule_step(_live(4, 4, (1, 0), (1, 1)), DEFAULT, levels)
    assert list(sel) == [2, 2, 0, 0] and as_rows == 4 and not after.any()


def test_step_lower_level_takes_shared_slot_first():
    levels = schedule_levels(DEFAULT, 4)
    # only (1,1) effectual: lane 0 (level 0) takes it via (+1,i+1), lane 1 gets nothing
    sel, _, as_rows = schedule_step(_live(4, 4, (1, 1)), DEFAULT, levels)
    assert list(sel) == [5, 0, 0, 0] and as_rows == 4


def test_step_current_row_always_drains_and_as_counts_leading_empty_rows():
    levels = schedule_levels(DEFAULT, 4)
    live = np.ones((4, 4), bool)
    sel, after, as_rows = schedule_step(live, DEFAULT, levels)
    assert list(sel) == [1, 1, 1, 1] and as_rows == 1 and not after[0].any() and after[1:].all()
    sel, _, as_rows = schedule_step(np.zeros((4, 4), bool), DEFAULT, levels)
    assert list(sel) == [0, 0, 0, 0] and as_rows == 4


# --------------------------------------------------------------------------- cycle-accurate PE and fast model

def test_pe_all_zero_stream_takes_n_over_d_cycles():
    for depth in (2, 3, 4):
        z = np.zeros((10, 4), int)
        assert simulate_pe(z, z, depth=depth).cycles == -(-10 // depth)


def test_pe_dense_stream_takes_n_cycles_and_empty_stream_none():
    x = np.ones((7, 4), int)
    assert simulate_pe(x, x, depth=4).cycles == 7
    assert simulate_pe(np.zeros((0, 4), int), np.zeros((0, 4), int), depth=4).cycles == 0


def test_pe_one_lane_only_is_limited_by_lookahead():
    b = np.zeros((12, 4), int)
    b[:, 2] = 3
    a = np.ones((12, 4), int)
    tr = simulate_pe(a, b, depth=4)
    # lane 2's pairs are one per row; lookaside lets lanes 1 (+1,i+1), 3 (+1,i-1), 0 (+2,i+2) help
    assert tr.result == [36] and tr.pairs_used == 12
    assert 12 // 4 <= tr.cycles < 12


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_pe_model_properties_and_fast_model_agree(data):
    lanes = data.draw(st.integers(2, 8))
    depth = data.draw(st.integers(2, 5))
    pattern = data.draw(st.sampled_from(["default", "lookahead"]))
    n = data.draw(st.integers(0, 24))
    density = data.draw(st.sampled_from([0.0, 0.05, 0.3, 0.7, 1.0]))
    seed = data.draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    a = rng.integers(-4, 5, (n, lanes)) * (rng.random((n, lanes)) < density)
    b = rng.integers(-4, 5, (n, lanes))
    tr = simulate_pe(a, b, depth=depth, pattern=pattern)
    eff = (a != 0) & (b != 0)
    assert tr.result == [int((a * b).sum())]
    assert tr.pairs_used == int(eff.sum())  # each effectual pair exactly once
    assert -(-n // depth) <= tr.cycles <= n
    assert list(cycle_counts(eff, depth=depth, pattern=pattern)) == [tr.cycles]


def test_fast_model_ragged_lengths_match_cycle_accurate_model():
    rng = np.random.default_rng(5)
    for lanes, depth in [(4, 2), (4, 3), (4, 4), (16, 3)]:
        eff = rng.random((40, 30, lanes)) < 0.4
        lengths = rng.integers(0, 31, 40)
        fast = cycle_counts(eff, lengths, depth=depth)
        slow = [simulate_pe(eff[i].astype(int), np.ones((30, lanes), int), depth=depth, length=lengths[i]).cycles
                for i in range(40)]
        assert list(fast) == slow


def test_fast_model_rejects_bad_shapes():
    with pytest.raises(ValueError, match="shape"):
        cycle_counts(np.zeros(5, bool), depth=4)
    with pytest.raises(ValueError, match="lengths"):
        cycle_counts(np.zeros((2, 3, 4), bool), [1, 9], depth=4)


def test_tile_model_uses_b_sparsity_only():
    rng = np.random.default_rng(2)
    a = rng.integers(-3, 4, (4, 20, 4))
    b = rng.integers(-3, 4, (20, 4)) * (rng.random((20, 4)) < 0.3)
    tr = simulate_pe(a, b, depth=4, side="b")
    assert tr.result == [int((a[r] * b).sum()) for r in range(4)]
    assert tr.cycles == cycle_counts(b != 0, depth=4)[0]


def test_ideal_speedup():
    assert list(ideal_speedup([0.0, 0.5, 0.9, 0.99, 1.0], 4)) == [1.0, 2.0, 4.0, 4.0, 4.0]


# --------------------------------------------------------------------------- parameters

@pytest.mark.parametrize("kw, exc, match", [
    ({"lanes": 1}, ValueError, r"tensordash_pe\.lanes: 1 is not allowed; expected an integer in 2\.\.16"),
    ({"lanes": 17}, ValueError, r"lanes: 17 .* 2\.\.16"),
    ({"depth": 6}, ValueError, r"depth: 6 .* 1\.\.5"),  # 1: the dense baseline
    ({"pattern": "sparse"}, ValueError, r"pattern: 'sparse' is not allowed; expected 'default' or 'lookahead'"),
    ({"lanes": "4"}, TypeError, r"lanes: '4'"),
    ({"acc_width": 15}, ValueError, r"acc_width=15 .* allowed: acc_width >= a_width \+ b_width = 16"),
    ({"options": [(1, 0), (0, 0)]}, ValueError, r"first option must be \(0, 0\)"),
    ({"options": [(0, 0), (0, 1)]}, ValueError, r"no other option may have step 0"),
    ({"options": "abc"}, TypeError, r"options='abc' is not a sequence"),
])
def test_pe_rejects_bad_parameters(kw, exc, match):
    with pytest.raises(exc, match=match):
        TensorDashPE(**kw)


@pytest.mark.parametrize("kw, exc, match", [
    ({"mul_stages": 4}, ValueError, r"^tensordash_pe\.mul_stages: 4 is not allowed; expected an integer in 0\.\.3$"),
    ({"add_stages": -1}, ValueError, r"^tensordash_pe\.add_stages: -1 is not allowed; expected an integer in 0\.\.3$"),
    ({"add_stages": True}, TypeError, r"^tensordash_pe\.add_stages: True is not allowed"),
    ({"mul_stages": 1.0}, TypeError, r"^tensordash_pe\.mul_stages: 1\.0 is not allowed"),
])
def test_pe_rejects_stages_out_of_range(kw, exc, match):
    with pytest.raises(exc, match=match):
        TensorDashPE(**kw)
    with pytest.raises(exc, match=match.replace("tensordash_pe", "tensordash_tile")):
        TensorDashTile(**kw)


@pytest.mark.parametrize("family", ["tensordash_pe", "tensordash_tile"])
def test_cli_rejects_stages_out_of_range_in_one_line(capsys, tmp_path, family):
    assert main(["gen", family, "--mul-stages", "4", "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"{family}.mul_stages: 4 is not allowed; expected an integer in 0..3" in err
    assert main(["cosim", family, "--dtype", "fp16", "--add-stages", "9"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"{family}.add_stages: 9 is not allowed; expected an integer in 0..3" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("lanes", range(2, 17))
def test_latency_is_one_plus_multiplier_and_tree_stages_plus_fold(lanes):
    """``latency = 1 + mul_stages + ceil(log2 L) * add_stages + fold``, the same from the RTL parameters and the
    golden model (which counts the levels of its own pairwise tree and has its own fold formula)."""
    levels = {2: 1, 3: 2, 4: 2, 5: 3, 8: 3, 9: 4, 16: 4}.get(lanes, lane_tree_levels(lanes))
    assert lane_tree_levels(lanes) == levels == TensorDashPEParams(lanes=lanes).tree_levels
    fold = {0: 0, 1: 3, 2: 7, 3: 11}
    for mul, add in ((0, 0), (1, 0), (0, 1), (2, 1), (3, 3)):
        p = TensorDashPEParams(lanes=lanes, mul_stages=mul, add_stages=add)
        assert p.latency == pe_latency(lanes, mul, add) == 1 + mul + levels * add + fold[add]
        assert TensorDashTileParams(lanes=lanes, mul_stages=mul, add_stages=add).latency == p.latency
    assert TensorDashPE(lanes=lanes, mul_stages=2, add_stages=1).latency == 3 + levels + 3
    assert TensorDashTile(lanes=lanes, rows=2, mul_stages=1, add_stages=3).latency == 2 + 3 * levels + 11


@pytest.mark.parametrize("add_stages", [0, 1, 2, 3])
def test_fold_schedule_is_the_pairwise_tree_and_its_cycles_match_the_golden(add_stages):
    """The RTL's fold schedule, replayed slot by slot (thread ``u[k mod T]`` in slot ``k``, a sum back ``T``
    slots after its add, one hold register), computes the in-order pairwise tree over ``u[0..T-1]`` and is done
    when the golden's ``fold_cycles`` says."""
    assert accumulator_fold_cycles(add_stages) == fold_cycles(add_stages)
    if not add_stages:
        return
    t = add_stages + 1
    captures, adds = FOLD_SCHEDULE[t]
    loop = {k: f"u{k}" for k in range(t)}  # what each thread holds
    hold, ready = None, {}  # ready: thread -> slot its pending sum is back
    for slot in range(fold_cycles(add_stages)):
        thread = slot % t
        if thread in ready and ready[thread] <= slot:
            del ready[thread]
        if slot in captures:
            assert thread not in ready, "captured a thread whose sum is still in the adder"
            hold = loop[thread]
        if slot in adds:
            assert thread not in ready and hold is not None
            loop[thread], hold = f"({loop[thread]}+{hold})", None
            ready[thread] = slot + t
    final = loop[(adds[-1]) % t]
    expected = {2: "(u1+u0)", 3: "((u1+u0)+u2)", 4: "((u3+u2)+(u1+u0))"}[t]  # pairwise, each add commuted
    assert final == expected and ready == {adds[-1] % t: adds[-1] + t} and adds[-1] + t == fold_cycles(add_stages)


@pytest.mark.parametrize("threads", [2, 3, 4])
def test_golden_interleaved_threads_fold_in_the_loop_order(threads):
    """Busy cycle j goes to thread j mod T; the result is the pairwise tree over the threads in the order the
    loop presents them after the last busy cycle (C + 1, C + 2, ... mod T). fp32 operands, two lanes, one
    pair per lane and row, so every row is one busy cycle: the expected value is computed by hand."""
    rng = np.random.default_rng(threads)
    for rows in (1, threads - 1, threads, 2 * threads + 1):
        a = rng.normal(size=(rows, 2)).astype(np.float32).view(np.uint32).astype(np.int64)
        b = (rng.normal(size=(rows, 2)) * 2.0 ** rng.integers(-20, 20, (rows, 2))).astype(np.float32)
        b = b.view(np.uint32).astype(np.int64)
        tr = simulate_pe(a, b, depth=2, dtype="fp32", threads=threads)
        assert tr.cycles == rows
        acc = [np.uint32(0)] * threads
        for j in range(1, rows + 1):
            p0, p1 = (fp_mul(np.uint32(a[j - 1, l]), np.uint32(b[j - 1, l]), "fp32") for l in (0, 1))
            acc[j % threads] = fp_add(acc[j % threads], fp_add(p0, p1))
        u = [acc[(rows + 1 + i) % threads] for i in range(threads)]
        level = u
        while len(level) > 1:
            level = [fp_add(level[i], level[i + 1]) if i + 1 < len(level) else level[i]
                     for i in range(0, len(level), 2)]
        assert tr.result == [int(np.uint32(level[0]))]
    with pytest.raises(ValueError, match="threads=0"):
        simulate_pe(a, b, depth=2, dtype="fp32", threads=0)


def test_delayed_and_pass_cycles():
    assert delayed([5, 6, 7, 8], 2) == [0, 0, 5, 6] and delayed([5, 6], 0) == [5, 6] and delayed([5], 3, 9) == [9]
    assert pass_cycles([0, 4], pe_latency(4, 2, 1)).tolist() == [8, 12]
    assert pass_cycles([0, 4], pe_latency(4, 2, 0)).tolist() == [3, 7]


def test_tile_rows_range():
    with pytest.raises(ValueError, match=r"tensordash_tile\.rows: 0 .* 1\.\.16"):
        TensorDashTile(rows=0)
    assert TensorDashTileParams(rows=1).rows == 1


def test_python_only_options_replace_pattern():
    pe = TensorDashPE(lanes=4, depth=3, options=[(0, 0), (1, 0), (1, 1), (9, 0)])
    assert pe.options == ((0, 0), (1, 0), (1, 1))
    assert pe.levels == ((0, 2), (1, 3))


def test_cli_rejects_bad_lanes_in_one_line(capsys):
    assert main(["gen", "tensordash_pe", "--lanes", "40", "-o", "/tmp/accelgen-never"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "lanes: 40 is not allowed; expected an integer in 2..16" in err


def test_cli_sweep_rejects_bad_sparsity(capsys):
    assert main(["tensordash-speedup", "--sparsity", "0.5,1.5"]) == 2
    assert "outside 0..1" in capsys.readouterr().err


def test_cli_sweep_model_only_json(capsys):
    import json
    assert main(["tensordash-sweep", "--no-cosim", "--json", "--sparsity", "0,0.5,0.99", "--streams", "4",
                 "--rows", "16"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["sparsity"] for r in rows] == [0.0, 0.5, 0.99]
    assert rows[0]["model_cycles"] == rows[0]["dense_cycles"] == 64
    assert rows[2]["ideal"] == 4.0 and rows[2]["model_cycles"] >= 16


# --------------------------------------------------------------------------- stimulus and tables

def test_streams_cover_directed_sections_and_sparsities():
    streams = pe_streams(TensorDashPEParams(), vectors=48, seed=3)
    sections = {s.section for s in streams}
    assert {"empty", "all_zero_a", "all_zero_b", "all_zero_both", "dense", "one_per_row", "only_lane0",
            "only_lane3", "extremes", "rows1", "rows3", "random_a", "random_b", "random_both"} <= sections
    assert {f"reach_option{k}" for k in range(8)} <= sections
    one = next(s for s in streams if s.section == "one_per_row")
    assert (((one.a != 0) & (one.b != 0)).sum(axis=1) == 1).all()
    lengths = {s.rows for s in streams if s.section.startswith("random")}
    assert len(lengths) > 10  # ragged


def test_table_checks_every_cycle_and_counts_busy_cycles():
    p = TensorDashPEParams(lanes=4, depth=3)
    table = pe_table(p, vectors=16, seed=2)
    assert table.info["busy_cycles"] == sum(table.info["model_cycles"])
    assert table.info["busy_cycles"] <= table.info["dense_cycles"]
    assert all(c.all() for c in table.check.values())
    assert int(table.expect["done"][0]) == 1 and int(table.expect["done"].min()) == 0


def test_sched_table_directed_rows():
    table = sched_table(TensorDashSchedParams_default(), vectors=10, seed=1)
    assert table.cycles == 2 + 4 * 4 + 4 + 10
    assert int(table.expect["as_rows"][0]) == 4  # nothing effectual: all rows drained
    assert [int(table.expect[f"sel__{l}"][1]) for l in range(4)] == [1, 1, 1, 1]


@pytest.mark.parametrize("cls", [TensorDashPEParams, TensorDashTileParams])
@pytest.mark.parametrize("stages", [(3, 0), (1, 2)], ids=["m3", "m1a2"])
def test_pipelined_table_is_the_unpipelined_one_with_drain_and_delayed_acc(cls, stages):
    """Same schedule; after each stream's busy cycles ``latency - 1`` drain cycles (take, sel 0; done 0).
    Without add_stages acc is the unpipelined running sum seen ``latency - 1`` cycles later; with them (the
    interleaved accumulator) acc is checked only when done, where it is the same result."""
    kw = {"lanes": 3, "depth": 3, "a_width": 6, "b_width": 5, "acc_width": 12} | ({"rows": 2} if cls is TensorDashTileParams
                                                                        else {})
    mul, add = stages
    base, pipe = cls(**kw), cls(**kw, mul_stages=mul, add_stages=add)
    drain = pipe.latency - 1
    assert drain == mul + 2 * add + fold_cycles(add)
    t0, t1 = pe_table(base, vectors=12, seed=3, gaps=False), pe_table(pipe, vectors=12, seed=3, gaps=False)
    assert t1.info["model_cycles"] == t0.info["model_cycles"] and t1.info["latency"] == drain + 1
    assert t1.info["pass_cycles"] == [c + drain + 1 for c in t0.info["model_cycles"]]
    assert t1.cycles == t0.cycles + drain * t0.info["vectors"]
    # cut the drain cycles out again: what is left is the unpipelined table's take / sel / done
    ends0, ends1, t = [], [], 0  # per stream: the cycle after its busy cycles, in t0 and in t1
    for k, c in enumerate(t0.info["model_cycles"]):
        t += 1 + c  # start, busy cycles
        ends0.append(t)
        ends1.append(t + k * drain)
    keep = np.ones(t1.cycles, bool)
    for end in ends1:
        keep[end:end + drain] = False
        assert (t1.expect["done"][end:end + drain] == 0).all() and (t1.expect["take"][end:end + drain] == 0).all()
    for name in t0.expect:
        if not name.startswith("acc"):
            assert (t1.expect[name][keep] == t0.expect[name]).all(), name
    acc_names = [n for n in t1.expect if n.startswith("acc")]
    if add:  # interleaved: checked when done only, and then the unpipelined PE's result (integers)
        for name in acc_names:
            assert (t1.check[name] == (t1.expect["done"] == 1)).all()
            done0, done1 = t0.expect["done"] == 1, t1.expect["done"] == 1
            assert (t1.expect[name][done1] == t0.expect[name][done0]).all()
        return
    # the accumulator: the unpipelined running sum, held through each drain, seen drain cycles later
    for name in acc_names:
        held = [int(v) for v in t0.expect[name]]
        for end in reversed(ends0):
            held[end:end] = [held[end]] * drain
        assert [int(v) for v in t1.expect[name]] == delayed(held, drain)


def TensorDashSchedParams_default():
    from accelgen.rtl.tensordash import TensorDashSchedParams
    return TensorDashSchedParams()


# --------------------------------------------------------------------------- Amaranth simulator (layer 2)

@pytest.mark.parametrize("kw", [
    {"lanes": 4, "depth": 2, "a_width": 4, "b_width": 4, "acc_width": 8},
    # degenerate: two lanes, shallowest buffer, unsigned, accumulator wraps
    {"lanes": 2, "depth": 2, "a_width": 4, "b_width": 4, "acc_width": 8, "signed": False},
    # pipelined (issue 19): odd lane counts send a value up a tree level past an adder (it waits add_stages
    # cycles); 32x32-bit products make tree sums wider than the 64-bit accumulator; every stage count 1..3
    {"lanes": 3, "depth": 3, "a_width": 4, "b_width": 4, "acc_width": 8, "mul_stages": 1, "add_stages": 2},
    {"lanes": 2, "depth": 2, "a_width": 4, "b_width": 4, "acc_width": 8, "signed": False, "mul_stages": 3},
    {"lanes": 3, "depth": 2, "a_width": 32, "b_width": 32, "acc_width": 64, "mul_stages": 1, "add_stages": 1},
    {"lanes": 3, "depth": 2, "dtype": "fp16", "mul_stages": 2, "add_stages": 1},
    {"lanes": 5, "depth": 2, "dtype": "bf16", "flush_subnormals": True, "mul_stages": 1, "add_stages": 3},
    # the fp cases above sum fused (the default); the lane tree of FPAdders, pipelined, with an odd lane
    {"lanes": 3, "depth": 2, "dtype": "fp16", "mul_stages": 2, "add_stages": 1, "summation": "tree"},
    # fused with adder stages only: no pipeline in front of the loop, its three threads driven by start and step
    {"lanes": 4, "depth": 2, "dtype": "fp16", "add_stages": 2},
], ids=["l4d2", "l2d2_unsigned", "l3d3_m1a2", "l2d2_unsigned_m3", "l3_32x32_m1a1", "l3_fp16_m2a1",
        "l5_bf16_ftz_m1a3", "l3_fp16_m2a1_tree", "l4_fp16_a2"])
def test_pe_matches_table_in_amaranth_simulator(kw):
    p = TensorDashPEParams(**kw)
    table = pe_table(p, vectors=24 if p.dtype == "int" else 8, seed=4)
    dut = TensorDashPE(**p.model_dump())
    ports = {}
    for name in list(table.inputs) + list(table.expect):
        parts = name.split("__")
        port = getattr(dut, parts[0])
        for idx in parts[1:]:
            port = port[int(idx)]
        ports[name] = port
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    mismatches = []

    async def bench(ctx):
        for t in range(table.cycles):
            for name, col in table.inputs.items():
                port = ports[name]
                v = int(col[t])
                if port.shape().signed and v >> (len(port) - 1):
                    v -= 1 << len(port)
                ctx.set(port, v)
            for name, col in table.expect.items():
                got = ctx.get(ports[name]) & ((1 << len(ports[name])) - 1)
                if table.check[name][t] and got != int(col[t]):
                    mismatches.append((t, name, got, int(col[t])))
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    assert mismatches == []
