"""The vector unit (``lanes`` MAC cells, the ``mac`` block family's fitted model) and its register file."""

from __future__ import annotations

from ..components import Component
from ..pipelining import Unit
from ..process import TechNode
from ..sram import dff_array
from .base import AnalyticalUnit, FittedUnit, register
from .params import FP_ACC_WIDTH, RegisterFile, VectorUnit


@register
class VectorLanes(FittedUnit):
    """``lanes`` MAC cells of ``width``-bit operands (or of a floating-point ``dtype``, summing in fp32). Its
    lanes default to the core's widest unit edge (:meth:`FittedUnit.vector_lanes`), given as ``lanes``."""

    kind = "vector_unit"
    family = "mac"
    params_schema = VectorUnit

    def __init__(self, params: VectorUnit, *, path: str, name: str, lanes: int):
        super().__init__(params, path=path, name=name)
        self.lanes = params.lanes or lanes

    def spec(self) -> Unit:
        v = self.params
        w = min(v.width, 32)
        acc = min(64, 2 * w) if v.dtype == "int" else FP_ACC_WIDTH
        return Unit(self.path, self.name, self.family, {"a_width": w, "b_width": w, "acc_width": acc}, v.dtype,
                    v.pipeline, count=self.lanes, ops_per_cycle=2.0, activity_key="vector")


@register
class VectorRegisterFile(AnalyticalUnit):
    """The vector unit's register file (a vector unit always has one, as in NeuroMeter): ``entries`` words of the
    lanes' width, 2 read and 1 write port per functional unit of the core unless the description sets them."""

    kind = "regfile"
    params_schema = RegisterFile

    def __init__(self, params: RegisterFile, *, tech: TechNode, lanes: int, lane_width: int, functional_units: int,
                 path: str = "core.vector_regfile", name: str = "vector_regfile"):
        super().__init__(params, path=path, name=name)
        rp = params.read_ports or 2 * functional_units
        wp = params.write_ports or functional_units
        block = max(1, lanes * lane_width // 8)
        d = dff_array(capacity_bytes=params.entries * block, block_bytes=block, read_ports=rp, write_ports=wp,
                      node_nm=tech.node_nm)
        self.component = Component(name, "regfile", area_um2_each=d["area_um2"], leakage_mw_each=d["leakage_mw"],
                                   energy_pj={"read": d["read_energy_pj"], "write": d["write_energy_pj"]},
                                   actions_per_cycle={"read": rp, "write": wp}, delay_ns=d["cycle_time_ns"],
                                   activity_key="vector", params={"entries": params.entries, "read_ports": rp,
                                                                  "write_ports": wp, "word_bytes": block})
