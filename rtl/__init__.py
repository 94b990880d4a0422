"""Amaranth generators, one module per block family.

Each generator is an :class:`amaranth.lib.wiring.Component` built from its family's parameter set
(:mod:`accelgen.params`, re-exported here): ``MAC(MACParams(dtype="bf16"))``, or the same fields as
keywords, ``MAC(dtype="bf16")``. Its docstring states ports and latency.
"""

from ..params import (AdderTreeParams, ARTParams, BenesParams, BlockParams, DotProductParams, FanLinearParams,
                      FANParams, FlexDPEParams, LinearReductionParams, MACParams, SystolicParams, TensorDashPEParams,
                      TensorDashSchedParams, TensorDashTileParams)
from .art import ART
from .benes import Benes
from .dot_product import DotProduct
from .fan import FAN
from .fan_baselines import AdderTree, FanLinear
from .flexdpe import FlexDPE
from .fp import FPAdder, FPMultiplier
from .intarith import PipelinedAdder, PipelinedMultiplier
from .linear_reduction import LinearReduction
from .mac import MAC
from .systolic import SystolicArray
from .tensordash import TensorDashPE, TensorDashScheduler, TensorDashTile

__all__ = [
    "BlockParams",
    # block families: generator and parameter set
    "MAC", "MACParams", "SystolicArray", "SystolicParams", "FAN", "FANParams", "FanLinear", "FanLinearParams",
    "AdderTree", "AdderTreeParams", "ART", "ARTParams", "LinearReduction", "LinearReductionParams",
    "DotProduct", "DotProductParams", "Benes", "BenesParams", "FlexDPE", "FlexDPEParams",
    "TensorDashScheduler", "TensorDashSchedParams", "TensorDashPE", "TensorDashPEParams",
    "TensorDashTile", "TensorDashTileParams",
    # arithmetic units with pipeline stages (not block families: blocks build their datapaths from them)
    "FPAdder", "FPMultiplier", "PipelinedAdder", "PipelinedMultiplier",
]
