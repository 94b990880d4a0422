"""Dot-product unit: parameter validation, constructor signature, ports, latency, its cells in the Amaranth
simulator and the emitted hierarchy."""

import sys
from pathlib import Path

import numpy as np
import pytest
from amaranth import Shape, signed, unsigned

from accelgen.gen import render
from accelgen.registry import FAMILIES
from accelgen.rtl import DotProduct
from accelgen.rtl.dot_product import LevelAdder, ProductPair

sys.path.insert(0, str(Path(__file__).parent))
from pipeline_sim import run_rows  # noqa: E402


@pytest.mark.parametrize("n,mul_stages,add_stages,latency", [
    (2, 0, 0, 2), (16, 0, 0, 5), (256, 0, 0, 9), (2, 3, 3, 8), (16, 1, 2, 14), (64, 2, 1, 15), (256, 3, 3, 36)])
def test_latency_counts_every_register_stage(n, mul_stages, add_stages, latency):
    """1 + mul_stages + log2 n * (1 + add_stages): input registers, the multipliers' registers, then per level
    the adders' registers and the level's register."""
    unit = DotProduct(n=n, mul_stages=mul_stages, add_stages=add_stages)
    assert unit.latency == unit.params.latency == latency


def test_ports_and_widths():
    unit = DotProduct(n=16, a_width=6, b_width=5, signed=True)
    members = unit.signature.members
    assert members["a"].dimensions == (16,) and members["a"].shape == signed(6)
    assert members["b"].dimensions == (16,) and members["b"].shape == signed(5)
    assert Shape.cast(members["valid"].shape).width == 1 and members["valid"].dimensions == ()
    assert members["sum"].shape == signed(6 + 5 + 4) and unit.params.sum_width == 15
    assert Shape.cast(members["sum_valid"].shape).width == 1
    assert DotProduct(n=2, a_width=3, b_width=3, signed=False).signature.members["sum"].shape == unsigned(7)


@pytest.mark.parametrize("kw,match", [
    ({"n": 6}, r"n=6 is not a power of two; allowed: 2, 4, 8, \.\.\., 256"),
    ({"n": 1}, r"dot_product\.n: 1 is not allowed; expected an integer in 2\.\.256"),
    ({"n": 512}, r"dot_product\.n: 512 is not allowed; expected an integer in 2\.\.256"),
    ({"a_width": 0}, r"dot_product\.a_width: 0 is not allowed; expected an integer in 1\.\.32"),
    ({"b_width": 33}, r"dot_product\.b_width: 33 is not allowed; expected an integer in 1\.\.32"),
    ({"mul_stages": 4}, r"dot_product\.mul_stages: 4 is not allowed; expected an integer in 0\.\.3"),
    ({"add_stages": -1}, r"dot_product\.add_stages: -1 is not allowed; expected an integer in 0\.\.3"),
    ({"dtype": "fp16"}, r"dot_product\.dtype: 'fp16' is not allowed; expected 'int'"),
    ({"n": 4, "a_width": 32, "b_width": 31}, (r"a_width \+ b_width \+ log2\(n\) = 65 is too wide for the sum "
                                              r"\(a_width=32, b_width=31, n=4\); allowed: .* <= 64")),
])
def test_impossible_values_raise_value_error(kw, match):
    with pytest.raises(ValueError, match=match):
        DotProduct(**kw)


@pytest.mark.parametrize("kw,match", [({"n": 8.0}, r"dot_product\.n: 8\.0 is not allowed; expected an integer"),
                                      ({"signed": "yes"}, r"dot_product\.signed: 'yes' is not allowed"),
                                      ({"mul_stages": True}, r"dot_product\.mul_stages: True is not allowed")])
def test_wrong_types_raise_type_error(kw, match):
    with pytest.raises(TypeError, match=match):
        DotProduct(**kw)


def test_widest_sum_that_fits_is_allowed():
    assert DotProduct(n=256, a_width=28, b_width=28).params.sum_width == 64


# --------------------------------------------------------------------------- the cells, in the Amaranth simulator

def _run(cell, rows: list[dict], out: str = "y") -> list[int]:
    return run_rows(cell, rows, out)


@pytest.mark.parametrize("is_signed,a_width,b_width", [(True, 5, 3), (False, 4, 4), (True, 1, 2)])
@pytest.mark.parametrize("mul_stages,add_stages", [(0, 0), (1, 2), (3, 1)])
def test_product_pair_is_exact_after_its_registers(is_signed, a_width, b_width, mul_stages, add_stages):
    """``y = a0*b0 + a1*b1`` exactly, ``mul_stages + add_stages + 1`` cycles after the operands, and not earlier."""
    shape_a, shape_b = Shape(a_width, is_signed), Shape(b_width, is_signed)
    rng = np.random.default_rng(a_width * 10 + mul_stages)
    lo_a, hi_a = (-(1 << (a_width - 1)), (1 << (a_width - 1)) - 1) if is_signed else (0, (1 << a_width) - 1)
    lo_b, hi_b = (-(1 << (b_width - 1)), (1 << (b_width - 1)) - 1) if is_signed else (0, (1 << b_width) - 1)
    rows = [{"a__0": x, "a__1": y, "b__0": z, "b__1": w} for x in (lo_a, hi_a) for y in (lo_a, 0)
            for z in (lo_b, hi_b) for w in (hi_b, lo_b)]
    rows += [{"a__0": rng.integers(lo_a, hi_a, endpoint=True), "a__1": rng.integers(lo_a, hi_a, endpoint=True),
              "b__0": rng.integers(lo_b, hi_b, endpoint=True), "b__1": rng.integers(lo_b, hi_b, endpoint=True)}
             for _ in range(60)]
    delay = mul_stages + add_stages + 1
    got = _run(ProductPair(shape_a, shape_b, mul_stages, add_stages), rows + [{}] * delay)
    expected = [int(r["a__0"]) * int(r["b__0"]) + int(r["a__1"]) * int(r["b__1"]) for r in rows]
    assert got[delay:] == expected
    assert got[delay - 1:-1] != expected   # one cycle early is wrong (the check is sharp)


@pytest.mark.parametrize("is_signed", [True, False])
@pytest.mark.parametrize("add_stages", [0, 2])
def test_level_adder_is_exact_after_its_registers(is_signed, add_stages):
    shape = Shape(7, is_signed)
    lo, hi = (-64, 63) if is_signed else (0, 127)
    rng = np.random.default_rng(add_stages)
    rows = [{"a": x, "b": y} for x in (lo, hi) for y in (lo, hi)]
    rows += [{"a": rng.integers(lo, hi, endpoint=True), "b": rng.integers(lo, hi, endpoint=True)} for _ in range(40)]
    got = _run(LevelAdder(shape, add_stages), rows + [{}] * (add_stages + 1))
    assert got[add_stages + 1:] == [int(r["a"]) + int(r["b"]) for r in rows]


# --------------------------------------------------------------------------- emission

@pytest.mark.parametrize("n,cells", [(2, ["dp__pair"]), (16, ["dp__add1", "dp__add2", "dp__add3", "dp__pair"])])
def test_emitted_hierarchy_and_manifest(n, cells):
    """One pair cell module and one adder module per higher level, each instantiated as often as the tree needs;
    the manifest states the latency and the exact port widths."""
    fam = FAMILIES["dot_product"]
    e = render(fam, fam.validate({"n": n, "a_width": 4, "b_width": 3, "mul_stages": 1, "add_stages": 1}), "dp")
    assert e.manifest["cells"] == cells
    assert e.manifest["latency"] == 1 + 1 + (n.bit_length() - 1) * 2
    ports = {p["name"]: p for p in e.manifest["ports"]}
    assert ports["sum"]["width"] == 4 + 3 + n.bit_length() - 1 and ports["sum"]["signed"]
    assert {f"a__{i}" for i in range(n)} <= set(ports) and ports["b__0"]["width"] == 3
    assert e.verilog.count("dp__pair pair_") == n // 2
    if n == 16:
        assert e.verilog.count("dp__add3 add_3_") == 1 and e.verilog.count("dp__add1 add_1_") == 4


def test_cli_gen_and_bad_stage_option(tmp_path, capsys):
    """``accelgen gen dot_product`` takes the schema's options; a bad one is one line naming field, value and range."""
    from accelgen.cli import main
    assert main(["gen", "dot_product", "--n", "4", "--a-width", "4", "--b-width", "4", "--unsigned",
                 "--mul-stages", "2", "-o", str(tmp_path)]) == 0
    assert "latency 5 cycles" in capsys.readouterr().out
    assert (tmp_path / "dot_product.v").is_file()
    assert main(["gen", "dot_product", "--mul-stages", "4", "-o", str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["accelgen: error: dot_product.mul_stages: 4 is not allowed; expected an integer in 0..3"]
