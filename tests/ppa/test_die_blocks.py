"""The die blocks with their own models (issue 50, item 2): transpose unit, PE FIFOs, multicast NoC, run-length codec
and inter-chip interconnect, each pinned at one configuration at 45 nm (the cells' own node: no scaling) with the
arithmetic from the NanGate45 cell figures written out, their one-line errors, and a chip that places them.

Cell figures used (fit/tech/nangate45_cells.yaml, 1.1 V): area DFF_X1 4.522, MUX2_X1 1.862, XOR2/XNOR2_X1 1.596,
AND2/OR2_X1 1.064, INV_X1 0.532 um^2. Energy per output toggle = mean internal energy + 1/2 C_load V^2 with C_load the
mean input pin capacitance + 0.39 fF wire: DFF 4.24 + 0.5 x 1.435 x 1.21 = 5.108 fJ (clock pin 2.514 + 4.359 = 6.873
fJ per cycle), MUX2 3.2755 + 0.5 x 1.6603 x 1.21 = 4.280 fJ. Placed area = cell area / 0.7 (standard-cell
utilization). Tolerance: 1e-3 relative (the figures above are rounded to 4 digits).
"""

from __future__ import annotations

import math
import warnings

import pytest

from accelgen.errors import ConfigError
from accelgen.ppa import estimate, parse_arch
from accelgen.ppa.estimate import walk
from accelgen.ppa.process import technology
from accelgen.ppa.units import unit_class, unit_entry

T45 = technology(45)
REL = 1e-3


def _unit(kind: str, tech=T45, **params):
    cls = unit_class(kind)
    extra = {k: params.pop(k) for k in ("clock_mhz",) if k in params}
    return cls(cls.parse(params, "core.units[0]"), tech=tech, path="core.units[0]", **extra)


def test_transpose_unit_is_registers_and_muxes_clocked_every_cycle():
    u = _unit("transpose", size=4, width=8)
    bits = 4 * 4 * 8                                     # 128 registers' bits, each with a 2:1 mux
    assert u.area_um2 == pytest.approx(bits * (4.522 + 1.862) / 0.7, rel=REL)            # 1167.36 um^2
    # every flop clocked, half of them and their muxes toggling: 128 x (6.873 + 0.5 x 5.108 + 0.5 x 4.280) fJ
    assert u.energy_pj("shift") == pytest.approx(bits * (6.873 + 0.5 * 5.108 + 0.5 * 4.280) * 1e-3, rel=REL)
    assert u.component.actions_per_cycle == {"shift": 1.0}
    assert u.leakage_mw == pytest.approx(bits * (4.522 + 1.862) * 0.022e-3, rel=REL)    # 0.022 uW/um^2 at 45 nm


def test_transpose_unit_shrinks_with_the_node():
    at_16 = _unit("transpose", tech=technology(16), size=128, width=32)
    at_45 = _unit("transpose", size=128, width=32)
    assert at_16.area_um2 < at_45.area_um2 and at_16.energy_pj("shift") < at_45.energy_pj("shift")


def test_pe_fifo_converting_32_to_8_bits():
    u = _unit("pe_fifo", depth=2, in_bits=32, out_bits=8)
    # 2 x 32 flops with hold muxes; an 8:1 read mux of 8-bit words (7 x 8 MUX2); a 1-bit write pointer (2 slots)
    # and a 3-bit read pointer (8 slots), each a flop and a half adder per bit; a 3-bit pointer comparator
    cells = (68 * 4.522 + (64 + 56) * 1.862 + 4 * 1.596 + (4 + 2) * 1.064 + 3 * 1.596)   # 548.492 um^2
    assert u.area_um2 == pytest.approx(cells / 0.7, rel=REL)
    # the narrow side moves a word every cycle, the wide side one in four
    assert u.component.actions_per_cycle == {"write": 0.25, "read": 1.0}
    assert u.energy_pj("write") > u.energy_pj("read") > 0


def test_pe_fifo_widths_must_divide():
    with pytest.raises(ConfigError, match=r"out_bits: 12 is not allowed with in_bits 32; allowed: one width a "
                                          r"multiple of the other"):
        _unit("pe_fifo", depth=2, in_bits=32, out_bits=12)


def test_multicast_noc_controllers_and_pi_rc_buses():
    u = _unit("multicast_noc", rows=2, cols=4, data_bits=8, pe_pitch_um=100.0)
    p = u.component.params
    assert (p["row_id_bits"], p["col_id_bits"]) == (1, 2)
    # Y-bus controllers (2): a 1-bit ID flop and XNOR, and 8 + 2 AND2 gates onto the X-bus;
    # PE controllers (8): a 2-bit ID, 2 XNOR + 1 AND2 comparator, 8 AND2 gates into the PE
    cells = 2 * (4.522 + 1.596 + 10 * 1.064) + 8 * (2 * 4.522 + 2 * 1.596 + 9 * 1.064)   # 208.012 um^2
    assert u.area_um2 == pytest.approx(cells / 0.7, rel=REL)
    # Elmore delay of the 2-segment Y-bus: driver 2198 Ohm (DFF_X1 2.198 ps/fF), segment 150 Ohm (1.5 Ohm/um x 100)
    # and 20 fF (0.2 fF/um), load 2.574 fF (XNOR2 input) per segment
    c = 20.0 + 2.574
    y_fs = 2198 * 2 * c + 150 * (20.0 * 4 / 2 + 2.574 * 2 * 3 / 2)
    x_fs = 2198 * 4 * c + 150 * (20.0 * 16 / 2 + 2.574 * 4 * 5 / 2)
    assert p["y_bus_ns"] == pytest.approx(math.log(2) * y_fs * 1e-6, rel=1e-9)      # 0.0737 ns
    assert p["x_bus_ns"] == pytest.approx(math.log(2) * x_fs * 1e-6, rel=1e-9)      # 0.1569 ns
    assert p["y_bus_ns"] == pytest.approx(0.07375, rel=REL) and p["x_bus_ns"] == pytest.approx(0.15688, rel=REL)
    assert u.latency_ns() > p["y_bus_ns"] + p["x_bus_ns"]        # plus the controllers' comparators and gates
    # a transfer charges 11 Y wires (8 data + 1 + 2 ID bits) and 10 X wires, half of them toggling, 1/2 C V^2 each
    wires_pj = 0.5 * 0.5 * (11 * 2 * c + 10 * 4 * c) * 1.1 ** 2 * 1e-3
    assert u.component.params["wire_pj_per_transfer"] == pytest.approx(wires_pj, rel=REL)   # 0.4234 pJ
    assert u.energy_pj("transfer") > wires_pj


def test_multicast_noc_grows_with_the_array():
    small = _unit("multicast_noc", rows=12, cols=14, data_bits=16, pe_pitch_um=243.0)
    wide = _unit("multicast_noc", rows=12, cols=28, data_bits=16, pe_pitch_um=243.0)
    assert wide.area_um2 > small.area_um2 and wide.latency_ns() > small.latency_ns()
    assert wide.energy_pj("transfer") > small.energy_pj("transfer")


def test_rlc_codec_cells_of_eyeriss_format():
    u = _unit("rlc_codec", level_bits=16, run_bits=5, pairs=3)
    assert u.component.params["word_bits"] == 64          # 3 x (5 + 16) + 1
    # DFF 142, MUX2 175, AND2 50, INV 2, OR2 19, XOR2 14, XNOR2 5 (ppa/units/codec.py's structure, counted by hand)
    cells = 142 * 4.522 + 175 * 1.862 + 50 * 1.064 + 2 * 0.532 + 19 * 1.064 + 14 * 1.596 + 5 * 1.596
    assert u.area_um2 == pytest.approx(cells / 0.7, rel=REL)          # 1532.5 um^2
    no_relu = _unit("rlc_codec", level_bits=16, run_bits=5, pairs=3, relu=False)
    assert u.area_um2 - no_relu.area_um2 == pytest.approx((16 * 1.064 + 0.532) / 0.7, rel=REL)


def test_ici_serdes_lanes_niu_and_switch():
    u = _unit("ici", links=2, gbps_per_link=25.0, serdes="short_reach", flit_bits=64, clock_mhz=500.0)
    parts = {c.name: c for c in u.component.children}
    # 25 Gb/s over 10 Gb/s lanes: 3 lanes per link, 6 lanes of 3.2 / 47 mm^2 (O'Mahony et al., JSSC 2010, 45 nm)
    assert parts["serdes"].count == 6
    assert parts["serdes"].area_um2 == pytest.approx(6 * 3.2e6 / 47, rel=1e-9)
    # 1.4 pJ/bit x 25 Gb/s x 2 links on this die (TX of the bits it sends, RX of those it receives): 70 mW
    assert parts["serdes"].dynamic_mw(500.0) == pytest.approx(70.0, rel=1e-9)
    assert parts["niu"].count == 2 and parts["niu"].params["ports"] == 2
    assert parts["switch"].params["ports"] == 3                       # 2 links + 1 local port
    # every bit crosses its NIU both ways and the switch once: 2 x 2 x 50 and 2 x 50 bits per cycle of 64-bit flits
    assert parts["niu"].actions_per_cycle["flit"] == pytest.approx(2 * 50 / 64)
    assert parts["switch"].actions_per_cycle["flit"] == pytest.approx(2 * 50 / 64)


def test_ici_refuses_a_lane_faster_than_its_serdes_and_too_narrow_flits():
    with pytest.raises(ConfigError, match=r"core\.units\[0\]\.lane_gbps: 25 is not allowed with serdes "
                                          r"'long_reach'; allowed: at most 18 \(Ramachandran"):
        _unit("ici", links=1, gbps_per_link=100.0, lane_gbps=25.0, flit_bits=256)
    with pytest.raises(ConfigError, match=r"core\.units\[0\]\.flit_bits: 512 carries 358.4 Gb/s at 700 MHz, less "
                                          r"than gbps_per_link 496; allowed: at least 709"):
        _unit("ici", links=4, gbps_per_link=496.0, flit_bits=512, clock_mhz=700.0)
    with pytest.raises(ValueError, match=r"serdes: 'optical' is not allowed; input should be 'short_reach' or "
                                         r"'long_reach'"):
        unit_entry({"kind": "ici", "links": 1, "gbps_per_link": 10, "flit_bits": 64, "serdes": "optical"})


def test_activation_stages_relu_clamp_and_max_pool():
    u = _unit("activation", lanes=1, width=4, out_bits=2)
    # ReLU: 4 AND2 + INV; clamp: 2 comparators of 4 bits (4 XNOR2, 4 INV, 4 + 2 x 3 AND2, 3 OR2 each) and 2 x 2 MUX2;
    # max pool: a comparator, a 4-bit register and 4 MUX2
    cells = 12 * 1.596 + 13 * 0.532 + 34 * 1.064 + 9 * 1.064 + 8 * 1.862 + 4 * 4.522      # 104.804 um^2
    assert u.area_um2 == pytest.approx(cells / 0.7, rel=REL)
    plain = _unit("activation", lanes=1, width=4, out_bits=2, clamp=False, max_pool=False)
    assert plain.area_um2 == pytest.approx((4 * 1.064 + 0.532) / 0.7, rel=REL)
    with pytest.raises(ConfigError, match=r"out_bits: 16 is not allowed with width 8; allowed: at most 8"):
        _unit("activation", lanes=1, width=8, out_bits=16)


def test_a_chip_places_the_die_blocks_and_costs_the_ici_at_its_clock():
    units = [{"kind": "systolic", "rows": 8, "cols": 8},
             {"kind": "ici", "links": 1, "gbps_per_link": 10.0, "serdes": "short_reach", "flit_bits": 32},
             {"kind": "transpose", "size": 8, "width": 8},
             {"kind": "pe_fifo", "count": 64, "depth": 2, "in_bits": 32, "out_bits": 8}]
    arch = {"name": "t", "node_nm": 45, "clock_mhz": 500, "core": {"units": units}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = estimate(arch)
    nodes = {n["name"]: n for _, n, _ in walk(est.breakdown)}
    assert {"ici", "serdes", "niu", "switch", "transpose_unit", "pe_fifos"} <= set(nodes)
    # one 10 Gb/s lane at 1.4 pJ/bit: 14 mW, whatever the clock the estimator passed
    assert nodes["serdes"]["tdp_w"] == pytest.approx(14e-3, rel=1e-9)


def test_a_multicast_array_needs_its_multicast_noc():
    """``interconnect: multicast`` is costed by a multicast_noc unit; without one the description is refused."""
    core = {"tensor_units": [{"rows": 4, "cols": 4, "interconnect": "multicast"}]}
    arch = {"name": "m", "node_nm": 45, "clock_mhz": 200, "core": core}
    with pytest.raises(ConfigError, match=r"tensor_units\[0\]\.interconnect: 'multicast' is costed by a multicast_noc"):
        parse_arch(arch)
    core["units"] = [{"kind": "multicast_noc", "rows": 4, "cols": 4, "data_bits": 16, "pe_pitch_um": 100.0}]
    assert parse_arch(arch).core.tensor_units[0].interconnect == "multicast"


def test_a_wire_toggle_draws_half_cv2_as_the_multicast_buses_do():
    """One convention for every wire: a toggle draws C Vdd^2 / 2 from the supply on average; a repeated wire's
    repeaters add 40% to the wire's capacitance (Ho, Mai, Horowitz 2001)."""
    t = technology(45)
    c_pf_per_mm = t.wire_c_ff_per_um
    assert t.wire_energy_pj_per_bit_mm(1.0) == pytest.approx(0.5 * 1.4 * c_pf_per_mm * t.vdd_v ** 2, rel=1e-12)
    assert t.wire_energy_pj_per_bit_mm(0.5) == pytest.approx(0.5 * t.wire_energy_pj_per_bit_mm(1.0), rel=1e-12)
