"""Parameters of SIGMA's Flex-DPE (:class:`accelgen.rtl.flexdpe.FlexDPE`) and its latency."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import Field, model_validator

from .base import AddStages, FPOperandParams, MacDtype, MulStages, check_power_of_two, exact_log2

__all__ = ["FlexDPEParams", "MASK_WORD_BITS", "flexdpe_latency"]

#: ports per word of the ``valid_in`` / ``head`` bit-vector arrays
MASK_WORD_BITS = 64


def flexdpe_latency(k: int, benes_pipeline_every: int = 0, mul_stages: int = 0, add_stages: int = 0) -> int:
    """Cycles from a streamed vector to its sums:
    ``log2 k + 4 + (2 log2 k - 1) // benes_pipeline_every + mul_stages + log2 k * add_stages``."""
    log2k = exact_log2(k)
    benes = (2 * log2k - 1) // benes_pipeline_every if benes_pipeline_every else 0
    return log2k + 4 + benes + FlexDPEParams.stage_latency({"k": k}, mul_stages, add_stages)


class FlexDPEParams(FPOperandParams):
    """Parameters of :class:`~accelgen.rtl.flexdpe.FlexDPE`: ``k`` multipliers (a power of two in 4..256);
    integer operands of ``width`` bits (1..16, products ``2*width`` bits, exact sums) or fp16/bf16/fp32
    operands (``width`` implied) with fp32 products and an fp32 FAN; ``benes_pipeline_every`` as the Benes
    network's ``pipeline_every``; ``mul_stages`` pipelines the multipliers, ``add_stages`` the FAN's adders."""

    block = "flexdpe"
    fp_signed = True
    fp_two_operands = False  # one operand width, no accumulator field

    k: int = Field(8, ge=4, le=256, description="multipliers, a power of two")
    width: int = Field(8, ge=1, le=32, description="operand width in bits (int: 1..16, products are 2*width; "
                                                   "fp: implied, 16 or 32)")
    signed: bool = Field(True, description="two's-complement operands and sums (else unsigned; fp is signed)",
                         json_schema_extra={"cli_negative": "unsigned"})
    dtype: MacDtype = Field(
        "int", description="int: integer operands and exact sums; fp16/bf16/fp32: operands of that format, "
                           "fp32 products and fp32 FAN reduction")
    benes_pipeline_every: int = Field(0, ge=0, le=15, description="register after every this many Benes stages "
                                                                   "(0: combinational)")
    mul_stages: MulStages = 0
    add_stages: AddStages = 0

    @model_validator(mode="after")
    def _check_cross_fields(self) -> "FlexDPEParams":
        if self.dtype == "int" and self.width > 16:
            raise ValueError(f"width={self.width} is not allowed with dtype='int'; allowed: 1..16 "
                             "(products are 2*width bits)")
        check_power_of_two("k", self.k, "4, 8, 16, 32, 64, 128, 256")
        if self.benes_pipeline_every > self.benes_stages:
            raise ValueError(f"benes_pipeline_every={self.benes_pipeline_every} exceeds the {self.benes_stages} "
                             f"Benes stages of k={self.k}; allowed: 0..{self.benes_stages}")
        return self

    @property
    def log2k(self) -> int:
        return exact_log2(self.k)

    @property
    def benes_stages(self) -> int:
        return 2 * self.log2k - 1

    @property
    def id_width(self) -> int:
        return max(1, self.log2k)

    @property
    def fp(self) -> bool:
        return self.dtype != "int"

    @property
    def product_width(self) -> int:
        return 32 if self.fp else 2 * self.width

    @property
    def sum_width(self) -> int:
        return 32 if self.fp else self.product_width + self.log2k

    @property
    def mask_words(self) -> int:
        return -(-self.k // MASK_WORD_BITS)

    @property
    def mask_word_width(self) -> int:
        return min(self.k, MASK_WORD_BITS)

    @classmethod
    def stage_latency(cls, params: Mapping[str, Any], mul_stages: int, add_stages: int) -> int:
        """``mul_stages + log2 k * add_stages``: the multiplier's registers and those of the FAN's levels."""
        return mul_stages + int(math.log2(params["k"])) * add_stages

    @property
    def latency(self) -> int:
        """``log2 k + 4 + (2 log2 k - 1) // benes_pipeline_every + mul_stages + log2 k * add_stages``
        (:func:`flexdpe_latency`)."""
        return flexdpe_latency(self.k, self.benes_pipeline_every, self.mul_stages, self.add_stages)
