"""The transpose unit (``core.units: [{kind: transpose, size: 128, width: 32}]``): TPU-v2/v3 have one per core beside
the MXU (NeuroMeter, Tang et al., HPCA 2021, sect. II-C, lists it among the blocks it did not model, 11% of TPU-v2's
die together with the RPU and misc datapath).

Structure: a ``size x size`` array of ``width``-bit registers, each register with a 2:1 multiplexer choosing its row
neighbour or its column neighbour. Vectors shift in along the rows; the select flips and they shift out along the
columns, transposed: one vector in and one out per cycle, every register clocked every cycle (``shift``). Built of
the gate-level cells of :mod:`accelgen.ppa.units.cells`; the select's buffer tree is not counted.
"""

from __future__ import annotations

from ..components import Component
from ..process import TechNode
from .base import AnalyticalUnit, register
from .cells import DATA_TOGGLE, Logic, energy_pj, path_delay_ns
from .params import Transpose


def transpose_logic(size: int, width: int) -> Logic:
    bits = size * size * width
    return Logic({"DFF_X1": bits, "MUX2_X1": bits})


@register
class TransposeUnit(AnalyticalUnit):
    kind = "transpose"
    params_schema = Transpose
    placeable = True

    def __init__(self, params: Transpose, *, tech: TechNode, path: str, name: str = "transpose_unit"):
        super().__init__(params, path=path, name=name)
        bits = params.size * params.size * params.width
        logic = transpose_logic(params.size, params.width)
        shift = energy_pj(tech, {"DFF_X1": bits * DATA_TOGGLE, "MUX2_X1": bits * DATA_TOGGLE}, clocked_flops=bits)
        self.component = Component(name, "transpose", count=params.count, area_um2_each=logic.area_um2(tech),
                                   leakage_mw_each=logic.leakage_mw(tech), energy_pj={"shift": shift},
                                   actions_per_cycle={"shift": 1.0},
                                   delay_ns=path_delay_ns(tech, ["DFF_X1", "MUX2_X1", "DFF_X1"]),
                                   activity_key="vector", params={"size": params.size, "width": params.width,
                                                                  "registers": params.size ** 2})
