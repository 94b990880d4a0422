"""A die block accelgen has no generator for, from its published figures (``core.units: [{kind: die_block, ...}]``).

Chips have blocks beside their compute and memory (an inter-chip link, a transpose unit, an activation pipeline):
such a block is placed by its area, leakage and energy per cycle at a reference node, scaled to the chip's node
as the analytical models scale (:func:`accelgen.ppa.process.area_ratio` for area and leakage,
:func:`accelgen.ppa.process.energy_ratio`, C V^2, for energy). A block with its own cost model is a unit class of
its own (:mod:`accelgen.ppa.units.base`).
"""

from __future__ import annotations

from ..components import Component
from ..process import TechNode, area_ratio, energy_ratio
from .base import AnalyticalUnit, register
from .params import DieBlock


@register
class DieBlockUnit(AnalyticalUnit):
    kind = "die_block"
    params_schema = DieBlock
    placeable = True

    def __init__(self, params: DieBlock, *, tech: TechNode, path: str, name: str = ""):
        super().__init__(params, path=path, name=params.name)
        area = area_ratio(tech, params.ref_node_nm)
        self.component = Component(params.name, "die_block", count=params.count,
                                   area_um2_each=params.area_mm2 * 1e6 * area,
                                   leakage_mw_each=params.leakage_mw * area,
                                   energy_pj={"cycle": params.energy_pj_per_cycle
                                              * energy_ratio(tech, params.ref_node_nm, params.ref_vdd_v)},
                                   actions_per_cycle={"cycle": 1.0}, activity_key=params.activity_key,
                                   params={"ref_node_nm": params.ref_node_nm})
