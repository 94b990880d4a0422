"""Energy, clock network and leakage of mapped netlists from the cell library (issue 20 items 2 and 3)."""

import numpy as np
import pytest

from accelgen.fit.activity import GateSim
from accelgen.fit.cells import load_cells
from accelgen.fit.liberty_read import read_power_library
from accelgen.fit.liberty_write import write_liberty
from accelgen.fit.mapping import default_liberty, map_netlist
from accelgen.fit.power import clock_network, net_energy
from accelgen.gen.emit import render
from accelgen.registry import FAMILIES
from accelgen.technology import WIRE_C_FF_PER_UM


@pytest.fixture(scope="module")
def plib():
    return read_power_library(default_liberty())


def test_library_reads_area_leakage_functions_and_energy(plib):
    cells = load_cells()["cells"]
    nand = plib.cells["NAND2_X1"]
    assert nand.area_um2 == cells["NAND2_X1"]["area_um2"]
    assert nand.leakage_nw == pytest.approx(cells["NAND2_X1"]["leakage_nw"])
    assert nand.inputs == pytest.approx(cells["NAND2_X1"]["inputs"])
    spec = cells["NAND2_X1"]["outputs"]["ZN"]["energy_fj"]
    assert nand.energy_fj("ZN", 2.0, plib.nominal_slew_ps) == pytest.approx((spec["rise"] + spec["fall"]) / 2)
    dff = plib.cells["DFF_X1"]
    assert dff.ff[0] == "CK" and dff.ff[1] == ("var", "D")
    clk = cells["DFF_X1"]["clock_energy_fj"]
    assert dff.clock_energy_fj(plib.nominal_slew_ps) == pytest.approx(clk["rise"] + clk["fall"])
    assert plib.vdd_v == 1.1 and plib.buffer().name == "BUF_X8" and plib.buffer(strongest=False).name == "BUF_X1"


def _netlist():
    """input a -> INV_X1 -> NAND2_X1 (with b) -> output y, and a DFF_X1 clocked by clk."""
    return {"modules": {"t": {
        "ports": {"a": {"direction": "input", "bits": [2]}, "b": {"direction": "input", "bits": [3]},
                  "clk": {"direction": "input", "bits": [6]}, "y": {"direction": "output", "bits": [5]},
                  "q": {"direction": "output", "bits": [7]}},
        "cells": {"u1": {"type": "INV_X1", "connections": {"A": [2], "ZN": [4]}},
                  "u2": {"type": "NAND2_X1", "connections": {"A1": [4], "A2": [3], "ZN": [5]}},
                  "r": {"type": "DFF_X1", "connections": {"D": [5], "CK": [6], "Q": [7]}}},
        "netnames": {}}}}


def test_net_energy_is_internal_plus_half_cv2_of_the_real_load(plib):
    ne = net_energy(_netlist(), "t", plib, output_load_ff=3.0)
    v2, wire = plib.vdd_v ** 2, plib.wire_cap(1)
    inv, nand, dff = (plib.cells[c] for c in ("INV_X1", "NAND2_X1", "DFF_X1"))
    load4 = nand.inputs["A1"] + wire
    assert ne.per_toggle_fj[4] == pytest.approx(inv.energy_fj("ZN", load4, plib.nominal_slew_ps) + 0.5 * load4 * v2)
    load5 = dff.inputs["D"] + wire + 3.0          # a top-level output and a flip-flop's D pin
    assert ne.per_toggle_fj[5] == pytest.approx(nand.energy_fj("ZN", load5, plib.nominal_slew_ps) + 0.5 * load5 * v2)
    assert ne.per_toggle_fj[2] == pytest.approx(0.5 * (inv.inputs["A"] + wire) * v2)   # an input: its load only
    assert ne.per_toggle_fj[6] == 0                  # the clock: charged by the clock network, not per toggle
    assert ne.clock_pin_ff == dff.inputs["CK"] and ne.flip_flops == 1
    assert ne.area_um2 == pytest.approx(inv.area_um2 + nand.area_um2 + dff.area_um2)
    assert ne.leakage_nw == pytest.approx(inv.leakage_nw + nand.leakage_nw + dff.leakage_nw)


def test_clock_network_grows_with_flip_flops_and_extent(plib):
    assert clock_network(plib, 0, 0.0, 0.0, 100.0)["energy_fj"] == 0
    small = clock_network(plib, 16, 16 * 0.95, 16 * 6.9, 500.0)
    big = clock_network(plib, 4096, 4096 * 0.95, 4096 * 6.9, 128000.0)    # the same area per flip-flop
    sparse = clock_network(plib, 4096, 4096 * 0.95, 4096 * 6.9, 512000.0)  # 4x the area per flip-flop
    assert small["buffers"] >= 1 and big["buffers"] > small["buffers"]
    # an H-tree's wire per sink is 1.5 sqrt(area per sink): equal for equal density, 2x for 4x the area
    assert big["wire_um"] / 4096 == pytest.approx(small["wire_um"] / 16)
    assert sparse["wire_um"] == pytest.approx(2 * big["wire_um"])
    assert sparse["energy_fj"] > big["energy_fj"]
    # the wire and pin capacitance alone, charged once per cycle, is a lower bound
    assert small["energy_fj"] > (small["wire_um"] * WIRE_C_FF_PER_UM + 16 * 0.95) * plib.vdd_v ** 2


@pytest.mark.synth
def test_mapped_mac_simulates_like_the_generic_netlist(plib, tmp_path):
    """The library simulation of the ABC-mapped netlist computes what the generic-gate netlist computes, cycle by
    cycle, and its switching energy is the toggles weighted by net energy."""
    fam = FAMILIES["mac"]
    params = fam.validate({"a_width": 6, "b_width": 5, "acc_width": 16, "input_reg": True, "signed": True})
    e = render(fam, params, "dut")
    mapped = map_netlist(e.verilog, "dut")
    sim = GateSim(mapped.netlist, "dut", library=plib)
    generic = GateSim.from_verilog(e.verilog, "dut", tmp_path)
    stims = [fam.activity_table(params, 0.5, 40, 7 + i) for i in range(8)]
    ne = net_energy(mapped.netlist, "dut", plib)
    got = sim.run(stims, record=("acc",), weights={"e": ne.per_toggle_fj})
    want = generic.run(stims, record=("acc",))
    assert np.array_equal(got["recorded"]["acc"], want["recorded"]["acc"])
    assert set(got["toggles_per_cycle"]) <= set(plib.cells) | {"port"}
    assert 0 < got["weighted_per_cycle"]["e"]
    ops_zero = sim.run([fam.activity_table(params, 0.0, 40, 7 + i) for i in range(8)], weights={"e": ne.per_toggle_fj})
    assert ops_zero["weighted_per_cycle"]["e"] < got["weighted_per_cycle"]["e"]


def test_capacitance_and_energy_units_follow_the_library(tmp_path):
    """A library in pF: capacitances and internal energies (pF x V^2 = pJ) come out in fF and fJ."""
    text = write_liberty(load_cells(), tmp_path / "a.lib").read_text()
    pf = text.replace("capacitive_load_unit (1, ff);", "capacitive_load_unit (1, pf);")
    (tmp_path / "b.lib").write_text(pf)
    a, b = read_power_library(tmp_path / "a.lib"), read_power_library(tmp_path / "b.lib")
    assert b.cells["INV_X1"].inputs["A"] == pytest.approx(1000 * a.cells["INV_X1"].inputs["A"])
    assert b.cells["INV_X1"].energy_fj("ZN", 1.0, a.nominal_slew_ps) == pytest.approx(
        1000 * a.cells["INV_X1"].energy_fj("ZN", 1.0, a.nominal_slew_ps))
