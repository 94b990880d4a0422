"""Parameters of the dot-product unit (:class:`accelgen.rtl.dot_product.DotProduct`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, model_validator

from .base import (MAX_WIDTH, AddStages, AWidth, BlockParams, BWidth, MulStages, ceil_log2, check_power_of_two,
                   exact_log2)

__all__ = ["DotProductParams"]


class DotProductParams(BlockParams):
    """Parameters of :class:`~accelgen.rtl.dot_product.DotProduct`: ``n`` multipliers (``n = 2``: one pair
    cell) with operands of ``a_width`` and ``b_width`` bits, ``a_width + b_width + log2 n <= 64``; integers
    only for now (the ``dtype`` field is there so that floating-point operands can be added without
    renaming anything)."""

    block = "dot_product"

    n: int = Field(8, ge=2, le=256, description="products summed per cycle (multipliers), a power of two")
    a_width: AWidth = 8
    b_width: BWidth = 8
    signed: bool = Field(True, description="two's-complement operands and sum (else unsigned)",
                         json_schema_extra={"cli_negative": "unsigned"})
    dtype: Literal["int"] = Field("int", description="int: exact integer dot products (floating point not built yet)")
    mul_stages: MulStages = 0
    add_stages: AddStages = 0

    @model_validator(mode="after")
    def _check_shape(self) -> DotProductParams:
        check_power_of_two("n", self.n, "2, 4, 8, ..., 256")
        if self.sum_width > MAX_WIDTH:
            raise ValueError(f"a_width + b_width + log2(n) = {self.sum_width} is too wide for the sum "
                             f"(a_width={self.a_width}, b_width={self.b_width}, n={self.n}); "
                             f"allowed: a_width + b_width + log2(n) <= {MAX_WIDTH}")
        return self

    @property
    def log2n(self) -> int:
        """Levels of the adder tree."""
        return exact_log2(self.n)

    @property
    def product_width(self) -> int:
        """``a_width + b_width``: a product of two operands fits exactly."""
        return self.a_width + self.b_width

    @property
    def sum_width(self) -> int:
        """``a_width + b_width + log2 n``: the sum of ``n`` exact products fits exactly."""
        return self.product_width + self.log2n

    @classmethod
    def stage_latency(cls, params: Mapping[str, Any], mul_stages: int, add_stages: int) -> int:
        """``mul_stages + log2 n * add_stages``: a product passes its multiplier and one adder per level."""
        return mul_stages + ceil_log2(params["n"]) * add_stages

    @property
    def latency(self) -> int:
        """``1 + mul_stages + log2 n * (1 + add_stages)``: the input registers, the multipliers'
        registers, then per tree level the adders' ``add_stages`` registers and the level's output register."""
        return 1 + self.log2n + self.pipeline_latency
