"""Tensor units: systolic arrays of ``rows x cols`` PEs (the ``systolic`` block family's fitted model)."""

from __future__ import annotations

import numpy as np

from ..mapping import row_stationary_map, systolic_map
from ..pipelining import Unit
from .base import FittedUnit, MapContext, register
from .params import TensorUnit


def array_rates(rows, cols, a_width, b_width) -> dict:
    """An array's fitted-model operations per cycle (one per PE: a MAC), arithmetic ops per cycle (MAC = 2) and
    widest data edge (A across the columns, B down the rows), for numbers or numpy arrays of design points."""
    edge = (max if all(np.ndim(v) == 0 for v in (rows, cols, a_width, b_width)) else np.maximum)(
        cols * a_width, rows * b_width)
    return {"actions_per_cycle": rows * cols, "ops_per_cycle": 2 * rows * cols, "edge_bits": edge}


@register
class Systolic(FittedUnit):
    kind = "systolic"
    family = "systolic"
    params_schema = TensorUnit
    compute_type = "tensor"
    placeable = True
    lane_rank = 0

    def spec(self) -> Unit:
        tu = self.params
        # an input-stationary array is the weight-stationary hardware with the operands' roles swapped
        params = {"rows": tu.rows, "cols": tu.cols, "dataflow": "ws" if tu.dataflow == "is" else tu.dataflow,
                  "a_width": tu.a_width, "b_width": tu.b_width, "acc_width": tu.acc_width,
                  "weight_load": tu.weight_load}
        if tu.dtype != "int":   # the fp models' inputs (the int array has no subnormals to flush, no fp adders)
            params["flush_subnormals"] = tu.flush_subnormals
        if tu.sum_group > 1:    # grouped columns have their own model (fit/sweeps/systolic-grouped_bf16.yaml)
            params["sum_group"] = tu.sum_group
        rates = array_rates(tu.rows, tu.cols, tu.a_width, tu.b_width)
        return Unit(self.path, self.name, self.family, params, tu.dtype, tu.pipeline, count=tu.count, **rates,
                    functional_units=tu.count, extra={"interconnect": tu.interconnect},
                    variant="grouped" if tu.sum_group > 1 else "")

    def macs_per_cycle(self) -> int:
        return self.params.rows * self.params.cols * self.params.count

    def psum_bytes(self) -> float:
        return self.params.acc_width / 8.0

    def vector_lanes(self) -> int:
        return self.params.cols

    def map(self, gemms, ctx: MapContext):
        tu = self.params
        timing = dict(weight_load=tu.weight_load, sum_group=tu.sum_group, skip_zeros=tu.zero_skipping == "block",
                      **ctx.stages)
        if tu.schedule == "row_stationary":
            return row_stationary_map(gemms, rows=tu.rows, cols=tu.cols, dataflow=tu.dataflow,
                                      units=tu.count * ctx.cores, **timing)
        lanes = (ctx.vector_unit.lanes or tu.cols) * ctx.cores if ctx.vector_unit else 0
        return systolic_map(gemms, rows=tu.rows, cols=tu.cols, dataflow=tu.dataflow, units=tu.count * ctx.cores,
                            vector_lanes=lanes, m_tile=self.m_tile(gemms, ctx), **timing)

    def m_tile(self, gemms, ctx: MapContext):
        """Rows of A per output tile of a weight-stationary array whose sums a ``holds: sums`` memory keeps (None:
        no such memory, or another dataflow): the most that let two output tiles (``cols`` sums each) fit in it and
        two tiles of A (``ceil(K / rows)`` slices of ``rows`` operands each) with two weight slices fit in the
        operand memories, as the double-buffered schedule places them (at least one row)."""
        tu = self.params
        if not ctx.sum_bytes or tu.dataflow != "ws" or tu.schedule != "systolic":
            return None
        sum_rows = ctx.sum_bytes // (tu.cols * tu.acc_width / 8.0) // 2
        slices = -(-np.asarray(gemms.K) // tu.rows)
        operand_lines = ctx.operand_bytes / (tu.rows * tu.a_width / 8.0)
        operand_rows = (operand_lines - 2 * tu.rows) // (2 * slices)
        return np.maximum(1, np.minimum(sum_rows, operand_rows)).astype(np.int64)
