"""Dot-product units: ``inputs`` multipliers feeding a binary adder tree (NeuroMeter's reduction-tree unit,
DianNao's NFU neuron; the ``dot_product`` block family)."""

from __future__ import annotations

from ..mapping import reduction_map
from ..pipelining import Unit
from .base import FittedUnit, MapContext, register
from .params import DotProducts


@register
class DotProduct(FittedUnit):
    kind = family = "dot_product"
    params_schema = DotProducts
    compute_type = "reduction"
    placeable = True

    def spec(self) -> Unit:
        dp = self.params
        return Unit(self.path, self.name, self.family, {"n": dp.inputs, "a_width": dp.a_width, "b_width": dp.b_width},
                    "int", dp.pipeline, count=dp.count, ops_per_cycle=2.0 * dp.inputs,
                    edge_bits=dp.inputs * (dp.a_width + dp.b_width), functional_units=dp.count)

    def macs_per_cycle(self) -> int:
        return self.params.inputs * self.params.count

    def map(self, gemms, ctx: MapContext):
        # it maps as a plain tree whose products are made in the unit
        return reduction_map(gemms, inputs=self.params.inputs, kind="tree", trees=self.params.count * ctx.cores,
                             stage_cycles=self.stage_cycles(ctx))
