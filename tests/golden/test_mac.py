"""The MAC golden model, and the generator against it in Amaranth's own simulator."""

import itertools

import numpy as np
import pytest
from amaranth.sim import Simulator
from hypothesis import given, settings
from hypothesis import strategies as st

from accelgen.cosim.mac import mac_fp_stimulus, mac_stimulus, mac_table
from accelgen.golden.mac import mac_reference, mac_reference_fp, wrap
from accelgen.rtl import MAC, MACParams


def test_wrap_signed_and_unsigned():
    assert wrap(127 + 1, 8, True) == -128
    assert wrap(-129, 8, True) == 127
    assert wrap(256, 8, False) == 0
    assert wrap(-1, 8, False) == 255


def test_reference_clear_and_enable_semantics():
    acc = mac_reference([2, 3, 4, 5, 6], [10, 10, 10, 10, 10], en=[1, 0, 1, 1, 0], clear=[0, 0, 1, 0, 1],
                        acc_width=16, signed=True)
    assert list(acc) == [20, 20, 40, 90, 0]


def test_reference_addend_input():
    acc = mac_reference([1, 2, 3], [5, 5, 5], en=[1, 1, 1], clear=[1, 0, 1], c_in=[100, 7, -50],
                        acc_width=16, signed=True)
    assert list(acc) == [105, 115, -35]


def test_reference_wraps_like_twos_complement():
    n = 5
    acc = mac_reference([127] * n, [127] * n, [1] * n, [0] * n, acc_width=16, signed=True)
    assert list(acc) == [wrap(127 * 127 * (i + 1), 16, True) for i in range(n)]
    assert acc[2] < 0  # 48387 wrapped


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_reference_equals_segmented_sum_modulo(data):
    """Independent formulation: sum of enabled products since the last clear, reduced mod 2**acc_width."""
    width = data.draw(st.integers(1, 12))
    signed = data.draw(st.booleans())
    acc_width = data.draw(st.integers(2 * width, 2 * width + 6))
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    n = data.draw(st.integers(1, 40))
    a = data.draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    b = data.draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    en = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    clear = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    got = mac_reference(a, b, en, clear, acc_width=acc_width, signed=signed)
    for t in range(n):
        start = max([s for s in range(t + 1) if clear[s]], default=0)
        total = sum(a[s] * b[s] for s in range(start, t + 1) if en[s])
        mod = total % (1 << acc_width)
        if signed and mod >= 1 << (acc_width - 1):
            mod -= 1 << acc_width
        assert got[t] == mod


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_interleaved_sums_are_segmented_sums_per_thread(data):
    """Independent formulation of ``threads`` = L: ``acc[t]`` is the sum of the enabled products of the
    pairs ``s = t, t - L, t - 2L, ...`` back to (and including) the last one with ``clear``."""
    threads = data.draw(st.integers(2, 4))
    n = data.draw(st.integers(0, 30))
    a = data.draw(st.lists(st.integers(-8, 7), min_size=n, max_size=n))
    b = data.draw(st.lists(st.integers(-8, 7), min_size=n, max_size=n))
    en = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    clear = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    c_in = data.draw(st.lists(st.integers(-500, 500), min_size=n, max_size=n))
    got = mac_reference(a, b, en, clear, acc_width=10, signed=True, c_in=c_in, threads=threads)
    assert len(got) == n
    for t in range(n):
        total = 0
        for s_ in range(t, -1, -threads):
            total += a[s_] * b[s_] if en[s_] else 0
            if clear[s_]:
                total += c_in[s_]
                break
        assert got[t] == wrap(total, 10, True)


def test_interleaved_fp_sums_keep_their_own_order():
    """Two fp sums side by side: 1 + 2**-24 + 2**-24 rounds to 1 in its thread, and a NaN, an Inf or a clear
    in one thread does not touch the other."""
    from accelgen.golden.fp import from_float32

    one, tiny, inf = (int(v) for v in from_float32(np.float32([1.0, 2.0 ** -24, np.inf]), "fp32"))
    zero = 0
    a = [one, inf, tiny, inf, tiny, one, one, one]
    b = [one, one, one, zero, one, one, one, one]
    en, clear = [1, 1, 1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0, 0, 1]
    acc = mac_reference_fp(a, b, en, clear, dtype="fp32", threads=2)
    assert list(acc) == [0x3F800000, 0x7F800000, 0x3F800000, 0x7FC00000, 0x3F800000, 0x7FC00000,
                         0x3F800000, 0]  # thread 0: 1, +tiny, +tiny, hold; thread 1: Inf, NaN, NaN, clear -> +0
    alone = mac_reference_fp(a[0::2], b[0::2], en[0::2], clear[0::2], dtype="fp32")
    assert list(acc[0::2]) == list(alone)


@pytest.mark.parametrize("threads", [2, 3, 4])
def test_stimulus_sequences_reach_every_thread(threads):
    """With L interleaved sums the overflow section still wraps a sum, and every sum sees each (en, clear)
    combination after each other one."""
    p = MACParams(a_width=4, b_width=4, acc_width=10, add_stages=threads - 1)
    stim = mac_stimulus(p, vectors=0, seed=3)
    acc = mac_reference(stim["a"], stim["b"], stim["en"], stim["clear"], acc_width=10, signed=True, threads=threads)
    a, b = np.array(stim["a"], dtype=np.int64), np.array(stim["b"], dtype=np.int64)
    wraps = [t for t in range(threads, len(acc)) if stim["en"][t] and not stim["clear"][t]
             and a[t] * b[t] > 0 and int(acc[t]) < int(acc[t - threads])]
    assert wraps  # a positive product made a sum smaller: it wrapped
    sections = stim["sections"]
    start = sections["corners"]
    en_clear = list(zip(stim["en"], stim["clear"]))[start:start + sections["en_clear"]]
    for k in range(threads):
        seen = en_clear[k::threads]
        assert set(itertools.pairwise(seen)) == set(itertools.product(seen, seen))


def test_fp_stimulus_with_threads_keeps_the_random_section():
    """The per-thread layout repeats directed sequences only: the random pairs (and their count) are the
    unpipelined MAC's, and each overflow direction runs in its own sum."""
    one = mac_fp_stimulus(MACParams(dtype="bf16"), 500, 4)
    two = mac_fp_stimulus(MACParams(dtype="bf16", add_stages=1), 500, 4)
    assert one["sections"]["random"] == two["sections"]["random"] == 500
    assert np.array_equal(one["a"][-500:], two["a"][-500:])
    assert two["sections"]["en_clear"] == 2 * one["sections"]["en_clear"]
    assert two["sections"]["overflow"] == one["sections"]["overflow"]  # 2 directions x 6 pairs either way


def test_stimulus_covers_directed_sections():
    p = MACParams(a_width=4, b_width=4, acc_width=10)
    stim = mac_stimulus(p, vectors=100, seed=3)
    assert set(stim["sections"]) == {"corners", "en_clear", "overflow", "random"}
    assert -8 in stim["a"] and 7 in stim["b"]
    # the overflow section must really wrap the accumulator
    acc = mac_reference(stim["a"], stim["b"], stim["en"], stim["clear"], acc_width=10, signed=True)
    a = np.array(stim["a"], dtype=np.int64)
    b = np.array(stim["b"], dtype=np.int64)
    assert any(int(acc[t]) < 0 and a[t] * b[t] > 0 and int(acc[t - 1]) > 0 for t in range(1, len(acc)))


def test_stimulus_is_reproducible_from_seed():
    p = MACParams()
    t1, t2, t3 = mac_table(p, 50, seed=5), mac_table(p, 50, seed=5), mac_table(p, 50, seed=6)
    assert all(np.array_equal(t1.inputs[k], t2.inputs[k]) for k in t1.inputs)
    assert not np.array_equal(t1.inputs["a"], t3.inputs["a"])


@pytest.mark.parametrize("kw", [
    dict(a_width=4, b_width=4, acc_width=9, signed=True),
    dict(a_width=5, b_width=3, acc_width=8, signed=False, input_reg=True, zero_gating=True),
    dict(a_width=6, b_width=6, acc_width=14, signed=True, input_reg=True, product_reg=True, output_reg=True),
    dict(a_width=4, b_width=5, acc_width=12, signed=True, addend_input=True, product_reg=True),
    dict(a_width=4, b_width=4, acc_width=9, signed=False, addend_input=True),
    dict(a_width=4, b_width=4, acc_width=10, signed=True, mul_stages=2, add_stages=1),
    dict(a_width=4, b_width=5, acc_width=12, signed=True, addend_input=True, input_reg=True, zero_gating=True,
         mul_stages=3, add_stages=2, output_reg=True),
    dict(a_width=4, b_width=4, acc_width=9, signed=False, product_reg=True, add_stages=3),
])
def test_generator_matches_model_in_amaranth_simulator(kw):
    """Layer 2: the Amaranth netlist (before Verilog) against the cycle table."""
    params = MACParams(**kw)
    table = mac_table(params, vectors=300, seed=11)
    dut = MAC(**kw)
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    mismatches = []

    async def bench(ctx):
        for t in range(table.cycles):
            for name, col in table.inputs.items():
                port = getattr(dut, name)
                width = len(port)
                v = int(col[t])
                if port.shape().signed and v >> (width - 1):
                    v -= 1 << width
                ctx.set(port, v)
            got = ctx.get(dut.acc) & ((1 << params.acc_width) - 1)
            if got != int(table.expect["acc"][t]):
                mismatches.append((t, got, int(table.expect["acc"][t])))
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    assert mismatches == []


def _drive(ctx, dut, params, table, t):
    for name, col in table.inputs.items():
        port = getattr(dut, name)
        v = int(col[t])
        if port.shape().signed and v >> (len(port) - 1):
            v -= 1 << len(port)
        ctx.set(port, v)
    return ctx.get(dut.acc) & ((1 << params.acc_width) - 1)


@pytest.mark.parametrize("kw", [
    dict(a_width=4, b_width=4, acc_width=10, mul_stages=2, add_stages=3),  # int: the reset "live" delay line
    dict(dtype="bf16", add_stages=2, mul_stages=2),  # fp without addend_input: the same
    dict(dtype="bf16", add_stages=2, addend_input=True, product_reg=True),  # fp bypass registers with reset
])
def test_reset_clears_the_sums_in_flight(kw):
    """The adders' pipeline registers have no reset: after a reset in the middle of a run every sum
    starts at 0 again, and the cell follows the cycle table from the reset on."""
    from amaranth import ClockDomain, Module

    params = MACParams(**kw)
    before, after = mac_table(params, vectors=60, seed=2), mac_table(params, vectors=200, seed=3)
    dut = MAC(**kw)
    top = Module()
    top.domains.sync = sync = ClockDomain("sync")
    top.submodules.dut = dut
    sim = Simulator(top)
    sim.add_clock(1e-6)
    mismatches = []

    async def bench(ctx):
        for t in range(before.info["vectors"]):
            _drive(ctx, dut, params, before, t)  # sums and products in flight, nonzero
            await ctx.tick()
        ctx.set(sync.rst, 1)
        await ctx.tick()
        ctx.set(sync.rst, 0)
        for t in range(after.cycles):
            got = _drive(ctx, dut, params, after, t)
            if got != int(after.expect["acc"][t]):
                mismatches.append((t, got, int(after.expect["acc"][t])))
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    assert mismatches == []
