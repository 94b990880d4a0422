"""FAN / linear chain / adder tree: parameter validation, ports and latency."""

import pytest
from amaranth import Shape

from accelgen.rtl import FAN, AdderTree, FanLinear
from accelgen.rtl.fan import fan_level


@pytest.mark.parametrize("n,latency", [(2, 2), (4, 3), (64, 7), (512, 10)])
def test_fan_latency_is_log2n_plus_input_stage(n, latency):
    assert FAN(n=n).latency == latency
    assert AdderTree(n=n).latency == latency


@pytest.mark.parametrize("n,r,latency", [(2, 1, 2), (8, 1, 8), (8, 3, 4), (8, 7, 2), (64, 9, 8)])
def test_linear_latency(n, r, latency):
    assert FanLinear(n=n, stage_adders=r).latency == latency


@pytest.mark.parametrize("n,add_stages,latency", [(2, 1, 3), (8, 2, 10), (32, 2, 16), (512, 3, 37)])
def test_tree_latency_grows_by_add_stages_per_level(n, add_stages, latency):
    """1 + log2 n * (1 + add_stages): the input registers, then per level the adder's registers and the
    level's output register."""
    assert FAN(n=n, add_stages=add_stages).latency == latency
    assert AdderTree(n=n, add_stages=add_stages, dtype="fp32").latency == latency


@pytest.mark.parametrize("n,r,add_stages,latency", [(2, 1, 3, 5), (8, 1, 1, 15), (8, 3, 2, 18), (8, 7, 1, 9)])
def test_linear_latency_counts_every_adder_register(n, r, add_stages, latency):
    """1 + ceil((n-1)/r) + (n-1) * add_stages: the running sum passes all n-1 adders in series."""
    assert FanLinear(n=n, stage_adders=r, add_stages=add_stages).latency == latency


@pytest.mark.parametrize("cls", [FAN, FanLinear, AdderTree])
def test_add_stages_out_of_range(cls):
    for bad in (4, -1):
        with pytest.raises(ValueError, match=rf"\.add_stages: {bad} is not allowed; expected an integer in 0\.\.3"):
            cls(add_stages=bad)
    with pytest.raises(TypeError, match=r"\.add_stages: True is not allowed; expected an integer in 0\.\.3"):
        cls(add_stages=True)


@pytest.mark.parametrize("family", ["fan", "fan_linear", "adder_tree"])
def test_cli_add_stages_option(family, tmp_path, capsys):
    """--add-stages comes from the schema; a value out of range is one line naming field, value and range, exit 2."""
    from accelgen.cli import main
    assert main(["gen", family, "--n", "4", "--add-stages", "4", "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"accelgen: error: {family}.add_stages: 4 is not allowed; expected an integer in 0..3"]


def test_fan_ports_and_widths():
    fan = FAN(n=16, width=6, signed=True)
    members = fan.signature.members
    assert members["value"].shape.width == 6 and members["value"].shape.signed
    assert Shape.cast(members["vec_id"].shape).width == 4
    assert members["sum"].shape.width == 6 + 4
    assert len(members["sum"].dimensions) == 1 and members["sum"].dimensions[0] == 16
    tree = AdderTree(n=16, width=6, signed=False)
    assert tree.signature.members["sum"].shape.width == 10 and not tree.signature.members["sum"].shape.signed
    assert "vec_id" not in tree.signature.members


def test_fan_two_inputs_degenerate():
    fan = FAN(n=2, width=4)
    assert fan.latency == 2
    assert fan.params.id_width == 1 and fan.params.sum_width == 5


def test_fan_levels_follow_trailing_ones():
    assert [fan_level(i) for i in range(15)] == [0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0]


@pytest.mark.parametrize("cls", [FAN, FanLinear, AdderTree])
@pytest.mark.parametrize("kw,match", [
    ({"n": 6}, r"n=6 is not a power of two; allowed: 2, 4, 8, \.\.\., 512"),
    ({"n": 1}, r"n: 1 is not allowed; expected an integer in 2\.\.512"),
    ({"n": 1024}, r"n: 1024 is not allowed; expected an integer in 2\.\.512"),
    ({"width": 0}, r"width: 0 is not allowed; expected an integer in 1\.\.32"),
])
def test_impossible_values_raise_value_error(cls, kw, match):
    with pytest.raises(ValueError, match=match):
        cls(**kw)


def test_linear_stage_adders_bounded_by_chain_length():
    with pytest.raises(ValueError, match=r"stage_adders=8 exceeds the 3 adders of an n=4 chain; allowed: 1\.\.3"):
        FanLinear(n=4, stage_adders=8)


@pytest.mark.parametrize("kw,match", [({"n": 8.0}, r"fan\.n: 8\.0 is not allowed; expected an integer"),
                                      ({"signed": "yes"}, r"fan\.signed: 'yes' is not allowed")])
def test_wrong_types_raise_type_error(kw, match):
    with pytest.raises(TypeError, match=match):
        FAN(**kw)
