"""Block parameter schemas: one pydantic schema per block family, with its latency and cross-field rules.

A leaf package (pydantic and the root helpers only, no Amaranth), so that every layer reads the same
declarations: the generators (:mod:`accelgen.rtl`) take a parameter set, the golden and cycle models and
the estimator evaluate its ``latency`` and :meth:`~accelgen.params.base.BlockParams.stage_latency`, and
the command line and configs validate against it. :data:`SCHEMAS` finds a family's schema by its name.
"""

from .art import ARTParams
from .base import BlockParams
from .benes import BenesParams
from .dot_product import DotProductParams
from .fan import AdderTreeParams, FanLinearParams, FANParams, ReductionParams
from .flexdpe import FlexDPEParams
from .linear_reduction import LinearReductionParams
from .mac import MACParams
from .systolic import SystolicParams, systolic_timing_problems
from .tensordash import TensorDashPEParams, TensorDashSchedParams, TensorDashTileParams

#: every block family's schema by its name (``BlockParams.block``)
SCHEMAS: dict[str, type[BlockParams]] = {schema.block: schema for schema in (
    MACParams, SystolicParams, FANParams, FanLinearParams, AdderTreeParams, ARTParams, LinearReductionParams,
    DotProductParams, BenesParams, FlexDPEParams, TensorDashSchedParams, TensorDashPEParams, TensorDashTileParams)}

__all__ = ["SCHEMAS", "BlockParams", "ReductionParams", "MACParams", "SystolicParams", "FANParams", "FanLinearParams",
           "AdderTreeParams", "ARTParams", "LinearReductionParams", "DotProductParams", "BenesParams",
           "FlexDPEParams", "TensorDashSchedParams", "TensorDashPEParams", "TensorDashTileParams",
           "systolic_timing_problems"]
