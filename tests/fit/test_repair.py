"""Electrical repair of mapped netlists: loads a separately mapped module's ABC run did not see (fit/repair.py)."""

import copy

import pytest

from accelgen.fit.liberty_read import read_power_library
from accelgen.fit.mapping import OUTPUT_LOAD_FF, default_liberty
from accelgen.fit.repair import _Limits, _nets, repair_drive, same_function
from accelgen.fit.sta import analyze
from accelgen.flow import time_design
from accelgen.registry import FAMILIES


@pytest.fixture(scope="module")
def plib():
    return read_power_library(default_liberty())


def _fanout_netlist(sinks: int, driver: str = "INV_X1") -> dict:
    """clk, a -> DFF -> ``driver`` -> ``sinks`` flip-flops (their Q on output ``y``)."""
    cells = {"src": {"type": "DFF_X1", "connections": {"CK": [2], "D": [3], "Q": [10]}},
             "drv": {"type": driver, "connections": {"A": [10], "ZN": [11]}}}
    for i in range(sinks):
        cells[f"sink{i}"] = {"type": "DFF_X1", "connections": {"CK": [2], "D": [11], "Q": [100 + i]}}
    ports = {"clk": {"direction": "input", "bits": [2]}, "a": {"direction": "input", "bits": [3]},
             "y": {"direction": "output", "bits": [100 + i for i in range(sinks)]}}
    return {"modules": {"t": {"ports": ports, "cells": cells, "netnames": {}}}}


def _violations(netlist, plib):
    limits, mod = _Limits(plib), netlist["modules"]["t"]
    return [b for b, (inst, pin, sinks, ports, cap) in _nets(mod, plib, OUTPUT_LOAD_FF).items()
            if b != 2 and not limits.ok(mod["cells"][inst]["type"], pin, cap + plib.wire_cap(len(sinks) + ports))]


def _source_of(mod, bit):
    """Follow buffers back from net ``bit`` to the net that is not a buffer's output."""
    for inst in mod["cells"].values():
        if inst["type"].startswith("BUF") and inst["connections"]["Z"] == [bit]:
            return _source_of(mod, inst["connections"]["A"][0])
    return bit


def test_a_net_within_the_limits_is_left_alone(plib):
    netlist = _fanout_netlist(2)
    before = copy.deepcopy(netlist)
    report = repair_drive(netlist, "t", plib, output_load_ff=OUTPUT_LOAD_FF)
    assert (report.upsized, report.buffers, report.passes) == (0, 0, 0)
    assert netlist == before


def test_a_heavy_net_is_upsized_within_its_drive_family(plib):
    netlist = _fanout_netlist(60)       # INV_X1 exceeds the limits from 40 sinks, INV_X8 from 318
    assert _violations(netlist, plib) == [11]
    report = repair_drive(netlist, "t", plib, output_load_ff=OUTPUT_LOAD_FF)
    assert report.upsized == 1 and report.buffers == 0
    new = netlist["modules"]["t"]["cells"]["drv"]["type"]
    assert new in [c.name for c in same_function(plib)["INV_X1"]] and new != "INV_X1"
    assert _violations(netlist, plib) == []


def test_a_net_beyond_the_strongest_driver_gets_buffers_and_keeps_every_sink(plib):
    netlist = _fanout_netlist(400)
    lib = plib.timing
    before = analyze(netlist, "t", lib, output_load_ff=OUTPUT_LOAD_FF)
    report = repair_drive(netlist, "t", plib, output_load_ff=OUTPUT_LOAD_FF)
    after = analyze(netlist, "t", lib, output_load_ff=OUTPUT_LOAD_FF)
    mod = netlist["modules"]["t"]
    assert report.buffers > 1 and report.area_added_um2 > 0
    assert _violations(netlist, plib) == []
    # every sink still hears the inverter, through buffers only
    assert {_source_of(mod, mod["cells"][f"sink{i}"]["connections"]["D"][0]) for i in range(400)} == {11}
    assert after.delay_ps < before.delay_ps


@pytest.mark.synth
def test_the_tile_scheduler_broadcast_is_repaired_after_mapping():
    # measured 2026-11-24: 3.53 ns before the repair (a NOR3_X1 select driving every row), 2.00 ns after
    fam = FAMILIES["tensordash_tile"]
    t = time_design(fam, fam.validate({"rows": 4, "lanes": 6, "depth": 2, "a_width": 5, "b_width": 5,
                                       "acc_width": 18}))
    assert t.extra["repair"]["upsized"] > 0
    assert t.delay_ns < 2.5
