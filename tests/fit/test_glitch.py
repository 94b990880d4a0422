"""The timed (glitch) simulation against the zero-delay count (issue 20 item 3)."""

import numpy as np
import pytest

from accelgen.cosim.stimulus import Activity
from accelgen.fit.activity import GateSim
from accelgen.fit.glitch import TimedSim, cell_delays
from accelgen.fit.liberty_read import read_power_library
from accelgen.fit.mapping import OUTPUT_LOAD_FF, map_netlist
from accelgen.fit.power import net_energy
from accelgen.gen.emit import render
from accelgen.registry import FAMILIES


def _hazard():
    """y = a XOR NOT(NOT(NOT(a))): always 1, but when ``a`` toggles the XOR sees its direct input at once and the
    inverted one three inverter delays later."""
    return {"modules": {"h": {
        "ports": {"a": {"direction": "input", "bits": [2]}, "y": {"direction": "output", "bits": [6]}},
        "cells": {"n1": {"type": "$_NOT_", "connections": {"A": [2], "Y": [3]}},
                  "n2": {"type": "$_NOT_", "connections": {"A": [3], "Y": [4]}},
                  "n3": {"type": "$_NOT_", "connections": {"A": [4], "Y": [5]}},
                  "x": {"type": "$_XOR_", "connections": {"A": [2], "B": [5], "Y": [6]}}},
        "netnames": {}}}}


def _toggling(cycles=17, lanes=4):
    return [Activity({"a": np.arange(cycles) % 2}, ops=cycles, per="cycle") for _ in range(lanes)]


@pytest.mark.parametrize("xor_ps, pulses", [(10.0, 1), (100.0, 0)])
def test_a_hazard_glitches_only_when_the_pulse_outlasts_the_gate_delay(xor_ps, pulses):
    """The reconvergent inverter path makes a 60 ps pulse at the XOR's inputs: a 10 ps XOR passes it (two toggles of
    y per toggle of a), a 100 ps XOR swallows it (inertial delay). Zero-delay, y never toggles."""
    sim = GateSim(_hazard(), "h")
    timed = TimedSim(sim, {3: 20.0, 4: 20.0, 5: 20.0, 6: xor_ps})
    weights = np.zeros(sim.n_nets)
    weights[6] = 1.0                                 # count the toggles of y only
    r = timed.run(_toggling(), weights)
    assert r["zero_delay"] == 0
    assert r["timed"] == pytest.approx(2 * pulses)   # every counted cycle toggles a once


@pytest.mark.parametrize("rise_ps, fall_ps, pulses", [(10.0, 10.0, 1), (10.0, 100.0, 0), (100.0, 10.0, 1)])
def test_each_output_edge_takes_its_own_delay(rise_ps, fall_ps, pulses):
    """y settles at 1; when ``a`` toggles, the XOR's function is 0 for the 60 ps the inverters take, so y's pulse
    starts with a falling edge: a 100 ps fall swallows it, a 100 ps rise does not (the fall passes in 10 ps and the
    rise back comes 100 ps after the function's), as an inertial gate with a rise and a fall delay does."""
    sim = GateSim(_hazard(), "h")
    timed = TimedSim(sim, {3: 20.0, 4: 20.0, 5: 20.0, 6: (rise_ps, fall_ps)})
    weights = np.zeros(sim.n_nets)
    weights[6] = 1.0
    assert timed.run(_toggling(), weights)["timed"] == pytest.approx(2 * pulses)


def test_a_chain_without_reconvergence_has_no_glitches():
    netlist = _hazard()
    del netlist["modules"]["h"]["cells"]["x"]
    netlist["modules"]["h"]["ports"]["y"]["bits"] = [5]
    sim = GateSim(netlist, "h")
    r = TimedSim(sim, {3: 20.0, 4: 35.0, 5: 50.0}).run(_toggling(), np.ones(sim.n_nets))
    assert r["timed"] == pytest.approx(r["zero_delay"]) and r["ratio"] == pytest.approx(1.0)


@pytest.mark.synth
def test_mapped_multiplier_glitches_and_settles_like_zero_delay():
    """On an ABC-mapped MAC the timed simulation settles every cycle to the zero-delay values (checked inside run) and
    counts more switching energy than zero-delay: multipliers glitch."""
    fam = FAMILIES["mac"]
    params = fam.validate({"a_width": 6, "b_width": 6, "acc_width": 16, "input_reg": True})
    mapped = map_netlist(render(fam, params, "dut").verilog, "dut")
    plib = read_power_library(mapped.library_path)
    energy = net_energy(mapped.netlist, "dut", plib, output_load_ff=OUTPUT_LOAD_FF)
    sim = GateSim(mapped.netlist, "dut", library=plib)
    delays = cell_delays(mapped.netlist, "dut", mapped.timing_library, energy.load_ff)
    assert delays and all(r > 0 and f > 0 for r, f in delays.values())
    assert any(r != f for r, f in delays.values())   # the library's edges differ
    stims = [fam.activity_table(params, 1.0, 16, 3 + i) for i in range(16)]
    r = TimedSim(sim, delays).run(stims, energy.per_toggle_fj)
    zero = sim.run(stims, weights={"e": energy.per_toggle_fj})["weighted_per_cycle"]["e"]
    assert r["zero_delay"] == pytest.approx(zero)
    assert r["ratio"] > 1.05 and r["timed"] > r["zero_delay"]
