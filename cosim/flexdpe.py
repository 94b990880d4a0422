"""SIGMA's Flex-DPE host side: the GEMM driver, checks, coverage and activity stimulus.

The bitmap format and the sparsity controller (:class:`BitmapMatrix`, :func:`plan_gemm`) are in
:mod:`accelgen.cosim.flexdpe_controller`, the operands and directed GEMMs in :mod:`accelgen.cosim.flexdpe_stimulus`.

The driver (:func:`gemm_schedule`) turns plans into a cycle table (load cycle,
streamed vectors, ``L`` idle cycles per GEMM, ``L = params.latency``: the Flex-DPE's
pipeline latency including its Benes, multiplier and FAN-adder registers) with the expected FAN
slots in every cycle, ``L`` cycles after their vector; :func:`assemble` rebuilds ``C``
from the slots the simulator really produced (adding the partial sums of rows split
across folds in the host) and measures each GEMM's cycles; :func:`verify` compares ``C`` with numpy and the
measured cycles with the model.

Floating point (``params.dtype`` fp16 / bf16 / fp32): matrices hold bit patterns
of that format (``int64`` arrays). A zero is any pattern with zero exponent and
fraction (+0 and -0, :func:`accelgen.golden.fp.is_zero`): only the other
entries are set in the bitmaps, so zero operands are never mapped, streamed or
multiplied (``Inf x 0`` is never formed; a skipped pair contributes nothing, not
a signed zero or a NaN). Each FAN slot is the fp32 sum of the cluster's fp32
products in the FAN's association order (:mod:`accelgen.golden.fan`),
an absent product entering as +0.0 at its multiplier's position. The host
combines the partial sums of a row split across folds in fold order, left to
right in fp32: ``C = ((p_f0 + p_f1) + p_f2) ...`` over the folds that produced a
slot for it (the first partial taken as it is); an entry no fold produced is
+0.0. :func:`verify` compares ``C`` bit-exactly (NaNs equal) with
:func:`accelgen.golden.flexdpe.flexdpe_fp_reference`, which recomputes it from
the mapping alone.
"""

from __future__ import annotations

import numpy as np

from ..fpformat import FP_DTYPES
from ..golden.fan import fp32_add, segmented_sums
from ..golden.flexdpe import STATIONARY, flexdpe_fp_reference
from ..golden.fp import bits_equal, is_zero
from ..rtl.benes import BenesParams  # pydantic schema only (no elaboration)
from .benes_router import ctrl_words
from .coverage import SPARSITY_BINS, Coverage, shape_class, sparsity_bin
from .fan import fan_slot
from .flexdpe_controller import BitmapMatrix, FoldPlan, GemmPlan, StreamStep, is_fp_params, plan_gemm
from .flexdpe_stimulus import directed_gemms, sparse_operands
from .fp_coverage import NO_ZERO_PRODUCT, fp16_product_sums
from .stimulus import Activity, cosim_activity, operand_fp_bits, profiled_for
from .systolic import cycle_problems, int_gemm_problems
from .vectors import CycleTable, from_bits, parse_gemm

__all__ = ["BitmapMatrix", "StreamStep", "FoldPlan", "GemmPlan", "plan_gemm", "gemm_schedule", "assemble",
           "verify", "flexdpe_table", "directed_gemms", "parse_gemm", "parse_sparsity", "parse_stationary",
           "sparse_operands", "flexdpe_activity", "flexdpe_coverage", "flexdpe_fp_unreachable"]


# --------------------------------------------------------------------------- driver

def _port_widths(params) -> dict[str, int]:

    bp = BenesParams(n=params.k, width=params.width + 1, pipeline_every=params.benes_pipeline_every)
    w = {"load": 1}
    for i in range(params.k):
        w[f"data_in__{i}"] = params.width
        w[f"vec_id__{i}"] = params.id_width
        w[f"sum__{i}"] = params.sum_width
        w[f"sum_id__{i}"] = params.id_width
        w[f"sum_valid__{i}"] = 1
    for j in range(params.mask_words):
        w[f"valid_in__{j}"] = w[f"head__{j}"] = params.mask_word_width
    for j in range(bp.stages * bp.ctrl_words_per_stage):
        w[f"ctrl__{j}"] = bp.ctrl_word_width
    return w


def _pack(bits: np.ndarray, word_bits: int) -> list[int]:
    out = []
    for w0 in range(0, len(bits), word_bits):
        out.append(sum(1 << i for i, b in enumerate(bits[w0:w0 + word_bits].tolist()) if b))
    return out


def gemm_schedule(params, gemms, stationary: str = "auto", *, max_cycles: int | None = None
                  ) -> tuple[CycleTable, list[GemmPlan]]:
    """Plan ``gemms`` (``(A, B)`` pairs) and schedule them back to back, each followed by its add tail.
    ``max_cycles``: stop planning once that many input cycles are scheduled; the table then holds at least those
    cycles, the same as the whole schedule's, and a GEMM cut short is not a complete result (an activity
    stimulus, not a cosim check)."""
    k, L = params.k, params.latency
    widths = _port_widths(params)
    rows: list[dict[str, int]] = []         # inputs per cycle
    outs: list[dict[str, int]] = []         # expected outputs per cycle (only valid slots listed)
    plans = []
    state = {name: 0 for name in widths if not name.startswith("sum")}

    def cycle(**changes):
        state.update(changes)
        rows.append(dict(state))
        outs.append({})

    def idle():
        cycle(load=0, **{f"valid_in__{j}": 0 for j in range(params.mask_words)},
              **{f"head__{j}": 0 for j in range(params.mask_words)})

    def drive(words, valid, head, settings):
        ch = {f"data_in__{i}": int(words[i]) for i in range(k)}
        ch |= {f"valid_in__{j}": x for j, x in enumerate(_pack(valid, params.mask_word_width))}
        ch |= {f"head__{j}": x for j, x in enumerate(_pack(head, params.mask_word_width))}
        ch |= {f"ctrl__{j}": x for j, x in enumerate(ctrl_words(settings))}
        return ch

    for A, B in gemms:
        if max_cycles is not None and len(rows) >= max_cycles:
            break
        plan = plan_gemm(params, A, B, stationary,
                         max_cycles=None if max_cycles is None else max_cycles - len(rows))
        plan.start = len(rows)
        for fold in plan.folds:
            valid = np.arange(k) < fold.mapped
            cycle(load=1, **drive(fold.stationary, valid, np.ones(k, bool), fold.load_settings),
                  **{f"vec_id__{i}": int(fold.vec_ids[i]) for i in range(k)})
            for step in fold.steps:
                cycle(load=0, **drive(step.words, step.valid, step.head, step.settings))
                step.cycle = len(rows) - 1
                expect = {}
                for cl in segmented_sums(step.products, fold.vec_ids, step.product_valid,
                                         dtype="fp32" if is_fp_params(params) else "int"):
                    if cl.valid:
                        slot = fan_slot(cl.start, cl.end)
                        expect[slot] = (cl.total, cl.vec_id)
                step.expect = expect
        for _ in range(L if plan.folds else 0):
            idle()
        # outputs appear L cycles after each streamed vector
        for fold in plan.folds:
            for step in fold.steps:
                outs[step.cycle + L] = step.expect
        plans.append(plan)
    for _ in range(L):          # margin so the last GEMM's window can see a late output
        idle()

    T = len(rows)
    mask = lambda name: (1 << widths[name]) - 1  # noqa: E731
    inputs = {name: np.array([r[name] & mask(name) for r in rows], dtype=np.uint64) for name in state}
    expect, check = {}, {}
    for i in range(k):
        sv = np.zeros(T, dtype=np.uint64)
        s = np.zeros(T, dtype=np.uint64)
        sid = np.zeros(T, dtype=np.uint64)
        for t, o in enumerate(outs):
            if i in o:
                sv[t], s[t], sid[t] = 1, o[i][0] & mask(f"sum__{i}"), o[i][1]
        expect[f"sum_valid__{i}"] = sv
        expect[f"sum__{i}"] = s
        expect[f"sum_id__{i}"] = sid
        check[f"sum__{i}"] = check[f"sum_id__{i}"] = sv.astype(bool)
    record = [f"{p}__{i}" for p in ("sum", "sum_id", "sum_valid") for i in range(k)]
    table = CycleTable(inputs, expect, check, info={
        "vectors": len(plans), "unit": "GEMMs", "record": record, "gemms": [p.shape for p in plans],
        "predicted_cycles": [p.cycles for p in plans], "stationary": [p.model.stationary for p in plans]})
    return table, plans


def assemble(params, plans: list[GemmPlan], recorded: dict) -> list[tuple[np.ndarray, int]]:
    """Rebuild each GEMM's ``C`` from the recorded FAN slots; return ``(C, measured_cycles)`` per GEMM.

    fp: ``C`` holds fp32 bit patterns; partial sums of one entry from several folds are added in
    fold order (left to right, fp32), an entry with no partial is +0.0.

    Slot sums are attributed by their ``sum_id`` (the vecID -> row of the fold), so a
    slot in the wrong place or with the wrong id shows up in ``C``. ``measured_cycles``
    runs from the GEMM's first input cycle to the last cycle with any ``sum_valid``.
    """
    k, L = params.k, params.latency
    fp = is_fp_params(params)
    valid = np.stack([recorded[f"sum_valid__{i}"].astype(bool) for i in range(k)])
    any_valid = valid.any(axis=0)
    out = []
    poison = object()
    for plan in plans:
        M, N, _ = plan.shape
        st = plan.model.stationary
        R, V = (N, M) if st == "weights" else (M, N)
        O = np.full((R, V), None, dtype=object) if fp else np.zeros((R, V), dtype=object)
        for fold in plan.folds:
            for step in fold.steps:
                t = step.cycle + L
                for i in np.flatnonzero(valid[:, t]).tolist():
                    vid = int(recorded[f"sum_id__{i}"][t])
                    if vid >= len(fold.cluster_rows):
                        O[0, 0] = poison   # a slot for a cluster that does not exist: poison C
                        continue
                    r, part = fold.cluster_rows[vid], int(recorded[f"sum__{i}"][t])
                    if O[r, step.v] is poison:
                        continue
                    if not fp:
                        O[r, step.v] += from_bits(part, params.sum_width, params.signed)
                    else:      # fp32: fold partials left to right, the first one as it is
                        O[r, step.v] = part if O[r, step.v] is None else fp32_add(O[r, step.v], part)
        if fp:
            O = np.where(O == None, 0, O)  # noqa: E711  (no fold produced it: +0.0)
        else:           # the integer check reports a poisoned entry as C(i, j) = None
            O = np.where(O == poison, None, O)
        C = O.T if st == "weights" else O
        window = np.flatnonzero(any_valid[plan.start: plan.start + plan.cycles + L])
        out.append((C, int(window[-1]) + 1 if len(window) else 0))
    return out


def verify(params, table: CycleTable, plans: list[GemmPlan], recorded: dict) -> list[str]:
    """Host-side checks: ``C`` rebuilt from recorded slots equals numpy (fp: equals the fp32 reference
    bit for bit, NaNs equal); measured cycles equal the model."""
    problems = []
    for plan, (C, measured) in zip(plans, assemble(params, plans, recorded), strict=False):
        M, N, K = plan.shape
        if is_fp_params(params):
            expect = flexdpe_fp_reference(plan.A, plan.B, plan.mapping, params.dtype)
            bad = [(i, j) for i, j in np.ndindex(C.shape) if not isinstance(C[i, j], int)
                   or not bits_equal(C[i, j], expect[i, j])]
            if bad:
                i, j = bad[0]
                got = f"{C[i, j]:#010x}" if isinstance(C[i, j], int) else "a slot of a non-existent cluster"
                problems.append(f"GEMM {M}x{N}x{K}: C({i}, {j}) = {got}, the fp32 reference (FAN order, "
                                f"folds left to right) gives {int(expect[i, j]):#010x}; {len(bad)} entries differ")
        else:
            problems += int_gemm_problems(C, plan.A, plan.B)
        problems += cycle_problems(plan.shape, measured, plan.cycles)
    return problems


def parse_sparsity(text: str) -> float:
    """A fraction of zeros in 0..1."""
    try:
        s = float(text)
    except ValueError:
        s = float("nan")
    if not 0.0 <= s <= 1.0:
        raise ValueError(f"sparsity={text!r} is not allowed; expected a fraction of zeros in 0..1 (e.g. 0.8)")
    return s


def parse_stationary(text: str) -> str:
    if text not in (*STATIONARY, "auto"):
        raise ValueError(f"stationary={text!r} is not allowed; allowed: weights, inputs, auto")
    return text


def flexdpe_table(params, vectors: int, seed: int, gemm: tuple = (), sparsity_a: float | None = None,
                  sparsity_b: float | None = None, stationary: str = "auto"):
    """The GEMMs of one cosim run: the ``gemm`` shapes (random operands at the given sparsities,
    default 0.5 each) if given, else the directed GEMMs plus ``vectors`` random ones with random
    shapes and sparsities (``sparsity_a`` / ``sparsity_b`` fix them when given)."""
    rng = np.random.default_rng(seed)
    shapes = [parse_gemm(g) if isinstance(g, str) else tuple(g) for g in gemm]
    gemms = []
    if shapes:
        for s in shapes:
            gemms.append(sparse_operands(params, s, 0.5 if sparsity_a is None else sparsity_a,
                                         0.5 if sparsity_b is None else sparsity_b, rng))
    else:
        gemms = [(A, B) for _, A, B in directed_gemms(params, rng)]
        levels = np.array([0.0, 0.3, 0.6, 0.8, 0.95])
        for _ in range(vectors):
            shape = tuple(int(x) for x in rng.integers(1, 2 * params.k, 3, endpoint=True))
            sa = float(rng.choice(levels)) if sparsity_a is None else sparsity_a
            sb = float(rng.choice(levels)) if sparsity_b is None else sparsity_b
            gemms.append(sparse_operands(params, shape, sa, sb, rng))
    return gemm_schedule(params, gemms, stationary)


# --------------------------------------------------------------------------- activity stimulus

@profiled_for(*FP_DTYPES)
def flexdpe_activity(params, density: float, cycles: int, seed: int, profile: str | None = None) -> Activity:
    """Flex-DPE. ``dtype="int"``: the cosim stimulus (random sparse GEMMs, density ignored), as before.
    fp dtypes: back-to-back GEMMs ``2k x 2k x 2k`` through the sparsity controller and the driver
    (loads, streamed vectors, reduction tails), both operands (A activations, B weights) drawn by the stimulus
    ``profile`` (by default normal(0, 1) rounded to the dtype) with ``density`` non-zeros (zeros +0 or -0),
    cut to ``cycles`` cycles. One operation is one cycle of that stream."""
    if params.dtype == "int":
        return cosim_activity(flexdpe_table, params, 1.0, cycles, seed)
    rng = np.random.default_rng(seed)
    k = params.k
    gemms = []
    for _ in range(64):          # enough GEMMs for ``cycles`` (density ~0 maps nothing: idle tails only)
        A = operand_fp_bits(rng, (2 * k, 2 * k), params.dtype, density, profile, "activation").astype(np.int64)
        B = operand_fp_bits(rng, (2 * k, 2 * k), params.dtype, density, profile, "weight").astype(np.int64)
        gemms.append((A, B))
        # the first ``cycles`` cycles of the schedule, without planning the rest of a 2k x 2k x 2k GEMM (at k = 64
        # thousands of cycles, 44 s a stream)
        table, _ = gemm_schedule(params, gemms, max_cycles=cycles)
        if table.cycles >= cycles:
            break
    ins = {name: np.resize(np.asarray(v, dtype=np.uint64), cycles).astype(object) for name, v in table.inputs.items()}
    return Activity(ins, ops=cycles - 1, per=f"cycle ({params.dtype} sparse GEMM stream)", warmup=0)


# --------------------------------------------------------------------------- coverage

def flexdpe_coverage(params, table: CycleTable, plans) -> Coverage:
    """GEMM shape classes (each of ``M``, ``N``, ``K`` smaller than, equal to or larger than ``k``) and the
    operand sparsity bins of ``A`` and ``B``."""
    cov = Coverage()
    k = params.k
    for d in "MNK":
        cov.declare(f"{d} smaller than k", f"{d} equal to k", f"{d} larger than k")
    cov.declare(*(f"{op} sparsity {b}" for op in "AB" for b in SPARSITY_BINS))
    for plan in plans or ():
        for d, v in zip("MNK", plan.shape, strict=False):
            c = shape_class(v, k)
            cov.hit(f"{d} {c} than k" if c != "equal" else f"{d} equal to k")
        for op, x in (("A", plan.A), ("B", plan.B)):
            cov.hit(f"{op} sparsity {sparsity_bin(_zero_fraction(np.asarray(x), params.dtype))}")
    return cov


def _zero_fraction(x: np.ndarray, dtype: str) -> float:
    """The fraction of zeros among ``dtype`` operands (fp: +0 and -0; -0's bit pattern is not 0)."""
    if not x.size:
        return 0.0
    return float((x == 0).mean() if dtype == "int" else is_zero(x, dtype).mean())


def flexdpe_fp_unreachable(params) -> dict[str, str]:
    """A Flex-DPE multiplies only pairs of non-zeros: the stationary matrix is bitmap-compressed (its zeros are
    never loaded) and a zero streamed word is skipped (:func:`accelgen.golden.flexdpe.flexdpe_fp_reference`)."""
    out = {f"mul a: {z}": "the stationary matrix is bitmap-compressed: its zeros never reach a multiplier"
           for z in ("+0", "-0")}
    out.update({f"mul b: {z}": "a zero streamed word is skipped, never multiplied" for z in ("+0", "-0")})
    if params.dtype == "fp16":
        no_neg_zero = f"{NO_ZERO_PRODUCT}; the FAN sums products and +0.0 fillers, and x + (-x) is +0.0"
        out.update({"mul result: +0": NO_ZERO_PRODUCT, "mul result: -0": NO_ZERO_PRODUCT,
                    **{f"add {what}: -0": no_neg_zero for what in ("a", "b", "result")}})
    return {**out, **fp16_product_sums(params)}
