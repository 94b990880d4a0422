"""The DMA engine and command path of a decoupled access-execute accelerator (``core.units: [{kind: dma,
line_bits: 128}]``): what moves lines between external memory and the on-chip memories, and what feeds the units
their commands.

Structure (cells of :mod:`accelgen.ppa.units.cells`), as :class:`accelgen.rtl.accel.Accelerator` builds it:

* ``queues`` command queues of ``queue_depth`` commands of ``command_bits`` bits (flip-flop FIFOs,
  :func:`accelgen.ppa.units.fifo.fifo_logic`), one per in-order unit (load, execute, store in VTA's decoupled
  pipeline);
* per queue a record FIFO of ``pending`` transfers in flight (a 16-bit line address, a 16-bit count and a flag) and an
  address generator: a start-address and a count register, a line counter and an address adder (16 bits: the
  on-chip line addresses);
* per AXI direction a burst splitter: the current address (``addr_bits``), the lines remaining and the stride, an
  address adder, a remaining-lines subtractor, the 4 KB boundary's distance (a 12-bit subtractor) and the three
  comparisons that choose the burst's beats (16 bits each);
* ``tokens`` token counters of ``token_bits`` (an up/down counter: an adder and a zero detect);
* a write queue of ``write_queue_lines`` lines of ``line_bits`` in front of the write channel.

Delay: the address adder, register to register, as a timing-driven mapping builds it (a carry tree of
``log2(addr_bits)`` levels, :func:`~accelgen.ppa.units.cells.adder_path`). Actions: ``cycle``, every flip-flop clocked
(the queues' storage has write enables, not clock gates), at the fitted blocks' clock-network model
(:func:`~accelgen.ppa.units.cells.clock_network_pj`); ``line``, a line of ``line_bits`` through the write queue or
the read data path, half its bits toggling. At full activity a line each way every cycle.
"""

from __future__ import annotations

from ..components import Component
from ..process import TechNode
from .base import AnalyticalUnit, LayerActivity, register
from .cells import (DATA_TOGGLE, Logic, adder, adder_path, clock_network_pj, counter, energy_pj, equality, mux_levels,
                    path_delay_ns)
from .fifo import fifo_logic
from .params import Dma

#: bits of an on-chip line address and of a transfer's line count (the command fields)
LINE_ADDR_BITS = 16
#: the AXI4 boundary a burst may not cross (4 KB) and the bits of an address within it
BOUNDARY_BITS = 12
#: AXI directions: read (loads) and write (stores)
DIRECTIONS = 2


def comparator(bits: int) -> Logic:
    """A magnitude comparison of two ``bits``-bit values: a subtractor's carry chain."""
    return adder(bits)


def dma_logic(p: Dma) -> Logic:
    """The cells of the DMA and command path (module docstring)."""
    queues = fifo_logic(p.queue_depth, p.command_bits, p.command_bits)[0].times(p.queues)
    record = 2 * LINE_ADDR_BITS + 1
    per_unit = (fifo_logic(p.pending, record, record)[0] + Logic({"DFF_X1": 2 * LINE_ADDR_BITS})
                + counter(LINE_ADDR_BITS) + adder(LINE_ADDR_BITS) + equality(LINE_ADDR_BITS)).times(p.queues)
    burst = (Logic({"DFF_X1": p.addr_bits + LINE_ADDR_BITS + 32 + 2}) + adder(p.addr_bits) + adder(LINE_ADDR_BITS)
             + adder(BOUNDARY_BITS) + comparator(LINE_ADDR_BITS).times(3)
             + Logic({"MUX2_X1": p.addr_bits + 2 * LINE_ADDR_BITS})).times(DIRECTIONS)
    tokens = (Logic({"DFF_X1": p.token_bits}) + adder(p.token_bits).times(2)
              + equality(p.token_bits)).times(p.tokens)
    write_queue = fifo_logic(p.write_queue_lines, p.line_bits, p.line_bits)[0]
    return queues + per_unit + burst + tokens + write_queue


@register
class DmaUnit(AnalyticalUnit):
    kind = "dma"
    params_schema = Dma
    placeable = True

    def __init__(self, params: Dma, *, tech: TechNode, path: str, name: str = "dma"):
        super().__init__(params, path=path, name=name)
        p = params
        logic = dma_logic(p)
        flops = logic.cells["DFF_X1"]
        levels = mux_levels(p.write_queue_lines)
        line = energy_pj(tech, {"DFF_X1": p.line_bits * DATA_TOGGLE,
                                "MUX2_X1": p.line_bits * (1 + levels) * DATA_TOGGLE})
        self.component = Component(name, "dma", count=1, area_um2_each=logic.area_um2(tech),
                                   leakage_mw_each=logic.leakage_mw(tech),
                                   energy_pj={"cycle": clock_network_pj(tech, logic), "line": line},
                                   actions_per_cycle={"cycle": 1.0, "line": float(DIRECTIONS)},
                                   delay_ns=path_delay_ns(tech, adder_path(p.addr_bits)),
                                   activity_key="dram",
                                   params={"line_bits": p.line_bits, "flip_flops": flops})

    def layer_energy_pj(self, activity: LayerActivity):
        """Its clock every cycle of the layer on every core, and every line it moves."""
        e = self.component.energy_pj
        return activity.cycles * activity.cores * e["cycle"] + activity.dram_bytes * 8.0 / self.params.line_bits \
            * e["line"]
