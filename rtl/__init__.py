"""Amaranth generators, one module per block family.

Each generator is an :class:`amaranth.lib.wiring.Component` whose constructor
takes keyword-only parameters validated by a :class:`~accelgen.rtl._params.BlockParams`
schema; its docstring states ports and latency.
"""

from ._params import BlockParams
from .benes import Benes, BenesParams
from .dot_product import DotProduct, DotProductParams
from .fan import FAN, AdderTreeParams, FanLinearParams, FANParams
from .fan_baselines import AdderTree, FanLinear
from .fp import FPAdder, FPMultiplier
from .intarith import PipelinedAdder, PipelinedMultiplier
from .mac import MAC, MACParams
from .tensordash import (TensorDashPE, TensorDashPEParams, TensorDashScheduler, TensorDashSchedParams,
                         TensorDashTile, TensorDashTileParams)

__all__ = ["BlockParams", "MAC", "MACParams", "FAN", "FANParams", "FanLinear", "FanLinearParams", "AdderTree",
           "AdderTreeParams", "Benes", "BenesParams", "DotProduct", "DotProductParams"]

__all__ += ["TensorDashScheduler", "TensorDashSchedParams", "TensorDashPE", "TensorDashPEParams",
            "TensorDashTile", "TensorDashTileParams"]

from .flexdpe import FlexDPE, FlexDPEParams  # noqa: E402

__all__ += ["FlexDPE", "FlexDPEParams"]

from .linear_reduction import LinearReduction, LinearReductionParams

__all__ += ["LinearReduction", "LinearReductionParams"]

from .art import ART, ARTParams

__all__ += ["ART", "ARTParams"]

# arithmetic units with pipeline stages (not block families: blocks build their datapaths from them)
__all__ += ["FPAdder", "FPMultiplier", "PipelinedAdder", "PipelinedMultiplier"]
