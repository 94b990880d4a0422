"""Technology data per node, each constant with its published source.

A :class:`TechNode` holds the few device and wire constants the analytical models
(SRAM, wires, NoC, PHYs, scalar core) need. Values are tabulated at the nodes of
:data:`NODES_NM` and interpolated log-linearly in the node size in between
(:func:`technology`); a node outside ``7..90`` nm raises
:class:`~accelgen.errors.ConfigError` naming the allowed range.

Sources (``SOURCES`` keys are quoted next to every constant below)

``itrs-hp``  ITRS 2007 Process Integration, Devices and Structures tables, high-performance
            logic: nominal supply voltage (90 nm 1.2 V, 65 nm 1.1 V, 45 nm 1.0 V, 32 nm 0.9 V,
            22 nm 0.8 V). The same values are used by CACTI 6.5/7 for ``itrs-hp`` devices
            (Muralimanohar, Balasubramonian, Jouppi, HPL-2009-85), which is why the SRAM
            model can be calibrated against CACTI with them.
``finfet``   16 nm 0.8 V and 7 nm 0.75 V: foundry nominal core voltages of TSMC 16FF+
            (Wu et al., IEDM 2013) and TSMC N7 (Jan et al., IEDM 2016 / VLSI 2017).
``fo4``      FO4 inverter delay ~ 0.5 ps per nm of drawn gate length (Weste & Harris, *CMOS
            VLSI Design*, 4th ed., sect. 4.4.3: "FO4 delay ~ 1/3 to 1/2 ns per um of
            channel length"); drawn length taken as the node name down to 22 nm; for the
            FinFET nodes the measured ring-oscillator-derived FO4 of ~9 ps (16 nm) and
            ~6 ps (7 nm) reported by the same IEDM papers is used.
``sram-cell`` 6T SRAM cell area in F^2: ~146 F^2 for ITRS high-performance cells
            (ITRS 2007 PIDS "SRAM cell area factor"; the value CACTI uses), i.e.
            0.30 um^2 at 45 nm. FinFET nodes: 0.074 um^2 (TSMC 16FF+ HD cell, Wu IEDM 2013)
            and 0.027 um^2 (TSMC N7 HD cell, Jan IEDM 2016).
``wire``     Copper wire geometry and parasitics from ITRS 2007 Interconnect tables:
            semi-global (intermediate) pitch ~4 F and aspect ratio 1.8, global pitch ~8 F and
            aspect ratio 2.2, effective resistivity including barrier and surface scattering
            3.0 uOhm*cm (semi-global) and 2.5 uOhm*cm (global), capacitance ~0.2 fF/um nearly
            node-independent (low-k, k_eff ~ 2.7-3.0). Repeated-wire delay per length
            follows Bakoglu, *Circuits, Interconnections and Packaging for VLSI* (1990):
            ``t/L = 2.5 sqrt(R0 C0 r c)`` with ``R0 C0 = FO4 / 5`` (Ho, Mai, Horowitz,
            "The future of wires", Proc. IEEE 2001).
``leak``     Subthreshold + gate leakage per minimum transistor width grows roughly 2x per
            node from 90 to 22 nm for HP devices (ITRS 2007 PIDS Isd,leak: 90 nm ~0.05,
            22 nm ~0.8 uA/um at 25 C); FinFETs cut it back by ~10x at equal performance
            (Auth et al., Intel 22 nm tri-gate, VLSI 2012). Stored as leakage power per
            um^2 of *logic* (transistor density x width x Ileak x Vdd), order 0.1-1 uW/um^2
            at HP corners; SRAM arrays use their own calibrated coefficient.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from ..errors import ConfigError

#: Placed-and-routed area of synthesized standard-cell logic = cell area / utilization. The fitted models give
#: cell area (synthesized gates, no placement); standard-cell blocks are placed at a row utilization of about
#: 70% to leave room for routing, buffering and clock-tree insertion (Kahng, Lienig, Markov, Hu, *VLSI Physical
#: Design: From Graph Partitioning to Timing Closure*, Springer 2011, the placement chapter (target density and whitespace);
#: 0.7 is the common target utilization of commercial place-and-route flows). Same value for every chip and node.
STD_CELL_UTILIZATION = 0.7

SOURCES = {
    "itrs-hp": "ITRS 2007 PIDS high-performance logic tables (as used by CACTI 6.5/7, HPL-2009-85)",
    "finfet": "Wu et al., IEDM 2013 (TSMC 16FF+); Jan et al., IEDM 2016 (TSMC 7 nm)",
    "fo4": "Weste & Harris, CMOS VLSI Design, 4th ed., sect. 4.4.3 (FO4 ~ 0.5 ps per nm drawn length)",
    "sram-cell": "ITRS 2007 PIDS SRAM cell area factor (146 F^2); TSMC 16FF+/N7 HD cells (IEDM 2013/2016)",
    "wire": "ITRS 2007 Interconnect tables; Bakoglu 1990 repeater optimum; Ho, Mai, Horowitz, Proc. IEEE 2001",
    "leak": "ITRS 2007 PIDS Isd,leak (HP); Auth et al., VLSI 2012 (tri-gate leakage reduction)",
}


@dataclass(frozen=True)
class TechNode:
    """Constants of one technology node (all ``float``; interpolated nodes are synthetic)."""

    node_nm: float
    vdd_v: float                 # itrs-hp / finfet
    fo4_ps: float                # fo4
    sram_cell_um2: float         # sram-cell
    semi_global_r_ohm_per_um: float   # wire (derived from geometry, see _wire_r)
    global_r_ohm_per_um: float        # wire
    wire_c_ff_per_um: float           # wire
    logic_leak_uw_per_um2: float      # leak

    @property
    def feature_um(self) -> float:
        return self.node_nm / 1000.0

    @property
    def r0c0_ps(self) -> float:
        """Intrinsic inverter RC (FO4 / 5; Ho, Mai, Horowitz 2001)."""
        return self.fo4_ps / 5.0

    def repeated_wire_delay_ps_per_mm(self, kind: str = "semi_global") -> float:
        """Delay of an optimally repeated wire (Bakoglu): ``2.5 sqrt(R0C0 r c)`` per mm."""
        r = self.semi_global_r_ohm_per_um if kind == "semi_global" else self.global_r_ohm_per_um
        r_mm, c_mm = r * 1000.0, self.wire_c_ff_per_um * 1e-15 * 1000.0
        return 2.5 * math.sqrt(self.r0c0_ps * 1e-12 * r_mm * c_mm) * 1e12

    def wire_energy_pj_per_bit_mm(self, activity: float = 0.5) -> float:
        """Switching energy of one bit over 1 mm of repeated wire at the given toggle ``activity``.

        ``E = a * (1 + repeater overhead) * C_wire * Vdd^2`` per mm; optimally sized
        repeaters add ~ their own capacitance, about 40% of the wire's (Ho, Mai, Horowitz 2001).
        """
        c_mm_pf = self.wire_c_ff_per_um  # fF/um == pF/mm
        return activity * 1.4 * c_mm_pf * self.vdd_v ** 2


def _wire_r(node_nm: float, pitch_f: float, aspect: float, rho_uohm_cm: float) -> float:
    """Resistance per um of a wire of pitch ``pitch_f`` x F, width = pitch / 2, height = aspect x width."""
    w_um = pitch_f * node_nm / 1000.0 / 2.0
    t_um = aspect * w_um
    return rho_uohm_cm * 1e-2 / (w_um * t_um)  # uOhm*cm = 1e-2 Ohm*um


def _row(node, vdd, fo4, cell_um2, leak):
    return TechNode(
        node_nm=float(node), vdd_v=vdd, fo4_ps=fo4, sram_cell_um2=cell_um2,
        semi_global_r_ohm_per_um=_wire_r(node, 4.0, 1.8, 3.0),
        global_r_ohm_per_um=_wire_r(node, 8.0, 2.2, 2.5),
        wire_c_ff_per_um=0.2,
        logic_leak_uw_per_um2=leak,
    )


# node: Vdd (itrs-hp/finfet), FO4 (fo4), SRAM cell = 146 F^2 planar (sram-cell), logic leakage (leak)
_TABLE = {
    90: _row(90, 1.2, 45.0, 146 * 0.090 ** 2, 0.05),
    65: _row(65, 1.1, 32.5, 146 * 0.065 ** 2, 0.10),
    45: _row(45, 1.0, 22.5, 146 * 0.045 ** 2, 0.20),
    32: _row(32, 0.9, 16.0, 146 * 0.032 ** 2, 0.40),
    22: _row(22, 0.8, 11.0, 146 * 0.022 ** 2, 0.80),
    16: _row(16, 0.8, 9.0, 0.074, 0.15),
    7: _row(7, 0.75, 6.0, 0.027, 0.15),
}
NODES_NM: tuple[int, ...] = tuple(sorted(_TABLE))
NODE_RANGE_NM = (min(NODES_NM), max(NODES_NM))


def check_node(node_nm: float, path: str = "node_nm") -> None:
    lo, hi = NODE_RANGE_NM
    if not (isinstance(node_nm, (int, float)) and lo <= float(node_nm) <= hi):
        raise ConfigError([(path, f"{node_nm!r} is outside the technology table; allowed: {lo}..{hi} nm "
                                  f"(tabulated: {', '.join(map(str, NODES_NM))})")])


def technology(node_nm: float, path: str = "node_nm") -> TechNode:
    """The constants at ``node_nm`` (log-linear interpolation between tabulated nodes)."""
    check_node(node_nm, path)
    node = float(node_nm)
    if node in _TABLE:
        return _TABLE[int(node)]
    nodes = np.array(NODES_NM, dtype=float)
    vals = {}
    for f in fields(TechNode):
        if f.name == "node_nm":
            continue
        col = np.array([getattr(_TABLE[n], f.name) for n in NODES_NM])
        vals[f.name] = float(np.exp(np.interp(math.log(node), np.log(nodes), np.log(col))))
    return TechNode(node_nm=node, **vals)


def tech_arrays(node_nm) -> dict[str, np.ndarray]:
    """Vectorized :func:`technology`: every field as an array shaped like ``node_nm`` (no range check)."""
    node = np.asarray(node_nm, dtype=float)
    nodes = np.array(NODES_NM, dtype=float)
    out = {}
    for f in fields(TechNode):
        if f.name == "node_nm":
            continue
        col = np.log(np.array([getattr(_TABLE[n], f.name) for n in NODES_NM]))
        out[f.name] = np.exp(np.interp(np.log(node), np.log(nodes), col))
    out["node_nm"] = node
    return out
