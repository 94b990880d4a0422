"""Build-config validation: every problem reported with its field path."""

import pytest

from accelgen.errors import ConfigError
from accelgen.gen import load_build_config, parse_build_config
from accelgen.registry import FAMILIES

GOOD = {"blocks": [{"name": "m8", "block": "mac", "params": {"a_width": 8, "b_width": 8}}]}


def test_defaults_filled():
    cfg = parse_build_config(GOOD, FAMILIES)
    assert cfg.sim == "verilator" and cfg.synth is True
    (blk,) = cfg.blocks
    assert blk.name == "m8" and blk.params.acc_width == 32
    assert blk.cosim.vectors == 4096 and blk.cosim.seed == 1


def test_per_block_cosim_overrides_global():
    cfg = parse_build_config({"cosim": {"seed": 9, "vectors": 10},
                              "blocks": [{"block": "mac", "cosim": {"vectors": 20}}]}, FAMILIES)
    assert cfg.blocks[0].cosim.vectors == 20 and cfg.blocks[0].cosim.seed == 9
    assert cfg.blocks[0].name == "mac"


def test_all_problems_collected_with_paths():
    data = {"blocks": [
        {"block": "mac"},
        {"block": "mac", "params": {"a_width": 0}},
        {"block": "nope"},
        {"block": "mac", "params": {"bogus": 1}},
        {"name": "mac", "block": "mac"},
    ]}
    with pytest.raises(ConfigError) as info:
        parse_build_config(data, FAMILIES, "cfg.yaml")
    paths = [p for p, _ in info.value.problems]
    assert paths == ["blocks[1].params.a_width", "blocks[2].block", "blocks[3].params.bogus", "blocks[4].name"]
    text = str(info.value)
    assert text.startswith("cfg.yaml: ")
    assert "unknown block 'nope'; allowed: mac" in text
    assert "'mac' is already used by blocks[0]" in text


@pytest.mark.parametrize("data,match", [
    ({}, r"blocks: missing required field"),
    ({"blocks": []}, r"blocks: \[\] is not allowed; list should have at least 1 item"),
    ({"blocks": [{"block": "mac"}], "sim": "modelsim"}, r"sim: 'modelsim' is not allowed; input should be 'verilator' or 'icarus'"),
    ({"blocks": [{"block": "mac"}], "extra": 1}, r"extra: unknown field"),
    ({"blocks": [{"block": "mac", "cosim": {"vectors": 0}}]}, r"blocks\[0\]\.cosim\.vectors"),
    ({"blocks": [{"block": "mac", "params": {"acc_width": 10}}]}, r"blocks\[0\]\.params: acc_width=10 is too narrow"),
    ({"blocks": [{"block": "mac", "name": "a b"}]}, r"blocks\[0\]\.name: 'a b' is not a valid module name"),
    ([1, 2], r"expected a mapping"),
])
def test_invalid_configs(data, match):
    with pytest.raises(ConfigError, match=match):
        parse_build_config(data, FAMILIES)


def test_malformed_yaml_names_line(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("blocks:\n  - block: mac\n    params: {a_width: 8\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml: malformed YAML: line \d+, column \d+"):
        load_build_config(p, FAMILIES)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="file not found"):
        load_build_config(tmp_path / "none.yaml", FAMILIES)


def test_shipped_examples_validate():
    from pathlib import Path
    examples = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yaml"))
    assert examples
    for path in examples:
        load_build_config(path, FAMILIES)
