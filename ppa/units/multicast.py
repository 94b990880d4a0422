"""The multicast network of a PE array (``core.units: [{kind: multicast_noc, rows: 12, cols: 14, ...}]``): Eyeriss's
X/Y buses (NeuroMeter, Tang et al., HPCA 2021, sect. II-A, Fig. 2(c)-(d): the multicast inner-TU interconnection;
sect. II-C: Eyeriss's "MultiCast NoC"), which a tensor unit's ``interconnect: multicast`` names and which its fitted
array model does not contain.

Structure, per network: a Y-bus along the array's rows carrying the data and its tag (a row and a column ID); at
each row a multicast controller (an ID register, an equality comparator and a gate onto the row's X-bus); per row an
X-bus carrying the data and the column ID past the row's PEs; at each PE a controller (ID register, comparator, a
gate into the PE). Controllers are gate-level cells (:mod:`accelgen.ppa.units.cells`); the buses are unrepeated wires
of one PE pitch per segment, each segment a pi-RC section (NeuroMeter sect. II-A: the segments "abstracted into the
pi-RC model", driven by the I/O FIFO's output resistance and loaded by the cells' inputs): the bus's delay is the
Elmore delay of that ladder (ln 2 of it to the 50% point) and a transfer charges its wire and load capacitance.
Wires run over the array on the semi-global layers (the node's resistance and capacitance per length) and, like
every wire here, take no placement area.

One ``transfer`` is one word over the Y-bus and one X-bus (a word multicast to k rows is k X-bus transfers): the
Y-bus's and the X-bus's controllers compare its tag. Full activity: one transfer per network per cycle.
"""

from __future__ import annotations

import math

from ..components import Component
from ..process import REF_NM, TechNode, technology
from .base import AnalyticalUnit, register
from .cells import DATA_TOGGLE, Logic, bits_for, cap_ratio, cell_figures, energy_pj, equality, path_delay_ns
from .params import MulticastNoC

#: the cell whose output drives a bus (the I/O FIFO's output flip-flop) and the one each controller's bus input is
DRIVER, LOAD = "DFF_X1", "XNOR2_X1"


def controller(id_bits: int, gated_bits: int) -> Logic:
    """A multicast controller: its ID register, the tag comparator and an AND2 gate per bit it passes on."""
    return Logic({"DFF_X1": id_bits}) + equality(id_bits) + Logic({"AND2_X1": gated_bits})


def bus_figures(tech: TechNode, *, segments: int, pitch_um: float, loads_per_segment: int = 1) -> dict:
    """One unrepeated bus wire of ``segments`` pi-RC sections of ``pitch_um``, a load at each section's end: its
    capacitance (fF) and its 50% Elmore delay (ns) driven by :data:`DRIVER`."""
    ref = technology(REF_NM, "ref_nm")
    r_seg = tech.semi_global_r_ohm_per_um * pitch_um                      # Ohm
    c_seg = tech.wire_c_ff_per_um * pitch_um                              # fF
    c_load = cell_figures(LOAD)["input_ff"] * cap_ratio(tech) * loads_per_segment
    # the driver's resistance: its delay per fF of load (kOhm) at the node's speed and capacitance
    r_drv = cell_figures(DRIVER)["drive_kohm"] * 1e3 * (tech.fo4_ps / ref.fo4_ps) / cap_ratio(tech)
    n = segments
    c_total = n * (c_seg + c_load)
    elmore_fs = r_drv * c_total + r_seg * (c_seg * n * n / 2 + c_load * n * (n + 1) / 2)   # Ohm x fF = fs
    return {"c_ff": c_total, "delay_ns": math.log(2) * elmore_fs * 1e-6}


@register
class MulticastNetwork(AnalyticalUnit):
    kind = "multicast_noc"
    params_schema = MulticastNoC
    placeable = True

    def __init__(self, params: MulticastNoC, *, tech: TechNode, path: str, name: str = "multicast_noc"):
        super().__init__(params, path=path, name=name)
        p = params
        rid = p.row_id_bits or bits_for(p.rows)
        cid = p.col_id_bits or bits_for(p.cols)
        y_wires, x_wires = p.data_bits + rid + cid, p.data_bits + cid
        per_network = controller(rid, x_wires).times(p.rows) + controller(cid, p.data_bits).times(p.rows * p.cols)
        logic = per_network.times(p.networks)
        y = bus_figures(tech, segments=p.rows, pitch_um=p.pe_pitch_um)
        x = bus_figures(tech, segments=p.cols, pitch_um=p.pe_pitch_um)
        wire_pj = DATA_TOGGLE * 0.5 * (y_wires * y["c_ff"] + x_wires * x["c_ff"]) * tech.vdd_v ** 2 * 1e-3
        compare_pj = energy_pj(tech, {"XNOR2_X1": DATA_TOGGLE * (p.rows * rid + p.cols * cid),
                                      "AND2_X1": DATA_TOGGLE * (x_wires + p.data_bits)})
        gate = ["XNOR2_X1"] + ["AND2_X1"] * (bits_for(max(rid, cid)) + 1)
        delay = y["delay_ns"] + x["delay_ns"] + 2 * path_delay_ns(tech, gate) + path_delay_ns(tech, [DRIVER])
        self.component = Component(name, "multicast_noc", area_um2_each=logic.area_um2(tech),
                                   leakage_mw_each=logic.leakage_mw(tech),
                                   energy_pj={"transfer": wire_pj + compare_pj},
                                   actions_per_cycle={"transfer": float(p.networks)}, delay_ns=delay,
                                   activity_key="tensor",
                                   params={"rows": p.rows, "cols": p.cols, "networks": p.networks,
                                           "data_bits": p.data_bits, "row_id_bits": rid, "col_id_bits": cid,
                                           "y_bus_mm": round(p.rows * p.pe_pitch_um * 1e-3, 4),
                                           "x_bus_mm": round(p.cols * p.pe_pitch_um * 1e-3, 4),
                                           "y_bus_ns": y["delay_ns"], "x_bus_ns": x["delay_ns"],
                                           "wire_pj_per_transfer": wire_pj})
