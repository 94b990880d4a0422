"""Parameters of the reduction networks on the vecID interface: SIGMA's FAN and the two baselines SIGMA
compares it with, the linear chain and the plain adder tree (:mod:`accelgen.rtl.fan`,
:mod:`accelgen.rtl.fan_baselines`); the ART and the skewed linear reduction build on
:class:`ReductionParams` (:mod:`accelgen.params.art`, :mod:`accelgen.params.linear_reduction`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, model_validator

from .base import AddStages, BlockParams, ceil_log2, check_power_of_two, exact_log2, fill_implied

__all__ = ["ReductionParams", "FANParams", "AdderTreeParams", "FanLinearParams"]


class ReductionParams(BlockParams):
    """What every reduction network takes: ``n`` inputs (a power of two) of ``width`` bits, integers
    (exact sums ``width + log2 n`` bits wide) or fp32 bit patterns (``dtype='fp32'`` implies ``width`` 32 and
    ``signed``; every adder an fp32 adder, round to nearest even), and ``add_stages`` registers inside every
    adder (the bypassed operands and flags are delayed alongside, so results are those of ``add_stages=0``;
    only the latency grows)."""

    n: int = Field(8, ge=2, le=512, description="number of inputs, a power of two")
    width: int = Field(8, ge=1, le=32, description="input value width in bits (fp32: 32)")
    signed: bool = Field(True, description="two's-complement values (else unsigned; fp32 is signed)",
                         json_schema_extra={"cli_negative": "unsigned"})
    dtype: Literal["int", "fp32"] = Field("int", description="int: exact integer sums; fp32: IEEE binary32 "
                                                              "values and fp32 adders (round to nearest even)")
    add_stages: AddStages = 0

    @model_validator(mode="before")
    @classmethod
    def _fill_fp(cls, data):
        """fp32 implies ``width`` 32 and ``signed`` true: filled in when not given, a contradiction is an error."""
        if not isinstance(data, dict) or data.get("dtype", "int") != "fp32":
            return data
        return fill_implied(data, "fp32", {
            "width": (32, "fp32 values are 32 bits wide (width 32, or leave it out)"),
            "signed": (True, "fp32 values carry a sign bit (signed true, or leave it out)")})

    @model_validator(mode="after")
    def _check_pow2(self):
        check_power_of_two("n", self.n, "2, 4, 8, ..., 512")
        return self

    @property
    def fp(self) -> bool:
        return self.dtype != "int"

    @property
    def log2n(self) -> int:
        return exact_log2(self.n)

    @property
    def sum_width(self) -> int:
        """Output width ``width + log2 n``: any sum of up to ``n`` inputs fits exactly (fp32: 32)."""
        return 32 if self.fp else self.width + self.log2n

    @property
    def id_width(self) -> int:
        """vecID width ``max(1, log2 n)``: enough to number ``n`` clusters."""
        return max(1, self.log2n)

    @property
    def level_cycles(self) -> int:
        """Cycles per tree level: the ``add_stages`` registers inside its adders and its output register."""
        return 1 + self.add_stages


class _TreeLatency:
    """The latency of a network of ``log2 n`` registered adder levels after the input registers."""

    @classmethod
    def stage_latency(cls, params: Mapping[str, Any], mul_stages: int, add_stages: int) -> int:
        """``log2 n * add_stages``: a vector passes one adder per tree level."""
        return ceil_log2(params["n"]) * add_stages

    @property
    def latency(self) -> int:
        """``1 + log2 n * (1 + add_stages)``: the input registers, then ``log2 n`` levels of
        ``add_stages`` adder registers and one output register each."""
        return 1 + self.log2n + self.pipeline_latency


class FANParams(_TreeLatency, ReductionParams):
    """Parameters of :class:`~accelgen.rtl.fan.FAN` (:class:`ReductionParams`)."""

    block = "fan"


class AdderTreeParams(_TreeLatency, ReductionParams):
    """Parameters of :class:`~accelgen.rtl.fan_baselines.AdderTree` (:class:`ReductionParams`); its latency
    is the FAN's."""

    block = "adder_tree"


class FanLinearParams(ReductionParams):
    """Parameters of :class:`~accelgen.rtl.fan_baselines.FanLinear` (:class:`ReductionParams`), with
    ``stage_adders`` chain adders per pipeline stage (``n-1``: one combinational chain)."""

    block = "fan_linear"

    stage_adders: int = Field(1, ge=1, le=511, description="chain adders per pipeline stage (n-1: one stage)")

    @model_validator(mode="after")
    def _check_stage_adders(self) -> "FanLinearParams":
        if self.stage_adders > self.n - 1:
            raise ValueError(f"stage_adders={self.stage_adders} exceeds the {self.n - 1} adders of an n={self.n} "
                             f"chain; allowed: 1..{self.n - 1}")
        return self

    @property
    def chain_stages(self) -> int:
        """Register stages along the chain, ``ceil((n-1) / stage_adders)``."""
        return -(-(self.n - 1) // self.stage_adders)

    @classmethod
    def stage_latency(cls, params: Mapping[str, Any], mul_stages: int, add_stages: int) -> int:
        """``(n-1) * add_stages``: the running sum passes the ``n-1`` adders one after the other (also within
        a chain stage)."""
        return (params["n"] - 1) * add_stages

    @property
    def latency(self) -> int:
        """``1 + ceil((n-1) / stage_adders) + (n-1) * add_stages``: the input registers, one register
        per chain stage, and the ``add_stages`` registers of each of the ``n-1`` adders."""
        return 1 + self.chain_stages + self.pipeline_latency
