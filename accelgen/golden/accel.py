"""Golden model of the generated accelerator: a layer's results as its tensor unit, accumulator and activation stage
compute them (numpy only; the hardware is :mod:`accelgen.rtl.accel`).

Integers: the sums wrap to ``acc_width`` bits (each fold's and each accumulation alike, so the result is the exact
sum modulo ``2**acc_width``), then ``clamp(relu((acc * scale16 + round) >> shift))``. Floating point: the WS fold
order of :func:`accelgen.golden.systolic.fp_gemm_reference` (each ``rows``-long slice of K summed down a column from
+0.0, the slices added in K order by the accumulator's read-modify-write), then ``to_operand(relu(fp32(acc *
scale)))``. The activation stage is documented in :mod:`accelgen.rtl.accel.activation`.
"""

from __future__ import annotations

import numpy as np

from ..params.accel import AccelParams
from .fp import canonical, float32_bits, to_float32
from .systolic import fp_gemm_reference, wrap_array

__all__ = ["INT_SCALE_BITS", "activation", "gemm", "to_bf16_bits"]

#: bits of the CONFIG scale the integer activation uses (the low half, two's complement)
INT_SCALE_BITS = 16
BF16_NAN = 0x7FC0


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def to_bf16_bits(bits: np.ndarray, flush_subnormals: bool = False) -> np.ndarray:
    """fp32 bit patterns -> bf16 bit patterns, rounded to nearest even (NaN -> 0x7FC0, overflow -> Inf; with
    ``flush_subnormals`` a subnormal result becomes a zero of its sign)."""
    x = np.asarray(bits, dtype=np.uint64)
    nan = ((x >> 23) & 0xFF == 0xFF) & (x & 0x7FFFFF != 0)
    rounded = (x + 0x7FFF + ((x >> 16) & 1)) >> 16
    out = rounded & 0xFFFF
    if flush_subnormals:
        out = np.where((out >> 7) & 0xFF == 0, (x >> 16) & 0x8000, out)
    return np.where(nan, BF16_NAN, out).astype(np.uint16)


def activation(acc: np.ndarray, params: AccelParams, *, relu: bool, shift: int, scale: int) -> np.ndarray:
    """The activation stage on accumulator values: ints (already wrapped to ``acc_width``) for an integer array,
    fp32 bit patterns for a floating-point one. Returns the operands' values (ints) or bit patterns (bf16: uint16,
    fp32: uint32). ``scale`` is the CONFIG field (32 bits)."""
    a = params.array
    if a.dtype == "int":
        s = _signed(scale, INT_SCALE_BITS)
        half = (1 << (shift - 1)) if shift else 0
        flat = [(int(v) * s + half) >> shift for v in np.ravel(acc)]
        if relu:
            flat = [max(v, 0) for v in flat]
        lo, hi = (-(1 << (a.a_width - 1)), (1 << (a.a_width - 1)) - 1) if a.signed else (0, (1 << a.a_width) - 1)
        return np.array([min(max(v, lo), hi) for v in flat], dtype=np.int64).reshape(np.shape(acc))
    flush = a.flush_subnormals
    x = to_float32(np.asarray(acc, dtype=np.uint32), "fp32", flush)
    scale_f = to_float32(np.array([scale], dtype=np.uint32), "fp32", flush)[0]
    with np.errstate(all="ignore"):
        product = x * scale_f
    bits = canonical(float32_bits(product))
    if flush:   # FTZ: a subnormal product is a zero of its sign
        bits = np.where((bits >> 23) & 0xFF == 0, bits & 0x80000000, bits).astype(np.uint32)
    if relu:
        nan = ((bits >> 23) & 0xFF == 0xFF) & (bits & 0x7FFFFF != 0)
        bits = np.where((bits >> 31 == 1) & ~nan, 0, bits).astype(np.uint32)
    return bits if a.dtype == "fp32" else to_bf16_bits(bits, flush)


def gemm(A: np.ndarray, B: np.ndarray, params: AccelParams, *, relu: bool = False, shift: int = 0,
         scale: int = 1) -> np.ndarray:
    """``activation(A @ B)`` as the accelerator computes it: ``A[M, K]``, ``B[K, N]`` integer values for an integer
    array, operand bit patterns (uint16 for bf16, uint32 for fp32) for a floating-point one."""
    a = params.array
    if a.dtype == "int":
        acc = wrap_array(np.asarray(A).astype(object) @ np.asarray(B).astype(object), a.acc_width, a.signed)
    else:
        acc = fp_gemm_reference(A, B, a.dtype, a.rows, "ws", a.flush_subnormals)
    return activation(acc, params, relu=relu, shift=shift, scale=scale)
