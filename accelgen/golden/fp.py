"""Golden floating-point arithmetic (numpy + ml_dtypes only), bit-exact with :mod:`accelgen.rtl.fp`.

Values travel as bit patterns (unsigned integer arrays): fp16 and bf16 as
``np.uint16``, fp32 as ``np.uint32``. Products and sums are numpy float32
arithmetic, which is IEEE 754 binary32 with round to nearest even and gradual
underflow: a product of two fp16 or bf16 values is formed exactly (their
significands have at most 11 bits) and rounded once to fp32, exactly as the
hardware multiplier does. Results are canonicalized: every NaN becomes
``0x7FC00000``, the only NaN the hardware produces.

``flush_subnormals`` (DAZ + FTZ) mirrors the hardware option: subnormal
operands (in their own format) are zeros of their sign, and a result that is
subnormal after rounding becomes a zero of its sign.

Association order is the caller's business: :func:`dot_sequential` is a left
fold, :func:`tree_sum` a pairwise tree; block goldens use the order their
hardware documents.

:func:`recording` collects every multiplication and addition the golden models
perform while it is active (:class:`FpOps`): since a block's Verilog matches its
golden model bit for bit, these are the operations the hardware performed, and
the floating-point coverage bins (:mod:`accelgen.cosim.fp_coverage`) classify
them. Golden code that does its own float32 arithmetic reports it with
:func:`record_mul` / :func:`record_add`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

from ..fpformat import FIELD_BITS, format_of
from ..fpformat import width as fp_width

__all__ = ["FP_FORMATS", "CANONICAL_NAN", "fp_width", "bits_dtype", "to_float32", "float32_bits", "from_float32",
           "fp_mul", "fp_add", "canonical", "bits_equal", "is_nan", "is_zero", "flush_subnormal_bits",
           "special_values", "random_fp_bits", "dot_sequential", "tree_sum", "FpOps", "recording", "is_recording",
           "record_mul", "record_add", "fp_sum", "record_sum"]

#: (exponent bits, fraction bits) per floating-point dtype (a view of :data:`accelgen.fpformat.FORMATS`);
#: ``fp_width`` is :func:`accelgen.fpformat.width`, re-exported
FP_FORMATS = FIELD_BITS
CANONICAL_NAN = np.uint32(0x7FC00000)
_NP_TYPE = {"fp16": np.float16, "bf16": ml_dtypes.bfloat16, "fp32": np.float32}


def _check(dtype: str) -> tuple[int, int]:
    """``(exponent bits, fraction bits)`` of ``dtype``; ``ValueError`` for a dtype that is not fp."""
    fmt = format_of(dtype)
    return fmt.exponent_bits, fmt.fraction_bits


def bits_dtype(dtype: str):
    """numpy integer type holding the bits of one ``dtype`` value."""
    return np.uint32 if fp_width(dtype) == 32 else np.uint16


def _as_bits(bits, dtype: str) -> np.ndarray:
    return np.asarray(bits).astype(np.uint64).astype(bits_dtype(dtype))


def flush_subnormal_bits(bits, dtype: str) -> np.ndarray:
    """Replace subnormal bit patterns by zeros of the same sign."""
    e, f = _check(dtype)
    b = _as_bits(bits, dtype)
    t = bits_dtype(dtype)
    sub = ((b >> t(f)) & t((1 << e) - 1)) == 0
    return np.where(sub, b & t(1 << (e + f)), b).astype(t)


def to_float32(bits, dtype: str, flush_subnormals: bool = False) -> np.ndarray:
    """Exact widening of ``dtype`` bit patterns to float32 values."""
    b = _as_bits(bits, dtype)
    if flush_subnormals:
        b = flush_subnormal_bits(b, dtype)
    return b.view(_NP_TYPE[dtype]).astype(np.float32)


def float32_bits(x) -> np.ndarray:
    """The uint32 bit patterns of float32 values."""
    v = np.asarray(x, dtype=np.float32)
    return np.ascontiguousarray(v).view(np.uint32).reshape(v.shape)


def from_float32(x, dtype: str) -> np.ndarray:
    """Bits of ``dtype`` nearest (RNE) to float32 values (for making stimuli)."""
    _check(dtype)
    with np.errstate(all="ignore"):
        v = np.asarray(x, dtype=np.float32).astype(_NP_TYPE[dtype])
    return np.ascontiguousarray(v).view(bits_dtype(dtype)).reshape(v.shape)


def is_nan(bits32) -> np.ndarray:
    b = np.asarray(bits32).astype(np.uint32)
    return (b & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)


def is_zero(bits, dtype: str) -> np.ndarray:
    """True for +0 and -0 bit patterns of ``dtype``."""
    e, f = _check(dtype)
    return (_as_bits(bits, dtype).astype(np.uint32) & np.uint32((1 << (e + f)) - 1)) == 0


def canonical(bits32) -> np.ndarray:
    """fp32 bits with every NaN replaced by ``0x7FC00000``."""
    b = np.asarray(bits32).astype(np.uint32)
    return np.where(is_nan(b), CANONICAL_NAN, b).astype(np.uint32)


def bits_equal(x, y) -> np.ndarray:
    """Elementwise bit equality of fp32 patterns, with all NaNs equal."""
    return canonical(x) == canonical(y)


def _finish(result: np.ndarray, flush_subnormals: bool) -> np.ndarray:
    bits = float32_bits(result)
    if flush_subnormals:
        bits = flush_subnormal_bits(bits, "fp32")
    return canonical(bits)


def fp_mul(a_bits, b_bits, dtype: str, flush_subnormals: bool = False) -> np.ndarray:
    """fp32 bits of the products of ``dtype`` operands (RNE in fp32; exact for fp16), vectorized."""
    a = to_float32(a_bits, dtype, flush_subnormals)
    b = to_float32(b_bits, dtype, flush_subnormals)
    with np.errstate(all="ignore"):
        p = a * b
    out = _finish(p, flush_subnormals)
    if _RECORDING.get() is not None:
        record_mul(np.broadcast_to(_as_bits(a_bits, dtype), out.shape),
                   np.broadcast_to(_as_bits(b_bits, dtype), out.shape), out, dtype, flush_subnormals)
    return out


def fp_add(a_bits, b_bits, flush_subnormals: bool = False) -> np.ndarray:
    """fp32 bits of ``a + b`` for fp32 operand bits (RNE), vectorized."""
    a = to_float32(a_bits, "fp32", flush_subnormals)
    b = to_float32(b_bits, "fp32", flush_subnormals)
    with np.errstate(all="ignore"):
        s = a + b
    out = _finish(s, flush_subnormals)
    if _RECORDING.get() is not None:
        record_add(np.broadcast_to(_as_bits(a_bits, "fp32"), out.shape),
                   np.broadcast_to(_as_bits(b_bits, "fp32"), out.shape), out, flush_subnormals)
    return out


def fp_sum(operand_bits, flush_subnormals: bool = False) -> np.ndarray:
    """fp32 bits of the sum of ``n`` fp32 operands with one rounding, as :class:`accelgen.rtl.fp_sum.FPSum` forms
    it (vectorized: ``operand_bits`` is a sequence of ``n`` arrays that broadcast together).

    Integer arithmetic, step by step as the hardware: unpack (DAZ with ``flush_subnormals``), align every
    significand to the largest exponent ``E`` in a window of 24 + 3 bits whose lowest bit takes the OR of the
    bits shifted out (sticky), add the aligned values with their signs, then round the magnitude to nearest
    even at fp32's precision (gradual underflow; FTZ with ``flush_subnormals``). Not always the correctly
    rounded sum for ``n > 2`` (the stickies of several operands add up); for ``n = 2`` it is :func:`fp_add`.
    """
    if len(operand_bits) < 2:
        raise ValueError(f"fp_sum needs at least two operands, got {len(operand_bits)}")
    ops = np.broadcast_arrays(*(np.asarray(b).astype(np.uint32) for b in operand_bits))
    x = np.stack(ops).astype(np.int64)                       # (n, ...)
    sign, exp, frac = (x >> 31) & 1, (x >> 23) & 0xFF, x & 0x7FFFFF
    nan = (exp == 255) & (frac != 0)
    inf = (exp == 255) & (frac == 0)
    sub = exp == 0
    zero = sub if flush_subnormals else sub & (frac == 0)
    sig = np.where(zero, 0, frac | np.where(sub, 0, 1 << 23))
    exp_eff = np.where(sub, 1, exp)
    E = exp_eff.max(axis=0)
    shift = np.minimum(E - exp_eff, 27)
    wide = sig << 3
    aligned = wide >> shift
    aligned |= ((aligned << shift) != wide).astype(np.int64)  # sticky
    total = np.where(sign == 1, -aligned, aligned).sum(axis=0)
    mag = np.abs(total)                                        # the value is mag * 2**(E - 153)
    out = _round_fp32(mag, E - 153, flush_subnormals)
    neg = np.where(mag == 0, np.all(zero & (sign == 1), axis=0), total < 0)
    out = out | (neg.astype(np.int64) << 31)
    pos_inf, neg_inf = np.any(inf & (sign == 0), axis=0), np.any(inf & (sign == 1), axis=0)
    out = np.where(neg_inf, 0xFF800000, np.where(pos_inf, 0x7F800000, out))
    out = np.where(np.any(nan, axis=0) | (pos_inf & neg_inf), int(CANONICAL_NAN), out).astype(np.uint32)
    if _RECORDING.get() is not None:
        record_sum([np.broadcast_to(o, out.shape) for o in ops], out, flush_subnormals)
    return out


def _round_fp32(mag: np.ndarray, e_lsb: np.ndarray, flush_subnormals: bool) -> np.ndarray:
    """fp32 magnitude bits (31) nearest (ties to even) to ``mag * 2**e_lsb``, ``mag`` a non-negative int64 below
    2**52: normal, subnormal (gradual underflow) or, with ``flush_subnormals``, 0 when subnormal after rounding;
    Inf above the largest finite number."""
    _, top = np.frexp(mag.astype(np.float64))                 # bit length (exact: mag < 2**53)
    be = e_lsb + top - 1 + 127                                 # biased exponent of the leading bit
    quantum = np.maximum(be, 1) - 127 - 23                     # exponent of the result's last bit
    s = quantum - e_lsb                                        # right shift onto the result's grid
    right = np.maximum(s, 0)
    kept = np.where(s > 0, mag >> right, mag << np.maximum(-s, 0))
    rem = mag - (kept << right) * (s > 0)
    half = np.where(s > 0, np.int64(1) << np.maximum(right - 1, 0), 0)
    up = (s > 0) & ((rem > half) | ((rem == half) & (kept & 1 == 1)))
    # a normal result's kept bits hold its hidden bit, which adds one to the exponent field (be - 1) + 1;
    # a rounding carry moves into the exponent field (largest subnormal -> smallest normal, largest normal -> Inf)
    packed = (np.where(be >= 1, be - 1, 0) << 23) + kept + up
    packed = np.where(be >= 255, 0x7F800000, np.minimum(packed, 0x7F800000))
    if flush_subnormals:
        packed = np.where((packed >> 23) == 0, 0, packed)
    return np.where(mag == 0, 0, packed)


# --------------------------------------------------------------------------- recording

@dataclass
class FpOps:
    """The floating-point operations performed while :func:`recording` was active, flattened: products of
    ``mul_dtype`` operands (``mul_a``, ``mul_b`` in their format, ``mul_out`` fp32) and fp32 sums (``add_a``,
    ``add_b``, ``add_out``); ``flush`` per operation: whether subnormals were flushed (DAZ + FTZ)."""

    mul: dict[str, list] = field(default_factory=dict)   # dtype -> [(a, b, out, flush)]
    add: list = field(default_factory=list)              # [(a, b, out, flush)]
    #: multi-operand sums with one rounding (:func:`fp_sum`): [(operands (n, ...), out, flush)]; kept apart from
    #: the two-operand sums, whose bins (rounding against the exact sum, reassociation) assume one FPAdder
    fused: list = field(default_factory=list)

    def products(self, dtype: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return _stack(self.mul.get(dtype, []), bits_dtype(dtype))

    def sums(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return _stack(self.add, np.uint32)

    @property
    def count(self) -> int:
        return sum(np.asarray(x[0]).size for ops in (*self.mul.values(), self.add) for x in ops) + \
            sum(np.asarray(x[1]).size for x in self.fused)


def _stack(ops: list, t) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    if not ops:
        e = np.zeros(0, dtype=t)
        return e, e, np.zeros(0, np.uint32), np.zeros(0, bool)
    cat = lambda i, dt: np.concatenate([np.asarray(o[i]).astype(dt).ravel() for o in ops])  # noqa: E731
    flush = np.concatenate([np.full(np.asarray(o[0]).size, bool(o[3])) for o in ops])
    return cat(0, t), cat(1, t), cat(2, np.uint32), flush


_RECORDING: ContextVar[FpOps | None] = ContextVar("accelgen_fp_recording", default=None)


@contextmanager
def recording() -> Iterator[FpOps]:
    """Collect the golden models' floating-point operations inside the ``with`` block (nestable: an inner
    recording sees only its own block's operations)."""
    ops = FpOps()
    token = _RECORDING.set(ops)
    try:
        yield ops
    finally:
        _RECORDING.reset(token)


def is_recording() -> bool:
    """Whether a :func:`recording` is active (golden code that records its own float32 arithmetic skips the
    bit conversions otherwise)."""
    return _RECORDING.get() is not None


def record_mul(a_bits, b_bits, out_bits, dtype: str, flush_subnormals: bool = False) -> None:
    """Report products (``dtype`` operand bits, fp32 result bits) to the active recording, if any."""
    ops = _RECORDING.get()
    if ops is not None:
        ops.mul.setdefault(dtype, []).append((np.array(a_bits, copy=True), np.array(b_bits, copy=True),
                                              np.array(out_bits, copy=True), flush_subnormals))


def record_add(a_bits, b_bits, out_bits, flush_subnormals: bool = False) -> None:
    """Report fp32 sums (bits) to the active recording, if any."""
    ops = _RECORDING.get()
    if ops is not None:
        ops.add.append((np.array(a_bits, copy=True), np.array(b_bits, copy=True), np.array(out_bits, copy=True),
                        flush_subnormals))


def record_sum(operand_bits, out_bits, flush_subnormals: bool = False) -> None:
    """Report multi-operand fp32 sums (``operand_bits``: ``n`` arrays of the shape of ``out_bits``) to the active
    recording, if any."""
    ops = _RECORDING.get()
    if ops is not None:
        ops.fused.append((np.stack([np.asarray(o, dtype=np.uint32) for o in operand_bits]),
                          np.array(out_bits, dtype=np.uint32, copy=True), flush_subnormals))


def special_values(dtype: str) -> np.ndarray:
    """Bit patterns of the values every fp test should cross: zeros, subnormal and normal extremes,
    infinities, quiet and signalling NaNs, +-1 and neighbours of 1 whose products / sums round at ties."""
    e, f = _check(dtype)
    sign = 1 << (e + f)
    exp_max = (1 << e) - 1
    bias = format_of(dtype).bias
    one = bias << f
    mags = [
        0, 1, 2, (1 << f) - 1,                          # zero, smallest subnormals, largest subnormal
        1 << f, (1 << f) | 1,                           # smallest normals
        (exp_max - 1) << f | ((1 << f) - 1),            # largest normal
        (exp_max - 1) << f,                             # 2**emax
        exp_max << f,                                   # Inf
        exp_max << f | 1 << (f - 1),                    # quiet NaN
        exp_max << f | 1,                               # signalling NaN
        one, one | 1, one | (1 << (f - 1)), one | (1 << (f - 1)) | 1,   # 1, 1+ulp, 1.5, 1.5+ulp
        one - 1,                                        # largest value below 1
        one | (1 << (f // 2)),                          # 1 + 2**(f/2 - f): square rounds at a tie (fp32)
        one | (1 << ((f + 1) // 2)) | 1,
        (bias - 1) << f,                                # 0.5
        (bias + 1) << f | ((1 << f) - 1),               # just below 4
        (bias - f - 1) << f if bias - f - 1 > 0 else 1,  # half an ulp of 1 (1 + this is a tie)
        (bias - f) << f if bias - f > 0 else 2,         # one ulp of 1
    ]
    if e == 8:  # wide exponent: products that overflow or underflow fp32
        mags += [(bias + 64) << f, (bias + 100) << f, (bias - 64) << f, (bias - 75) << f,
                 (bias - 75) << f | (1 << (f - 1)), (bias - 100) << f]
    vals = sorted({m for m in mags} | {m | sign for m in mags})
    return np.array(vals, dtype=bits_dtype(dtype))


def random_fp_bits(rng: np.random.Generator, shape, dtype: str, density: float = 1.0,
                   scale: float = 1.0) -> np.ndarray:
    """Realistic operands: ``normal(0, scale)`` values rounded (RNE) to ``dtype``, and with
    probability ``1 - density`` a zero (+0 or -0, equally likely). Returns bit patterns
    (``np.uint16`` for fp16/bf16, ``np.uint32`` for fp32)."""
    e, f = _check(dtype)
    bits = from_float32(rng.normal(0.0, scale, size=shape).astype(np.float32), dtype)
    zero = rng.random(size=bits.shape) >= density
    signed_zero = rng.integers(0, 2, size=bits.shape).astype(bits.dtype) << bits.dtype.type(e + f)
    return np.where(zero, signed_zero, bits).astype(bits.dtype)


def dot_sequential(products, init=0, flush_subnormals: bool = False) -> np.ndarray:
    """Left fold in fp32 along the last axis: ``((init + p0) + p1) + ...`` (fp32 bits in and out).

    ``init`` is fp32 bits (default +0.0), a scalar or an array of the leading shape.
    """
    p = np.asarray(products).astype(np.uint32)
    acc = np.broadcast_to(np.asarray(init).astype(np.uint32), p.shape[:-1]).copy()
    for k in range(p.shape[-1]):
        acc = fp_add(acc, p[..., k], flush_subnormals)
    return acc


def tree_sum(values, flush_subnormals: bool = False) -> np.ndarray:
    """Pairwise in-order binary tree along the last axis, level by level: ``(v0+v1), (v2+v3), ...``;
    an odd last element passes to the next level unchanged. fp32 bits in and out."""
    v = np.asarray(values).astype(np.uint32)
    if v.shape[-1] == 0:
        return np.zeros(v.shape[:-1], np.uint32)
    while v.shape[-1] > 1:
        n = v.shape[-1]
        pairs = fp_add(v[..., 0:n - 1:2], v[..., 1:n:2], flush_subnormals)
        v = np.concatenate([pairs, v[..., n - 1:]], axis=-1) if n % 2 else pairs
    return v[..., 0]
