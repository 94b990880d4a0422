"""Golden and cycle model of the dot-product unit (:class:`accelgen.rtl.DotProduct`).

The result is the exact integer dot product ``sum(a[i] * b[i])``, computed in Python integers
(numpy ``object`` arrays), so any operand width is exact and the association order does not matter.

Cycle model: one new pair of vectors per cycle, each result a fixed :func:`dot_product_latency`
later (input registers, ``mul_stages`` multiplier registers, and per adder-tree level the
``add_stages`` adder registers and the level's register), so ``v`` vectors presented back to back
take :func:`dot_product_cycles` cycles until the last result has left.
"""

from __future__ import annotations

import numpy as np

__all__ = ["dot_product_cycles", "dot_product_latency", "dot_products"]


def _levels(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 2 or n & (n - 1):
        raise ValueError(f"n={n!r} is not allowed; allowed: a power of two >= 2")
    return n.bit_length() - 1


def dot_products(a, b) -> np.ndarray:
    """The exact dot product of each row of ``a`` with the same row of ``b`` (arrays of shape
    ``(vectors, n)``, or one vector each), as Python integers (``object`` array, or one int for one vector)."""
    a, b = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    if a.shape != b.shape:
        raise ValueError(f"a and b differ in shape: {a.shape} and {b.shape}")
    products = np.vectorize(int, otypes=[object])(a) * np.vectorize(int, otypes=[object])(b)
    return products.sum(axis=-1)


def dot_product_latency(n: int, mul_stages: int = 0, add_stages: int = 0) -> int:
    """Cycles from a pair of vectors at the inputs to its sum at the output:
    ``1 + mul_stages + log2 n * (1 + add_stages)``."""
    return 1 + mul_stages + _levels(n) * (1 + add_stages)


def dot_product_cycles(vectors: int, n: int, mul_stages: int = 0, add_stages: int = 0) -> int:
    """Cycles from the first of ``vectors`` pairs presented back to back (one per cycle) until the
    last result has been output: ``vectors + latency`` (one result per cycle)."""
    if vectors < 0:
        raise ValueError(f"vectors={vectors!r} is not allowed; allowed: an integer >= 0")
    return vectors + dot_product_latency(n, mul_stages, add_stages)
