"""Mapping / performance models, one per compute type, vectorized over layers (numpy arrays).

Each model turns lowered GEMMs (:class:`accelgen.ppa.workload.Gemms`) into a
:class:`Mapping`: compute cycles on the whole chip, the multiply-accumulates
actually executed after zero skipping, the "actions" the fitted energy model of
the unit is counted in (a MAC of a systolic array, a busy cycle of a Flex-DPE or
of a TensorDash PE column, a pass of a reduction tree) and how many of them the
chip does per cycle with every unit busy (``peak_actions_per_cycle``, which the
clock network is charged by), and the on-chip traffic that the mapping's reuse
implies. The models reuse the cycle models that cosim proves on the emitted
Verilog (``accelgen.golden``): on shapes the two share they are equal
(``tests/ppa/test_perf.py``).

* :func:`systolic_map` — ``units`` tensor units (``count`` per core x cores,
  the ``Tx x Ty`` mesh) of ``rows x cols`` PEs. Every layer's ``count`` GEMMs and
  its ``M``, ``N`` and ``K`` dimensions are partitioned over the units
  (``pg x pm x pn x pk <= units``; the fastest partition is taken); each unit
  runs :func:`accelgen.golden.systolic.systolic_cycles` on its sub-GEMM
  (fill = weight load, stream, drain = skew, per fold). When ``K`` is split the
  ``pk`` partial sums are merged in the vector unit (``(pk-1) M N`` adds over
  its lanes); without a vector unit ``K`` is not split. Input-stationary is
  weight-stationary with the operands' roles swapped (``A^T`` stationary:
  ``systolic_cycles(rows, cols, N, M, K, "ws")``). With ``skip_zeros`` (a tensor
  unit's ``zero_skipping: block``), block-wise zero skipping: a fold whose
  stationary tile is all zero is skipped (WS/IS); in OS a stream step whose
  ``rows x 1`` A slice or ``1 x cols`` B slice is all zero is skipped. Without it
  (the default, and the generated array) every MAC is clocked, zeros included.
  On-chip traffic: A (streamed) is read once per N-slice of ``cols`` (WS), the
  weights once, partial sums written and read back at accumulator width once
  per K fold after the first; in WS every count is of whole lines (a memory
  moves a line at a time: ``Mapping.line_k``, ``line_n``).
* :func:`row_stationary_map` — Eyeriss's row-stationary schedule on a
  ``rows x cols`` PE array (Chen, Emer, Sze, ISCA 2016, sect. V; Chen et al.,
  JSSC 2017, sect. IV). A convolution's logical PE set is ``R`` filter rows x
  ``P`` output rows; each PE runs one 1-D row convolution (``Q x S`` MACs, one
  per cycle) for one (sample, filter, channel). A set taller than the array is
  folded into ``ceil(R/rows)`` pieces, one wider than it into ``ceil(P/cols)``
  strips; ``floor(rows / piece height)`` x ``floor(cols / strip width)`` pieces
  run side by side (different filters or channels). A GEMM runs as a 1x1
  convolution of one output row of ``M`` pixels. The on-chip traffic is the
  array's own dataflow's (:func:`systolic_map`): only the cycles are the schedule's.
* :func:`sigma_map` — SIGMA: Flex-DPEs of ``k`` multipliers composed into a
  Flex-DPU; the expected-value form of :mod:`accelgen.golden.flexdpe`
  (useful columns ``K_u = K (1-(1-d_T)^V)``, useful stationary values
  ``U = R K_u d_S``, ``ceil(U/k)`` Flex-DPE folds spread over the Flex-DPEs,
  each streaming the vectors that meet its columns, plus the pipeline latency);
  both stationary choices, the faster taken; the streaming input bandwidth
  (on-chip words per cycle) limits the rate. At density 1 on one Flex-DPE it is
  exactly ``sigma_cycles``.
* :func:`tensordash_map` — TensorDash tiles: the dense schedule
  (``ceil(M/R) * N`` output groups over the tiles, ``ceil(K/L)`` rows each) sped
  up by the fast scheduler model :func:`accelgen.golden.tensordash.cycle_counts`
  on sampled operand streams at the layer's densities (element-wise skipping;
  a tile exploits only B's zeros, a single PE both operands'), plus the PE's
  pipeline latency per output group (the next group starts when a result is done).
  ``depth=1`` is the dense baseline: speedup 1, every MAC executed (zeros included).
* :func:`reduction_map` — reduction trees (vector-wise): each pass reduces one
  ``n``-wide vector of products; FAN packs ``floor(n/K)`` short dot products
  per pass; vectors whose products are all zero are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..golden.flexdpe import flexdpe_latency
from ..golden.systolic import systolic_cycles
from ..golden.tensordash import cycle_counts, pe_latency
from .workload import Gemms, zero_prob


def _cdiv(a, b):
    return -(-np.asarray(a) // np.asarray(b))


@dataclass
class Mapping:
    """Per-layer arrays of one compute type's mapping (see the module docstring)."""

    compute: str
    cycles: np.ndarray            # compute cycles of the layer on the chip
    executed_macs: np.ndarray     # MACs performed (after zero skipping; dense count inside executed tiles)
    actions: np.ndarray           # actions of the unit's fitted energy model (per-"op" energy)
    peak_macs_per_cycle: float
    onchip_a_reads: np.ndarray    # how many times the A (streamed/im2col) operand is read from on-chip memory
    onchip_b_reads: np.ndarray
    onchip_psum_elems: np.ndarray  # partial-sum elements written + read back (accumulator width)
    vector_adds: np.ndarray = None  # adds done by the vector unit (partial-sum merging)
    detail: dict = field(default_factory=dict)
    #: bytes of a double-buffered schedule that cannot overlap the compute (None: no such schedule): the first fold's
    #: A tile and weight slice, loaded before it starts, and the last output tile, stored after it ends
    fill_a_bytes: np.ndarray = None
    fill_b_bytes: np.ndarray = None
    fill_c_bytes: np.ndarray = None
    #: ``actions`` per cycle with every unit of the chip busy: the fitted model's operations per cycle at full
    #: activity (its sweep stimulus's) times the model instances on the chip. Each cycle of :attr:`cycles` clocks
    #: that many operations' worth of clock network, busy or not (:mod:`accelgen.ppa.perf`); None: not known (the
    #: clock is then charged per action)
    peak_actions_per_cycle: float | None = None
    #: how the operands lie in whole lines (None: the mapping does not know; no padding). A memory moves a line at a
    #: time, and the array takes its operands in its own widths: a line of A is one K-slice of a row (at most
    #: ``line_k`` = ``rows`` operands), a weight tile is ``rows x cols`` (``line_k x line_n``) and a line of sums
    #: holds at most ``line_n`` = ``cols`` outputs of a row; each of the ``k_split`` (``n_split``) units that share K
    #: (N) pads its own share
    line_k: int | None = None
    line_n: int | None = None
    k_split: np.ndarray = None
    n_split: np.ndarray = None
    #: how many times the schedule's loads write A (lowered, padded) and the weights (padded) into the operand memory
    #: (None: no such schedule; the layer's off-chip loads are written once each): the double-buffered schedule
    #: loads each line of A into an A tile once and every fold's weight slice once per tile
    onchip_a_writes: np.ndarray = None
    onchip_b_writes: np.ndarray = None
    #: the sums live in a ``holds: sums`` memory (the double-buffered schedule): each fold writes its tile's sums
    #: there, every K fold after the first reads them back first, and the store reads them once
    sums_in_memory: bool = False


# --------------------------------------------------------------------------- systolic tensor units

def _partitions(units: int, allow_k: bool) -> np.ndarray:
    """All (pg, pm, pn, pk) with product <= units, each a divisor-or-power-of-two of units."""
    vals = sorted({d for d in range(1, units + 1) if units % d == 0} |
                  {1 << i for i in range(units.bit_length()) if (1 << i) <= units})
    out = []
    for pg in vals:
        for pm in vals:
            if pg * pm > units:
                break
            for pn in vals:
                if pg * pm * pn > units:
                    break
                for pk in (vals if allow_k else [1]):
                    if pg * pm * pn * pk > units:
                        break
                    out.append((pg, pm, pn, pk))
    return np.array(out, dtype=np.int64)


def systolic_map(g: Gemms, *, rows: int, cols: int, dataflow: str, units: int, vector_lanes: int = 0,
                 skip_zeros: bool = False, weight_load: str = "shift", mul_stages: int = 0,
                 add_stages: int = 0, sum_group: int = 1, m_tile: np.ndarray | None = None) -> Mapping:
    """Systolic tensor units (module docstring). ``units``: tensor units on the chip; ``vector_lanes``: lanes
    of all vector units (0: no vector unit, K is never split); ``weight_load``, ``mul_stages``,
    ``add_stages``, ``sum_group``: as the array's parameters (:func:`accelgen.golden.systolic.systolic_cycles`).

    ``m_tile`` (WS; per layer): the most rows of A one fold streams, when a memory holding the array's sums bounds
    the output tile (:attr:`accelgen.ppa.arch.Memory.holds`). Each unit's rows then run in the fewest tiles of at most
    ``m_tile`` rows, of equal size within one (``ceil(M / tiles)``, the last one shorter by the rest), every tile
    paying each fold's load and skew, and the mapping's ``fill_*_bytes`` are those of
    the double-buffered schedule: the first fold's A tile (``m_tile`` rows of ``rows`` operands) and weight slice
    (``rows x cols``), and the last tile's ``cols`` outputs per row. Its on-chip traffic is the schedule's too: a
    weight slice is loaded and read once per fold of every tile (only two fit beside the A tiles), each line of A
    loaded once, and the sums kept in the ``holds: sums`` memory (``Mapping.onchip_*_writes``,
    ``sums_in_memory``)."""
    timing = {"weight_load": weight_load, "mul_stages": mul_stages, "add_stages": add_stages, "sum_group": sum_group}
    if dataflow not in ("ws", "os", "is"):
        raise ValueError(f"dataflow={dataflow!r} is not allowed; allowed: ws, os, is")
    tiled = m_tile is not None and dataflow == "ws"
    parts = _partitions(units, vector_lanes > 0)                  # (P, 4)
    M, N, K, cnt = (x[:, None] for x in (g.M, g.N, g.K, g.count))  # (L, 1)
    pg, pm, pn, pk = (parts[:, i][None, :] for i in range(4))
    pg, pm, pn, pk = (np.minimum(p, d) for p, d in ((pg, cnt), (pm, M), (pn, N), (pk, K)))
    Mi, Ni, Ki, rounds = _cdiv(M, pm), _cdiv(N, pn), _cdiv(K, pk), _cdiv(cnt, pg)
    Mi, Ni, Ki = np.broadcast_arrays(Mi, Ni, Ki)
    if skip_zeros:
        if dataflow == "ws":
            s = zero_prob(g.b_d, g.b_pat, g.b_n, g.b_m, g.b_block, rows, cols)[:, None]
        elif dataflow == "is":
            s = zero_prob(g.a_d, g.a_pat, g.a_n, g.a_m, g.a_block, rows, cols)[:, None]
        else:
            za = zero_prob(g.a_d, g.a_pat, g.a_n, g.a_m, g.a_block, 1, rows)
            zb = zero_prob(g.b_d, g.b_pat, g.b_n, g.b_m, g.b_block, 1, cols)
            s = (1.0 - (1.0 - za) * (1.0 - zb))[:, None]
    else:
        s = np.zeros((len(g.M), 1))
    if dataflow == "os":
        k_eff = np.maximum(1, np.ceil(Ki * (1.0 - s)).astype(np.int64))
        sc = systolic_cycles(rows, cols, Mi, Ni, k_eff, "os", **timing)
        folds = np.asarray(sc.folds)
        unit_cycles = np.asarray(sc.cycles)
        exec_frac = k_eff / Ki
    else:
        sc = systolic_cycles(rows, cols, Mi, Ni, Ki, dataflow, **timing)
        folds = np.ceil(np.asarray(sc.folds) * (1.0 - s)).astype(np.int64)
        unit_cycles = folds * np.asarray(sc.fold_cycles) + np.asarray(sc.tail_cycles)
        exec_frac = np.where(np.asarray(sc.folds) > 0, folds / np.asarray(sc.folds), 0.0)
        if tiled:   # tiles of equal rows (within one): no short last tile whose folds outrun the previous tile's store
            mt = _cdiv(Mi, _cdiv(Mi, np.minimum(m_tile[:, None], Mi)))
            full, rem = Mi // mt, Mi % mt
            whole = systolic_cycles(rows, cols, mt, Ni, Ki, dataflow, **timing)
            last = systolic_cycles(rows, cols, np.maximum(rem, 1), Ni, Ki, dataflow, **timing)
            per_fold = full * np.asarray(whole.fold_cycles) + np.where(rem > 0, np.asarray(last.fold_cycles), 0)
            unit_cycles = folds * per_fold + np.where(rem > 0, np.asarray(last.tail_cycles),
                                                      np.asarray(whole.tail_cycles))
    lanes = max(vector_lanes, 1)
    merge_adds = (pk - 1) * M * N * cnt
    merge = np.where(pk > 1, _cdiv(merge_adds, lanes), 0)
    total = rounds * unit_cycles + merge
    best = np.argmin(total, axis=1)
    r = np.arange(len(best))

    def pick(x):
        return np.broadcast_to(x, total.shape)[r, best]

    macs = g.M * g.N * g.K * g.count
    executed = macs * pick(exec_frac)
    folds_b = pick(folds)
    kf = _cdiv(pick(Ki), rows) if dataflow != "os" else np.ones_like(g.M)
    if dataflow == "ws":
        a_reads, b_reads = _cdiv(g.N, cols).astype(float), np.ones(len(g.M))
    elif dataflow == "is":
        a_reads, b_reads = np.ones(len(g.M)), _cdiv(g.M, cols).astype(float)
    else:
        a_reads, b_reads = _cdiv(g.N, cols).astype(float), _cdiv(g.M, rows).astype(float)
    psum = np.where(kf > 1, 2.0 * (kf - 1) * g.M * g.N * g.count, 0.0) + pick(merge_adds) * 2.0
    fill = {}
    detail = {}
    lines = {}
    if dataflow == "ws":   # a line of A is one K-slice of ``rows`` operands; weights and sums come in ``cols``
        lines = {"line_k": rows, "line_n": cols, "k_split": pick(pk), "n_split": pick(pn)}
    if tiled:
        tile, active = pick(mt), pick(pg * pm * pn * pk)
        last_rows = np.where(pick(rem) > 0, pick(rem), tile)
        fill = {"fill_a_bytes": active * tile * rows * g.a_width / 8.0,
                "fill_b_bytes": active * rows * cols * g.b_width / 8.0,
                "fill_c_bytes": active * last_rows * cols * g.a_width / 8.0}
        detail = {"m_tile": tile, "m_tiles": pick(full + (rem > 0))}
        # only two weight slices fit beside the A tiles: every tile of every unit that splits M loads (and reads)
        # each fold's weight slice again, while each line of A is loaded once and read once per N-slice
        b_reads = (pick(pm) * detail["m_tiles"]).astype(float)
        lines |= {"onchip_a_writes": np.ones(len(g.M)), "onchip_b_writes": b_reads, "sums_in_memory": True}
    return Mapping("tensor", cycles=total[r, best].astype(np.int64), executed_macs=executed.astype(float),
                   actions=executed.astype(float), peak_macs_per_cycle=float(units * rows * cols),
                   peak_actions_per_cycle=float(units * rows * cols),   # an action: a MAC
                   onchip_a_reads=a_reads, onchip_b_reads=b_reads, onchip_psum_elems=psum,
                   vector_adds=pick(merge_adds).astype(float),
                   detail={"partition": [tuple(int(v) for v in parts[i]) for i in best], "folds": folds_b,
                           "fill_cycles": pick(np.asarray(sc.load_cycles)), "stream_cycles": pick(
                               np.asarray(sc.stream_cycles)), "drain_cycles": pick(np.asarray(sc.skew_cycles)),
                           "merge_cycles": pick(merge), "skipped_fraction": pick(np.broadcast_to(s, total.shape)),
                           **detail}, **fill, **lines)


def row_stationary_map(g: Gemms, *, rows: int, cols: int, dataflow: str, units: int, **timing) -> Mapping:
    """The row-stationary schedule's cycles (module docstring) over the traffic and actions of the array's own
    dataflow (``timing``: as :func:`systolic_map`; K is never split over units)."""
    mp = systolic_map(g, rows=rows, cols=cols, dataflow=dataflow, units=units, **timing)
    conv = g.conv_r > 0
    R, S = np.where(conv, g.conv_r, 1), np.where(conv, g.conv_s, 1)
    P, Q = np.where(conv, g.conv_p, 1), np.where(conv, g.conv_q, g.M)
    samples = np.where(conv, g.batch, 1)
    channels = g.K // (R * S)
    r_pieces = _cdiv(R, rows)
    p_strips = _cdiv(P, cols)
    piece_rows = _cdiv(R, r_pieces)
    strip_cols = np.minimum(P, cols)
    slots = (rows // piece_rows) * (cols // strip_cols)
    jobs = samples * g.count * g.N * channels * r_pieces * p_strips
    cycles = _cdiv(jobs, slots * units) * Q * S
    # PEs busy in a full pass, a strip's mean width (the last strip of a P that does not divide is narrower)
    active = np.minimum(jobs, slots * units) * R / r_pieces * P / p_strips
    detail = {"schedule": ["row_stationary"] * len(cycles), "set_slots": slots, "active_pes": active,
              "passes": _cdiv(jobs, slots * units), "pass_cycles": Q * S}
    return Mapping("tensor", cycles=cycles.astype(np.int64), executed_macs=mp.executed_macs, actions=mp.actions,
                   peak_macs_per_cycle=mp.peak_macs_per_cycle, peak_actions_per_cycle=mp.peak_actions_per_cycle,
                   onchip_a_reads=mp.onchip_a_reads,
                   onchip_b_reads=mp.onchip_b_reads, onchip_psum_elems=mp.onchip_psum_elems,
                   vector_adds=mp.vector_adds, detail=detail, line_k=mp.line_k, line_n=mp.line_n,
                   k_split=mp.k_split, n_split=mp.n_split)


# --------------------------------------------------------------------------- SIGMA Flex-DPEs

def sigma_expected(M, N, K, d_a, d_b, *, k: int, flexdpes: int, stationary: str, benes_pipeline_every: int = 0,
                   words_per_cycle: float = np.inf, mul_stages: int = 0, add_stages: int = 0) -> dict:
    """Expected cycles of SIGMA's mapping (module docstring) for arrays of GEMMs at random densities
    (``mul_stages`` / ``add_stages``: registers inside each multiplier / FAN adder, longer drain only)."""
    M, N, K = (np.asarray(x, dtype=float) for x in (M, N, K))
    d_a, d_b = np.asarray(d_a, dtype=float), np.asarray(d_b, dtype=float)
    if stationary == "weights":
        R, V, dS, dT = N, M, d_b, d_a
    else:
        R, V, dS, dT = M, N, d_a, d_b
    Ku = K * (1.0 - (1.0 - dT) ** V)
    U = np.round(R * Ku * dS)
    L = np.maximum(Ku * dS, 1e-12)                     # useful values per stationary row
    span = np.maximum(1.0, k / L)                      # rows one fold spans
    n_k = np.minimum(k, Ku * (1.0 - (1.0 - dS) ** span))
    n_k = np.where(dS >= 1.0, np.minimum(k, Ku), n_k)
    pv = 1.0 - (1.0 - dT) ** n_k                       # a vector meets the fold's columns
    folds = _cdiv(U.astype(np.int64), k)
    rounds = _cdiv(folds, flexdpes)
    active = np.minimum(folds, flexdpes)
    vecs = np.round(V * pv)
    demand = active * n_k * dT if np.isfinite(words_per_cycle) else 0.0
    bw = np.maximum(1.0, demand / words_per_cycle) if np.isfinite(words_per_cycle) else 1.0
    stream = np.ceil(rounds * vecs * bw)
    lat = flexdpe_latency(k, benes_pipeline_every, mul_stages, add_stages)
    cycles = np.where(folds > 0, rounds + stream + lat, 0)
    dpe_cycles = folds * (1.0 + vecs)                  # busy Flex-DPE cycles (load + stream per fold)
    return {"cycles": cycles.astype(np.int64), "folds": folds, "rounds": rounds, "stream_cycles": stream,
            "load_cycles": rounds, "add_cycles": np.where(folds > 0, lat, 0), "mapped": U, "dpe_cycles": dpe_cycles,
            "flexdpu_size": np.minimum(folds, flexdpes), "bandwidth_factor": np.broadcast_to(bw, M.shape),
            "streamed_vectors": vecs, "distinct_cols": n_k,
            # streaming operand re-reads: each round, every active Flex-DPE reads its n_k columns of each vector
            "stream_reads": np.where(V * K > 0, rounds * vecs * active * n_k / np.maximum(V * K, 1), 0.0)}


def sigma_map(g: Gemms, *, k: int, flexdpes: int, words_per_cycle: float = np.inf, mul_stages: int = 0,
              add_stages: int = 0) -> Mapping:
    """SIGMA (module docstring): each of a layer's ``count`` GEMMs on all Flex-DPEs, both stationary choices
    (``mul_stages`` / ``add_stages``: the Flex-DPEs' pipelining, as :func:`sigma_expected`)."""
    best = None
    for st in ("weights", "inputs"):
        e = sigma_expected(g.M, g.N, g.K, g.a_d, g.b_d, k=k, flexdpes=flexdpes, stationary=st,
                           words_per_cycle=words_per_cycle, mul_stages=mul_stages, add_stages=add_stages)
        if best is None:
            best = {kk: np.array(v, dtype=float) for kk, v in e.items()}
            best["stationary"] = np.array(["weights"] * len(g.M), dtype=object)
        else:
            better = e["cycles"] < best["cycles"]
            for kk, v in e.items():
                best[kk] = np.where(better, v, best[kk])
            best["stationary"] = np.where(better, "inputs", best["stationary"])
    cycles = best["cycles"] * g.count
    useful = g.M * g.N * g.K * g.count * g.a_d * g.b_d
    weights = best["stationary"] == "weights"
    return Mapping("sigma", cycles=cycles.astype(np.int64), executed_macs=useful.astype(float),
                   actions=best["dpe_cycles"] * g.count, peak_macs_per_cycle=float(k * flexdpes),
                   peak_actions_per_cycle=float(flexdpes),   # an action: one Flex-DPE's busy cycle
                   onchip_a_reads=np.where(weights, best["stream_reads"], 1.0),
                   onchip_b_reads=np.where(weights, 1.0, best["stream_reads"]),
                   onchip_psum_elems=np.zeros(len(g.M)), vector_adds=np.zeros(len(g.M)),
                   detail={kk: best[kk] for kk in ("stationary", "folds", "flexdpu_size", "load_cycles",
                                                   "stream_cycles", "add_cycles", "bandwidth_factor")})


# --------------------------------------------------------------------------- TensorDash

_TD_STREAMS = 32
_TD_MAX_ROWS = 256


@lru_cache(maxsize=4096)
def tensordash_speedup(d_a: float, d_b: float, lanes: int, depth: int, side: str, n_rows: int,
                       nm: tuple | None = None) -> float:
    """Dense rows / scheduled cycles of :func:`cycle_counts` on sampled streams (seeded, deterministic).

    Effectual pairs: ``side="both"`` both operands non-zero (independent, densities ``d_a``, ``d_b``);
    ``side="b"`` B non-zero. ``nm=(n, m)`` samples B with N:M structure along the stream instead.
    At most ``_TD_MAX_ROWS`` rows are simulated (the ratio is stationary past the buffer depth)."""
    rows = max(1, min(n_rows, _TD_MAX_ROWS))
    p = d_b if side == "b" else d_a * d_b
    if p >= 1.0 and nm is None:
        return 1.0
    rng = np.random.default_rng(12345)
    if nm is not None:
        n, m = nm
        flat = np.zeros((_TD_STREAMS, rows * lanes + m), dtype=bool)
        groups = flat.shape[1] // m
        keys = rng.random((_TD_STREAMS, groups, m))
        keep = np.argsort(keys, axis=2) < n
        flat[:, :groups * m] = keep.reshape(_TD_STREAMS, groups * m)
        eff = flat[:, :rows * lanes].reshape(_TD_STREAMS, rows, lanes)
        if side == "both":
            eff &= rng.random(eff.shape) < d_a
    else:
        eff = rng.random((_TD_STREAMS, rows, lanes)) < p
    cyc = cycle_counts(eff, depth=depth)
    return float(rows * _TD_STREAMS / max(int(cyc.sum()), 1))


def tensordash_map(g: Gemms, *, lanes: int, depth: int, rows: int, cols: int, tiles: int, mul_stages: int = 0,
                   add_stages: int = 0) -> Mapping:
    """TensorDash (module docstring): ``tiles`` tiles (count x cores) of ``rows x cols`` PEs of ``lanes``; each
    output group costs its busy cycles plus the PE's latency (``mul_stages``, ``add_stages``:
    :func:`accelgen.golden.tensordash.pe_latency`), since the next group starts when its result is done."""
    groups = _cdiv(g.M, rows) * g.N * g.count
    pes = tiles * cols
    rounds = _cdiv(groups, pes)
    dense_rows = _cdiv(g.K, lanes)
    side = "b" if rows > 1 else "both"
    side_n = max(1, int(np.sqrt(pes)))
    sp = np.array([tensordash_speedup(float(da), float(db), lanes, depth, side, int(n),
                                      (int(bn), int(bm)) if bp == 1 else None)
                   for da, db, n, bp, bn, bm in zip(g.a_d, g.b_d, dense_rows, g.b_pat, g.b_n, g.b_m)])
    latency = pe_latency(lanes, mul_stages, add_stages)
    cycles = np.ceil(rounds * (dense_rows / sp + latency)).astype(np.int64)
    macs = g.M * g.N * g.K * g.count
    # the dense baseline (depth 1) skips nothing: it multiplies every pair, zeros included
    eff_frac = 1.0 if depth == 1 else g.b_d if side == "b" else g.a_d * g.b_d
    return Mapping("tensordash", cycles=cycles, executed_macs=(macs * eff_frac).astype(float),
                   actions=(groups * dense_rows / sp).astype(float), peak_macs_per_cycle=float(pes * rows * lanes),
                   # an action: a busy cycle of one model instance (a column of ``rows`` PEs sharing a schedule)
                   peak_actions_per_cycle=float(pes),
                   # a round's groups form a ~square block of (M/R)-blocks x columns: operands shared inside it
                   onchip_a_reads=_cdiv(g.N, side_n).astype(float),
                   onchip_b_reads=_cdiv(_cdiv(g.M, rows), pes // side_n).astype(float),
                   onchip_psum_elems=np.zeros(len(g.M)), vector_adds=np.zeros(len(g.M)),
                   detail={"speedup": sp, "dense_cycles": rounds * dense_rows, "rounds": rounds})


def tensordash_exact_cycles(a_bitmap, b_bitmap, *, lanes: int, depth: int, rows: int = 1) -> int:
    """Cycles of ``A @ B`` (operand bitmaps) on one PE (``rows=1``) or one tile of ``rows`` PE rows sharing the
    B-side schedule, output by output: the exact path of :func:`tensordash_map` (stream = the ``K`` products
    laid ``lanes`` per row, zero-padded)."""
    a, b = np.asarray(a_bitmap, dtype=bool), np.asarray(b_bitmap, dtype=bool)
    M, K = a.shape
    N = b.shape[1]
    n = -(-K // lanes)
    pad = n * lanes - K
    streams = []
    for m0 in range(0, M, rows):
        for j in range(N):
            bb = np.pad(b[:, j], (0, pad))
            if rows == 1:
                eff = bb & np.pad(a[m0], (0, pad))
            else:
                eff = bb
            streams.append(eff.reshape(n, lanes))
    return int(cycle_counts(np.stack(streams), depth=depth).sum())


# --------------------------------------------------------------------------- reduction trees

def reduction_map(g: Gemms, *, inputs: int, kind: str, trees: int, stage_cycles: int = 0) -> Mapping:
    """Reduction trees (vector-wise; module docstring). ``stage_cycles``: the cycles the unit's pipeline stages add
    to one result (:func:`accelgen.ppa.pipelining.added_latency`), paid once per drain like the tree's own
    latency."""
    n = inputs
    chunks = _cdiv(g.K, n)
    za = zero_prob(g.a_d, g.a_pat, g.a_n, g.a_m, g.a_block, n, 1)
    zb = zero_prob(g.b_d, g.b_pat, g.b_n, g.b_m, g.b_block, n, 1)
    both_random = (g.a_pat == 0) & (g.b_pat == 0)
    zc = np.where(both_random, (1.0 - g.a_d * g.b_d) ** np.minimum(g.K, n), 1.0 - (1.0 - za) * (1.0 - zb))
    dots = g.M * g.N * g.count
    if kind == "fan":
        per_pass = np.where(g.K < n, n // np.minimum(g.K, n), 1)
    else:
        per_pass = np.ones_like(g.K)
    passes = np.ceil(_cdiv(dots, per_pass) * chunks * (1.0 - zc))
    lat = (n if kind == "linear" else int(np.log2(n)) + 1) + stage_cycles
    cycles = (_cdiv(passes.astype(np.int64), trees) + np.where(passes > 0, lat, 0)).astype(np.int64)
    macs = g.M * g.N * g.K * g.count
    return Mapping("reduction", cycles=cycles, executed_macs=(macs * (1.0 - zc)).astype(float), actions=passes,
                   peak_macs_per_cycle=float(trees * n), peak_actions_per_cycle=float(trees),   # a pass per tree
                   onchip_a_reads=_cdiv(g.N, trees).astype(float),
                   onchip_b_reads=np.ones(len(g.M)), onchip_psum_elems=np.where(chunks > 1, 2.0 * (chunks - 1) * dots,
                                                                                0.0),
                   vector_adds=np.zeros(len(g.M)), detail={"passes": passes, "skipped_fraction": zc})


# --------------------------------------------------------------------------- SCALE-Sim's accounting

def scalesim_cycles(rows: int, cols: int, M, N, K, dataflow: str) -> dict:
    """SCALE-Sim v2's compute cycles (no memory stalls) for ``C[M,N] = A[M,K] @ B[K,N]``.

    What SCALE-Sim counts (``scalesim/compute/systolic_compute_{ws,os,is}.py``;
    GEMM topologies map ``M`` to ofmap pixels, ``K`` to the filter window and ``N``
    to filters): each fold contributes the rows of its skewed OFMAP demand matrix,
    and the reported total is the cycle of the last OFMAP row (``rows - 1``,
    counted from 0) when no stall occurs:

    * ws: ``ceil(K/rows) * ceil(N/cols)`` folds of ``2*rows + cols + M - 2`` rows
      (``2 rows - 1`` weight-load/fill prefix, ``M`` streamed rows, ``cols - 1`` skew);
    * os: ``ceil(M/rows) * ceil(N/cols)`` folds of ``K + rows + cols - 2``
      (``K - 1`` prefix, ``rows`` output rows, ``cols - 1`` skew);
    * is: ``ceil(K/rows) * ceil(M/cols)`` folds of ``2*rows + cols + N - 2``
      (WS with ``M`` and ``N`` swapped).

    ``cycles = folds * fold_rows - 1``; utilization = ``M N K / (rows cols cycles)``
    (SCALE-Sim's "overall utilization"). Differences from accelgen's own model
    (proven on the RTL): SCALE-Sim does not overlap consecutive folds (ws: one
    cycle per fold) and counts from 0 instead of adding the output register
    cycles.
    """
    M, N, K = (np.asarray(x, dtype=np.int64) for x in (M, N, K))
    if dataflow == "ws":
        folds, per = _cdiv(K, rows) * _cdiv(N, cols), 2 * rows + cols + M - 2
    elif dataflow == "os":
        folds, per = _cdiv(M, rows) * _cdiv(N, cols), K + rows + cols - 2
    elif dataflow == "is":
        folds, per = _cdiv(K, rows) * _cdiv(M, cols), 2 * rows + cols + N - 2
    else:
        raise ValueError(f"dataflow={dataflow!r} is not allowed; allowed: ws, os, is")
    cycles = folds * per - 1
    return {"cycles": cycles, "folds": folds, "fold_cycles": per,
            "utilization": M * N * K / (rows * cols * cycles)}


def accelgen_cycles(rows: int, cols: int, M, N, K, dataflow: str, **timing) -> dict:
    """accelgen's cosim-proven model for one GEMM on one array (``is`` = ``ws`` with ``M``, ``N`` swapped);
    ``timing``: ``weight_load``, ``mul_stages``, ``add_stages`` of :func:`~accelgen.golden.systolic.systolic_cycles`."""
    sc = systolic_cycles(rows, cols, M, N, K, dataflow, **timing)
    return {"cycles": sc.cycles, "folds": sc.folds, "fold_cycles": sc.fold_cycles, "fill_cycles": sc.load_cycles,
            "stream_cycles": sc.stream_cycles, "drain_cycles": sc.skew_cycles, "tail_cycles": sc.tail_cycles,
            "utilization": sc.utilization}
