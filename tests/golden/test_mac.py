"""The MAC golden model, and the generator against it in Amaranth's own simulator."""

import numpy as np
import pytest
from amaranth.sim import Simulator
from hypothesis import given, settings
from hypothesis import strategies as st

from accelgen.cosim.mac import mac_stimulus, mac_table
from accelgen.golden.mac import mac_reference, wrap
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
