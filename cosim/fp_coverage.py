"""Floating-point functional coverage: what a run's multipliers and adders were driven with and produced.

The golden models report every multiplication and addition they perform
(:func:`accelgen.golden.fp.recording`); a block's Verilog matches its golden
model bit for bit, so these are the operations the hardware performed. Bins,
for each operation a family's datapath has (``BlockFamily.fp_operations``;
``mul``: ``dtype`` x ``dtype`` -> fp32 products, ``add``: fp32 sums):

* operand classes of each operand, in its own format: ``+0``, ``-0``,
  ``subnormal``, ``normal``, ``+inf``, ``-inf``, ``nan``;
* result classes (fp32), and the exceptional results: ``overflow to inf``
  (finite operands), ``underflow to subnormal`` and ``underflow to zero``
  (non-zero finite operands);
* rounding of finite results: ``exact``, ``tie to even``, ``round up`` and
  ``round down`` (in magnitude), against the exact value (a product of two
  formats of at most 24 significand bits is exact in float64; a sum is exact
  in float64 when the exponents differ by at most 29, and beyond that the
  smaller operand is below a 64th of an ulp of the larger: the result is the
  larger, rounded toward it);
* ``cancellation`` (a sum of non-zero operands of opposite signs at least
  2**8 times smaller than the larger of them: 8 bits or more cancel) and
  ``exact cancellation to zero``;
* with ``flush_subnormals``: ``flush: subnormal operand`` and ``flush:
  subnormal result`` (a result that rounds to a subnormal becomes zero);
* multi-operand sums with one rounding (:func:`~accelgen.golden.fp.fp_sum`, the grouped systolic
  columns' adders; recorded apart from the two-operand sums, ``FpOps.fused``), when a run has any:
  ``sum operand`` and ``sum result`` classes, ``sum: overflow to inf``, ``sum: underflow to
  subnormal`` and ``sum: cancellation to zero`` (non-zero operands of both signs; the last two
  without ``flush_subnormals``). No rounding or order bins for them: such a sum is not always the
  correctly rounded one, so classifying its rounding needs the adder's own arithmetic. A run whose
  every sum is multi-operand has no two-operand ``add`` bins (it has no such adder);
* accumulation order: a sum whose operand is the sum recorded just before it
  (a chain step ``(x + y) + z``: an accumulator, a PE chain, a tree level) is
  ``add order: reassociation changes the sum`` when ``x + (y + z)`` rounds to
  a different finite value, else ``add order: reassociation keeps the sum``.
  Only a run that hits the first tells a datapath that adds in another order
  from its golden model (a link through a zero is not counted: it may be a
  coincidence of values, not the datapath's order).

A bin the parameters cannot reach is not a bin but an *unreachable* entry
with its reason (``Coverage.unreachable``), e.g. fp16 x fp16 products, exact
in fp32 and always normal, never round, overflow or underflow; a sum of fp32
values never underflows to zero (a subnormal sum is exact: gradual underflow).
"""

from __future__ import annotations

import numpy as np

from ..fpformat import FIELD_BITS
from ..golden.fp import FpOps, fp_add, recording, to_float32
from .coverage import Coverage

OPERAND_CLASSES = ("+0", "-0", "subnormal", "normal", "+inf", "-inf", "nan")
ROUNDING = ("exact", "tie to even", "round up", "round down")
#: a sum this many times smaller than its larger operand is a cancellation (8 bits or more cancel)
CANCELLATION_RATIO = 2.0 ** -8
#: exponent difference up to which a float64 sum of two fp32 values is exact (53 - 24)
EXACT_SUM_EXP_DIFF = 53 - 24


def classes(bits, dtype: str) -> np.ndarray:
    """The operand class of each ``dtype`` bit pattern (:data:`OPERAND_CLASSES`)."""
    e, f = FIELD_BITS[dtype]
    b = np.asarray(bits).astype(np.uint64)
    sign = (b >> np.uint64(e + f)) & np.uint64(1)
    exp = (b >> np.uint64(f)) & np.uint64((1 << e) - 1)
    frac = b & np.uint64((1 << f) - 1)
    top = (1 << e) - 1
    return np.select([(exp == 0) & (frac == 0) & (sign == 0), (exp == 0) & (frac == 0), exp == 0,
                      (exp == top) & (frac != 0), (exp == top) & (sign == 0), exp == top],
                     ["+0", "-0", "subnormal", "nan", "+inf", "-inf"], "normal")


def _rounding(exact: np.ndarray, result32: np.ndarray) -> np.ndarray:
    """Rounding class of fp32 ``result32`` against ``exact`` (float64, exact), for finite results."""
    r = result32.astype(np.float64)
    with np.errstate(all="ignore"):   # the largest finite result's neighbour is inf: never a tie
        toward = np.nextafter(result32, np.where(exact > r, np.float32(np.inf), np.float32(-np.inf)).astype(np.float32))
    gap = np.abs(toward.astype(np.float64) - r)
    err = np.abs(r - exact)     # exact: both within a factor of 2 of each other (Sterbenz)
    return np.select([r == exact, 2 * err == gap, np.abs(r) > np.abs(exact)],
                     ["exact", "tie to even", "round up"], "round down")


def _hits(cov: Coverage, prefix: str, names, values: np.ndarray, reachable: dict[str, str]) -> None:
    for name in names:
        bin_ = f"{prefix}{name}"
        if name in reachable:
            cov.unreachable[bin_] = reachable[name]
        else:
            cov.hit(bin_, int(np.count_nonzero(values == name)))


def _result_bins(cov: Coverage, op: str, a_cls, b_cls, out_bits, exact, flushed_sub, unreachable: dict) -> None:
    out_cls = classes(out_bits, "fp32")
    _hits(cov, f"{op} result: ", OPERAND_CLASSES, out_cls, unreachable.get("result", {}))
    finite_ops = np.isin(a_cls, ("normal", "subnormal", "+0", "-0")) & np.isin(b_cls, ("normal", "subnormal", "+0",
                                                                                        "-0"))
    nonzero = np.isin(a_cls, ("normal", "subnormal")) & np.isin(b_cls, ("normal", "subnormal"))
    events = {"overflow to inf": finite_ops & np.isin(out_cls, ("+inf", "-inf")),
              "underflow to subnormal": nonzero & (out_cls == "subnormal"),
              "underflow to zero": nonzero & np.isin(out_cls, ("+0", "-0")) & (exact != 0) & ~flushed_sub}
    for name, mask in events.items():
        if name in unreachable.get("event", {}):
            cov.unreachable[f"{op}: {name}"] = unreachable["event"][name]
        else:
            cov.hit(f"{op}: {name}", int(np.count_nonzero(mask)))
    rounded = finite_ops & ~np.isin(out_cls, ("+inf", "-inf", "nan")) & ~flushed_sub
    rnd = np.full(out_cls.shape, "", dtype=object)
    if rounded.any():
        rnd[rounded] = _rounding(exact[rounded], np.asarray(out_bits, np.uint32)[rounded].view(np.float32))
    _hits(cov, f"{op} rounding: ", ROUNDING, rnd, unreachable.get("rounding", {}))


def _unreachable_mul(dtype: str, flush: bool) -> dict:
    out: dict[str, dict[str, str]] = {"result": {}, "event": {}, "rounding": {}}
    if dtype == "fp16":
        why = "fp16 x fp16 products lie between 2**-48 and 2**32 with 22 significand bits: exact, normal fp32"
        out["result"]["subnormal"] = why
        out["event"].update({k: why for k in ("overflow to inf", "underflow to subnormal", "underflow to zero")})
        out["rounding"].update({k: why for k in ("tie to even", "round up", "round down")})
    # bf16 (2 x 8 significand bits) and fp32 products round in fp32 (bf16 only as subnormals): all reachable
    if flush:
        why = "flush_subnormals: a subnormal result becomes zero"
        out["result"]["subnormal"] = why
        out["event"]["underflow to subnormal"] = why
    return out


def _unreachable_add(flush: bool) -> dict:
    why = "a sum of fp32 values that is subnormal is exact (gradual underflow): no sum underflows to zero"
    out = {"result": {}, "event": {"underflow to zero": why}, "rounding": {}}
    if flush:
        why = "flush_subnormals: a subnormal result becomes zero"
        out["result"]["subnormal"] = why
        out["event"]["underflow to subnormal"] = why
    return out


def _flush_bins(cov: Coverage, op: str, a_cls, b_cls, flushed_sub) -> None:
    cov.hit(f"{op}: flush: subnormal operand", int(np.count_nonzero((a_cls == "subnormal") | (b_cls == "subnormal"))))
    cov.hit(f"{op}: flush: subnormal result", int(np.count_nonzero(flushed_sub)))


def fp_coverage(ops: FpOps, dtype: str, operations: tuple[str, ...], flush: bool = False) -> Coverage:
    """The floating-point bins (module docstring) of the recorded ``ops`` of a family whose datapath performs
    ``operations`` (``"mul"``: ``dtype`` products, ``"add"``: fp32 sums)."""
    cov = Coverage()
    if "mul" in operations:
        a, b, out, _ = ops.products(dtype)
        a_cls, b_cls = classes(a, dtype), classes(b, dtype)
        _hits(cov, "mul a: ", OPERAND_CLASSES, a_cls, {})
        _hits(cov, "mul b: ", OPERAND_CLASSES, b_cls, {})
        av, bv = _values(a, a_cls, dtype, flush), _values(b, b_cls, dtype, flush)
        with np.errstate(all="ignore"):
            exact = av * bv
        flushed_sub = _flushed_result(exact, out, flush)
        _result_bins(cov, "mul", a_cls, b_cls, out, exact, flushed_sub, _unreachable_mul(dtype, flush))
        if flush:
            _flush_bins(cov, "mul", a_cls, b_cls, flushed_sub)
    # a datapath whose every sum is multi-operand (grouped systolic columns) has no two-operand adder to cover
    if "add" in operations and (ops.add or not ops.fused):
        a, b, out, _ = ops.sums()
        a_cls, b_cls = classes(a, "fp32"), classes(b, "fp32")
        _hits(cov, "add a: ", OPERAND_CLASSES, a_cls, {})
        _hits(cov, "add b: ", OPERAND_CLASSES, b_cls, {})
        av, bv = _values(a, a_cls, "fp32", flush), _values(b, b_cls, "fp32", flush)
        with np.errstate(all="ignore"):
            exact = _exact_sums(av, bv)
        flushed_sub = _flushed_result(exact, out, flush)
        _result_bins(cov, "add", a_cls, b_cls, out, exact, flushed_sub, _unreachable_add(flush))
        nonzero = (av != 0) & (bv != 0) & np.isfinite(av) & np.isfinite(bv)
        opposite = nonzero & (np.sign(av) != np.sign(bv))
        big = np.maximum(np.abs(av), np.abs(bv))
        cov.hit("add: cancellation", int(np.count_nonzero(opposite & (np.abs(exact) <= big * CANCELLATION_RATIO)
                                                          & (exact != 0))))
        cov.hit("add: exact cancellation to zero", int(np.count_nonzero(opposite & (exact == 0))))
        if flush:
            _flush_bins(cov, "add", a_cls, b_cls, flushed_sub)
        _order_bins(cov, ops.add)
    if "add" in operations and ops.fused:
        _fused_bins(cov, ops.fused, flush)
    return cov


def _fused_bins(cov: Coverage, fused: list, flush: bool) -> None:
    """The bins of multi-operand sums (module docstring), from ``FpOps.fused``."""
    ops = np.concatenate([np.asarray(x[0], np.uint32).reshape(len(x[0]), -1) for x in fused], axis=1)
    out = np.concatenate([np.asarray(x[1], np.uint32).ravel() for x in fused])
    op_cls, out_cls = classes(ops, "fp32"), classes(out, "fp32")
    _hits(cov, "sum operand: ", OPERAND_CLASSES, op_cls, {})
    why = "flush_subnormals: a subnormal result becomes zero"
    _hits(cov, "sum result: ", OPERAND_CLASSES, out_cls, {"subnormal": why} if flush else {})
    finite = np.all(np.isin(op_cls, ("normal", "subnormal", "+0", "-0")), axis=0)
    nonzero = np.isin(op_cls, ("normal", "subnormal"))
    sign = (ops >> np.uint32(31)).astype(bool)
    cov.hit("sum: overflow to inf", int(np.count_nonzero(finite & np.isin(out_cls, ("+inf", "-inf")))))
    if flush:
        cov.unreachable["sum: underflow to subnormal"] = why
    else:
        cov.hit("sum: underflow to subnormal", int(np.count_nonzero(nonzero.any(axis=0) & (out_cls == "subnormal"))))
        # (flushing, a zero result may be a flushed one: a cancellation is told apart only without flushing)
        both = (nonzero & sign).any(axis=0) & (nonzero & ~sign).any(axis=0)
        cov.hit("sum: cancellation to zero", int(np.count_nonzero(finite & both & np.isin(out_cls, ("+0", "-0")))))


def _order_bins(cov: Coverage, adds: list) -> None:
    """The accumulation-order bins (module docstring) of the recorded sums ``adds``, in recording order."""
    changed = kept = 0
    for prev, cur in zip(adds, adds[1:]):
        x, y, p_out = (v.astype(np.uint32).ravel() for v in np.broadcast_arrays(*prev[:3]))
        c_a, c_b, c_out = (v.astype(np.uint32).ravel() for v in np.broadcast_arrays(*cur[:3]))
        if p_out.shape != c_a.shape:
            continue
        nonzero = (p_out & np.uint32(0x7FFFFFFF)) != 0
        via_a = (c_a == p_out) & nonzero
        link = via_a | ((c_b == p_out) & nonzero)
        if not link.any():
            continue
        flush = bool(prev[3]) or bool(cur[3])
        x, y, z, out = x[link], y[link], np.where(via_a, c_b, c_a)[link], c_out[link]
        with recording():  # the golden adder, its sums kept out of the run's recording
            other = fp_add(x, fp_add(y, z, flush), flush)
        finite = np.isfinite(other.view(np.float32)) & np.isfinite(out.view(np.float32))
        same = (other == out) | (((other | out) & np.uint32(0x7FFFFFFF)) == 0)   # +0 and -0 count as equal
        changed += int(np.count_nonzero(finite & ~same))
        kept += int(np.count_nonzero(finite & same))
    cov.hit("add order: reassociation changes the sum", changed)
    cov.hit("add order: reassociation keeps the sum", kept)


def _values(bits, cls, dtype: str, flush: bool) -> np.ndarray:
    """The operands' values in float64 (exact), subnormals as zeros when ``flush``."""
    with np.errstate(all="ignore"):   # signalling NaNs
        v = to_float32(bits, dtype).astype(np.float64)
    return np.where(cls == "subnormal", 0.0, v) if flush else v


def _exact_sums(av: np.ndarray, bv: np.ndarray) -> np.ndarray:
    """``a + b`` exactly where float64 holds it (exponents at most :data:`EXACT_SUM_EXP_DIFF` apart); beyond,
    the larger operand nudged a quarter of its smaller neighbour gap toward the smaller's sign: a stand-in value with the same rounding
    class (inexact, rounded back to the larger; module docstring)."""
    s = av + bv
    _, ea = np.frexp(av)
    _, eb = np.frexp(bv)
    far = (av != 0) & (bv != 0) & np.isfinite(av) & np.isfinite(bv) & (np.abs(ea - eb) > EXACT_SUM_EXP_DIFF)
    if far.any():
        large = np.where(np.abs(av) >= np.abs(bv), av, bv)
        small = np.where(np.abs(av) >= np.abs(bv), bv, av)
        l32 = large.astype(np.float32)
        # the smaller of the gaps to the neighbours (a power of two has half the gap below)
        ulp = np.minimum(np.abs(np.nextafter(l32, np.float32(np.inf)).astype(np.float64) - large),
                         np.abs(np.nextafter(l32, np.float32(-np.inf)).astype(np.float64) - large))
        s = np.where(far, large + np.sign(small) * ulp / 4, s)
    return s


def _flushed_result(exact: np.ndarray, out_bits, flush: bool) -> np.ndarray:
    """Results flushed to zero (``flush``): zero although the exact value is not (it rounded to a subnormal, or
    below the smallest one)."""
    if not flush:
        return np.zeros(exact.shape, dtype=bool)
    return (exact != 0) & np.isfinite(exact) & np.isin(classes(out_bits, "fp32"), ("+0", "-0"))


def family_fp_coverage(fam, params, ops: FpOps) -> Coverage:
    """The floating-point bins of one run of family ``fam`` (empty for an integer run or a family without fp
    operations); the bins the family's structure cannot reach (``BlockFamily.fp_unreachable``) become
    unreachable entries with their reason."""
    dtype = getattr(params, "dtype", "int")
    if not fam.fp_operations or dtype in ("int", None):
        return Coverage()
    cov = fp_coverage(ops, dtype, fam.fp_operations, bool(getattr(params, "flush_subnormals", False)))
    for name, why in (fam.fp_unreachable(params) if fam.fp_unreachable else {}).items():
        if name in cov.bins:
            cov.bins.discard(name)
            cov.hits.pop(name, None)
            cov.unreachable[name] = why
    return cov


# --------------------------------------------------------------------------- what a family's structure rules out
# (shared reasons; each family's rules, ``<family>_fp_unreachable``, sit beside its coverage collector)

PLUS_ZERO_START = ("the accumulator starts at +0.0 and x + (-x) is +0.0 (round to nearest even): a sum that "
                    "starts at +0.0 is never -0.0")


def plus_zero_start(params, bins=("add a: -0", "add result: -0")) -> dict[str, str]:
    """The -0 ``bins`` of an adder whose chain starts at +0.0. Under FTZ a negative sum that is subnormal after
    rounding becomes -0, so they are reachable there, unless the sums are of fp16 products (never subnormal)."""
    if getattr(params, "flush_subnormals", False) and getattr(params, "dtype", None) != "fp16":
        return {}
    return dict.fromkeys(bins, PLUS_ZERO_START)


#: fp16 values are multiples of 2**-24, so their products are multiples of 2**-48, and so is every fp32 sum of
#: them (rounding to 24 bits at a magnitude of 2**-48 or more keeps multiples of 2**-48): a non-zero sum is at
#: least 2**-48, far above fp32's normal range's bottom (2**-126). A product is at most 65504**2 < 2**32.
FP16_SUMS = "every sum is of fp16 products, multiples of 2**-48: a non-zero one is >= 2**-48, never subnormal"
FP16_SUMS_OVERFLOW = "every sum is of fp16 products (each < 2**32): fp32 overflows after 2**96 of them"


def fp16_product_sums(params) -> dict[str, str]:
    """The add bins a datapath whose adder only ever sums fp16 products (no fp32 addend input) cannot reach."""
    if getattr(params, "dtype", None) != "fp16":
        return {}
    return {**{f"add {what}: subnormal": FP16_SUMS for what in ("a", "b", "result")},
            "add: underflow to subnormal": FP16_SUMS, "add: overflow to inf": FP16_SUMS_OVERFLOW}


#: why an fp16 datapath that never multiplies a zero operand makes no zero product
NO_ZERO_PRODUCT = "no zero operand is multiplied, and an fp16 product of non-zeros is an exact normal fp32 number"
