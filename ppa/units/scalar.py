"""The scalar core (:func:`accelgen.ppa.components.scalar_core`: RISC-V Rocket, scaled to the node)."""

from __future__ import annotations

from ..components import scalar_core
from ..process import TechNode
from .base import AnalyticalUnit, register
from .params import ScalarCore


@register
class ScalarUnit(AnalyticalUnit):
    kind = "scalar_core"
    params_schema = ScalarCore

    def __init__(self, params: ScalarCore, *, tech: TechNode, path: str = "core.scalar_unit"):
        super().__init__(params, path=path, name="scalar_core")
        self.component = scalar_core(tech)
