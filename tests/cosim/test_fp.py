"""The floating-point primitives (rtl/fp.py) on their emitted Verilog, against the numpy golden (accelgen/golden/fp.py).

One combinational test top holds every primitive configuration (fp16/bf16/fp32
multipliers and the fp32 adder, each with and without flush_subnormals), so a
single Verilator build of the compiled table testbench checks them all. Each
unit gets its own operand stream: the special-value cross product, targeted
sections (ties, cancellation, over/underflow through the fp32 subnormal range,
subnormal operands) and random pairs (uniform bit patterns and realistic
values). Every output is compared bit for bit with the canonicalized golden.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from amaranth import Module
from amaranth.back import verilog
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from accelgen.golden import fp as gold
from accelgen.cosim.native import run_native
from accelgen.cosim.vectors import CycleTable
from accelgen.rtl import fp as rtl_fp

pytestmark = pytest.mark.cosim

#: (unit name, kind, operand dtype, flush_subnormals)
UNITS = [
    ("mul16", "mul", "fp16", False), ("mulbf", "mul", "bf16", False), ("mul32", "mul", "fp32", False),
    ("add", "add", "fp32", False),
    ("mul16_ftz", "mul", "fp16", True), ("mulbf_ftz", "mul", "bf16", True), ("mul32_ftz", "mul", "fp32", True),
    ("add_ftz", "add", "fp32", True),
]


def make_top(fp_module=rtl_fp):
    """A combinational component with every unit of :data:`UNITS` (ports ``<unit>_a``, ``_b``, ``_y``)."""

    class FPCheckTop(wiring.Component):
        def __init__(self):
            members = {}
            for name, _, dtype, _ in UNITS:
                w = fp_module.fp_width(dtype)
                members[f"{name}_a"] = In(w)
                members[f"{name}_b"] = In(w)
                members[f"{name}_y"] = Out(32)
            super().__init__(members)

        def elaborate(self, platform):
            m = Module()
            for name, kind, dtype, flush in UNITS:
                if kind == "mul":
                    u = fp_module.FPMultiplier(dtype, flush_subnormals=flush)
                    y = u.product
                else:
                    u = fp_module.FPAdder(flush_subnormals=flush)
                    y = u.sum
                m.submodules[name] = u
                m.d.comb += [u.a.eq(getattr(self, f"{name}_a")), u.b.eq(getattr(self, f"{name}_b")),
                             getattr(self, f"{name}_y").eq(y)]
            return m

    return FPCheckTop()


def emit_top(tmp_path: Path, fp_module=rtl_fp, name: str = "fp_check"):
    top = make_top(fp_module)
    text = verilog.convert(top, name=name, emit_src=False)
    path = tmp_path / f"{name}.v"
    path.write_text(text)
    ports = []
    for pname, _, dtype, _ in UNITS:
        w = rtl_fp.fp_width(dtype)
        ports += [{"name": f"{pname}_a", "direction": "in", "width": w, "signed": False},
                  {"name": f"{pname}_b", "direction": "in", "width": w, "signed": False},
                  {"name": f"{pname}_y", "direction": "out", "width": 32, "signed": False}]
    manifest = {"name": name, "clock": None, "reset": None, "ports": ports, "latency": 0}
    return path, manifest


# ---- operand streams

def _compose(rng, n, dtype, exps, frac_zero_p=0.0):
    """Random sign and fraction with the given biased exponents."""
    e, f = gold.FP_FORMATS[dtype]
    t = gold.bits_dtype(dtype)
    frac = rng.integers(0, 1 << f, n, dtype=np.uint64)
    frac[rng.random(n) < frac_zero_p] = 0
    sign = rng.integers(0, 2, n, dtype=np.uint64)
    return ((sign << (e + f)) | (np.asarray(exps, np.uint64) << f) | frac).astype(t)


def _uniform(rng, n, dtype):
    w = gold.fp_width(dtype)
    return rng.integers(0, 1 << w, n, dtype=np.uint64).astype(gold.bits_dtype(dtype))


def _realistic(rng, n, dtype):
    scales = 10.0 ** rng.uniform(-6, 6, n)
    vals = rng.normal(0.0, 1.0, n) * scales
    return gold.from_float32(vals.astype(np.float32), dtype)


def _cross(dtype):
    s = gold.special_values(dtype)
    return np.repeat(s, len(s)), np.tile(s, len(s))


def mul_pairs(dtype, n, rng):
    """Sections of multiplier operand pairs (name -> (a bits, b bits))."""
    e, f = gold.FP_FORMATS[dtype]
    bias, emax = (1 << (e - 1)) - 1, (1 << e) - 2
    sec = {"special_cross": _cross(dtype)}
    sec["uniform_bits"] = (_uniform(rng, n // 3, dtype), _uniform(rng, n // 3, dtype))
    sec["realistic"] = (_realistic(rng, n // 4, dtype), _realistic(rng, n // 4, dtype))
    k = n // 8
    sub = _compose(rng, k, dtype, np.zeros(k, np.int64))
    sec["subnormal_x_any"] = (sub, np.where(rng.random(k) < 0.5, _uniform(rng, k, dtype),
                                           _realistic(rng, k, dtype)).astype(sub.dtype))
    sv = gold.special_values(dtype)
    sec["special_x_random"] = (rng.choice(sv, k), _uniform(rng, k, dtype))
    if e == 8:
        # product exponents across the fp32 subnormal range and the overflow threshold
        for label, lo, hi in (("underflow", -160, -118), ("overflow", 120, 130)):
            target = rng.integers(lo, hi, n // 6, endpoint=True)
            ea = rng.integers(max(1, 1 + bias + lo - (emax - bias)), emax, n // 6, endpoint=True)
            eb = target - (ea - bias) + bias
            ok = (eb >= 1) & (eb <= emax)
            ea, eb = ea[ok], eb[ok]
            sec[label] = (_compose(rng, len(ea), dtype, ea, 0.3), _compose(rng, len(eb), dtype, eb, 0.3))
    if dtype == "fp32":
        # (1 + x*2**-12)(1 + y*2**-12): products whose dropped bits are exactly one half
        x = rng.integers(0, 1 << 11, k, dtype=np.uint64)
        y = rng.integers(0, 1 << 11, k, dtype=np.uint64)
        sec["ties"] = (((np.uint64(127) << np.uint64(23)) | (x << np.uint64(11) | np.uint64(1 << 11))).astype(np.uint32),
                       ((np.uint64(127) << np.uint64(23)) | (y << np.uint64(11) | np.uint64(1 << 11))).astype(np.uint32))
    return sec


def add_pairs(n, rng):
    """Sections of adder operand pairs."""
    sec = {"special_cross": _cross("fp32")}
    sec["uniform_bits"] = (_uniform(rng, n // 4, "fp32"), _uniform(rng, n // 4, "fp32"))
    sec["realistic"] = (_realistic(rng, n // 4, "fp32"), _realistic(rng, n // 4, "fp32"))
    k = n // 4
    ea = rng.integers(1, 255, k)
    eb = np.clip(ea + rng.integers(-30, 31, k), 0, 254)
    sec["close_exponents"] = (_compose(rng, k, "fp32", ea, 0.3), _compose(rng, k, "fp32", eb, 0.3))
    k = n // 10
    x = _uniform(rng, k, "fp32")
    sec["cancel_exact"] = (x, x ^ np.uint32(0x80000000))
    near = x ^ np.uint32(0x80000000)
    sec["cancel_near"] = (x, np.where(rng.random(k) < 0.5, near + np.uint32(1), near - np.uint32(1)).astype(np.uint32))
    sub = _compose(rng, k, "fp32", np.zeros(k, np.int64))
    sec["subnormal_plus"] = (sub, np.where(rng.random(k) < 0.5, _compose(rng, k, "fp32", np.zeros(k, np.int64)),
                                          _compose(rng, k, "fp32", rng.integers(1, 4, k))).astype(np.uint32))
    big = rng.integers(252, 255, k)
    sec["near_overflow"] = (_compose(rng, k, "fp32", big) & np.uint32(0x7FFFFFFF),
                            _compose(rng, k, "fp32", rng.integers(225, 255, k)) & np.uint32(0x7FFFFFFF))
    # exact ties: b is half an ulp of a (or 1.5 / 2.5 ulps), same and opposite sign
    ea = rng.integers(30, 255, k)
    a = _compose(rng, k, "fp32", ea)
    b = _compose(rng, k, "fp32", ea - rng.integers(23, 26, k), 1.0)
    sec["ties"] = (a, b)
    return sec


def unit_streams(n: int, seed: int):
    """(a, b, expected y, section sizes) per unit."""
    out = {}
    for i, (name, kind, dtype, flush) in enumerate(UNITS):
        rng = np.random.default_rng([seed, i % 4])  # flush units see the same operands as their exact twins
        secs = mul_pairs(dtype, n, rng) if kind == "mul" else add_pairs(n, rng)
        a = np.concatenate([s[0] for s in secs.values()]).astype(np.uint64)
        b = np.concatenate([s[1] for s in secs.values()]).astype(np.uint64)
        y = gold.fp_mul(a, b, dtype, flush) if kind == "mul" else gold.fp_add(a, b, flush)
        out[name] = (a, b, y.astype(np.uint64), {k: len(v[0]) for k, v in secs.items()})
    return out


def fp_table(n: int, seed: int) -> CycleTable:
    streams = unit_streams(n, seed)
    cycles = max(len(s[0]) for s in streams.values())
    inputs, expect, check = {}, {}, {}
    for name, (a, b, y, _) in streams.items():
        k = len(a)
        for port, v in (("a", a), ("b", b)):
            col = np.zeros(cycles, np.uint64)
            col[:k] = v
            inputs[f"{name}_{port}"] = col
        col = np.zeros(cycles, np.uint64)
        col[:k] = y
        expect[f"{name}_y"] = col
        chk = np.zeros(cycles, bool)
        chk[:k] = True
        check[f"{name}_y"] = chk
    return CycleTable(inputs=inputs, expect=expect, check=check,
                      info={"vectors": sum(len(s[0]) for s in streams.values()), "unit": "pairs",
                            "sections": {n_: s[3] for n_, s in streams.items()}})


# ---- golden sanity (no simulator)

def test_golden_is_ieee_with_gradual_underflow():
    f32 = lambda v: gold.float32_bits(np.float32(v))  # noqa: E731
    # smallest subnormal survives (the host's float32 does not flush)
    assert gold.fp_add(np.uint32(1), np.uint32(0)) == 1
    assert gold.fp_add(np.uint32(1), np.uint32(1), flush_subnormals=True) == 0
    # ties to even in the adder: 1 + 2**-24 -> 1; (1 + 2**-23) + 2**-24 -> 1 + 2**-22
    assert gold.fp_add(f32(1.0), f32(2.0 ** -24)) == 0x3F800000
    assert gold.fp_add(np.uint32(0x3F800001), f32(2.0 ** -24)) == 0x3F800002
    # signed zeros
    assert gold.fp_add(np.uint32(0x80000000), np.uint32(0x80000000)) == 0x80000000
    assert gold.fp_add(np.uint32(0x80000000), np.uint32(0)) == 0
    assert gold.fp_add(f32(3.5), f32(-3.5)) == 0
    # bf16: 2**-75 * 2**-75 = 2**-150 is half the smallest subnormal: ties to even -> +0
    b75 = gold.from_float32(np.float32(2.0 ** -75), "bf16")
    assert gold.fp_mul(b75, b75, "bf16") == 0
    b75x = gold.from_float32(np.float32(1.5 * 2.0 ** -75), "bf16")
    assert gold.fp_mul(b75x, b75, "bf16") == 1
    big = gold.from_float32(np.float32(2.0 ** 100), "bf16")
    assert gold.fp_mul(big, big ^ np.uint16(0x8000), "bf16") == 0xFF800000
    # Inf * 0 and NaN are canonical
    assert gold.fp_mul(np.uint16(0x7F80), np.uint16(0x8000), "bf16") == 0x7FC00000
    assert gold.fp_mul(np.uint16(0xFC01), np.uint16(0x3C00), "fp16") == 0x7FC00000
    # fp16 products are exact: the fp32 result equals the float64 product
    rng = np.random.default_rng(0)
    a, b = gold.random_fp_bits(rng, 1000, "fp16"), gold.random_fp_bits(rng, 1000, "fp16")
    exact = gold.to_float32(a, "fp16").astype(np.float64) * gold.to_float32(b, "fp16").astype(np.float64)
    assert np.array_equal(gold.to_float32(gold.fp_mul(a, b, "fp16"), "fp32").astype(np.float64), exact)
    # tree and fold orders differ where they should
    vals = gold.float32_bits(np.float32([1.0, 0.0, 2.0 ** -24, 2.0 ** -24]))
    assert gold.dot_sequential(vals) == 0x3F800000  # each 2**-24 is a tie that rounds back to 1
    assert gold.tree_sum(vals) == 0x3F800001  # (1 + 0) + (2**-24 + 2**-24) = 1 + 2**-23


def test_random_fp_bits_density_and_format():
    rng = np.random.default_rng(3)
    v = gold.random_fp_bits(rng, 20000, "bf16", density=0.3, scale=2.0)
    assert v.dtype == np.uint16
    nz = np.mean(~gold.is_zero(v, "bf16"))
    assert 0.27 < nz < 0.33
    assert np.isclose(np.std(gold.to_float32(v[~gold.is_zero(v, "bf16")], "bf16")), 2.0, rtol=0.05)


# ---- RTL against the golden

def _run(tmp_path, n, seed, fp_module=rtl_fp, name="fp_check"):
    path, manifest = emit_top(tmp_path, fp_module, name)
    table = fp_table(n, seed)
    t0 = time.monotonic()
    result = run_native(path, manifest, table, seed=seed, waves_on_failure=False)
    return result, table, time.monotonic() - t0


def test_fp_primitives_bit_exact(tmp_path):
    result, table, secs = _run(tmp_path, 24000, seed=7)
    print(f"fp primitives: {table.info['vectors']} pairs, {result.checks} checks, {secs:.1f} s "
          f"(build {result.build_s:.1f} s, run {result.run_s:.2f} s)")
    assert result.passed, (result.error, result.first_mismatches)
    assert result.checks == table.checks >= 100_000


@pytest.mark.slow
def test_fp_primitives_bit_exact_large(tmp_path):
    result, table, _ = _run(tmp_path, 400_000, seed=11)
    assert result.passed, (result.error, result.first_mismatches)
    assert result.checks >= 2_000_000


def _mutant(tmp_path, old: str, new: str):
    """rtl/fp.py with one source line changed, loaded as a separate module."""
    src = Path(rtl_fp.__file__).read_text()
    assert src.count(old) == 1, old
    path = tmp_path / "fp_mutant.py"
    path.write_text(src.replace(old, new))
    spec = importlib.util.spec_from_file_location("accelgen.rtl.fp_mutant", path)  # beside rtl.fp: same imports
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


MUTANTS = {
    "truncate": ("round_up=guard & (sticky | keep[0])", "round_up=guard & 0"),
    "ties_away": ("round_up=guard & (sticky | keep[0])", "round_up=guard"),
    "no_sticky_from_alignment": ("v.small_al = Cat(small_sh[0] | small_sticky, small_sh[1:])",
                                 "v.small_al = small_sh"),
}


@pytest.mark.parametrize("mutant", ["truncate", pytest.param("ties_away", marks=pytest.mark.slow),
                                    pytest.param("no_sticky_from_alignment", marks=pytest.mark.slow)])
def test_mutant_is_caught(tmp_path, mutant):
    mod = _mutant(tmp_path, *MUTANTS[mutant])
    result, table, _ = _run(tmp_path, 3000, seed=7, fp_module=mod, name=f"fp_mut_{mutant}")
    assert not result.passed and result.mismatches > 0
