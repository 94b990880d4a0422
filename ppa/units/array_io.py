"""A weight-stationary systolic array's edges in an accelerator (``core.units: [{kind: array_io, rows: 16, cols: 16,
in_bits: 8, out_bits: 32}]``): what lines the scratchpad's operands up with the array's diagonal wavefront and lines
its sums back up for the accumulator. The fitted array (:mod:`accelgen.ppa.units.systolic`) starts at its PEs' ports.

Structure (cells of :mod:`accelgen.ppa.units.cells`), as :class:`accelgen.rtl.accel.execute.ExecuteUnit` builds it:

* the skew: row ``r`` of the array takes its operand ``r`` cycles late, ``rows (rows - 1) / 2`` registers of
  ``in_bits`` and a valid bit;
* the de-skew: column ``c``'s sum waits ``cols - 1 - c`` cycles, ``cols (cols - 1) / 2`` registers of ``out_bits``;
* the write-back: a register of a line of ``cols`` sums, and per column an adder of the sum to the accumulator's
  line (``accumulate: int``, ``out_bits`` wide; ``fp32``, an fp32 adder) with a 2:1 select (accumulate or
  overwrite).

Actions: ``cycle``, every register clocked (the fitted blocks' clock-network model,
:func:`~accelgen.ppa.units.cells.clock_network_pj`); ``row``, a line of ``rows`` operands through the skew (each operand
through ``r`` registers, half its bits toggling); ``sums``, a line of ``cols`` sums through the de-skew, the adders
and the select. At full activity one of each per cycle.
"""

from __future__ import annotations

from ..components import Component
from ..process import TechNode
from .base import AnalyticalUnit, LayerActivity, register
from .cells import DATA_TOGGLE, Logic, adder, adder_path, clock_network_pj, energy_pj, fp_adder, path_delay_ns
from .params import ArrayIO

#: fp32's exponent and significand (with the hidden bit)
FP32 = (8, 24)


def triangle(n: int) -> int:
    """Registers of a skew over ``n`` lanes: lane ``i`` delayed ``i`` cycles."""
    return n * (n - 1) // 2


def accumulate_logic(p: ArrayIO) -> Logic:
    if p.accumulate == "int":
        return adder(p.out_bits).times(p.cols) + Logic({"MUX2_X1": p.cols * p.out_bits})
    if p.accumulate == "fp32":
        return fp_adder(*FP32).times(p.cols) + Logic({"MUX2_X1": p.cols * p.out_bits})
    return Logic()


@register
class ArrayIOUnit(AnalyticalUnit):
    kind = "array_io"
    params_schema = ArrayIO
    placeable = True

    def __init__(self, params: ArrayIO, *, tech: TechNode, path: str, name: str = "array_io"):
        super().__init__(params, path=path, name=name)
        p = params
        skew = Logic({"DFF_X1": triangle(p.rows) * (p.in_bits + 1)})
        deskew = Logic({"DFF_X1": triangle(p.cols) * p.out_bits + p.cols * p.out_bits})
        accumulate = accumulate_logic(p)
        logic = skew + deskew + accumulate
        flops = logic.cells["DFF_X1"]
        row = energy_pj(tech, {"DFF_X1": triangle(p.rows) * p.in_bits * DATA_TOGGLE})
        sums = energy_pj(tech, {"DFF_X1": (triangle(p.cols) + p.cols) * p.out_bits * DATA_TOGGLE}
                         | {k: n * DATA_TOGGLE for k, n in accumulate.cells.items()})
        self.component = Component(name, "array_io", count=1, area_um2_each=logic.area_um2(tech),
                                   leakage_mw_each=logic.leakage_mw(tech),
                                   energy_pj={"cycle": clock_network_pj(tech, logic), "row": row,
                                              "sums": sums},
                                   actions_per_cycle={"cycle": 1.0, "row": 1.0, "sums": 1.0},
                                   delay_ns=path_delay_ns(tech, adder_path(p.out_bits)),
                                   activity_key="tensor",
                                   params={"rows": p.rows, "cols": p.cols, "accumulate": p.accumulate,
                                           "flip_flops": flops})

    def layer_energy_pj(self, activity: LayerActivity):
        """Its clock every cycle of the layer (its registers hold with enables, as the accelerator's do: no clock
        gating), every line of operands in and every line of sums out (as many: a weight-stationary fold streams a
        line in and a line out per row of A)."""
        e = self.component.energy_pj
        lines = activity.streamed_bytes * 8.0 / (self.params.rows * self.params.in_bits)
        return activity.cycles * activity.cores * e["cycle"] + lines * (e["row"] + e["sums"])
