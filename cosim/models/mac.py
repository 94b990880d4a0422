"""Golden model of the MAC cell: the obvious sequential loop, in exact integers."""

from __future__ import annotations

import numpy as np


def wrap(value: int, width: int, signed: bool) -> int:
    """Reduce an integer modulo ``2**width``, as two's complement if ``signed``."""
    value &= (1 << width) - 1
    if signed and value >> (width - 1):
        value -= 1 << width
    return value


def mac_reference(a, b, en, clear, *, acc_width: int, signed: bool, c_in=None) -> np.ndarray:
    """Accumulator value after each input cycle.

    ``acc[t] = (c_in[t] if clear[t] else acc[t-1]) + (a[t] * b[t] if en[t] else 0)``,
    wrapped to ``acc_width`` bits; ``acc[-1] = 0`` (reset); ``c_in`` is 0 when not
    given. Operands are taken as the integers given (signed or unsigned values,
    already in range).

    Returns an ``object`` array of Python ints (exact for any width).
    """
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
