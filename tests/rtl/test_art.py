"""MAERI's augmented reduction tree (ART): parameter validation, constructor, ports, latency and the
switch cells of the emitted Verilog (no simulator build)."""

import re

import pytest
from amaranth import Shape

from accelgen.gen import render
from accelgen.golden.art import art_latency
from accelgen.registry import FAMILIES
from accelgen.rtl import ART, ARTParams


@pytest.mark.parametrize("n,add_stages,latency", [(2, 0, 2), (16, 0, 5), (64, 0, 7), (2, 3, 5), (16, 2, 13),
                                                  (512, 3, 37)])
def test_latency_is_the_fans(n, add_stages, latency):
    """1 + log2 n * (1 + add_stages): the 3-input adders' two adders share the add_stages registers."""
    art = ART(n=n, add_stages=add_stages)
    assert art.latency == latency == art_latency(n, add_stages) == FAMILIES["fan"].validate(
        {"n": n, "add_stages": add_stages}).latency


def test_fp32_latency_equals_int():
    assert ART(n=8, dtype="fp32", add_stages=1).latency == ART(n=8, add_stages=1).latency == 7


@pytest.mark.parametrize("kwargs,exc,message", [
    ({"n": 12}, ValueError, "art: n=12 is not a power of two; allowed: 2, 4, 8, ..., 512"),
    ({"n": 1024}, ValueError, "art.n: 1024 is not allowed; expected an integer in 2..512"),
    ({"n": 1}, ValueError, "art.n: 1 is not allowed; expected an integer in 2..512"),
    ({"n": 8.0}, TypeError, "art.n: 8.0 is not allowed; expected an integer in 2..512"),
    ({"add_stages": 4}, ValueError, "art.add_stages: 4 is not allowed; expected an integer in 0..3"),
    ({"add_stages": -1}, ValueError, "art.add_stages: -1 is not allowed; expected an integer in 0..3"),
    ({"add_stages": True}, TypeError, "art.add_stages: True is not allowed; expected an integer in 0..3"),
    ({"width": 0}, ValueError, "art.width: 0 is not allowed; expected an integer in 1..32"),
    ({"dtype": "fp16"}, ValueError, "art.dtype: 'fp16' is not allowed; expected 'int' or 'fp32'"),
    ({"dtype": "fp32", "width": 16}, ValueError,
     "art: width: 16 is not allowed with dtype='fp32'; fp32 values are 32 bits wide"),
    ({"dtype": "fp32", "signed": False}, ValueError, "art: signed: false is not allowed with dtype='fp32'"),
])
def test_params_errors_name_the_parameter_on_one_line(kwargs, exc, message):
    with pytest.raises(exc) as info:
        ART(**kwargs)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_cli_rejects_add_stages_out_of_range(tmp_path, capsys):
    from accelgen.cli import main
    assert main(["gen", "art", "--n", "4", "--add-stages", "4", "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["accelgen: error: art.add_stages: 4 is not allowed; expected an integer in 0..3"]


def test_ports_and_widths_are_fans():
    members = ART(n=16, width=6, signed=True).signature.members
    fan = FAMILIES["fan"].build_component(FAMILIES["fan"].validate({"n": 16, "width": 6})).signature.members
    assert set(members) == set(fan) == {"value", "valid", "vec_id", "sum", "sum_id", "sum_valid"}
    for name in members:
        assert members[name].shape == fan[name].shape and members[name].dimensions == fan[name].dimensions, name
    assert members["sum"].shape.width == 10 and Shape.cast(members["vec_id"].shape).width == 4
    fp = ART(n=4, dtype="fp32").signature.members
    assert fp["value"].shape.width == 32 and fp["sum"].shape.width == 32


def test_piece_widths():
    p = ARTParams(n=64, width=8)
    assert [p.piece_width(h) for h in range(7)] == [8, 10, 11, 12, 13, 14, 14]


def _linked(n: int) -> int:
    """Switches with a forwarding link: on every level of m >= 4 switches all but the outermost two."""
    return sum((n >> h) - 2 for h in range(1, n.bit_length()) if n >> h >= 4)


# issue 48: [64-int-0] and [16-fp32-0] are slow; linked switches on several levels are [16-int-2]'s,
# fp32 ones [8-fp32-3]'s
@pytest.mark.parametrize("n,dtype,add_stages", [(2, "int", 0), (4, "int", 0), (8, "int", 0), (16, "int", 2),
                                               pytest.param(64, "int", 0, marks=pytest.mark.slow),
                                               pytest.param(16, "fp32", 0, marks=pytest.mark.slow), (8, "fp32", 3)])
def test_switch_cells(n, dtype, add_stages):
    """One instance per switch (n - 1), one cell module per (level, orientation, link); the linked
    switches (MAERI's double reduction switches) have the second (forwarded-operand) adder."""
    fam = FAMILIES["art"]
    p = fam.validate({"n": n, "dtype": dtype, "add_stages": add_stages})
    v = render(fam, p, "top").verilog
    instances = re.findall(r"^\s*top__(sw\d+[oe]l?) sw_\d+_\d+ \(", v, re.MULTILINE)
    assert len(instances) == n - 1
    assert sum(1 for i in instances if i.endswith("l")) == _linked(n)
    assert _linked(n) == {2: 0, 4: 0, 8: 2, 16: 8, 64: 52}[n]
    modules = set(re.findall(r"^module (top__sw\d+[oe]l?)\(", v, re.MULTILINE))
    assert modules == {f"top__{i}" for i in instances}
    # fp32: a linked switch holds two fp32 adders (the 3-input adder), the others one
    if dtype == "fp32":
        fwd = set(re.findall(r"^module top__(sw\d+[oe]l?)__add_fwd\(", v, re.MULTILINE))
        children = set(re.findall(r"^module top__(sw\d+[oe]l?)__add_children\(", v, re.MULTILINE))
        assert fwd == {i for i in instances if i.endswith("l")} and children == set(instances)


def test_n_two_is_one_switch():
    v = render(FAMILIES["art"], FAMILIES["art"].validate({"n": 2}), "top").verilog
    assert re.findall(r"^\s*top__(sw\w+) sw_", v, re.MULTILINE) == ["sw1o"]
