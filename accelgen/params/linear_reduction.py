"""Parameters of SIGMA's skewed linear reduction (:class:`accelgen.rtl.linear_reduction.LinearReduction`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .fan import ReductionParams

__all__ = ["LinearReductionParams"]


class LinearReductionParams(ReductionParams):
    """Parameters of :class:`~accelgen.rtl.linear_reduction.LinearReduction` (``n``, ``width``, ``signed``,
    ``dtype``, ``add_stages`` as for :class:`~accelgen.params.fan.FANParams`, with the same checks and
    messages). Input ``i`` of a vector is presented ``i * skew`` cycles after input 0."""

    block = "linear_reduction"

    @property
    def skew(self) -> int:
        """Cycles between inputs ``i`` and ``i + 1`` of one vector, ``1 + add_stages``: the adder's
        registers and the partial-sum register the running sum passes between them."""
        return 1 + self.add_stages

    def input_cycle(self, i: int) -> int:
        """Cycle, after input 0 of a vector, in which its input ``i`` is presented: ``i * skew``."""
        return i * self.skew

    def slot_cycle(self, j: int) -> int:
        """Cycle, after input 0 of a vector, in which its output slot ``j`` holds the result:
        ``(j + 1) * skew`` (``skew`` cycles after input ``j``)."""
        return (j + 1) * self.skew

    @classmethod
    def stage_latency(cls, params: Mapping[str, Any], mul_stages: int, add_stages: int) -> int:
        """``n * add_stages``: the chain is fed skewed, each of its ``n`` inputs waits ``add_stages`` more."""
        return params["n"] * add_stages

    @property
    def latency(self) -> int:
        """``n * (1 + add_stages)``: from input 0 of a vector to its last output slot (``n - 1``)."""
        return self.n + self.pipeline_latency
