"""The technology constants of the analytical models (SRAM, wires, NoC, PHYs, scalar core), from the node table.

A :class:`TechNode` holds the few device and wire figures those models need. There are two sources:

``nodes`` (:data:`NODE_TABLE`, what every estimate uses)
    :mod:`accelgen.technology.nodes`, the one table of published process data the fitted logic models scale by:
    supply, FO4 delay, 6T bitcell area and off-current per node (7..180 nm), and the factors derived from
    them. Wires take the reference kit's metal stack scaled by the node's minimum metal pitch (below).
``cacti7`` (:data:`CACTI`, calibration only)
    The figures CACTI 7 itself uses for its ``itrs-hp`` devices, so that the SRAM model's term coefficients
    can be fitted to CACTI's outputs (:mod:`accelgen.ppa.sram_calibration`) with the inputs CACTI had.
    The fitted coefficients say how many cell areas, FO4s and wire lengths a memory of a given organization
    costs; evaluated with the node table's figures they give that memory in the node table's technology.

Where the figures come from

* Supply, FO4, bitcell, off-current (``nodes``): ``accelgen/data/nodes.yaml``, each with its source
  (``accelgen tech show``).
* Feature size F (``nodes``): the periphery of a memory (decoder rows, sense amplifiers, column pitches)
  is drawn on the lower metal layers, so F follows the node's minimum metal pitch: ``F = mmp x 45/140``, the
  pitch-to-feature ratio of the reference node (NanGate45 / FreePDK45: 140 nm metal1 pitch, 45 nm). A node
  name is not a physical length below ~22 nm; the metal pitch is (7 nm: F = 12.9 nm).
* Wires (``nodes``): the reference kit's metal stack, FreePDK45 as in the NanGate45 technology LEF
  (``NangateOpenCellLibrary.tech.lef``, OpenROAD-flow-scripts ``flow/platforms/nangate45``):
  ``semi_global`` = metal4-6, pitch 0.28 um, width 0.14 um, 0.21 Ohm/sq (1.5 Ohm/um);
  ``global`` = metal7-8, pitch 0.8 um, width 0.4 um, 0.075 Ohm/sq (0.1875 Ohm/um). Other nodes scale the
  pitch with the minimum metal pitch and the resistance per length with its inverse square (width and
  thickness both follow the pitch); the rise of copper resistivity below ~30 nm widths (surface and grain
  scattering) is not modelled, so wires at 7-16 nm are somewhat optimistic. Capacitance 0.2 fF/um,
  nearly node-independent (ITRS 2007 Interconnect, low-k, k_eff ~ 2.7-3.0).
* Logic leakage density (``nodes``): :data:`LOGIC_LEAKAGE_UW_PER_UM2_45`, measured on the reference
  library's mapped designs, scaled by the node table's leakage factor over its logic-area factor.
* ``cacti7`` figures: supply, FO4, bitcell as CACTI 7 computes them for ``itrs-hp`` at the reference
  grid's settings (360 K; HewlettPackard/cacti commit 1ffd8df, printed by the commented-out debug line of
  ``io.cc`` ``cout << g_tp.FO4`` with ``g_tp.peri_global.Vdd`` and ``g_tp.sram.area_cell`` beside it,
  2026-11-24); off-current from CACTI's own ``tech_params/<node>.dat`` (``I_off_n``, hp, 300 K; the same
  figures as the node table at those nodes); wires from the ITRS 2007 Interconnect geometry CACTI's
  ``itrs`` wire projection follows (semi-global pitch 4F, aspect 1.8, 3.0 uOhm cm; global 8F, 2.2,
  2.5 uOhm cm).

Repeated-wire delay per length follows Bakoglu, *Circuits, Interconnections and Packaging for VLSI* (1990):
``t/L = 2.5 sqrt(R0 C0 r c)`` with ``R0 C0 = FO4 / 5`` (Ho, Mai, Horowitz, "The future of wires",
Proc. IEEE 2001).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, fields

import numpy as np

from . import nodes

#: Placed-and-routed area of synthesized standard-cell logic = cell area / utilization. The fitted models give
#: cell area (synthesized gates, no placement); standard-cell blocks are placed at a row utilization of about
#: 70% to leave room for routing, buffering and clock-tree insertion (Kahng, Lienig, Markov, Hu, *VLSI Physical
#: Design: From Graph Partitioning to Timing Closure*, Springer 2011, the placement chapter (target density and
#: whitespace); 0.7 is the common target utilization of commercial place-and-route flows). Same value for every chip
#: and node; the fitted blocks' clock trees (:func:`accelgen.fit.power.clock_network`) are placed at it too.
STD_CELL_UTILIZATION = 0.7

NODE_TABLE, CACTI = "nodes", "cacti7"
SOURCES = (NODE_TABLE, CACTI)

#: reference node of the wire stack and of the feature size (NanGate45 / FreePDK45)
REF_NM, REF_MMP_NM = 45.0, 140.0
#: FreePDK45 metal4-6 and metal7-8 (NanGate45 tech LEF): pitch um, resistance Ohm/um (R/sq / width)
REF_WIRES = {"semi_global": (0.28, 0.21 / 0.14), "global": (0.8, 0.075 / 0.4)}
#: wire capacitance per length (ITRS 2007 Interconnect, low-k)
WIRE_C_FF_PER_UM = 0.2
#: Leakage per um^2 of cell area of logic in the reference library (NanGate45 typical corner, 1.1 V, 25 C):
#: the mean of leakage_uw / area_um2 over the mapped designs of fit/data/{mac, systolic, fan, adder_tree,
#: systolic-bf16, flexdpe-bf16}.csv, 0.0196-0.0234 per family (measured 2026-11-24).
LOGIC_LEAKAGE_UW_PER_UM2_45 = 0.022

#: CACTI 7's own itrs-hp figures (see the module docstring): vdd V, FO4 ps, bitcell um^2, I_off_n nA/um
_CACTI_FIGURES = {
    90: (1.2, 23.278, 1.1826, 32.4),
    65: (1.1, 14.8166, 0.61685, 196.0),
    45: (1.0, 9.06329, 0.29565, 280.0),
    32: (0.9, 6.11843, 0.149504, 152.0),
    22: (0.8, 3.17506, 0.070664, 121.6),
}


@dataclass(frozen=True)
class TechNode:
    """Constants of one technology node (interpolated nodes are synthetic)."""

    node_nm: float
    feature_nm: float                 # F of the memory periphery and local pitches
    vdd_v: float
    fo4_ps: float
    sram_cell_um2: float
    ioff_na_per_um: float
    semi_global_pitch_um: float
    semi_global_r_ohm_per_um: float
    global_pitch_um: float
    global_r_ohm_per_um: float
    wire_c_ff_per_um: float
    logic_leak_uw_per_um2: float      # standard-cell logic, per um^2 of cell area
    logic_area_factor: float          # cell area of the same netlist against 45 nm
    energy_factor: float              # switching energy of the same netlist against 45 nm

    @property
    def feature_um(self) -> float:
        return self.feature_nm / 1000.0

    @property
    def r0c0_ps(self) -> float:
        """Intrinsic inverter RC (FO4 / 5; Ho, Mai, Horowitz 2001)."""
        return self.fo4_ps / 5.0

    def wire_pitch_um(self, kind: str = "semi_global") -> float:
        return self.semi_global_pitch_um if kind == "semi_global" else self.global_pitch_um

    def repeated_wire_delay_ps_per_mm(self, kind: str = "semi_global") -> float:
        """Delay of an optimally repeated wire (Bakoglu): ``2.5 sqrt(R0C0 r c)`` per mm."""
        r = self.semi_global_r_ohm_per_um if kind == "semi_global" else self.global_r_ohm_per_um
        r_mm, c_mm = r * 1000.0, self.wire_c_ff_per_um * 1e-15 * 1000.0
        return 2.5 * math.sqrt(self.r0c0_ps * 1e-12 * r_mm * c_mm) * 1e12

    def wire_energy_pj_per_bit_mm(self, activity: float = 0.5) -> float:
        """Switching energy of one bit over 1 mm of repeated wire at ``activity`` toggles.

        ``E = a * (1 + repeater overhead) * C_wire * Vdd^2 / 2`` per mm: a toggle draws ``C Vdd^2 / 2`` from the
        supply on average (a rising edge ``C Vdd^2``, a falling edge none: ``P = alpha_0->1 C Vdd^2 f``, Rabaey,
        Chandrakasan, Nikolic, *Digital Integrated Circuits*, 2nd ed., sect. 5.5, with ``alpha_0->1`` half the
        toggles); optimally sized repeaters add ~ their own capacitance, about 40% of the wire's (Ho, Mai, Horowitz
        2001).
        """
        c_mm_pf = self.wire_c_ff_per_um  # fF/um == pF/mm
        return activity * 1.4 * c_mm_pf * self.vdd_v ** 2 / 2.0


def area_ratio(tech: TechNode, ref_nm: float) -> float:
    """Logic area of the same netlist at ``tech`` against ``ref_nm`` (node-table logic-area factors)."""
    return tech.logic_area_factor / technology(ref_nm, "ref_nm").logic_area_factor


def energy_ratio(tech: TechNode, ref_nm: float, ref_vdd_v: float) -> float:
    """Switching energy at ``tech`` of a block measured at ``ref_nm`` and ``ref_vdd_v``: capacitance by the
    node table's energy factor (~ contacted gate pitch), times the supplies squared."""
    ref = technology(ref_nm, "ref_nm")
    return (tech.energy_factor / tech.vdd_v ** 2) / (ref.energy_factor / ref.vdd_v ** 2) * (tech.vdd_v / ref_vdd_v) ** 2


def _itrs_wire_r(node_nm: float, pitch_f: float, aspect: float, rho_uohm_cm: float) -> float:
    """Resistance per um of a wire of pitch ``pitch_f`` x F, width = pitch / 2, height = aspect x width."""
    w_um = pitch_f * node_nm / 1000.0 / 2.0
    return rho_uohm_cm * 1e-2 / (w_um * aspect * w_um)  # uOhm*cm = 1e-2 Ohm*um


def _from_node_table(data: nodes.NodeData, scale: dict, ioff_na_per_um: float) -> TechNode:
    pitch = data.mmp_nm / REF_MMP_NM
    (sg_pitch, sg_r), (gl_pitch, gl_r) = REF_WIRES["semi_global"], REF_WIRES["global"]
    return TechNode(
        node_nm=data.node_nm, feature_nm=REF_NM * pitch, vdd_v=data.vdd_v, fo4_ps=data.fo4_ps,
        sram_cell_um2=data.sram_bitcell_um2, ioff_na_per_um=ioff_na_per_um,
        semi_global_pitch_um=sg_pitch * pitch, semi_global_r_ohm_per_um=sg_r / pitch ** 2,
        global_pitch_um=gl_pitch * pitch, global_r_ohm_per_um=gl_r / pitch ** 2,
        wire_c_ff_per_um=WIRE_C_FF_PER_UM,
        logic_leak_uw_per_um2=LOGIC_LEAKAGE_UW_PER_UM2_45 * scale["leakage"] / scale["area"],
        logic_area_factor=scale["area"], energy_factor=scale["energy"])


def _from_cacti(node_nm: int) -> TechNode:
    vdd, fo4, cell, ioff = _CACTI_FIGURES[node_nm]
    f = float(node_nm)
    return TechNode(
        node_nm=f, feature_nm=f, vdd_v=vdd, fo4_ps=fo4, sram_cell_um2=cell, ioff_na_per_um=ioff,
        semi_global_pitch_um=4.0 * f / 1000.0, semi_global_r_ohm_per_um=_itrs_wire_r(f, 4.0, 1.8, 3.0),
        global_pitch_um=8.0 * f / 1000.0, global_r_ohm_per_um=_itrs_wire_r(f, 8.0, 2.2, 2.5),
        wire_c_ff_per_um=WIRE_C_FF_PER_UM, logic_leak_uw_per_um2=math.nan,
        logic_area_factor=(f / REF_NM) ** 2, energy_factor=f / REF_NM)


@functools.cache
def _table(source: str) -> dict[float, TechNode]:
    if source == CACTI:
        return {float(n): _from_cacti(n) for n in _CACTI_FIGURES}
    # nodes without an off-current (FinFET) hold the nearest larger node's, as nodes.LEAKAGE_FALLBACK states
    scaling, table, ioff = nodes.model_scaling(REF_NM), {}, math.nan
    for d in sorted(nodes.node_table(), key=lambda d: -d.node_nm):
        ioff = d.ioff_na_per_um if d.ioff_na_per_um is not None else ioff
        table[d.node_nm] = _from_node_table(d, scaling[f"{d.node_nm:g}"], ioff)
    return table


def technology(node_nm: float, path: str = "node_nm", source: str = NODE_TABLE) -> TechNode:
    """The constants at ``node_nm`` (log-linear interpolation between tabulated nodes)."""
    table = _table(source)
    nodes.check_node(node_nm, path, table)
    if float(node_nm) in table:
        return table[float(node_nm)]
    vals = {k: float(v) for k, v in tech_arrays(node_nm, source).items()}
    return TechNode(**vals)


def tech_arrays(node_nm, source: str = NODE_TABLE) -> dict[str, np.ndarray]:
    """Vectorized :func:`technology`: every field as an array shaped like ``node_nm`` (no range check)."""
    table = _table(source)
    grid = np.array(sorted(table))
    node = np.asarray(node_nm, dtype=float)
    out = {"node_nm": node}
    for f in fields(TechNode):
        if f.name == "node_nm":
            continue
        col = np.log(np.array([getattr(table[n], f.name) for n in grid]))
        out[f.name] = np.exp(np.interp(np.log(node), np.log(grid), col))
    return out
