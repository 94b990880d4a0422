"""TensorDash's dense baseline (``depth: 1``): the PE or tile without TensorDash (:mod:`accelgen.rtl.tensordash`).

What TensorDash adds to a dense data-parallel PE is missing here: no staging rows beyond the current
one, no zero detectors or ``live`` flags, no scheduler and no operand multiplexers. Each lane multiplies
its own ``(a, b)`` pair of the current row in every busy cycle, zeros included, and the products go
through the same lane multipliers, lane adder tree and accumulator (the same ``mul_stages`` /
``add_stages`` pipelining and interleaved-accumulator fold) as in the TensorDash PE, so the two differ
exactly by TensorDash's hardware: the reference for its area and power overhead (docs/architecture.md, "TensorDash").

The current row is held in one register row per operand stream (:func:`operand_row`): the operand
registers in front of the multipliers that the dense PE has too (row 0 of TensorDash's staging buffers),
loaded with window row 0 at ``start`` and in every busy cycle, so that the port protocol and the cycle
counts are those of the TensorDash PE with ``D = 1``: ``take`` is 1 at ``start`` and in every busy cycle,
and a stream of ``N`` rows takes ``N`` busy cycles.
"""

from __future__ import annotations

from amaranth import Const, Module, Signal

from .tensordash_datapath import OperandFront, op_shape

__all__ = ["DenseRow", "operand_row"]


def operand_row(m: Module, name: str, shape, window_row, load) -> list[Signal]:
    """The current row of one operand stream: ``L`` registers ``<name>_row_l<l>`` that take window row 0
    (``window_row``) when ``load`` is high and hold otherwise."""
    row = [Signal(shape, name=f"{name}_row_l{l}") for l in range(len(window_row))]
    with m.If(load):
        m.d.sync += [reg.eq(value) for reg, value in zip(row, window_row)]
    return row


class DenseRow(OperandFront):
    """The dense baseline's front (:class:`~accelgen.rtl.tensordash_datapath.OperandFront`): one register
    row per stream in ``streams`` (buffer name to ``(window port, width)``, as for
    :class:`~accelgen.rtl.tensordash_datapath.ScheduledBuffers`) and the row's valid bit, ``busy``.

    ``start`` or a busy cycle loads window row 0 and its ``next_valid`` bit; ``take`` is then 1. Every lane
    multiplies its own operands, so ``sel`` is 1 in every busy cycle (option 0, the lane's dense slot) and
    0 otherwise.
    """

    def __init__(self, m: Module, component, streams: dict[str, tuple[object, int]]):
        super().__init__(m, component)
        p, start = self.params, component.start
        self.busy = Signal(name="row_valid")
        self.step = Signal(name="step")
        self.shift = Const(1, 1)
        self.selects = [self.busy] * p.lanes
        load = Signal(name="row_load")
        m.d.comb += [self.step.eq(self.busy & ~start), load.eq(start | self.busy)]
        self.shapes = {name: op_shape(p, width) for name, (_, width) in streams.items()}
        self.rows = {name: operand_row(m, name, self.shapes[name], window[0], load)
                     for name, (window, _) in streams.items()}
        with m.If(load):
            m.d.sync += self.busy.eq(component.next_valid[0])

    def lane_operands(self, name: str, idle: int = 0) -> list[Signal]:
        """Per lane its own operand of stream ``name`` (no multiplexer; ``idle`` is unused: no lane idles
        while busy)."""
        return self.rows[name]
