"""Pipelined floating-point units (rtl/fp.py, ``stages``): the combinational unit's results, ``stages`` cycles later.

Layers: validation; Amaranth's simulator for every unit and number of stages (special values,
rounding ties, under/overflow, random operands) against the numpy golden
(:mod:`accelgen.golden.fp`); one Verilator run of the emitted Verilog; synthesis (the path gets
shorter, the flip-flops more); mutants that show the delay check fails when a register is missing.
"""

from __future__ import annotations

import sys
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from amaranth import Module
from amaranth.back import verilog
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from accelgen.cosim.native import run_native
from accelgen.cosim.vectors import CycleTable
from accelgen.fit.generic_gates import gate_statistics
from accelgen.golden import fp as gold
from accelgen.rtl import fp as rtl_fp
from accelgen.rtl.fp import ADD_CUTS, MUL_CUTS, FPAdder, FPMultiplier

sys.path.insert(0, str(Path(__file__).parent))
import pipeline_sim  # noqa: E402
from pipeline_sim import delay_mismatches  # noqa: E402

#: (kind, operand dtype) of every unit
UNITS = [("mul", "fp16"), ("mul", "bf16"), ("mul", "fp32"), ("add", "fp32")]
STAGES = range(FPMultiplier.MAX_STAGES + 1)


def make_unit(kind: str, dtype: str, stages: int, flush: bool = False, **context):
    return FPMultiplier(dtype, flush, stages=stages, **context) if kind == "mul" else FPAdder(flush, stages=stages,
                                                                                             **context)


def output(unit):
    return unit.product if isinstance(unit, FPMultiplier) else unit.sum


def golden(kind: str, dtype: str, a, b, flush: bool = False) -> np.ndarray:
    y = gold.fp_mul(a, b, dtype, flush) if kind == "mul" else gold.fp_add(a, b, flush)
    return y.astype(np.uint64)


# ---- operands

def _compose(rng, exps, dtype, frac_zero_p=0.0):
    """Random signs and fractions with the given biased exponents."""
    e, f = gold.FP_FORMATS[dtype]
    n = len(exps)
    frac = rng.integers(0, 1 << f, n, dtype=np.uint64)
    frac[rng.random(n) < frac_zero_p] = 0
    sign = rng.integers(0, 2, n, dtype=np.uint64)
    return (sign << np.uint64(e + f)) | (np.asarray(exps, np.uint64) << np.uint64(f)) | frac


def operands(kind: str, dtype: str, n_random: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Operand pairs: every special value against four shuffles of them, rounding ties, results near
    the fp32 subnormal and overflow ranges, uniform bit patterns and realistic values."""
    rng = np.random.default_rng([seed, UNITS.index((kind, dtype))])
    e = gold.FP_FORMATS[dtype][0]
    bias, emax = (1 << (e - 1)) - 1, (1 << e) - 2
    sv = gold.special_values(dtype).astype(np.uint64)
    a = [np.tile(sv, 4)]
    b = [np.concatenate([rng.permutation(sv) for _ in range(4)])]
    k = 60
    if kind == "mul" and e == 8:  # products through the fp32 subnormal range and past the overflow threshold
        for lo, hi in ((-160, -118), (120, 130)):
            target = rng.integers(lo, hi, k, endpoint=True)
            ea = rng.integers(max(1, 1 + bias + lo - (emax - bias)), emax, k, endpoint=True)
            eb = target - (ea - bias) + bias
            ok = (eb >= 1) & (eb <= emax)
            a.append(_compose(rng, ea[ok], dtype, 0.3))
            b.append(_compose(rng, eb[ok], dtype, 0.3))
    if kind == "mul" and dtype == "fp32":  # (1 + x 2**-12)(1 + y 2**-12): the dropped bits are one half
        x, y = (rng.integers(0, 1 << 11, k, dtype=np.uint64) << np.uint64(12) for _ in range(2))
        a.append(np.uint64(127 << 23 | 1 << 11) | x)
        b.append(np.uint64(127 << 23 | 1 << 11) | y)
    if kind == "add":  # b half an ulp of a (or 1.5, 2.5 ulps), both signs; exact and near cancellation
        ea = rng.integers(30, 255, k)
        a.append(_compose(rng, ea, dtype))
        b.append(_compose(rng, ea - rng.integers(23, 26, k), dtype, 1.0))
        x = _compose(rng, rng.integers(1, 255, k), dtype)
        a += [x, x]
        b += [x ^ np.uint64(1 << 31), (x ^ np.uint64(1 << 31)) + np.uint64(1)]
    w = gold.fp_width(dtype)
    a += [rng.integers(0, 1 << w, n_random, dtype=np.uint64),
          gold.random_fp_bits(rng, n_random, dtype, scale=100.0).astype(np.uint64)]
    b += [rng.integers(0, 1 << w, n_random, dtype=np.uint64),
          gold.random_fp_bits(rng, n_random, dtype, scale=0.01).astype(np.uint64)]
    return np.concatenate(a), np.concatenate(b)


# ---- the Amaranth simulator and the delay check

def simulate(unit, a, b) -> np.ndarray:
    """The unit's result bits per cycle (:func:`pipeline_sim.simulate`)."""
    return pipeline_sim.simulate(unit, a, b, "product" if isinstance(unit, FPMultiplier) else "sum").astype(np.uint64)


# ---- validation and latency

@pytest.mark.parametrize("stages,exc,match", [
    (4, ValueError, r"stages: 4 is not allowed; expected an integer in 0\.\.3"),
    (-1, ValueError, r"stages: -1 is not allowed; expected an integer in 0\.\.3"),
    (1.0, TypeError, r"stages: 1\.0 is not allowed; expected an integer in 0\.\.3"),
    ("2", TypeError, r"stages: '2' is not allowed"),
    (True, TypeError, r"stages: True is not allowed"),
])
def test_stages_out_of_range_or_wrong_type_raise(stages, exc, match):
    with pytest.raises(exc, match=match):
        FPMultiplier("bf16", stages=stages)
    with pytest.raises(exc, match=match):
        FPAdder(stages=stages)


@pytest.mark.parametrize("kind,dtype", UNITS)
def test_latency_is_stages_and_each_stage_has_its_cut(kind, dtype):
    for s in STAGES:
        unit = make_unit(kind, dtype, s)
        assert unit.latency == unit.stages == s
        assert len(set(unit.cuts)) == s
    table = MUL_CUTS[dtype] if kind == "mul" else ADD_CUTS
    assert sorted(table) == list(STAGES)
    # the class attribute is the combinational unit's latency, as before pipelining
    assert FPMultiplier.latency == FPAdder.latency == 0


def test_combinational_unit_has_no_register():
    for kind, dtype in UNITS:
        text = verilog.convert(make_unit(kind, dtype, 0), name="u", emit_src=False)
        assert "posedge" not in text and "clk" not in text
        assert "posedge clk" in verilog.convert(make_unit(kind, dtype, 1), name="u", emit_src=False)


# ---- Amaranth simulator: the golden results, exactly ``stages`` cycles later

@pytest.mark.parametrize("stages", STAGES)
@pytest.mark.parametrize("kind,dtype", UNITS)
def test_pipelined_unit_is_golden_delayed_by_stages(kind, dtype, stages):
    a, b = operands(kind, dtype)
    expected = golden(kind, dtype, a, b)
    got = simulate(make_unit(kind, dtype, stages), a, b)
    bad = delay_mismatches(got, expected, stages)
    assert bad.size == 0, [(hex(a[t]), hex(b[t]), hex(got[t + stages]), hex(expected[t])) for t in bad[:5]]


@pytest.mark.parametrize("kind,dtype", UNITS)
def test_pipelined_unit_with_flushing(kind, dtype):
    a, b = operands(kind, dtype, n_random=100, seed=1)
    expected = golden(kind, dtype, a, b, flush=True)
    stages = FPMultiplier.MAX_STAGES
    got = simulate(make_unit(kind, dtype, stages, flush=True), a, b)
    assert delay_mismatches(got, expected, stages).size == 0


# ---- a unit in its context: ends the block leaves unregistered take registers of their own

CONTEXTS = [{"input_registered": i, "output_registered": o} for i in (True, False) for o in (True, False)]


@pytest.mark.parametrize("context", CONTEXTS, ids=lambda c: f"in{int(c['input_registered'])}out{int(c['output_registered'])}")
@pytest.mark.parametrize("kind,dtype", UNITS)
def test_unit_in_context_is_golden_delayed_by_stages(kind, dtype, context):
    a, b = operands(kind, dtype, n_random=100, seed=2)
    expected = golden(kind, dtype, a, b)
    for stages in STAGES:
        unit = make_unit(kind, dtype, stages, **context)
        assert unit.latency == stages and len(set(unit.cuts)) == stages
        assert delay_mismatches(simulate(unit, a, b), expected, stages).size == 0, (stages, unit.cuts)


def test_context_cuts_register_the_open_ends_while_a_register_is_left_inside():
    table = {0: (), 1: ("x",), 2: ("x", "y"), 3: ("operands", "x", "y")}
    assert rtl_fp.context_cuts(table, 3) == ("operands", "x", "y")                    # a unit alone
    assert rtl_fp.context_cuts(table, 1, False, False) == ("x",)                      # no register to spare
    assert rtl_fp.context_cuts(table, 2, False, False) == ("x", "result")              # the output first
    assert rtl_fp.context_cuts(table, 3, False, False) == ("operands", "x", "result")
    assert rtl_fp.context_cuts(table, 3, True, False) == ("x", "y", "result")
    assert rtl_fp.context_cuts(table, 3, False, True) == ("operands", "x", "y")
    assert rtl_fp.context_cuts(table, 2, False, True) == ("operands", "x")


def test_result_register_is_the_units_output():
    unit = make_unit("add", "fp32", 2, output_registered=False)
    text = verilog.convert(unit, name="u", emit_src=False)
    assert "result_out" in text and unit.cuts[-1] == "result"


# ---- mutants: the delay check catches a missing register

def test_mutant_missing_stage_is_caught(monkeypatch):
    """A multiplier that claims two stages but has one register: every result comes a cycle early."""
    monkeypatch.setitem(MUL_CUTS["bf16"], 2, ("product",))
    unit = FPMultiplier("bf16", stages=2)
    assert unit.latency == 2
    a, b = operands("mul", "bf16", n_random=50)
    expected = golden("mul", "bf16", a, b)
    got = simulate(unit, a, b)
    assert delay_mismatches(got, expected, 2).size > len(a) // 2
    assert delay_mismatches(got, expected, 1).size == 0  # it is exactly one stage short


def test_mutant_field_not_registered_is_caught(monkeypatch):
    """A cut that lets the sign through unregistered: results whose sign differs from the next row's fail."""
    stage = rtl_fp._Pipeline.stage

    def leaky(self, point, values):
        regs = stage(self, point, values)
        if point in self.cuts and hasattr(values, "sign"):
            regs.sign = values.sign
        return regs

    monkeypatch.setattr(rtl_fp._Pipeline, "stage", leaky)
    a, b = operands("mul", "fp32", n_random=50)
    expected = golden("mul", "fp32", a, b)
    got = simulate(FPMultiplier("fp32", stages=3), a, b)
    assert delay_mismatches(got, expected, 3).size > 0


# ---- the emitted Verilog in Verilator

class _PipelinedTop(wiring.Component):
    """The bf16 multiplier and the fp32 adder with two stages each, side by side."""

    def __init__(self, stages: int):
        self.stages = stages
        super().__init__({"mul_a": In(16), "mul_b": In(16), "mul_y": Out(32),
                          "add_a": In(32), "add_b": In(32), "add_y": Out(32)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.mul = mul = FPMultiplier("bf16", stages=self.stages)
        m.submodules.add = add = FPAdder(stages=self.stages)
        m.d.comb += [mul.a.eq(self.mul_a), mul.b.eq(self.mul_b), self.mul_y.eq(mul.product),
                     add.a.eq(self.add_a), add.b.eq(self.add_b), self.add_y.eq(add.sum)]
        return m


@pytest.mark.cosim
def test_emitted_verilog_is_golden_delayed_by_two_cycles(tmp_path):
    stages, name = 2, "fp_pipe2"
    path = tmp_path / f"{name}.v"
    path.write_text(verilog.convert(_PipelinedTop(stages), name=name, emit_src=False))
    streams = {"mul": operands("mul", "bf16", n_random=2000, seed=5),
               "add": operands("add", "fp32", n_random=2000, seed=5)}
    cycles = max(len(a) for a, _ in streams.values()) + stages
    inputs, expect, check = {}, {}, {}
    for unit, (a, b) in streams.items():
        n = len(a)
        for port, v in (("a", a), ("b", b)):
            inputs[f"{unit}_{port}"] = np.zeros(cycles, np.uint64)
            inputs[f"{unit}_{port}"][:n] = v
        expect[f"{unit}_y"] = np.zeros(cycles, np.uint64)
        expect[f"{unit}_y"][stages:stages + n] = golden(unit, "bf16" if unit == "mul" else "fp32", a, b)
        check[f"{unit}_y"] = np.zeros(cycles, bool)
        check[f"{unit}_y"][stages:stages + n] = True  # row t's result at row t + stages
    table = CycleTable(inputs=inputs, expect=expect, check=check)
    ports = [{"name": p, "direction": d, "width": w, "signed": False} for p, d, w in (
        ("clk", "in", 1), ("rst", "in", 1), ("mul_a", "in", 16), ("mul_b", "in", 16), ("mul_y", "out", 32),
        ("add_a", "in", 32), ("add_b", "in", 32), ("add_y", "out", 32))]
    manifest = {"name": name, "clock": "clk", "reset": "rst", "ports": ports, "latency": stages}
    result = run_native(path, manifest, table, seed=5, waves_on_failure=False)
    assert result.passed, (result.error, result.first_mismatches)
    assert result.checks == table.checks >= 4000


# ---- synthesis: a shorter path, more flip-flops

@pytest.mark.synth
@pytest.mark.parametrize("kind,dtype,depth_0,depth_max", [("add", "fp32", 160, 53), ("mul", "bf16", 88, 33)])
def test_pipelining_shortens_the_path(kind, dtype, depth_0, depth_max):
    stats = [gate_statistics(verilog.convert(make_unit(kind, dtype, s), name="u", emit_src=False), "u")
             for s in STAGES]
    depths = [s.logic_depth for s in stats]
    flops = [s.flip_flops for s in stats]
    # measured 2026-11-24 (rtl/fp.py docstring); the margin absorbs small changes of ABC's mapping
    assert depths[0] == pytest.approx(depth_0, rel=0.1)
    assert depths[-1] == pytest.approx(depth_max, rel=0.15)
    assert depths[-1] < depths[0] / 2
    assert all(later <= earlier for earlier, later in pairwise(depths)), depths
    assert flops[0] == 0 and all(later > earlier for earlier, later in pairwise(flops)), flops
