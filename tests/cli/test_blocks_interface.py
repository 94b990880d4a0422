"""``accelgen blocks FAMILY``: a family's parameters and interface where a user looks (issue 51, item 2)."""

import json

import pytest

from accelgen.gen.emit import render
from accelgen.gen.interface import protocol_doc
from accelgen.registry import FAMILIES


@pytest.mark.parametrize("name", list(FAMILIES))
def test_every_family_documents_its_ports(name):
    doc = protocol_doc(FAMILIES[name])
    assert "Ports" in doc and "----" in doc, name


def test_blocks_family_prints_parameters_ports_and_protocol(accelgen_main):
    out = accelgen_main("blocks", "mac")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("mac: ") and "systolic:" not in out.stdout
    assert "acc_width" in out.stdout and "latency 1 cycle" in out.stdout
    assert "clear" in out.stdout and "\nPorts\n-----\n" in out.stdout


def test_blocks_family_json_is_the_manifest_interface(accelgen_main):
    out = accelgen_main("blocks", "systolic", "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    fam = FAMILIES["systolic"]
    manifest = render(fam, fam.validate({}), "systolic").manifest
    assert got["ports"] == manifest["ports"] and got["latency"] == manifest["latency"]
    assert got["params"]["rows"] == 4 and "Weights and pipelining" in got["protocol"]


def test_blocks_unknown_family_is_a_usage_error(accelgen_main):
    out = accelgen_main("blocks", "nope")
    assert out.returncode == 2 and "'nope' is not one of 'mac'" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
