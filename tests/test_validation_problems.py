"""Validation reports every problem in one pass, below a structural error too, with the closest allowed key
(issue 51: a block-level typo, ``parms:``, hid four other errors)."""

import pytest

from accelgen.errors import ConfigError
from accelgen.gen.config import parse_build_config
from accelgen.ppa.arch import parse_arch
from accelgen.registry import FAMILIES


def _problems(fn, *args):
    with pytest.raises(ConfigError) as info:
        fn(*args)
    return dict(info.value.problems)


def test_three_errors_at_three_depths_are_all_reported():
    got = _problems(parse_build_config, {
        "cosim": {"vectros": 5},                                 # depth 1: a misspelt key
        "blocks": [{"block": "mac", "parms": {"a_width": 8}},   # depth 2: a misspelt key in a block
                   {"block": "mac", "params": {"a_width": 99}},  # depth 3: a parameter out of range
                   {"block": "mac", "params": {"signed": "maybe"}}]}, FAMILIES)
    assert got == {
        "cosim.vectros": "unknown field 'vectros'; did you mean 'vectors'? allowed: vectors, seed, enabled, options",
        "blocks[0].parms": "unknown field 'parms'; did you mean 'params'? allowed: name, block, params, cosim",
        "blocks[1].params.a_width": "99 is not allowed; expected an integer in 1..32",
        "blocks[2].params.signed": "'maybe' is not allowed; expected true or false"}


def test_an_unknown_key_with_nothing_close_lists_the_allowed_ones():
    got = _problems(parse_arch, {"name": "x", "node_nm": 45, "clock_mhz": 500, "core": {"zzz": 1}})
    assert got["core.zzz"].startswith("unknown field 'zzz'; allowed: tensor_units, ")
    assert "did you mean" not in got["core.zzz"]


def test_a_misspelt_architecture_key_gets_a_suggestion():
    got = _problems(parse_arch, {"name": "x", "node_nm": 45, "clock_mhz": 500, "chipp": {}})
    assert got["chipp"].startswith("unknown field 'chipp'; did you mean 'chip'? allowed: name, node_nm")


def test_a_regression_reports_its_blocks_parameters_below_a_structural_error():
    from accelgen.cosim.regression.spec import parse_regression

    got = _problems(parse_regression, {"modez": ["random"], "blocks": [{"block": "mac", "parms": {}},
                                                                       {"block": "mac", "params": {"a_width": 99}}]},
                    FAMILIES)
    assert set(got) == {"modez", "blocks[0].parms", "blocks[1].params.a_width"}
    assert got["modez"].startswith("unknown field 'modez'; did you mean 'modes'?")
