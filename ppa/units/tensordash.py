"""TensorDash PEs and tiles (Mahmoud et al., MICRO 2020): sparse operand scheduling in front of ``lanes``
multipliers (the ``tensordash_pe`` and ``tensordash_tile`` block families; ``depth`` 1 is the dense baseline)."""

from __future__ import annotations

from ..mapping import tensordash_map
from ..pipelining import Unit
from .base import FittedUnit, MapContext, register
from .params import TensorDash


@register
class TensorDashTiles(FittedUnit):
    kind = "tensordash"
    params_schema = TensorDash
    compute_type = "tensordash"
    placeable = True
    lane_rank = 1

    @property
    def family(self) -> str:
        return "tensordash_tile" if self.params.rows > 1 else "tensordash_pe"

    def spec(self) -> Unit:
        t = self.params
        common = {"lanes": t.lanes, "depth": t.depth, "a_width": t.a_width, "b_width": t.b_width,
                  "acc_width": t.acc_width}
        tile = t.rows > 1
        return Unit(self.path, self.name, self.family, {**common, "rows": t.rows} if tile else common, t.dtype,
                    t.pipeline, count=t.count * t.cols, ops_per_cycle=2.0 * t.lanes * t.rows,
                    edge_bits=t.cols * t.lanes * t.a_width, functional_units=t.count,
                    variant="dense" if t.depth == 1 else "")

    def macs_per_cycle(self) -> int:
        t = self.params
        return t.lanes * t.rows * t.cols * t.count

    def vector_lanes(self) -> int:
        return self.params.cols * self.params.lanes

    def map(self, gemms, ctx: MapContext):
        t = self.params
        return tensordash_map(gemms, lanes=t.lanes, depth=t.depth, rows=t.rows, cols=t.cols,
                              tiles=t.count * ctx.cores, **ctx.stages)
