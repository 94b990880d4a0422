"""Golden model of the MAC cell: the obvious sequential loop, in exact integers (or fp32 bits).

A MAC with a pipelined accumulator adder holds ``threads`` = ``add_stages + 1`` independent sums:
pair ``t`` belongs to sum ``t mod threads`` (:class:`accelgen.rtl.MAC`, "Interleaved sums"). The
references take ``threads`` and run the one-sum loop on each thread's pairs separately.
"""

from __future__ import annotations

import numpy as np

from .fp import fp_add, fp_mul, is_zero


def wrap(value: int, width: int, signed: bool) -> int:
    """Reduce an integer modulo ``2**width``, as two's complement if ``signed``."""
    value &= (1 << width) - 1
    if signed and value >> (width - 1):
        value -= 1 << width
    return value


def by_thread(reference, threads: int, columns: dict, **options) -> np.ndarray:
    """Run ``reference(**columns_of_one_thread, **options)`` on each thread's rows (``t mod threads``)
    and put the results back in row order: row ``t`` is thread ``t mod threads``'s value after pair ``t``.
    ``None`` columns stay ``None``."""
    parts = [reference(**{name: None if col is None else np.asarray(col)[k::threads] for name, col in columns.items()},
                       **options) for k in range(threads)]
    out = np.empty(len(columns["a"]), dtype=parts[0].dtype)
    for k, part in enumerate(parts):
        out[k::threads] = part
    return out


def mac_reference(a, b, en, clear, *, acc_width: int, signed: bool, c_in=None, threads: int = 1) -> np.ndarray:
    """Accumulator value after each input cycle.

    ``acc[t] = (c_in[t] if clear[t] else acc[t-1]) + (a[t] * b[t] if en[t] else 0)``,
    wrapped to ``acc_width`` bits; ``acc[-1] = 0`` (reset); ``c_in`` is 0 when not
    given. Operands are taken as the integers given (signed or unsigned values,
    already in range). With ``threads`` = L > 1, ``t - 1`` reads ``t - L`` (L interleaved
    sums, :func:`by_thread`).

    Returns an ``object`` array of Python ints (exact for any width).
    """
    if threads > 1:
        return by_thread(mac_reference, threads, {"a": a, "b": b, "en": en, "clear": clear, "c_in": c_in},
                         acc_width=acc_width, signed=signed)
    a = [int(x) for x in a]
    b = [int(x) for x in b]
    addend = [0] * len(a) if c_in is None else [int(x) for x in c_in]
    out = np.empty(len(a), dtype=object)
    acc = 0
    for t, (x, y, e, c) in enumerate(zip(a, b, en, clear)):
        acc = (addend[t] if c else acc) + (x * y if e else 0)
        acc = wrap(acc, acc_width, signed)
        out[t] = acc
    return out


def mac_reference_fp(a, b, en, clear, *, dtype: str, flush_subnormals: bool = False, zero_gating: bool = False,
                     c_in=None, threads: int = 1) -> np.ndarray:
    """Floating-point MAC: fp32 accumulator bits after each input cycle (``np.uint32``).

    In the association order of :class:`accelgen.rtl.MAC`:
    ``acc[t] = fp_add(c_in[t] if clear[t] else acc[t-1], fp_mul(a[t], b[t]))`` when ``en[t]``,
    ``c_in[t]`` when ``clear[t]`` without ``en[t]``, else ``acc[t-1]``; ``acc[-1] = +0``;
    ``c_in`` is +0.0 when not given. With ``zero_gating`` a pair with a +-0 operand does
    not count as enabled (skipped). ``a``, ``b`` are ``dtype`` bit patterns, ``c_in`` fp32
    bits; NaNs come out canonical (``0x7FC00000``). With ``threads`` = L > 1, ``t - 1`` reads
    ``t - L`` (L interleaved sums, :func:`by_thread`).
    """
    if threads > 1:
        return by_thread(mac_reference_fp, threads, {"a": a, "b": b, "en": en, "clear": clear, "c_in": c_in},
                         dtype=dtype, flush_subnormals=flush_subnormals, zero_gating=zero_gating)
    a = np.asarray(a).astype(np.uint64)
    b = np.asarray(b).astype(np.uint64)
    en = np.asarray(en).astype(bool)
    clear = np.asarray(clear).astype(bool)
    if zero_gating:
        en = en & ~is_zero(a, dtype) & ~is_zero(b, dtype)
    prod = fp_mul(a, b, dtype, flush_subnormals)
    addend = np.zeros(len(a), np.uint32) if c_in is None else np.asarray(c_in).astype(np.uint32)
    out = np.empty(len(a), np.uint32)
    acc = np.zeros(1, np.uint32)
    for t in range(len(a)):
        base = addend[t:t + 1] if clear[t] else acc
        if en[t]:
            acc = fp_add(base, prod[t:t + 1], flush_subnormals)
        else:
            acc = base
        out[t] = acc[0]
    return out
