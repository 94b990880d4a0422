"""Host side of TensorDash co-simulation: operand streams, cycle tables, the speedup sweep.

The golden model (:mod:`accelgen.golden.tensordash`) is cycle-accurate, so
the host knows in advance how many rows the PE takes each cycle and can
precompute the window of stream rows the environment presents; the cycle table
then checks, every cycle, the selects, ``take`` (``AS``), ``done`` and the
running sum. Any difference in schedule, cycle count or result is a mismatch.
A pipelined PE (``mul_stages``, ``add_stages``) has the same schedule and ``done`` comes ``pe_latency - 1``
cycles later (:func:`~accelgen.golden.tensordash.pe_latency`). Without ``add_stages`` its running sum is the
unpipelined one delayed as much (:func:`~accelgen.golden.tensordash.delayed`); with them the accumulator
interleaves partial sums, so ``acc`` is checked when ``done`` (the dot product, folded in the hardware's
order), and is don't-care while a dot product is in progress.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..golden.fp import from_float32, random_fp_bits, special_values
from ..golden.mac import wrap
from ..golden.tensordash import (delayed, fp_nonzero, pass_cycles, pattern_options, pe_latency, schedule_levels,
                                 schedule_step, simulate_pe)
from .stimulus import Activity, sparse_ints
from .vectors import CycleTable, to_bits

#: sparsities (fraction of zero operands on the chosen side) cycled through by the random streams
SPARSITIES = (0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 0.999)
#: random streams have 1 .. this many rows times D (ragged: the last row may be part padding)
MAX_ROWS_PER_DEPTH = 6


@dataclass
class Stream:
    """One dot product: ``a`` is ``(N, L)`` (PE) or ``(R, N, L)`` (tile), ``b`` is ``(N, L)``."""

    section: str
    a: np.ndarray
    b: np.ndarray

    @property
    def rows(self) -> int:
        return self.b.shape[0]


def _range(width: int, signed: bool) -> tuple[int, int]:
    return (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)


def nonzero_ints(rng, shape, width: int, signed: bool) -> np.ndarray:
    """Random nonzero operands, with extremes now and then."""
    lo, hi = _range(width, signed)
    v = rng.integers(lo, hi, size=shape, endpoint=True, dtype=np.int64)
    pick = rng.random(shape)
    v[pick < 0.05] = lo
    v[(pick >= 0.05) & (pick < 0.10)] = hi
    v[v == 0] = 1
    return v


def _sparse(rng, shape, width, signed, zero_frac: float) -> np.ndarray:
    v = nonzero_ints(rng, shape, width, signed)
    v[rng.random(shape) < zero_frac] = 0
    return v


# --------------------------------------------------------------------------- floating-point operands

def is_fp(params) -> bool:
    return getattr(params, "dtype", "int") != "int"


def _fp_specials(dtype: str) -> np.ndarray:
    """The special values of ``dtype`` that are not zero (zeros are sparsity here)."""
    v = np.asarray(special_values(dtype), dtype=np.int64)
    return v[fp_nonzero(v, dtype)]


def _fp_one(dtype: str, value: float) -> int:
    return int(np.asarray(from_float32(np.array([value], np.float32), dtype)).reshape(-1)[0])


def _fp_zeros(rng, shape, dtype: str) -> np.ndarray:
    """Zeros of random sign (+0 and -0 are both zero for the detectors)."""
    sign = 1 << (32 if dtype == "fp32" else 16) - 1  # the sign bit
    return np.where(rng.random(shape) < 0.5, sign, 0).astype(np.int64)


def _fp_nonzero(rng, shape, dtype: str, special_frac: float = 0.03) -> np.ndarray:
    """Realistic nonzero fp operands (``random_fp_bits``), a fraction replaced by non-zero special values."""
    v = np.asarray(random_fp_bits(rng, shape, dtype, density=1.0), dtype=np.int64).reshape(shape)
    v = np.where(fp_nonzero(v, dtype), v, _fp_one(dtype, 1.0))
    specials = _fp_specials(dtype)
    pick = rng.random(shape) < special_frac
    return np.where(pick, specials[rng.integers(0, specials.size, shape)], v).astype(np.int64)


def _fp_sparse(rng, shape, dtype: str, zero_frac: float, special_frac: float = 0.03) -> np.ndarray:
    v = _fp_nonzero(rng, shape, dtype, special_frac)
    return np.where(rng.random(shape) < zero_frac, _fp_zeros(rng, shape, dtype), v)


class _Operands:
    """Operand factory for one side (A or B) of a PE: integers or fp bit patterns."""

    def __init__(self, rng, params, width: int):
        self.rng, self.width, self.signed = rng, width, params.signed
        self.dtype = getattr(params, "dtype", "int")

    def nonzero(self, shape, special_frac: float = 0.03) -> np.ndarray:
        if self.dtype == "int":
            return nonzero_ints(self.rng, shape, self.width, self.signed)
        return _fp_nonzero(self.rng, shape, self.dtype, special_frac)

    def sparse(self, shape, zero_frac: float, special_frac: float = 0.03) -> np.ndarray:
        if self.dtype == "int":
            return _sparse(self.rng, shape, self.width, self.signed, zero_frac)
        return _fp_sparse(self.rng, shape, self.dtype, zero_frac, special_frac)

    def zeros(self, shape) -> np.ndarray:
        if self.dtype == "int":
            return np.zeros(shape, np.int64)
        return _fp_zeros(self.rng, shape, self.dtype)


def _fp_directed(params, rng, a_shape, add, tile: bool) -> None:
    """Directed floating-point streams: specials, Inf x 0, cancellation, ties, extremes."""
    dtype, lanes, depth = params.dtype, params.lanes, params.depth
    f = lambda x: _fp_one(dtype, x)  # noqa: E731
    specials = np.concatenate([_fp_specials(dtype), [0, 1 << (params.a_width - 1)]])
    n = 6 * depth
    # every operand a special value (zeros included): NaN, Inf, subnormal, extreme products
    add("fp_specials", specials[rng.integers(0, specials.size, a_shape(n))],
        specials[rng.integers(0, specials.size, (n, lanes))])
    # Inf opposite a zero: skipped in the PE (no NaN); the tile multiplies zero A operands
    ops = _Operands(rng, params, params.a_width)
    a, b = ops.nonzero(a_shape(n)), ops.nonzero((n, lanes))
    inf, ninf = f(np.inf), f(-np.inf)
    for k in range(n):
        l = k % lanes
        if k % 2:
            a[..., k, l], b[k, l] = rng.choice([inf, ninf]), rng.choice([0, 1 << (params.b_width - 1)])
        else:
            a[..., k, l], b[k, l] = rng.choice([0, 1 << (params.a_width - 1)]), rng.choice([inf, ninf])
    add("fp_inf_times_zero", a, b)
    # cancellation: +x*y and -x*y in one row, huge terms cancelling around small ones; exact zero sums
    a, b = ops.nonzero(a_shape(n)), ops.nonzero((n, lanes))
    sign = 1 << (params.a_width - 1)
    for k in range(n):
        big = f(float(rng.choice([2.0 ** 14, 60000.0, 3.0e38 if dtype != "fp16" else 65504.0])))
        a[..., k, 0], a[..., k, 1 % lanes] = big, big ^ sign
        b[k, 0] = b[k, 1 % lanes] = f(1.0)
        if lanes > 3 and k % 2:
            a[..., k, 2], a[..., k, 3] = a[..., k, 3] ^ sign, a[..., k, 3]
            b[k, 2] = b[k, 3]
    add("fp_cancellation", a, b)
    # ties: 1 + 2**-24 rounds to even (1), 1 + 2**-23 + 2**-24 rounds up; products 2**-12 * 2**-12 = 2**-24
    one, tiny = f(1.0), f(2.0 ** -12)
    a = np.full(a_shape(n), tiny, np.int64)
    b = np.full((n, lanes), tiny, np.int64)
    a[..., ::3, 0] = one
    b[::3, 0] = one
    a[..., 1::3, lanes - 1] = f(1.0 + 2.0 ** -7)
    b[1::3, lanes - 1] = f(1.0 + 2.0 ** -7)
    add("fp_ties", a, b)
    # extremes: largest normals (bf16: products overflow to Inf), smallest subnormals (products underflow)
    big, small = f(3.3e38 if dtype != "fp16" else 65504.0), int(specials[specials > 0].min())
    a = np.where(rng.random(a_shape(n)) < 0.5, big, small)
    b = np.where(rng.random((n, lanes)) < 0.5, big, small) ^ np.where(rng.random((n, lanes)) < 0.5, sign, 0)
    add("fp_extremes", a.astype(np.int64), b.astype(np.int64))
    # underflow: smallest normals times 0.5 .. 0.9 (bf16 / fp32: fp32 subnormal products and sums)
    tiny_n = int(specials[(specials > 0) & (specials < sign)].min())  # smallest positive subnormal
    low = np.array([f(v) for v in (2.0 ** -126, 1.5 * 2.0 ** -126, 2.0 ** -125)] if dtype != "fp16"
                   else [f(2.0 ** -14), f(1.5 * 2.0 ** -14), tiny_n], np.int64)
    half = np.array([f(v) for v in (0.5, 0.75, 0.875, 0.25)], np.int64)
    a = low[rng.integers(0, low.size, a_shape(n))] ^ np.where(rng.random(a_shape(n)) < 0.5, sign, 0)
    b = half[rng.integers(0, half.size, (n, lanes))]
    add("fp_underflow", a, b)


def pe_streams(params, vectors: int, seed: int, *, tile: bool = False) -> list[Stream]:
    """Directed streams followed by ``vectors`` random ones.

    Directed (PE): empty stream; all zeros on A, on B, on both; no zeros; one
    effectual pair per row; effectual pairs only in lane 0 / lane L-1; the
    extreme values (accumulator wrap-around); for each option ``k`` a single
    effectual pair that lane 0 reaches only through option ``k``; streams of 1
    and D-1 rows.
    Random: sparsity cycling through :data:`SPARSITIES` on A, on B and on both;
    ragged lengths (1 .. ``6 D`` rows, the last row part zero padding). For the
    tile only B's zeros matter; A operands get their own random zeros.

    Floating point (``params.dtype`` fp16/bf16/fp32): operands are bit patterns,
    ``random_fp_bits`` values with 3% (random streams: none in every other
    stream, 2% in the others) replaced by non-zero special values
    (subnormals, largest/smallest normals, +-Inf, NaNs, values near 1); zeros
    are +0 or -0 at random. The integer extremes section is replaced by
    ``fp_specials`` (all operands special), ``fp_inf_times_zero``,
    ``fp_cancellation``, ``fp_ties``, ``fp_extremes`` and ``fp_underflow``.
    """
    rng = np.random.default_rng(seed)
    lanes, depth = params.lanes, params.depth
    aw, bw, signed = params.a_width, params.b_width, params.signed
    A, B = _Operands(rng, params, aw), _Operands(rng, params, bw)
    rows_r = params.rows if tile else None
    out: list[Stream] = []

    def a_shape(n):
        return (rows_r, n, lanes) if tile else (n, lanes)

    def add(section, a, b):
        out.append(Stream(section, np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)))

    n = 2 * depth + 1
    add("empty", np.zeros(a_shape(0), np.int64), np.zeros((0, lanes), np.int64))
    add("all_zero_a", A.zeros(a_shape(n)), B.nonzero((n, lanes)))
    add("all_zero_b", A.nonzero(a_shape(n)), B.zeros((n, lanes)))
    add("all_zero_both", A.zeros(a_shape(n)), B.zeros((n, lanes)))
    add("dense", A.nonzero(a_shape(n)), B.nonzero((n, lanes)))
    # one effectual pair per row, at a random lane; the other pairs have a zero on a random side
    n = 3 * depth
    a, b = A.nonzero(a_shape(n)), B.nonzero((n, lanes))
    za, zb = A.zeros(a_shape(n)), B.zeros((n, lanes))
    hit = rng.integers(0, lanes, n)
    for k in range(n):
        for l in range(lanes):
            if l != hit[k]:
                if tile or rng.random() < 0.5:
                    b[k, l] = zb[k, l]
                else:
                    a[k, l] = za[k, l]
    add("one_per_row", a, b)
    for lane in (0, lanes - 1):
        a, b = A.nonzero(a_shape(n)), B.nonzero((n, lanes))
        mask = np.arange(lanes) != lane
        b[:, mask] = B.zeros((n, lanes))[:, mask]
        add(f"only_lane{lane}", a, b)
    if is_fp(params):
        _fp_directed(params, rng, a_shape, add, tile)
    else:
        lo_a, hi_a = _range(aw, signed)
        lo_b, hi_b = _range(bw, signed)
        big = max(((x, y) for x in (lo_a, hi_a) for y in (lo_b, hi_b) if x and y),
                  key=lambda p: abs(p[0] * p[1]))
        n = 4 * depth
        add("extremes", np.full(a_shape(n), big[0], np.int64), np.full((n, lanes), big[1], np.int64))
    # one effectual pair that lane 0 (first level) can reach only through option k: every option is used
    for k, (step, offset) in enumerate(pattern_options(params.pattern, lanes, depth)):
        a, b = A.nonzero(a_shape(depth)), B.zeros((depth, lanes))
        b[step, offset] = B.nonzero((1,))[0]
        add(f"reach_option{k}", a, b)
    for n in (1, depth - 1):
        add(f"rows{n}", A.sparse(a_shape(n), 0.3), B.sparse((n, lanes), 0.3))

    for i in range(vectors):
        s = SPARSITIES[i % len(SPARSITIES)]
        side = ("a", "b", "both")[(i // len(SPARSITIES)) % 3]
        pairs = int(rng.integers(1, MAX_ROWS_PER_DEPTH * depth * lanes, endpoint=True))
        n = -(-pairs // lanes)
        # fp: every other random stream has no special values, so that long finite sums are checked too
        special = 0.02 * (i % 2)
        a = A.sparse(a_shape(n), s if side in ("a", "both") else 0.0, special)
        b = B.sparse((n, lanes), s if side in ("b", "both") else 0.0, special)
        pad = n * lanes - pairs
        if pad:
            b[n - 1, lanes - pad:] = B.zeros((pad,))
            a[..., n - 1, lanes - pad:] = A.zeros(a[..., n - 1, lanes - pad:].shape)
        add(f"random_{side}", a, b)
    return out


def trace(params, stream: Stream, tile: bool):
    return simulate_pe(stream.a, stream.b, depth=params.depth, pattern=params.pattern, side="b" if tile else "both",
                       dtype=getattr(params, "dtype", "int"),
                       flush_subnormals=getattr(params, "flush_subnormals", False), threads=params.add_stages + 1)


def acc_bits(params, value: int) -> int:
    """The accumulator port's value: fp32 bits as they are, integers wrapped to ``acc_width``."""
    return int(value) if is_fp(params) else wrap(int(value), params.acc_width, params.signed)


def pe_table(params, vectors: int = 64, seed: int = 1, *, streams: list[Stream] | None = None,
             gaps: bool = True) -> CycleTable:
    """Cycle table for a :class:`~accelgen.rtl.tensordash.TensorDashPE` or ``TensorDashTile`` run.

    Each stream is started once the previous one is done (sometimes after a few
    idle cycles with garbage on the inputs; ``gaps=False``: never). Every cycle checks ``take``, every
    lane's ``sel``, ``done`` and ``acc`` (each row's for the tile) against the
    golden model; window rows past the end of a stream carry random nonzero
    garbage with ``next_valid`` low.

    Pipelined (latency ``1 + P``, :func:`~accelgen.golden.tensordash.pe_latency`): after the busy
    cycles of a stream come ``latency - 1`` drain cycles (``take`` and ``sel`` 0, ``done`` low). Without
    ``add_stages``, ``acc`` is expected ``latency - 1`` cycles later than the unpipelined PE shows it; with
    them (interleaved partial sums) ``acc`` is checked in the cycles ``done`` is high only, against the
    folded result. ``info["pass_cycles"]`` holds each stream's cycles from ``start`` to ``done`` (busy
    cycles + latency).
    """
    tile = hasattr(params, "rows")
    lanes, depth = params.lanes, params.depth
    n_rows = params.rows if tile else 1
    latency = pe_latency(lanes, params.mul_stages, params.add_stages)
    interleaved = params.add_stages > 0
    rng = np.random.default_rng(seed + 0x7D)
    if streams is None:
        streams = pe_streams(params, vectors, seed, tile=tile)
    cols_in: dict[str, list[int]] = {"start": [], "next_valid": []}
    a_names = [[[f"a_next__{r}__{s}__{l}" if tile else f"a_next__{s}__{l}" for l in range(lanes)]
                for s in range(depth)] for r in range(n_rows)]
    b_names = [[f"b_next__{s}__{l}" for l in range(lanes)] for s in range(depth)]
    for name in [x for r in a_names for row in r for x in row] + [x for row in b_names for x in row]:
        cols_in[name] = []
    acc_names = [f"acc__{r}" for r in range(n_rows)] if tile else ["acc"]
    exp: dict[str, list[int]] = {"take": [], "done": [], **{f"sel__{l}": [] for l in range(lanes)},
                                 **{n: [] for n in acc_names}}
    acc_now = [0] * n_rows
    traces = []
    lo_a, hi_a = _range(params.a_width, params.signed)
    lo_b, hi_b = _range(params.b_width, params.signed)

    def cycle(start: int, stream: Stream | None, p: int, take: int, sel, done: int, acc):
        cols_in["start"].append(start)
        valid = 0
        for s in range(depth):
            row = p + s
            exists = stream is not None and row < stream.rows
            valid |= int(exists) << s
            for l in range(lanes):
                for r in range(n_rows):
                    if exists:
                        v = stream.a[r, row, l] if tile else stream.a[row, l]
                    else:
                        v = int(rng.integers(lo_a, hi_a, endpoint=True)) or 1
                    cols_in[a_names[r][s][l]].append(int(v))
                v = stream.b[row, l] if exists else (int(rng.integers(lo_b, hi_b, endpoint=True)) or 1)
                cols_in[b_names[s][l]].append(int(v))
        cols_in["next_valid"].append(valid)
        exp["take"].append(take)
        exp["done"].append(done)
        for l in range(lanes):
            exp[f"sel__{l}"].append(int(sel[l]) if sel is not None else 0)
        for name, v in zip(acc_names, acc):
            exp[name].append(acc_bits(params, v))

    for stream in streams:
        for _ in range(int(rng.choice([0, 0, 0, 1, 2])) if gaps else 0):
            cycle(0, None, 0, 0, None, 1, acc_now)
        tr = trace(params, stream, tile)
        traces.append(tr)
        cycle(1, stream, 0, depth, None, 1, acc_now)
        p = depth
        acc_now = [0] * n_rows
        for t in range(tr.cycles):
            cycle(0, stream, p, int(tr.as_rows[t]), tr.sel[t], 0, acc_now)
            p += int(tr.as_rows[t])
            acc_now = tr.acc[t]
        if interleaved:  # acc is checked only when done: then it holds the folded result
            acc_now = tr.result
        for _ in range(latency - 1):  # the pipeline drains: the scheduler idles, done stays low
            cycle(0, stream, p, 0, None, 0, acc_now)
    cycle(0, None, 0, 0, None, 1, acc_now)
    if not interleaved:
        for name in acc_names:  # what the accumulator register shows, seen through the pipeline in front of it
            exp[name] = delayed(exp[name], latency - 1, init=0)

    widths = {"start": 1, "next_valid": depth}
    inputs = {k: to_bits(v, widths.get(k, params.a_width if k.startswith("a_") else params.b_width))
              for k, v in cols_in.items()}
    sel_w = max(1, int(len(pattern_options(params.pattern, lanes, depth))).bit_length())
    take_w = depth.bit_length()
    expect = {k: to_bits(v, params.acc_width if k.startswith("acc") else sel_w if k.startswith("sel")
                         else take_w if k == "take" else 1) for k, v in exp.items()}
    sections: dict[str, int] = {}
    for st in streams:
        sections[st.section] = sections.get(st.section, 0) + 1
    done = np.asarray(exp["done"], dtype=bool)
    check = {name: done.copy() for name in acc_names} if interleaved else {}
    return CycleTable(inputs=inputs, expect=expect, check=check, info={
        "vectors": len(streams), "sections": sections,
        "busy_cycles": int(sum(t.cycles for t in traces)), "dense_cycles": int(sum(s.rows for s in streams)),
        "model_cycles": [t.cycles for t in traces], "stream_rows": [s.rows for s in streams], "latency": latency,
        "pass_cycles": pass_cycles([t.cycles for t in traces], latency).tolist()})


def tile_table(params, vectors: int = 32, seed: int = 1) -> CycleTable:
    """Cycle table for a :class:`~accelgen.rtl.tensordash.TensorDashTile` (see :func:`pe_table`)."""
    return pe_table(params, vectors, seed)


def sched_table(params, vectors: int = 1024, seed: int = 1) -> CycleTable:
    """Clockless table for the combinational scheduler: one ``Z`` per row, ``sel`` and ``as_rows`` expected.

    Directed: every pair ineffectual; every pair effectual; each single
    effectual slot; each single effectual row. Then ``vectors`` random ``Z``
    with the effectual fraction cycling through 0.05 .. 0.95.
    """
    rng = np.random.default_rng(seed)
    lanes, depth = params.lanes, params.depth
    options = pattern_options(params.pattern, lanes, depth)
    levels = schedule_levels(options, lanes)
    lives = [np.zeros((depth, lanes), bool), np.ones((depth, lanes), bool)]
    for s in range(depth):
        for l in range(lanes):
            x = np.zeros((depth, lanes), bool)
            x[s, l] = True
            lives.append(x)
        x = np.zeros((depth, lanes), bool)
        x[s] = True
        lives.append(x)
    densities = (0.05, 0.2, 0.5, 0.8, 0.95)
    for i in range(vectors):
        lives.append(rng.random((depth, lanes)) < densities[i % len(densities)])
    z = {f"z__{s}": [] for s in range(depth)}
    exp = {**{f"sel__{l}": [] for l in range(lanes)}, "as_rows": []}
    for live in lives:
        sel, _, as_rows = schedule_step(live, options, levels)
        for s in range(depth):
            z[f"z__{s}"].append(sum(int(not live[s, l]) << l for l in range(lanes)))
        for l in range(lanes):
            exp[f"sel__{l}"].append(int(sel[l]))
        exp["as_rows"].append(as_rows)
    sel_w = max(1, len(options).bit_length())
    return CycleTable(inputs={k: to_bits(v, lanes) for k, v in z.items()},
                      expect={k: to_bits(v, sel_w if k.startswith("sel") else depth.bit_length())
                              for k, v in exp.items()},
                      info={"vectors": len(lives)})


# --------------------------------------------------------------------------- activity stimulus

def tensordash_sched_activity(params, density: float, cycles: int, seed: int) -> Activity:
    """One schedule step per cycle: the ``depth x lanes`` window of operand pairs is effectual
    (both operands non-zero) independently with probability ``density``; ``z__s`` has bit ``l``
    set where row ``s``, lane ``l`` is ineffectual (the scheduler's ``Z = ZA | ZB`` input).
    One operation is one schedule step (one cycle)."""
    rng = np.random.default_rng(seed)
    live = rng.random((cycles, params.depth, params.lanes)) < density
    weights = (1 << np.arange(params.lanes)).astype(np.int64)
    z = ((~live).astype(np.int64) * weights).sum(axis=2)
    ins = {f"z__{s}": z[:, s] for s in range(params.depth)}
    return Activity(ins, ops=cycles - 1, per="schedule step (one cycle)", warmup=0)


def _sparse_operands(rng, shape, width: int, params, density: float) -> np.ndarray:
    if is_fp(params):
        return np.asarray(random_fp_bits(rng, shape, params.dtype, density=density), dtype=np.int64)
    return np.asarray(sparse_ints(rng, shape, width, params.signed, density), dtype=np.int64)


def tensordash_activity(params, density: float, cycles: int, seed: int) -> Activity:
    """TensorDash PE / tile doing back-to-back dot products of long sparse streams.

    Every operand (A and B; for the tile every row's A) is zero with probability ``1 - density``,
    independently: otherwise a uniform integer of the operand's width (``sparse_ints``), or for
    floating point (``fp16``/``bf16``/``fp32``) a realistic value (``random_fp_bits``: normal(0, 1)
    rounded to the format). A pair is effectual with probability
    ``density**2`` (the tile skips on B only). Streams of ``8 cycles`` rows (whatever the depth: the
    window holds at most one stream boundary, as a long dot product of a GEMM does) follow each other
    with one ``start`` cycle between them (no idle gaps) until ``cycles`` busy cycles are reached; the
    inputs are the cosim cycle table's (:func:`accelgen.cosim.tensordash.pe_table`). One operation
    is one busy cycle of the PE (``L`` lanes, up to ``L`` effectual pairs). The window is the first
    ``cycles`` cycles after the first stream's ``start`` cycle and a pipelined PE's ``latency - 1`` fill
    cycles (simulated, not counted); a later ``start`` cycle, if any (and a pipelined PE's drain cycles
    after a stream), would be simulated but not counted as an operation.
    """
    rng = np.random.default_rng(seed)
    tile = hasattr(params, "rows")
    # long streams: with 16 D rows the dense tile (D = 1) restarted every 16 rows, and the start and a
    # pipelined tile's drain cycles (up to 19 at 3 + 3 stages) were charged to a few busy cycles
    n = 8 * cycles
    # the start cycle and a pipelined PE's fill (latency - 1 cycles): simulated, not counted
    warm = pe_latency(params.lanes, params.mul_stages, params.add_stages)
    total = cycles + warm
    a_shape = (params.rows, n, params.lanes) if tile else (n, params.lanes)
    streams, busy = [], 0
    while busy < total:
        a, b = (_sparse_operands(rng, shape, width, params, density)
                for shape, width in ((a_shape, params.a_width), ((n, params.lanes), params.b_width)))
        streams.append(Stream("activity", a, b))
        table = pe_table(params, streams=streams, seed=seed, gaps=False)
        busy = int(table.info["busy_cycles"])
    start = np.asarray(table.inputs["start"], dtype=np.int64)[:total]
    # busy: the cycles the PE takes rows in without a start (take is AS >= 1 then, 0 while it drains)
    busy = (np.asarray(table.expect["take"], dtype=np.int64)[:total] != 0) & (start == 0)
    busy_counted = int(busy[warm:].sum())
    ins = {k: np.asarray(v, dtype=np.uint64).astype(object)[:total] for k, v in table.inputs.items()}
    return Activity(ins, ops=float(busy_counted), per="busy cycle (operands nonzero with probability density)",
                    warmup=warm, info={"streams": len(streams), "start_cycles": int(start[warm:].sum()),
                                       "drain_cycles": cycles - int(start[warm:].sum()) - busy_counted})
