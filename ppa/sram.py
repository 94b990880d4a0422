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
import json
import math
import os
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from .cacti import cacti_eval
from .process import NODE_TABLE, REF_NM, check_node, tech_arrays, technology

ROWS = 2 ** np.arange(5, 11)        # 32 .. 1024
COLS = 2 ** np.arange(6, 12)        # 64 .. 2048
MUX = 2 ** np.arange(0, 5)          # 1 .. 16
_R, _C, _M = (a.ravel() for a in np.meshgrid(ROWS, COLS, MUX, indexing="ij"))

METRICS = ("area_um2", "read_energy_pj", "write_energy_pj", "access_time_ns", "cycle_time_ns", "leakage_mw")
TERMS = {
    "area_um2": ("cells", "row_periph", "col_periph", "sense", "htree", "bus", "bank_fixed"),
    "read_energy_pj": ("bitline", "wordline", "decoder", "sense", "htree", "bus", "route", "io"),
    "write_energy_pj": ("bitline_w", "wordline", "decoder", "htree", "bus", "route", "io"),
    "access_time_ns": ("decoder", "wordline", "bitline", "sense", "htree", "bus", "route", "fo4"),
    "cycle_time_ns": ("wordline", "bitline", "sense", "fo4"),
    "leakage_mw": ("cells", "periph"),
}
_COEF_FILE = "sram_coefficients.json"
#: the organization objective: access_time * area**AREA_WEIGHT
AREA_WEIGHT = 2.0
PORT_PITCH_F = 4.0  # extra cell width/height per extra port, in F (one wordline / bitline pair pitch)
#: flip-flop area in um^2 at 45 nm: DFF_X1 of the NanGate 45 nm Open Cell Library (4.522 um^2)
DFF_AREA_UM2_45 = 4.522
#: 2:1 mux (MUX2_X1, NanGate 45 nm Open Cell Library: 1.862 um^2) per bit per doubling of read-mux width
MUX2_AREA_UM2_45 = 1.862


def _data_path(name: str) -> Path:
    return Path(str(resources.files("accelgen.ppa") / "data" / name))


@lru_cache(maxsize=None)
def coefficients() -> dict[str, np.ndarray]:
    """The calibrated coefficients (``{metric: array over TERMS[metric]}``)."""
    data = json.loads(_data_path(_COEF_FILE).read_text())
    return {m: np.asarray([data["coef"][m][t] for t in TERMS[m]], dtype=float) for m in METRICS}


# --------------------------------------------------------------------------- physical terms

def _terms(capacity_bytes, block_bytes, banks, node_nm, ports=1, area_coef=None, source=NODE_TABLE):
    """Physical terms of every candidate organization: ``{metric: array[..., n_org, n_terms]}`` and validity.

    ``source`` is the technology (:mod:`accelgen.ppa.process`): the node table for estimates, CACTI 7's own
    figures when calibrating against CACTI's outputs."""
    capacity_bytes, block_bytes, banks, node_nm, ports = np.broadcast_arrays(
        *(np.asarray(a, dtype=float) for a in (capacity_bytes, block_bytes, banks, node_nm, ports)))
    cap = np.asarray(capacity_bytes, dtype=float)[..., None]
    blk = np.asarray(block_bytes, dtype=float)[..., None]
    nbk = np.asarray(banks, dtype=float)[..., None]
    prt = np.asarray(ports, dtype=float)[..., None]
    t = {k: np.asarray(v)[..., None] for k, v in tech_arrays(node_nm, source).items()}
    rows, cols, mux = _R.astype(float), _C.astype(float), _M.astype(float)

    F = t["feature_nm"] / 1000.0                    # um
    V2 = t["vdd_v"] ** 2
    fo4 = t["fo4_ps"] / 1000.0                      # ns
    side = np.sqrt(t["sram_cell_um2"])              # cell pitch (um), square-cell approximation
    side_p = side + (prt - 1) * PORT_PITCH_F * F    # multi-port cell grows by a wire pitch per port
    cell = side_p ** 2

    bank_bits = cap * 8.0 / nbk
    word_bits = blk * 8.0
    n_sub = bank_bits / (rows * cols)
    out_per_sub = cols / mux
    n_act = np.maximum(1.0, word_bits / out_per_sub)
    # an activated subarray delivers at most one word (its column mux selects the rest away)
    valid = (n_sub >= 1.0) & (n_act <= n_sub) & (out_per_sub >= 1) & (out_per_sub <= word_bits)
    n_sub = np.maximum(n_sub, 1.0)

    a_cells = bank_bits * cell
    a_row = n_sub * rows * side_p * F
    a_col = n_sub * cols * side_p * F
    a_sense = n_sub * out_per_sub * F * F * prt
    core_mm2 = (a_cells + a_row * 20 + a_col * 20) * 1e-6
    bank_side_mm = np.sqrt(core_mm2)
    chip_side_mm = np.sqrt(core_mm2 * nbk)
    wire_pitch_um = t["semi_global_pitch_um"]
    a_htree = word_bits * wire_pitch_um * bank_side_mm * 1000.0 * np.log2(n_sub + 1.0)
    a_bus = (nbk > 1) * nbk * word_bits * wire_pitch_um * chip_side_mm * 1000.0
    a_fixed = (nbk > 1) * nbk * F * F * 1e5  # per-bank request/response buffers and bank select (multi-bank only)
    area = np.stack(np.broadcast_arrays(a_cells * nbk, a_row * nbk, a_col * nbk, a_sense * nbk, a_htree * nbk,
                                       a_bus, a_fixed), axis=-1)
    if area_coef is not None:  # wires follow the floorplan: lengths from the modeled area
        total_mm2 = (area @ area_coef) * 1e-6
        chip_side_mm = np.sqrt(total_mm2)
        bank_side_mm = np.sqrt(total_mm2 / nbk)

    cw = t["wire_c_ff_per_um"] * 1e-3               # pF/um
    e_bl = n_act * cols * rows * F * V2 * 1e-3      # pJ: bitline capacitance ~ F per cell
    e_bl_w = n_act * out_per_sub * rows * F * V2 * 1e-3
    e_wl = n_act * cols * side_p * cw * V2 * prt
    e_dec = np.log2(n_sub * rows) * F * V2 * n_act
    e_sense = n_act * out_per_sub * F * V2
    # H-tree: the root-to-leaf path of an H-tree over n leaves in a square of side s halves at every
    # level, s/2 + s/4 + ... = s (1 - 1/sqrt(n)): bounded by the side, not growing with log2(n)
    e_htree = word_bits * bank_side_mm * 1000.0 * cw * V2 * (1.0 - 1.0 / np.sqrt(n_sub))
    # inter-bank H-tree over the banks, same geometry
    e_bus = word_bits * chip_side_mm * 1000.0 * cw * V2 * (1.0 - 1.0 / np.sqrt(nbk))
    e_route = word_bits * chip_side_mm * 1000.0 * cw * V2       # the word crosses the whole array
    e_io = word_bits * F * V2                                      # per-bit drivers / latches
    read = np.stack(np.broadcast_arrays(e_bl, e_wl, e_dec, e_sense, e_htree, e_bus, e_route, e_io), axis=-1)
    write = np.stack(np.broadcast_arrays(e_bl_w, e_wl, e_dec, e_htree, e_bus, e_route, e_io), axis=-1)

    r_local = t["semi_global_r_ohm_per_um"] * 4.0   # local (M1/M2) wire, ~4x semi-global resistance
    wl_len = cols * side_p
    t_dec = fo4 * np.log2(n_sub * rows)
    t_wl = r_local * wl_len * (t["wire_c_ff_per_um"] * 1e-15) * wl_len * 1e9 + fo4 * np.log2(cols)
    t_bl = rows * fo4 / 32.0
    t_sense = fo4 * np.log2(mux * 2.0)
    wire_ns_mm = _wire_ns_per_mm(t)
    t_htree = bank_side_mm * wire_ns_mm
    t_bus = (nbk > 1) * chip_side_mm * wire_ns_mm
    t_route = chip_side_mm * wire_ns_mm
    access = np.stack(np.broadcast_arrays(t_dec, t_wl, t_bl, t_sense, t_htree, t_bus, t_route, fo4 + 0 * t_bl),
                      axis=-1)
    cycle = np.stack(np.broadcast_arrays(t_wl, t_bl, t_sense, fo4 + 0 * t_bl), axis=-1)

    # off-current x supply per unit of device width, device width per area ~ 1 / F: mW per um^2
    lk = t["ioff_na_per_um"] * t["vdd_v"] / F * 1e-6
    leak = np.stack(np.broadcast_arrays(a_cells * lk * nbk, (a_row + a_col) * lk * nbk), axis=-1)
    terms = {"area_um2": area, "read_energy_pj": read, "write_energy_pj": write, "access_time_ns": access,
             "cycle_time_ns": cycle, "leakage_mw": leak}
    return terms, valid, n_sub, n_act


def _wire_ns_per_mm(t) -> np.ndarray:
    r_mm = t["semi_global_r_ohm_per_um"] * 1000.0
    c_mm = t["wire_c_ff_per_um"] * 1e-12
    return 2.5 * np.sqrt(t["fo4_ps"] / 5.0 * 1e-12 * r_mm * c_mm) * 1e9


def _evaluate(terms, valid, coef) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Metrics for every organization and the index of the chosen one.

    The organization is chosen on the calibrated area and access time (as CACTI
    chooses on its own estimates); :func:`~accelgen.ppa.sram_calibration.calibrate` alternates fitting and
    choosing, starting from unit weights.
    """
    vals = {m: np.broadcast_to(terms[m] @ coef[m], valid.shape) for m in METRICS}
    area0 = terms["area_um2"] @ coef["area_um2"]
    time0 = terms["access_time_ns"] @ coef["access_time_ns"]
    obj = np.where(valid, np.broadcast_to(time0 * area0 ** AREA_WEIGHT, valid.shape), np.inf)
    return vals, np.argmin(obj, axis=-1)


def _pick(vals, idx):
    return {m: np.take_along_axis(v, idx[..., None], axis=-1)[..., 0] for m, v in vals.items()}


# --------------------------------------------------------------------------- public API

CELLS = ("sram", "sram_lp")


#: the fewest words per bank any organization holds: a subarray has at least ROWS[0] rows and delivers at most one
#: word (``_terms``' validity), so a shallower memory has no organization (it is a register file)
MIN_WORDS = int(ROWS[0])
#: how many parallel macros a wide port may be built of (powers of two)
MACROS = tuple(2 ** j for j in range(9))


def sram_batch(capacity_bytes, block_bytes, banks, node_nm, ports=1, cell: str = "sram") -> dict[str, np.ndarray]:
    """Vectorized SRAM model: every metric (:data:`METRICS`) for arrays of configurations.

    Arguments broadcast against each other. No validation (see :class:`SRAM` for
    checked single configurations). Also returns ``rows``, ``cols``, ``mux``,
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
    capacity_bytes, block_bytes, banks, node_nm, ports = np.broadcast_arrays(
        *(np.asarray(a, dtype=float) for a in (capacity_bytes, block_bytes, banks, node_nm, ports)))
    narrow, wide = calibrated_block_range()
    out, best = None, None
    for k in MACROS if np.any(block_bytes > wide) else (1,):
        # one macro for a port the calibration covers; ports wider than it only from macros it covers
        allowed = (block_bytes <= wide) if k == 1 else (
            (block_bytes > wide) & (block_bytes / k <= wide) & (block_bytes / k >= narrow))
        if not np.any(allowed):
            continue
        one = _macro(capacity_bytes / k, block_bytes / k, banks, node_nm, ports)
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


def _macro(capacity_bytes, block_bytes, banks, node_nm, ports) -> dict[str, np.ndarray]:
    """One macro: the calibrated metrics of its best organization, that organization, and ``organized``: whether
    any organization is valid (a memory smaller than the smallest subarray has none)."""
    coef = coefficients()
    terms, valid, n_sub, n_act = _terms(capacity_bytes, block_bytes, banks, node_nm, ports, coef["area_um2"])
    vals, idx = _evaluate(terms, valid, coef)
    out = _pick(vals, idx)
    out["organized"] = valid.any(axis=-1)
    out["rows"], out["cols"], out["mux"] = (a[idx].astype(float) for a in (_R, _C, _M))
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
    with open(_data_path("cacti7_lstp_reference.csv"), newline="") as fh:
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
    ports: int
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
    width; ``ports`` read/write ports per bank (multi-ported cells grow by a wire
    pitch per port). ``cacti=`` a path to a CACTI binary evaluates it with CACTI
    instead (as Accelergy's CACTI plug-in does).
    """

    def __init__(self, *, capacity_bytes: int, block_bytes: int = 64, banks: int = 1, node_nm: float = 45,
                 ports: int = 1, cell: str = "sram", cacti: str | os.PathLike | None = None, path: str = "sram"):
        capacity_bytes = _positive_int(capacity_bytes, f"{path}.capacity_bytes", 64)
        block_bytes = _positive_int(block_bytes, f"{path}.block_bytes", 1, 4096)
        banks = _positive_int(banks, f"{path}.banks", 1, 1024)
        ports = _positive_int(ports, f"{path}.ports", 1, 16)
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
        self.node_nm, self.ports = float(node_nm), ports
        self.result = (SRAMResult(**cacti_eval(cacti, capacity_bytes, block_bytes, banks, node_nm, ports)) if cacti
                       else self._analytical())

    def _analytical(self) -> SRAMResult:
        out = sram_batch(self.capacity_bytes, self.block_bytes, self.banks, self.node_nm, self.ports, self.cell)
        org = {"rows": int(out["rows"]), "cols": int(out["cols"]), "mux": int(out["mux"]),
               "subarrays_per_bank": float(out["subarrays"]), "active_subarrays": float(out["active_subarrays"]),
               "macros": int(out["macros"])}
        return SRAMResult(self.capacity_bytes, self.block_bytes, self.banks, self.node_nm, self.ports,
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
    with open(_data_path("cacti7_reference.csv"), newline="") as fh:
        rows = list(csv.DictReader(fh))
    cols = {k: np.array([float(r[k]) for r in rows]) for k in rows[0]}
    out = {"capacity_bytes": cols["capacity_bytes"], "block_bytes": cols["block_bytes"], "banks": cols["banks"],
           "node_nm": cols["node_nm"], "area_um2": cols["area_mm2"] * 1e6,
           "read_energy_pj": cols["read_energy_nj"] * 1e3, "write_energy_pj": cols["write_energy_nj"] * 1e3,
           "access_time_ns": cols["access_time_ns"], "cycle_time_ns": cols["cycle_time_ns"],
           "leakage_mw": cols["leakage_mw"] * cols["banks"]}
    return out
