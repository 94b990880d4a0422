"""Cycle model of SIGMA's linear reduction (:class:`~accelgen.rtl.linear_reduction.LinearReduction`).

The chain's sums are those of :func:`accelgen.golden.fan.segmented_sums` with ``order="linear"``
(left to right; exact integers, or fp32 round-to-nearest-even at every adder). Its timing, in
closed form: the source presents input ``i`` of vector ``t`` in cycle ``t + i * d`` with
``d = 1 + add_stages`` (skewed as a systolic column), and output slot ``j`` (the cluster whose last
input is ``j``) holds vector ``t``'s result in cycle ``t + (j + 1) * d``. A vector's last result
leaves ``n * d`` cycles after its first input entered, so ``V`` vectors streamed back to back take
``V + n * d`` cycles: the chain drains for ``n`` cycles where the FAN needs ``log2 n``.
"""

from __future__ import annotations

__all__ = ["input_cycle", "linear_reduction_cycles", "linear_reduction_latency", "skew", "slot_cycle"]


def _check_n(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 2 or n & (n - 1):
        raise ValueError(f"n={n!r} is not allowed; allowed: a power of two >= 2")


def skew(add_stages: int = 0) -> int:
    """Cycles between inputs ``i`` and ``i + 1`` of one vector: ``1 + add_stages``."""
    if isinstance(add_stages, bool) or not isinstance(add_stages, int) or add_stages < 0:
        raise ValueError(f"add_stages={add_stages!r} is not allowed; allowed: an integer >= 0")
    return 1 + add_stages


def input_cycle(t: int, i: int, add_stages: int = 0) -> int:
    """The cycle in which input ``i`` of vector ``t`` is presented: ``t + i * (1 + add_stages)``."""
    return t + i * skew(add_stages)


def slot_cycle(t: int, j: int, add_stages: int = 0) -> int:
    """The cycle in which output slot ``j`` holds vector ``t``'s result: ``t + (j + 1) * (1 + add_stages)``."""
    return t + (j + 1) * skew(add_stages)


def linear_reduction_latency(n: int, add_stages: int = 0) -> int:
    """Cycles from input 0 of a vector to its last output slot: ``n * (1 + add_stages)``."""
    _check_n(n)
    return n * skew(add_stages)


def linear_reduction_cycles(vectors: int, n: int, add_stages: int = 0) -> int:
    """Cycles of a fold of ``vectors`` vectors streamed back to back, from input 0 of the first one to
    the last result: ``vectors + n * (1 + add_stages)``."""
    return vectors + linear_reduction_latency(n, add_stages)
