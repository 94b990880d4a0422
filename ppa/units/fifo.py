"""PE I/O FIFOs (``core.units: [{kind: pe_fifo, count: 504, depth: 4, in_bits: 32, out_bits: 8}]``): the flip-flop
FIFOs between each PE and its networks; NeuroMeter's tensor unit has DFF/SRAM I/O FIFOs (Tang et al., HPCA 2021,
sect. II-A), and its Eyeriss model has "PE I/O FIFO transferring between 32bit to 8bit" (Fig. 5 caption).

Structure (cells of :mod:`accelgen.ppa.units.cells`): ``depth`` words of the wider side in flip-flops, each with a
hold multiplexer (a write enable); a read multiplexer choosing one ``out_bits`` word of the stored ones; a write and
a read pointer (counters over the ``in_bits`` and ``out_bits`` slots) and a comparator of the two for full/empty.
The written word's flip-flops are clocked (clock gating per word). At full activity the narrow side moves a word
every cycle and the wide side one every ``wide / narrow`` cycles.
"""

from __future__ import annotations

from ..components import Component
from ..process import TechNode
from .base import AnalyticalUnit, register
from .cells import DATA_TOGGLE, Logic, bits_for, counter, energy_pj, equality, mux_levels, mux_tree, path_delay_ns
from .params import PEFifo

#: bit flips of a binary counter per increment, averaged over its count: 1 + 1/2 + 1/4 + ... < 2
COUNTER_FLIPS = 2.0


def fifo_logic(depth: int, in_bits: int, out_bits: int) -> tuple[Logic, int, int]:
    """The FIFO's cells, its write and read pointer widths."""
    wide = max(in_bits, out_bits)
    wslots, rslots = depth * wide // in_bits, depth * wide // out_bits
    wp, rp = bits_for(wslots), bits_for(rslots)
    logic = (Logic({"DFF_X1": depth * wide, "MUX2_X1": depth * wide}) + mux_tree(rslots, out_bits)
             + counter(wp) + counter(rp) + equality(max(wp, rp)))
    return logic, wp, rp


def counter_step_pj(tech: TechNode, bits: int) -> float:
    flips = min(COUNTER_FLIPS, bits)
    return energy_pj(tech, {"DFF_X1": flips, "XOR2_X1": flips, "AND2_X1": flips}, clocked_flops=bits)


@register
class PEFifoUnit(AnalyticalUnit):
    kind = "pe_fifo"
    params_schema = PEFifo
    placeable = True

    def __init__(self, params: PEFifo, *, tech: TechNode, path: str, name: str = "pe_fifos"):
        super().__init__(params, path=path, name=name)
        p = params
        wide = max(p.in_bits, p.out_bits)
        logic, wp, rp = fifo_logic(p.depth, p.in_bits, p.out_bits)
        levels = mux_levels(p.depth * wide // p.out_bits)
        write = energy_pj(tech, {"DFF_X1": p.in_bits * DATA_TOGGLE, "MUX2_X1": p.in_bits * DATA_TOGGLE},
                          clocked_flops=p.in_bits) + counter_step_pj(tech, wp)
        read = energy_pj(tech, {"MUX2_X1": p.out_bits * levels * DATA_TOGGLE}) + counter_step_pj(tech, rp)
        self.component = Component(name, "fifo", count=p.count, area_um2_each=logic.area_um2(tech),
                                   leakage_mw_each=logic.leakage_mw(tech), energy_pj={"write": write, "read": read},
                                   actions_per_cycle={"write": min(1.0, p.out_bits / p.in_bits),
                                                      "read": min(1.0, p.in_bits / p.out_bits)},
                                   delay_ns=path_delay_ns(tech, ["DFF_X1"] + ["MUX2_X1"] * levels + ["DFF_X1"]),
                                   activity_key="pe_memory",
                                   params={"depth": p.depth, "in_bits": p.in_bits, "out_bits": p.out_bits})
