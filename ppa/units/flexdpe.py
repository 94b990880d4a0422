"""SIGMA's Flex-DPEs: ``k`` multipliers, a Benes distribution network and a FAN (the ``flexdpe`` block family)."""

from __future__ import annotations

from ..mapping import sigma_map
from ..pipelining import Unit
from .base import FittedUnit, MapContext, register
from .params import FlexDPEs


@register
class FlexDPE(FittedUnit):
    kind = family = "flexdpe"
    params_schema = FlexDPEs
    compute_type = "sigma"
    placeable = True

    def spec(self) -> Unit:
        f = self.params
        return Unit(self.path, self.name, self.family, {"k": f.k, "width": f.width}, f.dtype, f.pipeline,
                    count=f.count, ops_per_cycle=2.0 * f.k, edge_bits=f.k * f.width, functional_units=f.count)

    def macs_per_cycle(self) -> int:
        return self.params.k * self.params.count

    def operand_widths(self) -> tuple[int, int]:
        return self.params.width, self.params.width

    def map(self, gemms, ctx: MapContext):
        f = self.params
        return sigma_map(gemms, k=f.k, flexdpes=f.count * ctx.cores,
                         words_per_cycle=ctx.sram_bytes_per_cycle / (f.width / 8.0), **ctx.stages)
