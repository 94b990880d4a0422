"""The SRAM model's physical terms (:mod:`accelgen.ppa.sram` describes the model): the candidate organizations,
each metric's terms as a function of the organization and the technology, the calibrated coefficients that weigh
them, and the organization search (``access_time * area**AREA_WEIGHT`` over the valid organizations)."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from .process import NODE_TABLE, tech_arrays
from .sram_ports import CELL_TRANSISTORS_1RW, TRANSISTORS_PER_PORT, cell_pitch_um

ROWS = 2 ** np.arange(5, 11)        # 32 .. 1024
COLS = 2 ** np.arange(6, 12)        # 64 .. 2048
MUX = 2 ** np.arange(0, 5)          # 1 .. 16
ORG_ROWS, ORG_COLS, ORG_MUX = (a.ravel() for a in np.meshgrid(ROWS, COLS, MUX, indexing="ij"))

METRICS = ("area_um2", "read_energy_pj", "write_energy_pj", "access_time_ns", "cycle_time_ns", "leakage_mw")
TERMS = {
    "area_um2": ("cells", "row_periph", "col_periph", "sense", "htree", "bus", "bank_fixed"),
    "read_energy_pj": ("bitline", "wordline", "decoder", "sense", "htree", "bus", "route", "io"),
    "write_energy_pj": ("bitline_w", "wordline", "decoder", "htree", "bus", "route", "io"),
    "access_time_ns": ("decoder", "wordline", "bitline", "sense", "htree", "bus", "route", "fo4"),
    "cycle_time_ns": ("wordline", "bitline", "sense", "fo4"),
    "leakage_mw": ("cells", "periph"),
}
COEF_FILE = "sram_coefficients.json"
#: the organization objective: access_time * area**AREA_WEIGHT
AREA_WEIGHT = 2.0

def data_path(name: str) -> Path:
    return Path(str(resources.files("accelgen.ppa") / "data" / name))


@lru_cache(maxsize=None)
def coefficients() -> dict[str, np.ndarray]:
    """The calibrated coefficients (``{metric: array over TERMS[metric]}``)."""
    data = json.loads(data_path(COEF_FILE).read_text())
    return {m: np.asarray([data["coef"][m][t] for t in TERMS[m]], dtype=float) for m in METRICS}


# --------------------------------------------------------------------------- physical terms

def organization_terms(capacity_bytes, block_bytes, banks, node_nm, ports=1, area_coef=None, source=NODE_TABLE,
                       read_ports=0, write_ports=0):
    """Physical terms of every candidate organization: ``{metric: array[..., n_org, n_terms]}`` and validity.

    ``ports`` read/write, ``read_ports`` read-only and ``write_ports`` write-only ports per bank
    (:mod:`accelgen.ppa.sram_ports`); the energies are those of one access on one port. ``source`` is the
    technology (:mod:`accelgen.ppa.process`): the node table for estimates, CACTI 7's own figures when
    calibrating against CACTI's outputs."""
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (capacity_bytes, block_bytes, banks, node_nm,
                                                                         ports, read_ports, write_ports)))
    cap, blk, nbk, _, rw, rd, wr = (a[..., None] for a in arrays)
    node_nm = arrays[3]
    t = {k: np.asarray(v)[..., None] for k, v in tech_arrays(node_nm, source).items()}
    rows, cols, mux = ORG_ROWS.astype(float), ORG_COLS.astype(float), ORG_MUX.astype(float)

    F = t["feature_nm"] / 1000.0                    # um
    V2 = t["vdd_v"] ** 2
    fo4 = t["fo4_ps"] / 1000.0                      # ns
    side = np.sqrt(t["sram_cell_um2"])              # single-port cell pitch (um), square-cell approximation
    # ports: each has its own word line per row and bit-line pair per column (and their decoder, drivers, column
    # circuits); a read/write port has sense amplifiers and write drivers, a read or a write port one of the two
    prt = rw + rd + wr
    io_ports = (2.0 * rw + rd + wr) / 2.0           # 1 for 1RW and 1R1W, 2 for 2RW, 1.5 for 2R1W
    side_p = cell_pitch_um(t["sram_cell_um2"], F, prt)  # the cell grows by a word line and a bit-line pair per port
    cell = side_p ** 2
    h_ratio = side_p / side                         # bit lines (and word lines) lengthen with the cell
    transistors = CELL_TRANSISTORS_1RW + TRANSISTORS_PER_PORT * (prt - 1)

    bank_bits = cap * 8.0 / nbk
    word_bits = blk * 8.0
    n_sub = bank_bits / (rows * cols)
    out_per_sub = cols / mux
    n_act = np.maximum(1.0, word_bits / out_per_sub)
    # an activated subarray delivers at most one word (its column mux selects the rest away)
    valid = (n_sub >= 1.0) & (n_act <= n_sub) & (out_per_sub >= 1) & (out_per_sub <= word_bits)
    n_sub = np.maximum(n_sub, 1.0)

    a_cells = bank_bits * cell
    # a decoder and word-line driver per row per port, precharge and column mux per bit-line pair per port: the
    # same transistors whatever the cell's pitch (CACTI 7 mat.cc: row-decoder area x rows x ports)
    a_row = n_sub * rows * side * F * prt
    a_col = n_sub * cols * side * F * prt
    a_sense = n_sub * out_per_sub * F * F * io_ports
    core_mm2 = (a_cells + a_row * 20 + a_col * 20) * 1e-6
    bank_side_mm = np.sqrt(core_mm2)
    chip_side_mm = np.sqrt(core_mm2 * nbk)
    wire_pitch_um = t["semi_global_pitch_um"]
    # data wires: a word in per write port and out per read port (CACTI 7 uca.cc: data-in bits x (RW + W ports),
    # data-out bits x (RW + R ports)), i.e. io_ports times a single port's in and out
    a_htree = word_bits * wire_pitch_um * bank_side_mm * 1000.0 * np.log2(n_sub + 1.0) * io_ports
    a_bus = (nbk > 1) * nbk * word_bits * wire_pitch_um * chip_side_mm * 1000.0 * io_ports
    a_fixed = (nbk > 1) * nbk * F * F * 1e5 * io_ports  # per-bank request/response buffers, bank select (multi-bank)
    area = np.stack(np.broadcast_arrays(a_cells * nbk, a_row * nbk, a_col * nbk, a_sense * nbk, a_htree * nbk,
                                       a_bus, a_fixed), axis=-1)
    if area_coef is not None:  # wires follow the floorplan: lengths from the modeled area
        total_mm2 = (area @ area_coef) * 1e-6
        chip_side_mm = np.sqrt(total_mm2)
        bank_side_mm = np.sqrt(total_mm2 / nbk)

    cw = t["wire_c_ff_per_um"] * 1e-3               # pF/um
    e_bl = n_act * cols * rows * F * h_ratio * V2 * 1e-3      # pJ: bitline capacitance ~ F per cell height
    e_bl_w = n_act * out_per_sub * rows * F * h_ratio * V2 * 1e-3
    e_wl = n_act * cols * side_p * cw * V2          # one port's word line, across the (wider) cells
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
    t_bl = rows * fo4 / 32.0 * h_ratio
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
    # the cells' leakage follows their transistors (the single-port cell's per 6), not their grown area
    a_cells_leak = bank_bits * side ** 2 * transistors / CELL_TRANSISTORS_1RW
    leak = np.stack(np.broadcast_arrays(a_cells_leak * lk * nbk, (a_row + a_col) * lk * nbk), axis=-1)
    terms = {"area_um2": area, "read_energy_pj": read, "write_energy_pj": write, "access_time_ns": access,
             "cycle_time_ns": cycle, "leakage_mw": leak}
    return terms, valid, n_sub, n_act


def _wire_ns_per_mm(t) -> np.ndarray:
    r_mm = t["semi_global_r_ohm_per_um"] * 1000.0
    c_mm = t["wire_c_ff_per_um"] * 1e-12
    return 2.5 * np.sqrt(t["fo4_ps"] / 5.0 * 1e-12 * r_mm * c_mm) * 1e9


def evaluate_organizations(terms, valid, coef) -> tuple[dict[str, np.ndarray], np.ndarray]:
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


def pick_organization(vals, idx):
    return {m: np.take_along_axis(v, idx[..., None], axis=-1)[..., 0] for m, v in vals.items()}


# --------------------------------------------------------------------------- public API
