"""``accelgen schema {arch,sweep,regress,build}``: the JSON Schemas of the YAML formats accept every shipped file,
reject what the loaders reject, and docs/reference/ is written from them (issue 51, item 7)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from accelgen import shipped
from accelgen.cosim.regression.spec import parse_regression
from accelgen.errors import ConfigError
from accelgen.fit.sweep import load_sweep
from accelgen.gen.config import parse_build_config
from accelgen.ppa.arch import parse_arch
from accelgen.registry import FAMILIES
from accelgen.schema_docs import reference_page
from accelgen.schemas import FORMATS, schema

ROOT = Path(__file__).resolve().parents[2]
#: every shipped file of each format: the examples' copies and the package data `accelgen.shipped` finds
SHIPPED = {
    "arch": sorted(ROOT.glob("examples/arch/*.yaml")) + [shipped.path("chips", n) for n in shipped.names("chips")],
    "sweep": sorted(ROOT.glob("fit/sweeps/*.yaml")),
    "regress": sorted(ROOT.glob("examples/regress/*.yaml")) + [shipped.path("regressions", n)
                                                               for n in shipped.names("regressions")],
    "build": sorted(ROOT.glob("examples/*.yaml")),
}


@pytest.fixture(scope="module")
def validators():
    out = {}
    for kind in FORMATS:
        document = schema(kind, FAMILIES)
        jsonschema.Draft202012Validator.check_schema(document)
        out[kind] = jsonschema.Draft202012Validator(document)
    return out


def _errors(validator, data) -> list[str]:
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message[:160]}" for e in validator.iter_errors(data)]


@pytest.mark.parametrize("kind", FORMATS)
def test_every_shipped_file_validates(kind, validators):
    assert len(SHIPPED[kind]) >= 3, SHIPPED[kind]
    for path in SHIPPED[kind]:
        assert not _errors(validators[kind], yaml.safe_load(path.read_text())), path


def _load(kind: str, data: dict, tmp_path: Path):
    """The format's own loader on ``data`` (a ConfigError when it rejects it)."""
    if kind == "arch":
        return parse_arch(data)
    if kind == "regress":
        return parse_regression(data, FAMILIES)
    if kind == "build":
        return parse_build_config(data, FAMILIES)
    path = tmp_path / "mac.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_sweep("mac", path, families=FAMILIES)


def _misspell(data: dict, *keys, old: str, new: str) -> dict:
    data = copy.deepcopy(data)
    where = data
    for key in keys:
        where = where[key]
    where[new] = where.pop(old)
    return data


#: (kind, shipped file, how to break it): a misspelt key at several depths and a value out of range
BROKEN = [
    ("arch", "examples/arch/tpu_v1.yaml", lambda d: _misspell(d, "core", "tensor_units", 0, old="rows", new="rowz")),
    ("arch", "examples/arch/tpu_v1.yaml", lambda d: d | {"cores": 0}),
    ("sweep", "fit/sweeps/mac.yaml", lambda d: _misspell(d, old="cycles", new="cycle")),
    ("sweep", "fit/sweeps/mac.yaml", lambda d: d | {"lanes": 65}),
    ("sweep", "fit/sweeps/mac.yaml", lambda d: d | {"grid": [{"a_width": [4], "b_width": [4], "sigend": [True]}]}),
    ("regress", "examples/regress/default.yaml", lambda d: _misspell(d, "blocks", 0, old="block", new="blok")),
    ("regress", "examples/regress/default.yaml", lambda d: d | {"modes": ["fast"]}),
    ("build", "examples/quickstart.yaml", lambda d: _misspell(d, "blocks", 0, old="params", new="parms")),
    ("build", "examples/quickstart.yaml",
     lambda d: d | {"blocks": [{"block": "mac", "params": {"a_width": 0}}]}),
]


@pytest.mark.parametrize("kind,source,breaks", BROKEN, ids=[f"{k}-{i}" for i, (k, *_ ) in enumerate(BROKEN)])
def test_a_wrong_field_fails_the_schema_and_the_loader(kind, source, breaks, validators, tmp_path):
    good = yaml.safe_load((ROOT / source).read_text())
    bad = breaks(good)
    assert _errors(validators[kind], bad), f"the {kind} schema accepts {bad}"
    with pytest.raises(ConfigError):
        _load(kind, bad, tmp_path)


@pytest.mark.parametrize("kind", FORMATS)
def test_reference_page_is_current(kind):
    page = ROOT / "docs" / "reference" / f"{kind}.md"
    assert page.read_text() == reference_page(kind, schema(kind, FAMILIES)), \
        f"docs/reference/{kind}.md is stale: run `accelgen schema {kind} --markdown > docs/reference/{kind}.md`"


def test_schema_command_prints_the_json_schema(accelgen_main):
    ran = accelgen_main("hw", "schema", "arch")
    assert ran.returncode == 0, ran.stderr
    document = json.loads(ran.stdout)
    assert document["$schema"].endswith("2020-12/schema") and document["title"]
    assert document["properties"]["clock_mhz"]["x-unit"] == "MHz"
    ran = accelgen_main("schema", "archh")
    assert ran.returncode == 2 and "'archh' is not one of" in ran.stderr
