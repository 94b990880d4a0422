"""CACTI-style analytical SRAM / register-file model: organization search, area, energy, timing, leakage.

Structure (after CACTI 6/7, Muralimanohar et al., HPL-2009-85): a memory of
``capacity_bytes`` is split into ``banks`` independent banks joined by a bus;
a bank is an array of subarrays of ``rows x cols`` cells grouped in mats; an
access of one ``block_bytes`` word activates ``n_act`` subarrays, each reading
``cols / mux`` bits through a column multiplexer and sense amplifiers, and the
word travels to the bank edge over an H-tree. The model enumerates the
organizations (``rows`` in 32..1024, ``cols`` in 64..2048, ``mux`` in
1..16, all powers of two) and keeps the one with the smallest
``access_time * area**2`` (calibrated metrics) among the valid ones (an
activated subarray delivers at most one word), as CACTI keeps the best
organization under its objective.

Every metric is a sum of physical terms (computed from the organization and the
technology constants of :mod:`accelgen.ppa.process`) weighted by non-negative
coefficients shared by *all* nodes and sizes:

area        cells (``bits x cell area`` with multi-port growth), the row
            periphery (decoder + wordline drivers: ``rows x cell pitch x F``
            per subarray), the column periphery (precharge, mux, sense amps:
            ``cols x cell pitch x F``), the H-tree (``block bits x wire pitch x
            sqrt(bank area)``), the inter-bank bus (``banks x block bits x
            wire pitch x sqrt(chip area)``) and a per-bank request/select
            overhead (multi-bank memories only);
energy      bitlines (``n_act x cols x rows x F x Vdd^2``: all columns of an
            activated subarray swing), wordlines, decoder, sense amps, H-tree
            and inter-bank bus wires (``bits x length x C_wire x Vdd^2``). The
            word travels one root-to-leaf path of each H-tree, whose segments
            halve at every level: ``side x (1 - 1/sqrt(leaves))`` for the
            intra-bank tree over the subarrays and the inter-bank tree over the
            banks (bounded by the side; a ``log2(leaves)`` length instead
            over-charged large memories and left the small ones 44% low);
time        decoder (``FO4 x log2(rows x subarrays)``), wordline RC
            (``(cols x cell width)^2 x r x c``), bitline (``rows x FO4``:
            bitline capacitance over cell current, both scale with F), sense amp,
            H-tree and bus (``length x repeated-wire delay``);
leakage     cells and periphery (area x the node's leakage density x Vdd).

The coefficients (``ppa/data/sram_coefficients.json``) are fitted once by
:func:`accelgen.ppa.sram_calibration.calibrate` against the committed CACTI 7 reference points
(``ppa/data/cacti7_reference.csv``): weighted non-negative least squares on the
relative error, alternating with the organization search. The same
coefficients serve every node; there is no per-configuration correction.
``tests/ppa/test_sram.py`` prints the error against the reference points.

Register files built from flip-flops (``cell="dff"``) use a flip-flop array
with read multiplexers instead (:func:`dff_array`).

Everything is vectorized: :func:`sram_batch` evaluates arrays of
configurations (numpy broadcasting) with the organization search as an extra
axis.
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np

from ..errors import ConfigError
from .cacti import cacti_eval
from .process import REF_NM, check_node, technology
from .sram_ports import PortConfig, parse_ports
from .sram_terms import (AREA_WEIGHT, METRICS, ORG_COLS, ORG_MUX, ORG_ROWS, ROWS, coefficients,
                         data_path, evaluate_organizations, organization_terms, pick_organization)

#: flip-flop area in um^2 at 45 nm: DFF_X1 of the NanGate 45 nm Open Cell Library (4.522 um^2)
DFF_AREA_UM2_45 = 4.522
#: 2:1 mux (MUX2_X1, NanGate 45 nm Open Cell Library: 1.862 um^2) per bit per doubling of read-mux width
MUX2_AREA_UM2_45 = 1.862


CELLS = ("sram", "sram_lp")


#: the fewest words per bank any organization holds: a subarray has at least ROWS[0] rows and delivers at most one
#: word (``organization_terms``' validity), so a shallower memory has no organization (it is a register file)
MIN_WORDS = int(ROWS[0])
#: how many parallel macros a wide port may be built of (powers of two)
MACROS = tuple(2 ** j for j in range(9))


def sram_batch(capacity_bytes, block_bytes, banks, node_nm, ports=1, cell: str = "sram", read_ports=0,
               write_ports=0) -> dict[str, np.ndarray]:
    """Vectorized SRAM model: every metric (:data:`METRICS`) for arrays of configurations.

    Arguments broadcast against each other; ``ports`` read/write, ``read_ports`` read-only and ``write_ports``
    write-only ports per bank (:mod:`accelgen.ppa.sram_ports`); energies are per access of one port. No
    validation (see :class:`SRAM` for checked single configurations). Also returns ``rows``, ``cols``, ``mux``,
    ``subarrays`` and ``active_subarrays`` of the chosen organization of one macro, and ``macros``.

    A port wider than the calibration grid's widest (:func:`calibrated_block_range`) is built of ``macros``
    identical macros side by side, each holding its share of the capacity and delivering its share of the word
    (as a wide word is several compiled macros on a die); their number is chosen among those whose port the grid
    covers, by the objective that chooses a macro's organization (``access_time * area**AREA_WEIGHT``, area of
    all macros). Area, energies and leakage are the macros' sum; times are one macro's. Not counted: the address
    fanned out to the macros. One macro's model extrapolated to a wide port grows faster than the port (its
    H-tree carries every bit of the word to one point: 32 kB at 65 nm, 256 -> 512 B per access, read energy
    238 -> 1211 pJ), while two macros of half the port always do it at twice the energy of one.
    """
    capacity_bytes, block_bytes, banks, node_nm, ports, read_ports, write_ports = np.broadcast_arrays(
        *(np.asarray(a, dtype=float) for a in (capacity_bytes, block_bytes, banks, node_nm, ports, read_ports,
                                               write_ports)))
    narrow, wide = calibrated_block_range()
    out, best = None, None
    for k in MACROS if np.any(block_bytes > wide) else (1,):
        # one macro for a port the calibration covers; ports wider than it only from macros it covers
        allowed = (block_bytes <= wide) if k == 1 else (
            (block_bytes > wide) & (block_bytes / k <= wide) & (block_bytes / k >= narrow))
        if not np.any(allowed):
            continue
        one = _macro(capacity_bytes / k, block_bytes / k, banks, node_nm, ports, read_ports, write_ports)
        allowed = allowed & (one.pop("organized") | (k == 1))   # a slice too small for any organization: not one
        obj = np.where(allowed, one["access_time_ns"] * (k * one["area_um2"]) ** AREA_WEIGHT, np.inf)
        for m in ("area_um2", "read_energy_pj", "write_energy_pj", "leakage_mw"):
            one[m] = k * one[m]
        one["macros"] = np.full(obj.shape, float(k))
        if out is None:
            out, best = one, obj
        else:
            take = obj < best
            out = {m: np.where(take, one[m], v) for m, v in out.items()}
            best = np.where(take, obj, best)
    if cell == "sram_lp":
        for m, f in lp_factors(node_nm).items():
            out[m] = out[m] * f
    return out


def _macro(capacity_bytes, block_bytes, banks, node_nm, ports, read_ports=0, write_ports=0) -> dict[str, np.ndarray]:
    """One macro: the calibrated metrics of its best organization, that organization, and ``organized``: whether
    any organization is valid (a memory smaller than the smallest subarray has none)."""
    coef = coefficients()
    terms, valid, n_sub, n_act = organization_terms(capacity_bytes, block_bytes, banks, node_nm, ports,
                                                    coef["area_um2"], read_ports=read_ports,
                                                    write_ports=write_ports)
    vals, idx = evaluate_organizations(terms, valid, coef)
    out = pick_organization(vals, idx)
    out["organized"] = valid.any(axis=-1)
    out["rows"], out["cols"], out["mux"] = (a[idx].astype(float) for a in (ORG_ROWS, ORG_COLS, ORG_MUX))
    out["subarrays"] = np.take_along_axis(np.broadcast_to(n_sub, valid.shape), idx[..., None], -1)[..., 0]
    out["active_subarrays"] = np.take_along_axis(np.broadcast_to(n_act, valid.shape), idx[..., None], -1)[..., 0]
    return out


@lru_cache(maxsize=None)
def calibrated_block_range() -> tuple[float, float]:
    """The narrowest and widest port (bytes) of the CACTI 7 calibration grid."""
    blocks = reference_points()["block_bytes"]
    return float(blocks.min()), float(blocks.max())


@lru_cache(maxsize=None)
def _lp_ratios() -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Per-node ratios low-standby-power / high-performance cells (geometric means over the CACTI 7 pairs).

    ``ppa/data/cacti7_lstp_reference.csv`` holds CACTI 7 runs with ``itrs-lstp``
    cells and ``itrs-lop`` peripherals (otherwise the settings of the main grid);
    the ratio to the itrs-hp run of the same configuration gives the factor for
    each metric at each node.
    """
    ref = reference_points()
    with open(data_path("cacti7_lstp_reference.csv"), newline="") as fh:
        rows = list(csv.DictReader(fh))
    ratios: dict[float, dict[str, list[float]]] = {}
    for r in rows:
        cap, node = float(r["capacity_bytes"]), float(r["node_nm"])
        i = np.flatnonzero((ref["capacity_bytes"] == cap) & (ref["node_nm"] == node) & (ref["banks"] == 1)
                           & (ref["block_bytes"] == 64))[0]
        d = ratios.setdefault(node, {m: [] for m in ("area_um2", "read_energy_pj", "access_time_ns", "leakage_mw")})
        d["area_um2"].append(float(r["area_mm2"]) * 1e6 / ref["area_um2"][i])
        d["read_energy_pj"].append(float(r["read_energy_nj"]) * 1e3 / ref["read_energy_pj"][i])
        d["access_time_ns"].append(float(r["access_time_ns"]) / ref["access_time_ns"][i])
        d["leakage_mw"].append(float(r["leakage_mw"]) / ref["leakage_mw"][i])
    nodes = np.array(sorted(ratios))
    return nodes, {m: np.array([np.exp(np.mean(np.log(ratios[n][m]))) for n in nodes])
                   for m in ("area_um2", "read_energy_pj", "access_time_ns", "leakage_mw")}


def lp_factors(node_nm) -> dict[str, np.ndarray]:
    """Factors applied to the high-performance-cell model for ``cell="sram_lp"`` (log-interpolated per node;
    held constant outside 22..65 nm, the nodes CACTI was run at)."""
    nodes, r = _lp_ratios()
    x = np.log(np.clip(np.asarray(node_nm, dtype=float), nodes[0], nodes[-1]))
    f = {m: np.exp(np.interp(x, np.log(nodes), np.log(v))) for m, v in r.items()}
    f["write_energy_pj"] = f["read_energy_pj"]
    f["cycle_time_ns"] = f["access_time_ns"]
    return f


def _positive_int(value, path: str, lo: int = 1, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo or (hi and value > hi):
        allowed = f"an integer >= {lo}" + (f" and <= {hi}" if hi else "")
        raise ConfigError([(path, f"{value!r} is not allowed; expected {allowed}")])
    return int(value)


@dataclass(frozen=True)
class SRAMResult:
    """One SRAM configuration and its estimate (units in the names; leakage of all banks)."""

    capacity_bytes: int
    block_bytes: int
    banks: int
    node_nm: float
    ports: str                  # the port configuration per bank ("1rw", "1r1w", "2rw", ...)
    area_mm2: float
    read_energy_pj: float
    write_energy_pj: float
    access_time_ns: float
    cycle_time_ns: float
    leakage_mw: float
    organization: dict
    source: str = "accelgen analytical (calibrated to CACTI 7)"

    def to_dict(self) -> dict:
        return asdict(self)


class SRAM:
    """An on-chip SRAM (scratchpad) component: physical parameters in, area/energy/timing out.

    ``capacity_bytes`` is split into ``banks`` banks; ``block_bytes`` is the access
    width; ``ports`` the ports of each bank: an integer N (N read/write ports) or a
    port string (``"1r1w"``, ``"2rw"``, ``"2r1w"``; :mod:`accelgen.ppa.sram_ports`,
    whose cells grow by a word line and a bit-line pair per extra port). Energies
    are per access of one port. ``cacti=`` a path to a CACTI binary evaluates it
    with CACTI instead (as Accelergy's CACTI plug-in does).
    """

    def __init__(self, *, capacity_bytes: int, block_bytes: int = 64, banks: int = 1, node_nm: float = 45,
                 ports: int | str | PortConfig = 1, cell: str = "sram", cacti: str | os.PathLike | None = None,
                 path: str = "sram"):
        capacity_bytes = _positive_int(capacity_bytes, f"{path}.capacity_bytes", 64)
        block_bytes = _positive_int(block_bytes, f"{path}.block_bytes", 1, 4096)
        banks = _positive_int(banks, f"{path}.banks", 1, 1024)
        port_cfg = parse_ports(ports, f"{path}.ports")
        check_node(node_nm, f"{path}.node_nm")
        if cell not in CELLS:
            raise ConfigError([(f"{path}.cell", f"{cell!r} is not allowed; expected one of {', '.join(CELLS)}")])
        self.cell = cell
        if capacity_bytes < banks * block_bytes:
            raise ConfigError([(f"{path}.capacity_bytes", f"{capacity_bytes} is smaller than banks x block_bytes "
                                                          f"= {banks * block_bytes}; each bank must hold a block")])
        words = capacity_bytes // (banks * block_bytes)
        if cacti is None and words < MIN_WORDS:
            raise ConfigError([(f"{path}.capacity_bytes",
                                f"{capacity_bytes} B in {banks} bank(s) of {block_bytes} B words is {words} words "
                                f"per bank; an SRAM macro has at least {MIN_WORDS} (its smallest subarray's rows); "
                                f"allowed: {MIN_WORDS * banks * block_bytes} B or more, fewer banks, a narrower "
                                "word, or cell 'dff' (a flip-flop register file)")])
        self.capacity_bytes, self.block_bytes, self.banks = capacity_bytes, block_bytes, banks
        self.node_nm, self.ports = float(node_nm), port_cfg
        self.result = (SRAMResult(**cacti_eval(cacti, capacity_bytes, block_bytes, banks, node_nm, port_cfg))
                       if cacti else self._analytical())

    def _analytical(self) -> SRAMResult:
        p = self.ports
        out = sram_batch(self.capacity_bytes, self.block_bytes, self.banks, self.node_nm, p.rw, self.cell, p.r, p.w)
        org = {"rows": int(out["rows"]), "cols": int(out["cols"]), "mux": int(out["mux"]),
               "subarrays_per_bank": float(out["subarrays"]), "active_subarrays": float(out["active_subarrays"]),
               "macros": int(out["macros"])}
        return SRAMResult(self.capacity_bytes, self.block_bytes, self.banks, self.node_nm, p.label,
                          area_mm2=float(out["area_um2"]) * 1e-6,
                          **{m: float(out[m]) for m in METRICS if m != "area_um2"}, organization=org)

    @property
    def area_um2(self) -> float:
        return self.result.area_mm2 * 1e6

    @property
    def leakage_mw(self) -> float:
        return self.result.leakage_mw

    def read_energy_pj(self) -> float:
        return self.result.read_energy_pj

    def write_energy_pj(self) -> float:
        return self.result.write_energy_pj

    @property
    def delay_ns(self) -> float:
        return self.result.access_time_ns


def dff_array(*, capacity_bytes, block_bytes, read_ports=2, write_ports=1, node_nm=45.0) -> dict[str, float]:
    """A flip-flop register file: area, energy per read/write, access time, leakage.

    ``bits`` flip-flops (NanGate 45 nm DFF_X1, 4.522 um^2, scaled by the node table's logic area), each
    read port a ``words:1`` multiplexer tree per output bit (MUX2_X1, 1.862 um^2
    per 2:1 stage), each write port a decoder-enabled load. Energies are the
    switched capacitance of the touched flops / mux stages (gate area x
    ``C_per_um2`` with C ~ 1 fF/um^2 of cell area at 45 nm, the NanGate 45 nm
    input capacitances ~1-2 fF for ~1-2 um^2 cells) times ``Vdd^2``, scaled by the node table's energy factor;
    leakage from the logic leakage density (:mod:`accelgen.ppa.process`).
    """
    t, ref = technology(node_nm), technology(REF_NM)
    s = t.logic_area_factor
    bits = capacity_bytes * 8
    words = max(1, capacity_bytes // block_bytes)
    wbits = block_bytes * 8
    dff = DFF_AREA_UM2_45 * s
    mux2 = MUX2_AREA_UM2_45 * s
    area = bits * dff + read_ports * wbits * (words - 1) * mux2 + write_ports * bits * mux2
    # switched capacitance at 45 nm (C ~ 1 fF per um^2 of cell area), scaled like the logic's energy
    e_unit = 1.0 * 1e-3 * ref.vdd_v ** 2 * t.energy_factor      # pJ per um^2 (45 nm cell area) switched
    levels = max(1, math.ceil(math.log2(words)))
    read_e = wbits * levels * MUX2_AREA_UM2_45 * e_unit
    write_e = wbits * DFF_AREA_UM2_45 * e_unit
    access = t.fo4_ps * (levels + 2) / 1000.0
    leak = area * t.logic_leak_uw_per_um2 * 1e-3
    return {"area_um2": area, "read_energy_pj": read_e, "write_energy_pj": write_e, "access_time_ns": access,
            "cycle_time_ns": access, "leakage_mw": leak}


def reference_points() -> dict[str, np.ndarray]:
    """The committed CACTI 7 reference grid as arrays (leakage summed over banks)."""
    with open(data_path("cacti7_reference.csv"), newline="") as fh:
        rows = list(csv.DictReader(fh))
    cols = {k: np.array([float(r[k]) for r in rows]) for k in rows[0]}
    out = {"capacity_bytes": cols["capacity_bytes"], "block_bytes": cols["block_bytes"], "banks": cols["banks"],
           "node_nm": cols["node_nm"], "area_um2": cols["area_mm2"] * 1e6,
           "read_energy_pj": cols["read_energy_nj"] * 1e3, "write_energy_pj": cols["write_energy_nj"] * 1e3,
           "access_time_ns": cols["access_time_ns"], "cycle_time_ns": cols["cycle_time_ns"],
           "leakage_mw": cols["leakage_mw"] * cols["banks"]}
    return out


# --------------------------------------------------------------------------- what one die can hold

#: The largest die one lithographic exposure prints: the 26 mm x 33 mm exposure field of 193 nm immersion and EUV
#: scanners (ASML TWINSCAN NXT and NXE product specifications, "field size 26 x 33 mm"; IRDS 2022 Lithography
#: chapter, full-field exposure). A memory or a chip larger than one field cannot be one die.
RETICLE_FIELD_MM = (26.0, 33.0)
RETICLE_MM2 = RETICLE_FIELD_MM[0] * RETICLE_FIELD_MM[1]


def die_area_problem(area_mm2: float, what: str) -> str | None:
    """Why ``what`` (a memory, a chip) of ``area_mm2`` cannot be built on one die (None when it can): the reticle
    limit :data:`RETICLE_MM2`."""
    if area_mm2 <= RETICLE_MM2:
        return None
    w, h = RETICLE_FIELD_MM
    return (f"{what} would take {area_mm2:.4g} mm^2, more than one die can hold: the reticle limit is "
            f"{RETICLE_MM2:g} mm^2 ({w:g} mm x {h:g} mm exposure field)")


def check_die_area(area_mm2: float, path: str, value, what: str) -> None:
    """Refuse ``what`` when it exceeds the reticle limit (:func:`die_area_problem`): a one-line ConfigError at
    ``path`` naming ``value``, the area it would take and the limit."""
    why = die_area_problem(area_mm2, what)
    if why is not None:
        raise ConfigError([(path, f"{value!r} is not allowed: {why}")])
