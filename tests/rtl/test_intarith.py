"""Pipelined integer units (rtl/intarith.py): exact products and sums, ``stages`` cycles later.

Layers: validation and register placement; Amaranth's simulator for signed and unsigned shapes and
0..3 stages (random operands and the extremes) against Python's integers; one Verilator run of the
emitted Verilog; synthesis (the path gets shorter, the flip-flops more; the multiplier in the mapped flow);
mutants that show the delay check fails when a register is missing or leaks.
"""

from __future__ import annotations

import sys
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from amaranth import Module, Shape, signed, unsigned
from amaranth.back import verilog
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from accelgen.cosim.native import run_native
from accelgen.cosim.vectors import CycleTable, to_bits
from accelgen.fit.generic_gates import gate_statistics
from accelgen.fit.mapping import map_and_time
from accelgen.rtl import intarith
from accelgen.rtl.intarith import MAX_STAGES, PipelinedAdder, PipelinedMultiplier

sys.path.insert(0, str(Path(__file__).parent))
from pipeline_sim import delay_mismatches, simulate  # noqa: E402

STAGES = range(MAX_STAGES + 1)
MUL_SHAPES = [(signed(8), signed(8)), (unsigned(8), unsigned(8)), (signed(16), signed(16)), (signed(4), signed(12)),
              (unsigned(4), signed(12)), (signed(12), unsigned(4)), (unsigned(16), signed(5)),
              (signed(1), signed(1)), (unsigned(1), unsigned(1)), (unsigned(1), signed(3)), (signed(2), signed(2))]
ADD_SHAPES = [(8, False), (8, True), (16, True), (32, False), (1, False), (1, True), (3, True)]


def _range(shape: Shape) -> tuple[int, int]:
    return (-(1 << (shape.width - 1)), (1 << (shape.width - 1)) - 1) if shape.signed else (0, (1 << shape.width) - 1)


def _extremes(shape: Shape) -> list[int]:
    lo, hi = _range(shape)
    return sorted({v for v in (lo, lo + 1, -1, 0, 1, hi - 1, hi) if lo <= v <= hi})


def operand_pairs(shape_a: Shape, shape_b: Shape, n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of extreme values (min, max, 0, +-1 and neighbours) and ``n`` random pairs."""
    rng = np.random.default_rng([seed, shape_a.width, shape_b.width, shape_a.signed, shape_b.signed])
    ea, eb = _extremes(shape_a), _extremes(shape_b)
    a = np.concatenate([np.repeat(ea, len(eb)), rng.integers(*_range(shape_a), n, endpoint=True)])
    b = np.concatenate([np.tile(eb, len(ea)), rng.integers(*_range(shape_b), n, endpoint=True)])
    return a.astype(np.int64), b.astype(np.int64)


# ---- validation

@pytest.mark.parametrize("args,kw,exc,match", [
    ((8, 8), {"stages": 4}, ValueError, r"stages: 4 is not allowed; expected an integer in 0\.\.3"),
    ((8, 8), {"stages": -1}, ValueError, r"stages: -1 is not allowed; expected an integer in 0\.\.3"),
    ((8, 8), {"stages": 2.0}, TypeError, r"stages: 2\.0 is not allowed; expected an integer in 0\.\.3"),
    ((8, 8), {"stages": True}, TypeError, r"stages: True is not allowed"),
    ((0, 8), {}, ValueError, (r"a_shape: 0 is not allowed; expected signed\(n\), unsigned\(n\) or an integer n, "
                             r"with n in 1\.\.64")),
    ((8, signed(65)), {}, ValueError, r"b_shape: signed\(65\) is not allowed; .* 1\.\.64"),
    (("8", 8), {}, TypeError, r"a_shape: '8' is not allowed"),
    ((8, 8.0), {}, TypeError, r"b_shape: 8\.0 is not allowed"),
])
def test_multiplier_bad_parameters_raise(args, kw, exc, match):
    with pytest.raises(exc, match=match):
        PipelinedMultiplier(*args, **kw)


@pytest.mark.parametrize("args,kw,exc,match", [
    ((0,), {}, ValueError, r"width: 0 is not allowed; expected an integer in 1\.\.64"),
    ((65,), {}, ValueError, r"width: 65 is not allowed"),
    (("8",), {}, TypeError, r"width: '8' is not allowed"),
    ((8,), {"signed": 1}, TypeError, r"signed: 1 is not allowed; expected True or False"),
    ((8,), {"stages": 7}, ValueError, r"stages: 7 is not allowed; expected an integer in 0\.\.3"),
])
def test_adder_bad_parameters_raise(args, kw, exc, match):
    with pytest.raises(exc, match=match):
        PipelinedAdder(*args, **kw)


def test_shapes_and_latency():
    assert PipelinedMultiplier(8, 8).product.shape() == unsigned(16)
    assert PipelinedMultiplier(signed(4), 12, stages=2).product.shape() == signed(16)
    assert PipelinedAdder(8, signed=True).sum.shape() == signed(9)
    for s in STAGES:
        assert PipelinedMultiplier(8, 8, stages=s).latency == PipelinedAdder(8, stages=s).latency == s
    assert "posedge" not in verilog.convert(PipelinedMultiplier(8, 8), name="u", emit_src=False)


def test_adder_chunks_are_equal():
    # 33 carry bits (a 32-bit sum and its carry out) in stages + 1 chunks
    assert intarith._cut_after([2] * 33, 1) == [16]
    assert intarith._cut_after([2] * 33, 3) == [8, 16, 25]
    assert intarith._cut_after([2] * 2, 3) == [1, 1, 1]  # more stages than bits: registers in series


# ---- Amaranth simulator: exact results, exactly ``stages`` cycles later

@pytest.mark.parametrize("stages", STAGES)
@pytest.mark.parametrize("shape_a,shape_b", MUL_SHAPES, ids=lambda s: repr(s))
def test_multiplier_is_exact_delayed_by_stages(shape_a, shape_b, stages):
    a, b = operand_pairs(shape_a, shape_b, n=150)
    got = simulate(PipelinedMultiplier(shape_a, shape_b, stages=stages), a, b, "product")
    expected = [int(x) * int(y) for x, y in zip(a, b)]
    bad = delay_mismatches(got, expected, stages)
    assert bad.size == 0, [(a[t], b[t], got[t + stages], expected[t]) for t in bad[:5]]


@pytest.mark.parametrize("stages", STAGES)
@pytest.mark.parametrize("width,is_signed", ADD_SHAPES)
def test_adder_is_exact_delayed_by_stages(width, is_signed, stages):
    shape = signed(width) if is_signed else unsigned(width)
    a, b = operand_pairs(shape, shape, n=150)
    got = simulate(PipelinedAdder(width, signed=is_signed, stages=stages), a, b, "sum")
    assert delay_mismatches(got, [int(x) + int(y) for x, y in zip(a, b)], stages).size == 0


def test_registers_inside_the_carry_save_tree(monkeypatch):
    """With carry-save levels estimated deep, the registers cut the tree (rows registered); still exact."""
    monkeypatch.setitem(intarith.STEP_DEPTH, "csa", 40)
    unit = PipelinedMultiplier(signed(12), signed(10), stages=2)
    assert "s1_row0" in verilog.convert(unit, name="u", emit_src=False)
    a, b = operand_pairs(signed(12), signed(10), n=150)
    got = simulate(PipelinedMultiplier(signed(12), signed(10), stages=2), a, b, "product")
    assert delay_mismatches(got, [int(x) * int(y) for x, y in zip(a, b)], 2).size == 0


# ---- mutants: the delay check catches a missing or leaking register

def test_mutant_missing_stage_is_caught(monkeypatch):
    """A multiplier that claims three stages but places two registers: every result a cycle early."""
    cut_after = intarith._cut_after
    monkeypatch.setattr(intarith, "_cut_after", lambda depths, stages: cut_after(depths, stages)[:-1])
    unit = PipelinedMultiplier(signed(8), signed(8), stages=3)
    a, b = operand_pairs(signed(8), signed(8), n=100)
    expected = [int(x) * int(y) for x, y in zip(a, b)]
    got = simulate(unit, a, b, "product")
    assert delay_mismatches(got, expected, 3).size > len(a) // 2
    assert delay_mismatches(got, expected, 2).size == 0  # exactly one stage short


def test_mutant_unregistered_carry_is_caught(monkeypatch):
    """A cut that passes the chunk carry on combinationally: sums whose carry differs from the next row's fail."""
    register = intarith._RippleChain.register

    def leaky(self, m, name):
        carry = self.carry
        register(self, m, name)
        self.carry = carry

    monkeypatch.setattr(intarith._RippleChain, "register", leaky)
    a, b = operand_pairs(unsigned(16), unsigned(16), n=200)
    got = simulate(PipelinedAdder(16, stages=2), a, b, "sum")
    assert delay_mismatches(got, [int(x) + int(y) for x, y in zip(a, b)], 2).size > 0


# ---- the emitted Verilog in Verilator

def _units():
    """The units of the Verilator top by port prefix: different shapes and delays side by side."""
    return {"m16": PipelinedMultiplier(signed(16), signed(16), stages=2),
            "m4x12": PipelinedMultiplier(unsigned(4), signed(12), stages=3),
            "a32": PipelinedAdder(32, signed=True, stages=3)}


class _IntTop(wiring.Component):
    def __init__(self):
        self.units = _units()
        members = {}
        for name, u in self.units.items():
            out = u.product if isinstance(u, PipelinedMultiplier) else u.sum
            members |= {f"{name}_a": In(u.a.shape()), f"{name}_b": In(u.b.shape()), f"{name}_y": Out(out.shape())}
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        for name, u in self.units.items():
            m.submodules[name] = u
            out = u.product if isinstance(u, PipelinedMultiplier) else u.sum
            m.d.comb += [u.a.eq(getattr(self, f"{name}_a")), u.b.eq(getattr(self, f"{name}_b")),
                         getattr(self, f"{name}_y").eq(out)]
        return m


@pytest.mark.cosim
def test_emitted_verilog_is_exact_delayed_by_stages(tmp_path):
    name = "int_pipe"
    top = _IntTop()
    path = tmp_path / f"{name}.v"
    path.write_text(verilog.convert(top, name=name, emit_src=False))
    n = 3000
    cycles = n + 100 + MAX_STAGES
    inputs, expect, check = {}, {}, {}
    ports = [{"name": "clk", "direction": "in", "width": 1, "signed": False},
             {"name": "rst", "direction": "in", "width": 1, "signed": False}]
    for prefix, u in top.units.items():
        a, b = operand_pairs(u.a.shape(), u.b.shape(), n=n, seed=9)
        y = [int(x) * int(z) if isinstance(u, PipelinedMultiplier) else int(x) + int(z) for x, z in zip(a, b)]
        k, lat = len(a), u.latency
        for port, values in (("a", a), ("b", b)):
            col = np.zeros(cycles, np.uint64)
            col[:k] = to_bits(values, len(getattr(u, port)))
            inputs[f"{prefix}_{port}"] = col
        width = len(getattr(top, f"{prefix}_y"))
        expect[f"{prefix}_y"] = np.zeros(cycles, np.uint64)
        expect[f"{prefix}_y"][lat:lat + k] = to_bits(y, width)
        check[f"{prefix}_y"] = np.zeros(cycles, bool)
        check[f"{prefix}_y"][lat:lat + k] = True  # row t's result at row t + latency
        ports += [{"name": f"{prefix}_{p}", "direction": d, "width": len(getattr(top, f"{prefix}_{p}")),
                   "signed": False} for p, d in (("a", "in"), ("b", "in"), ("y", "out"))]
    table = CycleTable(inputs=inputs, expect=expect, check=check)
    manifest = {"name": name, "clock": "clk", "reset": "rst", "ports": ports}
    result = run_native(path, manifest, table, seed=9, waves_on_failure=False)
    assert result.passed, (result.error, result.first_mismatches)
    assert result.checks == table.checks >= 9000


# ---- synthesis: a shorter path, more flip-flops

@pytest.mark.synth
def test_adder_pipelining_shortens_the_path():
    stats = [gate_statistics(verilog.convert(PipelinedAdder(32, signed=True, stages=s), name="u", emit_src=False),
                             "u") for s in STAGES]
    depths = [s.logic_depth for s in stats]
    flops = [s.flip_flops for s in stats]
    # measured 2026-11-24 (rtl/intarith.py docstring); the margin absorbs small changes of ABC's mapping
    assert depths[0] == pytest.approx(63, rel=0.1)
    assert depths[-1] == pytest.approx(19, rel=0.15)
    assert all(later < earlier for earlier, later in pairwise(depths)), depths
    assert flops[0] == 0 and all(later > earlier for earlier, later in pairwise(flops)), flops


class _Registered(wiring.Component):
    """A multiplier between input and output registers: every path of the mapped design is a stage."""

    def __init__(self, stages: int):
        self.stages = stages
        super().__init__({"a": In(signed(16)), "b": In(signed(16)), "p": Out(signed(32))})

    def elaborate(self, platform):
        m = Module()
        m.submodules.mul = mul = PipelinedMultiplier(signed(16), signed(16), stages=self.stages)
        m.d.sync += [mul.a.eq(self.a), mul.b.eq(self.b), self.p.eq(mul.product)]
        return m


@pytest.mark.synth
def test_multiplier_stages_shorten_the_mapped_path():
    """In the mapped flow the fitted models come from, each register stage shortens the slowest stage; three
    stages reach about half the combinational delay (the first stage no longer holds the whole tree)."""
    delays = [map_and_time(verilog.convert(_Registered(s), name="u", emit_src=False), "u").delay_ns for s in STAGES]
    # measured 2026-11-26 at 1 GHz (rtl/intarith.py docstring): 1.227, 0.845, 0.656, 0.655 ns
    assert delays[0] == pytest.approx(1.227, rel=0.1)
    assert delays[-1] < 0.6 * delays[0], delays
    assert delays[1] < 0.8 * delays[0], delays
    assert all(later <= earlier * 1.02 for earlier, later in pairwise(delays)), delays


def test_stage_fields_match_the_units_bound():
    """The block parameters' ``mul_stages``/``add_stages`` allow exactly the stages the units build."""
    from accelgen.params.base import AddStages, MulStages

    for field in (MulStages, AddStages):
        bounds = {type(m).__name__: m for m in field.__metadata__[0].metadata}
        assert bounds["Ge"].ge == 0 and bounds["Le"].le == MAX_STAGES
