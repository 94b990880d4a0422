"""Parameters of the TensorDash scheduler, sparse-operand PE and tile (:mod:`accelgen.rtl.tensordash`), and
the latency of the PE's pipelined lane tree and interleaved accumulator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from .base import (AccWidth, AddStages, AWidth, BlockParams, BWidth, FlushSubnormals, FPOperandParams, MacDtype,
                   MulStages, Signed, check_flush_subnormals)

__all__ = ["PatternName", "Summation", "TensorDashSchedParams", "TensorDashPEParams", "TensorDashTileParams",
           "fold_cycles"]

#: the named connectivity patterns (their options: :data:`accelgen.rtl.tensordash_sched.TENSORDASH_PATTERNS`)
PatternName = Literal["default", "lookahead"]

#: how an fp PE sums its lane products into the accumulator (:attr:`TensorDashPEParams.summation`)
Summation = Literal["fused", "tree"]


def fold_cycles(add_stages: int) -> int:
    """Cycles the accumulator needs after the last busy value to fold its ``T = add_stages + 1`` threads:
    0 for a single-cycle accumulator, else ``4 * add_stages - 1`` (3, 7, 11).

    The fold uses the loop's own adder, one slot per cycle, thread ``u[k mod T]`` in slot ``k`` (slot 0
    follows the last busy slot), and a hold register: the first operand of a pair is captured in its slot,
    the second is added to it in its slot, and a sum is back in the loop ``T`` slots later. Pairing
    ``(u0, u1)``, ``(u2, u3)`` and then the partial sums, the last addition is issued in slot 1 (T = 2),
    4 (T = 3: ``u2`` is captured in slot 2 and added to ``u0 + u1`` when it returns in slot 4) or 7 (T = 4:
    ``u2 + u3`` issued in slot 3 returns in 7, ``u0 + u1`` was captured when it returned in slot 5), and its
    sum is there ``T`` slots after: ``4 T - 5`` for T = 2..4."""
    return 0 if add_stages == 0 else 4 * add_stages - 1


class TensorDashSchedParams(BlockParams):
    """Parameters of :class:`~accelgen.rtl.tensordash_sched.TensorDashScheduler`: ``lanes`` (``L``),
    ``depth`` (staging rows ``D``) and the connectivity ``pattern`` (options beyond row ``D - 1`` dropped).
    From Python an explicit option list may replace the pattern (the generators' ``options=``)."""

    block = "tensordash_sched"

    lanes: int = Field(4, ge=2, le=16, description="multiplier lanes L")
    depth: int = Field(4, ge=2, le=5, description="staging buffer depth D in rows")
    pattern: PatternName = Field("default", description="connectivity pattern (options beyond +D-1 dropped)")

    #: whether ``depth: 1`` (the dense baseline: no staging buffers, scheduler or muxes) can be built
    dense_baseline: ClassVar[bool] = False

    @field_validator("depth", mode="before")
    @classmethod
    def _depth_one_has_no_scheduler(cls, value):
        if type(value) is int and value == 1 and not cls.dense_baseline:
            raise ValueError(f"1 is not allowed; expected {cls.allowed('depth')} (depth 1 is the dense baseline "
                             "of tensordash_pe and tensordash_tile, which has no scheduler)")
        return value

    @property
    def latency(self) -> int:
        """Combinational: 0 cycles."""
        return 0


class TensorDashPEParams(TensorDashSchedParams, FPOperandParams):
    """Parameters of :class:`~accelgen.rtl.tensordash.TensorDashPE`.

    With a floating-point ``dtype`` the widths are implied (operands 16 or 32
    bits, fp32 accumulator, ``signed`` true) and filled in when not given; an
    explicit contradictory value is rejected naming the field, the value and what
    the dtype allows. ``mul_stages`` / ``add_stages`` pipeline the lane
    multipliers and the adders of the lane tree (:attr:`latency`). ``depth: 1`` is the dense
    baseline (:mod:`accelgen.rtl.tensordash_dense`): the same PE without staging buffers, scheduler and
    muxes. ``acc_width`` (``a_width + b_width`` .. 64) wraps modulo ``2**acc_width``.

    ``summation`` is how a floating-point PE adds its lane products to the accumulator. ``"fused"`` is the
    paper's PE (Mahmoud et al., MICRO 2020, sect. II-B: a PE's MACs all contribute to one
    output and "amortize ... the cost of the summation stage by fusing the MACs"): one
    :class:`~accelgen.rtl.fp_sum.FPSum` of ``lanes + 1`` operands, the accumulator and the lane products,
    aligned to the largest exponent once and rounded once, as the grouped systolic PE sums its group.
    ``"tree"`` (the default, until the shipped TensorDash models are refitted on the fused PE: the generator's
    default is what the estimator's models measured) is an in-order pairwise tree of two-operand fp32 adders over
    the lane products and one more adder into the accumulator: one full fp32 adder per MAC, rounded at every
    level. The two give different
    fp32 bits (the golden model follows each) and different latencies: the tree's ``ceil(log2(lanes)) *
    add_stages`` pipeline registers sit outside the accumulator loop, the fused sum has only the loop's own.
    Integer sums are exact in any order and any grouping (modulo ``2**acc_width``), so there is nothing for
    the choice to decide there: integer PEs ignore it and keep their one datapath (Amaranth's sum, or the
    pipelined adder tree with ``add_stages``). Ignored rather than rejected, so that a configuration can
    switch ``dtype`` without having to drop a field that was only ever a floating-point choice.
    """

    block = "tensordash_pe"
    fp_signed = True
    dense_baseline: ClassVar[bool] = True

    depth: int = Field(4, ge=1, le=5, description="staging buffer depth D in rows (1: the dense baseline, "
                                                  "no staging buffers, scheduler or muxes)")

    a_width: AWidth = 8
    b_width: BWidth = 8
    acc_width: AccWidth = 32
    signed: Signed = True
    dtype: MacDtype = Field("int", description="operand datatype: 'int', or fp16/bf16/fp32 operands with fp32 "
                                               "products and accumulation (widths implied)")
    flush_subnormals: FlushSubnormals = False
    mul_stages: MulStages = 0
    add_stages: AddStages = 0
    summation: Summation = Field("tree", description="fp dtypes: 'fused' sums the accumulator and the lane "
                                 "products in one multi-operand fp32 adder with one rounding (the paper's PE), "
                                 "'tree' by a pairwise tree of fp32 adders then the accumulator adder; integer "
                                 "sums are exact either way and ignore it")

    @property
    def is_fp(self) -> bool:
        return self.dtype != "int"

    @property
    def fused(self) -> bool:
        """The lane products and the accumulator are summed by one multi-operand adder (fp and ``"fused"``)."""
        return _fused(self)

    @property
    def dense(self) -> bool:
        """The dense baseline (``depth`` 1): every lane multiplies its own pair every busy cycle."""
        return self.depth == 1

    @property
    def tree_levels(self) -> int:
        """Adder levels of the in-order pairwise lane tree: ``ceil(log2(lanes))``."""
        return (self.lanes - 1).bit_length()

    @property
    def pipeline_delay(self) -> int:
        """Cycles from a busy cycle's lane operands to its sum at the accumulator: ``mul_stages +
        tree_levels * add_stages`` for the lane tree, ``mul_stages`` for the fused sum (whose stages are
        the accumulator loop's)."""
        return self.mul_stages + (0 if self.fused else self.tree_levels * self.add_stages)

    @property
    def threads(self) -> int:
        """Interleaved partial sums of the accumulator loop: ``add_stages + 1`` (1: a single-cycle adder)."""
        return self.add_stages + 1

    @property
    def fold_cycles(self) -> int:
        """Cycles the accumulator takes after the last busy value to fold its threads into the dot
        product: 0, 3, 7, 11 for ``add_stages`` 0..3 (:func:`fold_cycles`)."""
        return fold_cycles(self.add_stages)

    @classmethod
    def stage_latency(cls, params: Mapping[str, Any], mul_stages: int, add_stages: int) -> int:
        """``mul_stages + ceil(log2(lanes)) * add_stages + fold_cycles(add_stages)``: the lane multiplier,
        the lane tree's adders and the fold of the interleaved accumulator; without the tree term for the
        fused sum (``dtype`` fp and ``summation`` ``"fused"``; a mapping without ``dtype`` is an integer PE)."""
        levels = 0 if _fused(params) else (int(params["lanes"]) - 1).bit_length()
        return mul_stages + levels * add_stages + fold_cycles(add_stages)

    @property
    def latency(self) -> int:
        """Cycles from the last busy cycle to the dot product in ``acc`` (``done``): ``1 + mul_stages +
        ceil(log2(lanes)) * add_stages + fold_cycles`` (the accumulator register, the pipeline registers in
        front of it, then the fold of the interleaved partial sums); the fused sum has no tree term."""
        return 1 + self.pipeline_latency

    @model_validator(mode="after")
    def _check_widths(self):
        check_flush_subnormals(self)
        need = self.a_width + self.b_width
        if not self.is_fp and self.acc_width < need:
            raise ValueError(f"acc_width={self.acc_width} is too narrow for a {self.a_width}x{self.b_width}-bit "
                             f"product; allowed: acc_width >= a_width + b_width = {need}")
        return self


def _fused(params) -> bool:
    """Whether ``params`` (a parameter set or a plain mapping) sum fused: fp ``dtype`` and ``summation``
    ``"fused"`` (the default is ``"tree"``)."""
    get = params.get if isinstance(params, Mapping) else lambda name, default: getattr(params, name, default)
    return get("dtype", "int") != "int" and get("summation", "tree") == "fused"


class TensorDashTileParams(TensorDashPEParams):
    """Parameters of :class:`~accelgen.rtl.tensordash.TensorDashTile`: the PE's, and ``rows`` PE rows
    sharing the B-side schedule."""

    block = "tensordash_tile"

    rows: int = Field(4, ge=1, le=16, description="PE rows R sharing the B-side schedule")
