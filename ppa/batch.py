"""Batch evaluation: chip-level area, TDP and peak TOPS of many design points at once (numpy arrays).

Design points: ``cores`` x ``units`` tensor units of ``rows x cols`` (fitted
``systolic`` model, unpipelined, mapped for ``clock_mhz`` where its 1 GHz netlist leaves
slack, as the estimator maps it: :mod:`accelgen.ppa.relaxed`), one on-chip SRAM of
``sram_bytes`` per core (``sram_batch``), the data bus joining them, the cores on a
``tx x ty`` NoC, at ``node_nm`` and ``clock_mhz``, plus a white-space fraction; and
the rest of a base description every point shares (``rest``,
:class:`accelgen.ppa.batch_rest.Rest`: vector unit, register file, scalar core, the
NoC's topology and flits, off-chip and host interfaces, supply, operand density).
Each point is the chip :func:`accelgen.ppa.estimate.estimate` builds for the same
description, to the last digit where the estimator's tensor unit is unpipelined. All arguments
broadcast (numpy rules) except ``dtype``, one datatype per call ("int", "fp16",
"bf16", "fp32"): an fp dtype uses the fitted variant ``systolic-<dtype>`` and
implies the widths (operands 16 or 32 bits, accumulator 32), as in the
architecture schema; contradictory widths are a ConfigError.

Fast path: design-space sweeps repeat the same tensor-unit and SRAM
configurations many times, so the points are grouped by the inputs each model
depends on (hash factorization with :func:`pandas.factorize`, exact on the
values given — no rounding of float keys, each input factorized once:
:class:`accelgen.ppa.batch_keys.Keys`), each model is evaluated once per
distinct configuration, and the per-configuration results are gathered back
with one integer index per model. Constant (broadcast scalar) inputs are never
expanded. Fitted models are loaded once per process (:func:`_fitted_model`).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..errors import ConfigError
from ..fpformat import ACC_WIDTH
from ..fpformat import width as fp_width
from . import relaxed
from .arch import DTYPES, mesh_mismatch
from .batch_keys import Factors, Keys, gather
from .batch_rest import Rest, core_rest, data_bus, noc_and_io
from .components import FittedCompute, steady_state_energy
from .process import STD_CELL_UTILIZATION
from .sram import MIN_WORDS, SRAM, sram_batch


@lru_cache(maxsize=16)
def _fitted_model(family: str, paths: tuple, dtype: str = "int"):
    return FittedCompute(dict(paths)).model(family, "batch", dtype)


_INT_WIDTHS = {"a_width": 8, "b_width": 8, "acc_width": 32}


def _widths(dtype, a_width, b_width, acc_width):
    """Widths for ``dtype``: "int" takes the given ones (default 8, 8, 32); an fp dtype implies them (see
    :mod:`accelgen.ppa.arch`) and a given width that contradicts it is a ConfigError."""
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise ConfigError([("batch.dtype", f"{dtype!r} is not allowed; one of {', '.join(DTYPES)} per call")])
    given = {"a_width": a_width, "b_width": b_width, "acc_width": acc_width}
    if dtype == "int":
        return tuple(_INT_WIDTHS[k] if v is None else v for k, v in given.items())
    want = {"a_width": fp_width(dtype), "b_width": fp_width(dtype), "acc_width": ACC_WIDTH}
    for k, w in want.items():
        v = np.asarray(given[k] if given[k] is not None else w).ravel()
        if np.any(v != w):
            raise ConfigError([(f"batch.{k}", f"{v[v != w][0].item()!r} is not allowed with dtype={dtype!r}; "
                                              f"{dtype} implies {k} {w} (or leave it out)")])
    return want["a_width"], want["b_width"], want["acc_width"]


def group(*arrays: np.ndarray) -> tuple[np.ndarray | None, list]:
    """Group broadcast arrays of equal shape by their joint values (:meth:`.batch_keys.Factors.codes`).

    Returns ``(codes, uniques)``: ``codes`` (int64, flat) indexes the distinct
    value tuples, ``uniques[i]`` holds input ``i`` at each distinct tuple (a
    scalar if the input is constant). ``codes`` is None when every input is
    constant (one group).
    """
    return Factors(np.shape(arrays[0])).codes(*arrays)


def evaluate_batch(*, rows, cols, units=1, cores=1, sram_bytes, node_nm, clock_mhz, a_width=None, b_width=None,
                   acc_width=None, dataflow="ws", block_bytes=64, sram_banks=1, white_space_fraction=0.1,
                   model_paths: dict | None = None, dtype: str = "int", tx=None, ty=None, topology=None,
                   sram_cell: str = "sram_lp", rest: Rest | None = None) -> dict[str, np.ndarray]:
    """Chip area, TDP and peak TOPS of every point (see the module docstring), and ``invalid``: why a point is not a
    chip the estimator accepts ("" where it is; its figures are NaN). ``tx x ty`` is the NoC's grid (default
    ``cores x 1``), ``topology`` each point's (default the base's), ``rest`` the base description's other parts
    (:class:`.batch_rest.Rest`)."""
    rest = rest or Rest()
    a_width, b_width, acc_width = _widths(dtype, a_width, b_width, acc_width)
    tx = cores if tx is None else tx
    ty = 1 if ty is None else ty
    num = [np.asarray(x) if np.asarray(x).dtype.kind == "f" else np.asarray(x, dtype=float)
           for x in (rows, cols, units, cores, sram_bytes, node_nm, clock_mhz, a_width, b_width, acc_width,
                     block_bytes, sram_banks, white_space_fraction, tx, ty)]
    flow = np.asarray(dataflow)
    *num, flow = np.broadcast_arrays(*num, flow)
    (rows, cols, units, cores, sram_bytes, node_nm, clock_mhz, a_width, b_width, acc_width, block_bytes,
     sram_banks, white_space_fraction, tx, ty) = num
    shape = rows.shape
    model = _fitted_model("systolic", tuple(sorted((model_paths or {}).items())), dtype)

    keys = Keys(node_nm, clock_mhz)
    # tensor unit: one fitted-model evaluation per distinct (rows, cols, widths, dataflow, node)
    tu_codes, (r, c, aw, bw, accw, df, nd) = keys.codes(rows, cols, a_width, b_width, acc_width, flow, node_nm)
    given = {"rows": r, "cols": c, "dataflow": df, "a_width": aw, "b_width": bw, "acc_width": accw, "dtype": dtype,
             "density": rest.density}
    given = {k: v for k, v in given.items() if k in model.inputs}
    tu = model.predict(node_nm=nd, **given)
    steady = steady_state_energy(model, given, nd)  # same per-MAC energy rule as the estimator
    if steady is not None:
        tu["energy_pj"] = steady[0]
    tu_area = tu["area_um2"] / STD_CELL_UTILIZATION   # placed area, as the estimator
    tu_dyn_pj = np.asarray(r, dtype=float) * c * tu.get("energy_pj", 0.0)   # per unit per cycle: every MAC
    tu_leak_mw = tu.get("leakage_uw", 0.0) * 1e-3

    # on-chip SRAM: one organization search per distinct (capacity, block, banks, node)
    s_codes, (cap, blk, nbk, snd) = keys.codes(sram_bytes, block_bytes, sram_banks, node_nm)
    s = sram_batch(cap, blk, nbk, snd, cell=sram_cell)
    s_dyn_pj = nbk * 0.5 * (s["read_energy_pj"] + s["write_energy_pj"])  # every bank busy, half reads

    f_ghz = clock_mhz * 1e-3
    tu_delay = np.broadcast_to(np.asarray(tu.get("delay_ns", 0.0), dtype=float), np.shape(tu_area))
    ratio = relaxed.for_clocks(model, gather(tu_delay, tu_codes, shape), 1e3 / clock_mhz)
    # per core: the tensor units and the SRAM, then the rest the estimator builds (accelgen.ppa.batch_rest)
    (v_area, v_leak, v_dyn), scalar = core_rest(rest, FittedCompute(model_paths), keys, cols=cols, units=units)
    joined_um2 = (units * gather(tu_area, tu_codes, shape) * ratio["area_um2"]
                  + gather(s["area_um2"], s_codes, shape) + v_area)
    bus = data_bus(rest, keys, edge_bits=np.maximum(cols * a_width, rows * b_width), joined_um2=joined_um2)
    core_um2 = joined_um2 + scalar[0] + bus[0]
    core_leak = (units * gather(tu_leak_mw, tu_codes, shape) * ratio["leakage_uw"]
                 + gather(s["leakage_mw"], s_codes, shape) + v_leak + scalar[1])
    core_dyn = ((units * gather(tu_dyn_pj, tu_codes, shape) * ratio["energy_pj"] + gather(s_dyn_pj, s_codes, shape))
                * f_ghz + v_dyn + scalar[2] + bus[2])
    chip_area, chip_leak, chip_dyn = noc_and_io(rest, keys, tx=tx, ty=ty, cores=cores, core_um2=core_um2,
                                                topology=topology)
    dyn_factor, leak_factor = _supply(rest.vdd_v, keys)
    lanes = 0.0
    if rest.core is not None and rest.core.vector_unit:
        lanes = rest.core.vector_unit.lanes or cols
    out = {"area_mm2": (cores * core_um2 + chip_area) * (1e-6 / (1.0 - white_space_fraction)),
           "tdp_w": ((cores * core_leak + chip_leak) * leak_factor
                     + (cores * core_dyn + chip_dyn) * dyn_factor) * 1e-3,
           "peak_tops": 2e-6 * (rows * cols * units + lanes) * cores * clock_mhz}
    invalid = _sram_problems(s_codes, cap, blk, nbk, snd, sram_cell, shape)
    _mesh_problems(invalid, rest.noc.topology if topology is None else topology, tx, ty, cores)
    if np.any(invalid != ""):
        out = {k: np.where(invalid == "", v, np.nan) for k, v in out.items()}
    return out | {"invalid": invalid}


def _mesh_problems(invalid: np.ndarray, topology, tx, ty, cores) -> None:
    """Mark in ``invalid`` the points whose mesh cannot hold their cores (as the description's validation does), once
    per distinct mismatch."""
    bad = np.broadcast_to(np.asarray(topology) == "mesh", invalid.shape) & (tx * ty != cores) & (invalid == "")
    if not np.any(bad):
        return
    at = np.nonzero(bad)
    triples = np.stack([tx[at], ty[at], cores[at]], axis=-1)
    unique, which = np.unique(triples, axis=0, return_inverse=True)
    words = np.array([mesh_mismatch(int(x), int(y), int(c)) for x, y, c in unique], dtype=object)
    invalid[at] = words[which.ravel()]


def _sram_problems(codes, cap, blk, banks, node_nm, cell: str, shape) -> np.ndarray:
    """Why each point's SRAM is not one the estimator builds ("" where it is): the SRAM model's own one-line error
    (:class:`accelgen.ppa.sram.SRAM`: fewer than MIN_WORDS words per bank), checked once per distinct memory."""
    cap, blk, banks, node_nm = (np.atleast_1d(np.asarray(a, dtype=float)) for a in (cap, blk, banks, node_nm))
    k = max(len(cap), len(blk), len(banks), len(node_nm))
    cap, blk, banks, node_nm = (np.broadcast_to(a, (k,)) for a in (cap, blk, banks, node_nm))
    words = cap / (banks * blk)
    msgs = np.full(k, "", dtype=object)
    for i in np.flatnonzero(words < MIN_WORDS):
        try:
            SRAM(capacity_bytes=int(cap[i]), block_bytes=int(blk[i]), banks=int(banks[i]), node_nm=float(node_nm[i]),
                 cell=cell, path="core.memories[0]")
        except ConfigError as exc:
            msgs[i] = "; ".join(f"{where}: {m}" if where else m for where, m in exc.problems)
    if codes is None:
        return np.full(shape, msgs[0], dtype=object)
    return msgs[codes].reshape(shape)


def _supply(vdd_v: float | None, keys: Keys) -> tuple[np.ndarray | float, np.ndarray | float]:
    """Dynamic and leakage power factors of the supply ``vdd_v`` against each point's node's nominal (1 without)."""
    if not vdd_v:
        return 1.0, 1.0
    (ratio,) = keys.per_node(lambda t: (vdd_v / t.vdd_v,))
    return ratio ** 2, ratio
