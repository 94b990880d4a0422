"""bench/third_party_ladder.py's reading of Design Compiler reports, on small reports written for the test (no third
party's report is in the repository), and the gate simulator's ports wider than a machine word that it needs."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from accelgen.fit.activity import GateSim

BENCH = Path(__file__).resolve().parents[2] / "bench" / "third_party_ladder.py"
_spec = importlib.util.spec_from_file_location("third_party_ladder", BENCH)
tpl = sys.modules.setdefault("third_party_ladder", importlib.util.module_from_spec(_spec))   # dataclasses look it up
_spec.loader.exec_module(tpl)

AREA = """
Library(s) Used:

    lib28tt0p8v25c (File: /x/lib28tt0p8v25c.db)

Combinational area:              300.500000
Buf/Inv area:                     20.000000
Noncombinational area:           200.250000
Total cell area:                 500.750000

Hierarchical area distribution
------------------------------

Hierarchical cell                 Absolute    Percent  Combi-      Noncombi-   Black-
                                  Total       Total    national    national    boxes   Design
--------------------------------  ----------  -------  ----------  ----------  ------  ------
top                                 500.7500    100.0      0.7500      0.0000  0.0000  top
u_pe                                300.0000     59.9    120.0000    180.0000  0.0000  pe_W8_DEPTH4_1
u_net/a_very_long_instance_name_of_a_switch
                                    200.0000     39.9    179.7500     20.2500  0.0000  sw_32_2_00000002_0
--------------------------------  ----------  -------  ----------  ----------  ------  ------
Total                                                    300.5000    200.2500  0.0000
"""

POWER = """Information: Propagating switching activity (low effort zero delay simulation). (PWR-6)
Warning: Design has unannotated primary inputs. (PWR-414)
Operating Conditions: tt0p8v25c   Library: lib28tt0p8v25c
Global Operating Voltage = 0.8
    Dynamic Power Units = 1mW    (derived from V,C,T units)
    Leakage Power Units = 1nW

--------------------------------------------------------------------------------
                                       Switch   Int      Leak     Total
Hierarchy                              Power    Power    Power    Power    %
--------------------------------------------------------------------------------
top                                       0.100    2.000 3.00e+03    2.103 100.0
  u_pe (pe_W8_DEPTH4_1)                2.00e-02    1.000 1.00e+03    1.021  48.5
  u_net (net_4)
                                       5.00e-02    0.900  900.000    0.951  45.2
    a_very_long_instance_name_of_a_switch (sw_32_2_00000002_0)
                                       1.00e-03 8.00e-02  500.000 8.15e-02   3.9
"""

TIMING = """  clock clk (rise edge)                                   0.00       0.00
  clock clk (rise edge)                                   2.00       2.00
"""


def test_area_report_gives_totals_and_every_instance_also_a_long_name_on_two_lines():
    area = tpl.parse_area_report(AREA)
    assert area["library"] == "lib28tt0p8v25c" and area["total_um2"] == pytest.approx(500.75)
    assert area["noncombinational_um2"] == pytest.approx(200.25)
    assert set(area["instances"]) == {"top", "u_pe", "u_net/a_very_long_instance_name_of_a_switch"}
    sw = area["instances"]["u_net/a_very_long_instance_name_of_a_switch"]
    assert sw == {"design": "sw_32_2_00000002_0", "total_um2": 200.0, "combinational_um2": 179.75,
                  "noncombinational_um2": 20.25}


def test_power_report_gives_paths_by_indentation_in_mw_with_leakage_converted():
    power = tpl.parse_power_report(POWER)
    assert power["vdd_v"] == 0.8 and power["operating_conditions"] == "tt0p8v25c"
    assert any("PWR-414" in m for m in power["messages"])
    inst = power["instances"]
    assert set(inst) == {"top", "u_pe", "u_net", "u_net/a_very_long_instance_name_of_a_switch"}
    assert inst["u_pe"]["design"] == "pe_W8_DEPTH4_1" and inst["u_pe"]["total_mw"] == pytest.approx(1.021)
    assert inst["u_pe"]["leakage_mw"] == pytest.approx(1e-3)              # 1.00e+03 nW
    sw = inst["u_net/a_very_long_instance_name_of_a_switch"]
    assert sw["internal_mw"] == pytest.approx(0.08) and sw["switching_mw"] == pytest.approx(1e-3)
    assert tpl.parse_clock_period_ns(TIMING) == pytest.approx(2.0)


def test_design_names_give_the_parameters_by_name_or_by_position():
    verilog = "module pe #(\n parameter W = 8, // width\n parameter DEPTH = 2,\n parameter LOG2_DEPTH = 1\n)(clk);"
    declared = tpl.declared_parameters(verilog, "pe")
    assert declared == ["W", "DEPTH", "LOG2_DEPTH"]
    assert tpl.design_parameters("pe_W8_DEPTH4_LOG2_DEPTH2_1", "pe", declared) == {"W": 8, "DEPTH": 4, "LOG2_DEPTH": 2}
    assert tpl.design_parameters("pe_32_2_00000002_0", "pe", declared) == {"W": 32, "DEPTH": 2, "LOG2_DEPTH": 2}
    with pytest.raises(ValueError, match="not of module"):
        tpl.design_parameters("sw_W8", "pe", declared)


def test_dc_default_stimulus_toggles_a_tenth_of_the_bits_and_holds_the_tied_inputs():
    roles = SimpleNamespace(data=("a", "en"))
    streams = tpl.dc_default_stimulus({"a": ("input", 128), "en": ("input", 1)}, roles, {"en": 1}, cycles=400,
                                      lanes=4)
    assert all(s["en"] == [1] * 400 for s in streams)
    words = [int(v) for v in streams[0]["a"]]
    rate = np.mean([(x ^ y).bit_count() / 128 for x, y in itertools.pairwise(words)])
    assert rate == pytest.approx(tpl.DC_TOGGLE_RATE, abs=0.01)
    assert max(words) >= 1 << 127 - 8           # the upper half of a 128-bit port is driven too


def test_gate_simulator_packs_ports_wider_than_a_machine_word():
    sim = SimpleNamespace(ports={"a": ("input", list(range(2, 130)))})
    values = np.array([[(1 << 127) | 5, 2], [0, (1 << 100) + 1]], dtype=object)   # (cycles, lanes)
    words = GateSim._port_words(sim, "a", values)
    assert words.shape == (2, 128)
    assert words[0, 0] == 1 and words[0, 1] == 2 and words[0, 2] == 1 and words[0, 127] == 1   # lane l at bit l
    assert words[1, 0] == 2 and words[1, 100] == 2 and words[1, 1] == 0
