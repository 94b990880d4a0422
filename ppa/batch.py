"""Batch evaluation: chip-level area, TDP and peak TOPS of many design points at once (numpy arrays).

Design points: ``cores`` x ``units`` tensor units of ``rows x cols`` (fitted
``systolic`` model, pipelined as the estimator's ``pipeline: auto`` (:func:`accelgen.ppa.pipelining.choose_many`)
and mapped for ``clock_mhz`` where its 1 GHz netlist leaves slack, as the estimator maps it:
:mod:`accelgen.ppa.relaxed`), one on-chip SRAM of
``sram_bytes`` per core (``sram_batch``), the data bus joining them, the cores on a
``tx x ty`` NoC, at ``node_nm`` and ``clock_mhz``, plus a white-space fraction; and
the rest of a base description every point shares (``rest``,
:class:`accelgen.ppa.batch_rest.Rest`: vector unit, register file, scalar core, the
NoC's topology and flits, off-chip and host interfaces, supply, operand density).
All arguments broadcast (numpy rules) except ``dtype``, one datatype per call ("int", "fp16",
"bf16", "fp32"): an fp dtype uses the fitted variant ``systolic-<dtype>`` and
implies the widths (operands 16 or 32 bits, accumulator 32), as in the
architecture schema; contradictory widths are a ConfigError.

One estimator: each point is the chip :func:`accelgen.ppa.estimate.estimate` builds for the same description,
assembled by the same functions (:mod:`accelgen.ppa.tree`: core, data bus, chip, white space, supply, totals;
:func:`accelgen.ppa.components.noc_tree`; :func:`accelgen.ppa.units.memory.memory_leaf`;
:func:`accelgen.ppa.estimate.fitted_leaf`) with numpy arrays at its leaves, to the last digit.

Fast path: design-space sweeps repeat the same tensor-unit and SRAM
configurations many times, so the points are grouped by the inputs each model
depends on (hash factorization with :func:`pandas.factorize`, exact on the
values given — no rounding of float keys, each input factorized once:
:class:`accelgen.ppa.batch_keys.Keys`), each model is evaluated once per
distinct configuration, and the per-configuration results are gathered back
with one integer index per model; the tree then sums the points' arrays. Constant (broadcast scalar) inputs are
never expanded. Fitted models are loaded once per process (:func:`_fitted_model`).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..errors import ConfigError
from ..fpformat import ACC_WIDTH
from ..fpformat import width as fp_width
from .arch import DTYPES, mesh_mismatch
from .batch_keys import Factors, Keys, gather
from .batch_rest import Rest, io_leaves, noc_leaves, scalar_leaves, vector_leaves
from .components import Component, FittedCompute
from .estimate import fitted_leaf
from .pipelining import choose_many
from .sram import MIN_WORDS, RETICLE_MM2, SRAM, die_area_problem, sram_batch
from .tree import add_white_space, assemble_chip, assemble_core, core_side_mm, supply_factors, totals
from .units.memory import memory_leaf
from .units.systolic import array_rates
from .units.params import Memory


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
    fc = FittedCompute(model_paths)
    keys = Keys(node_nm, clock_mhz)
    # tensor unit: one fitted-model evaluation per stage option and distinct (rows, cols, widths, dataflow, node),
    # mapped for the clock where its 1 GHz netlist leaves slack, as the estimator maps it (accelgen.ppa.relaxed), once per distinct
    # clock beside them, then gathered to the points
    tu_codes, (r, c, aw, bw, accw, df, nd, clk) = keys.codes(rows, cols, a_width, b_width, acc_width, flow, node_nm,
                                                              clock_mhz)
    given = {"rows": r, "cols": c, "dataflow": df, "a_width": aw, "b_width": bw, "acc_width": accw, "dtype": dtype,
             "density": rest.density}
    given = {k: v for k, v in given.items() if k in model.inputs}
    # pipelined as the estimator's ``pipeline: auto`` pipelines it, by the same rule (accelgen.ppa.pipelining)
    tu = choose_many(model, given, nd, 1e3 / np.asarray(clk, dtype=float))
    distinct = np.broadcast(*(np.asarray(v) for v in (r, c, aw, bw, accw, df, nd, clk))).shape
    tu = {t: gather(np.reshape(np.asarray(tu.get(t, 0.0), dtype=float), distinct), tu_codes, shape)
          for t in ("area_um2", "leakage_uw", "energy_pj", "delay_ns")}
    rates = array_rates(rows, cols, a_width, b_width)
    tensor = fitted_leaf("tensor_unit0", "systolic", tu, count=units, actions_per_cycle=rates["actions_per_cycle"],
                         ops_per_cycle=rates["ops_per_cycle"], activity_key="tensor")

    # on-chip SRAM: one organization search per distinct (capacity, block, banks, node)
    s_codes, (cap, blk, nbk, snd) = keys.codes(sram_bytes, block_bytes, sram_banks, node_nm)
    s = {k: gather(v, s_codes, shape) for k, v in sram_batch(cap, blk, nbk, snd, cell=sram_cell).items()
         if k in ("area_um2", "leakage_mw", "read_energy_pj", "write_energy_pj")}
    base_memory = rest.core.memories[0] if rest.core is not None and rest.core.memories else Memory(
        name="sram", capacity_bytes=64)
    memory = memory_leaf(base_memory, banks=sram_banks, clock_mhz=clock_mhz, area_um2=s["area_um2"],
                         leakage_mw=s["leakage_mw"], read_pj=s["read_energy_pj"], write_pj=s["write_energy_pj"])

    # the estimator's tree (accelgen.ppa.tree) with the points' arrays at its leaves
    execution_units = Component("execution_units", "group").add(
        tensor, *vector_leaves(rest, fc, keys, cols=cols, units=units))
    core = assemble_core(execution_units, Component("memories", "group").add(memory), scalar_leaves(rest, keys),
                         wire_tech=keys.tech,
                         widest_bits=rates["edge_bits"],
                         bus_bits=rest.core.bus_bits if rest.core is not None else None, clock_mhz=clock_mhz)
    core.count = cores
    net = noc_leaves(rest, keys, tx=tx, ty=ty, cores=cores, link_mm=core_side_mm(core), topology=topology)
    chip = assemble_chip("points", core, cores, net, io_leaves(rest, keys))
    add_white_space(chip, white_space_fraction)
    out = totals(chip, clock_mhz, *_supply(rest.vdd_v, keys))
    invalid = _sram_problems(s_codes, cap, blk, nbk, snd, sram_cell, shape)
    _mesh_problems(invalid, rest.noc.topology if topology is None else topology, tx, ty, cores)
    _die_problems(invalid, np.broadcast_to(s["area_um2"] * 1e-6, shape), np.broadcast_to(out["area_mm2"], shape))
    if np.any(invalid != ""):
        out = {k: np.where(invalid == "", v, np.nan) for k, v in out.items()}
    return out | {"invalid": invalid}


def _die_problems(invalid: np.ndarray, sram_mm2: np.ndarray, chip_mm2: np.ndarray) -> None:
    """Mark in ``invalid`` the points whose memory or chip is larger than one die can hold (the estimator refuses
    them: :func:`accelgen.ppa.estimate.check_die`)."""
    for i in np.flatnonzero((invalid.ravel() == "") & ((sram_mm2 > RETICLE_MM2) | (chip_mm2 > RETICLE_MM2)).ravel()):
        at = np.unravel_index(i, invalid.shape)
        invalid[at] = ("core.memories[0].capacity_bytes: " + die_area_problem(float(sram_mm2[at]), "the memory")
                       if sram_mm2[at] > RETICLE_MM2 else die_area_problem(float(chip_mm2[at]), "the chip"))


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
    return supply_factors(vdd_v, keys.tech.vdd_v)
