"""The execute unit: COMPUTE commands run one weight-stationary fold on the tensor unit.

A fold follows the systolic array's cycle model (:func:`accelgen.golden.systolic.systolic_cycles`, ``shift``) cycle
for cycle: ``rows`` cycles shifting the weight lines ``w_addr + rows - 1`` down to ``w_addr`` into the array, ``m_len``
cycles streaming the activation lines ``a_addr ...`` (each row of the array delayed by its skew), then ``skew - 1``
cycles in which the last activations cross the array; the next fold's weights start in the cycle after, so folds
follow each other with the model's ``fold_cycles`` period when their commands are waiting. The scratchpad is read one
cycle ahead of the array, which delays every fold alike.

The results leave the bottom of the array skewed by column; each column is delayed into line with the last one,
and each line of ``cols`` sums is written to the accumulator line ``acc_addr + m`` (``accumulate``: added to the line
there, a read-modify-write of the accumulator's first reader; else written over it).
"""

from __future__ import annotations

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from ...params.accel import COMMAND_BITS, AccelParams
from ..fp import FPAdder
from .load import field

__all__ = ["ExecuteUnit", "fold_drain_cycles"]

_IDLE, _LOAD, _STREAM, _DRAIN = range(4)
#: folds whose results have not all reached the accumulator, at most
PENDING_FOLDS = 4


def fold_drain_cycles(p: AccelParams) -> int:
    """Cycles after a fold's last activation before the next fold's weights may shift: ``skew - 1``
    (:func:`accelgen.golden.systolic.systolic_cycles`: ``skew = (rows - 1) * (add_stages + 1) + cols - 1``)."""
    a = p.array
    return (a.rows - 1) * a.row_hop + a.cols - 2


class ExecuteUnit(wiring.Component):
    """Executes COMPUTE commands (see the module docstring).

    Ports
    -----
    cmd_valid, cmd_ready, cmd_data : the unit's command queue.
    load_ok, load_take : a token from the load unit (``pop_prev``); store_ok, store_take : from the store unit
    (``pop_next``); load_give : gives the load unit a token once the fold has read its last scratchpad line
    (``push_prev``); store_give : gives the store unit one once its last sum is in the accumulator (``push_next``).
    sp_raddr, sp_ren, sp_rdata : the scratchpad's read port (data one cycle after the address).
    a_in[rows], a_valid[rows], w_in[cols], w_load, psum_out[cols], out_valid[cols] : the array's ports.
    acc_raddr, acc_ren, acc_rdata : the accumulator's first reader (never refused); acc_waddr, acc_wdata, acc_wen : its
    write port.
    idle : Out(1), no fold running and none of its results outstanding.
    """

    def __init__(self, params: AccelParams):
        self.params = p = params
        a = p.array
        acc_line = a.cols * p.acc_width
        super().__init__({
            "cmd_valid": In(1), "cmd_ready": Out(1), "cmd_data": In(COMMAND_BITS),
            "load_ok": In(1), "load_take": Out(1), "store_ok": In(1), "store_take": Out(1),
            "load_give": Out(1), "store_give": Out(1),
            "sp_raddr": Out(16), "sp_ren": Out(1), "sp_rdata": In(p.line_bits),
            "a_in": Out(p.operand_bits).array(a.rows), "a_valid": Out(1).array(a.rows),
            "w_in": Out(p.operand_bits).array(a.cols), "w_load": Out(1),
            "psum_out": In(p.acc_width).array(a.cols), "out_valid": In(1).array(a.cols),
            "acc_raddr": Out(16), "acc_ren": Out(1), "acc_rdata": In(acc_line),
            "acc_waddr": Out(16), "acc_wdata": Out(acc_line), "acc_wen": Out(1), "idle": Out(1)})

    def elaborate(self, platform):
        m = Module()
        p = self.params
        a = p.array
        w = p.operand_bits
        drain = fold_drain_cycles(p)
        # ---- the sequencer: one phase per part of a fold, ``left`` counting its remaining cycles down
        phase = Signal(range(4))
        left = Signal(16)
        index = Signal(16)
        a_addr, w_addr, m_len = Signal(16), Signal(16), Signal(16)
        give_load = Signal()
        m.submodules.folds = folds = SyncFIFOBuffered(width=34, depth=PENDING_FOLDS)
        cmd = self.cmd_data
        wait_load, wait_store = field(cmd, "compute", "pop_prev"), field(cmd, "compute", "pop_next")
        can_take = Signal()
        with m.Switch(phase):
            with m.Case(_IDLE):
                m.d.comb += can_take.eq(1)
            with m.Case(_STREAM):
                if drain == 0:   # no drain phase: the next fold may start after the last activation
                    m.d.comb += can_take.eq(left == 0)
            with m.Case(_DRAIN):
                m.d.comb += can_take.eq(left == 0)
        take = Signal()
        m.d.comb += [
            take.eq(can_take & self.cmd_valid & folds.w_rdy & (~wait_load | self.load_ok)
                    & (~wait_store | self.store_ok)),
            self.cmd_ready.eq(take), self.load_take.eq(take & wait_load), self.store_take.eq(take & wait_store),
            folds.w_en.eq(take),
            folds.w_data.eq(Cat(field(cmd, "compute", "acc_addr"), field(cmd, "compute", "m_len"),
                                field(cmd, "compute", "accumulate"), field(cmd, "compute", "push_next"))),
        ]
        loading, streaming = Signal(), Signal()   # this cycle's scratchpad read feeds the array next cycle
        m.d.comb += [loading.eq(phase == _LOAD), streaming.eq(phase == _STREAM),
                     self.sp_ren.eq(loading | streaming),
                     self.sp_raddr.eq(Mux(loading, w_addr + left, a_addr + index))]
        with m.If(phase != _IDLE):
            m.d.sync += left.eq(left - 1)
        with m.If(streaming):
            m.d.sync += index.eq(index + 1)
        with m.If(streaming & (left == 0)):
            m.d.comb += self.load_give.eq(give_load)
        with m.Switch(phase):
            with m.Case(_LOAD):
                with m.If(left == 0):
                    m.d.sync += [phase.eq(_STREAM), left.eq(m_len - 1), index.eq(0)]
            with m.Case(_STREAM):
                with m.If(left == 0):
                    if drain:
                        m.d.sync += [phase.eq(_DRAIN), left.eq(drain - 1)]
                    else:
                        m.d.sync += phase.eq(_IDLE)
            with m.Case(_DRAIN):
                with m.If(left == 0):
                    m.d.sync += phase.eq(_IDLE)
        with m.If(take):   # overrides the end of the current fold: the next one starts without a gap
            m.d.sync += [phase.eq(_LOAD), left.eq(a.rows - 1), a_addr.eq(field(cmd, "compute", "a_addr")),
                         w_addr.eq(field(cmd, "compute", "w_addr")), m_len.eq(field(cmd, "compute", "m_len")),
                         give_load.eq(field(cmd, "compute", "push_prev"))]
        # ---- the array's edges, one cycle after the read
        was_loading, was_streaming = Signal(), Signal()
        m.d.sync += [was_loading.eq(loading), was_streaming.eq(streaming)]
        line = [self.sp_rdata[i * w:(i + 1) * w] for i in range(a.rows)]
        m.d.comb += self.w_load.eq(was_loading)
        for c in range(a.cols):
            m.d.comb += self.w_in[c].eq(Mux(was_loading, line[c], 0))
        for r in range(a.rows):   # row r's activations enter r * row_hop cycles after row 0's
            value, valid = Mux(was_streaming, line[r], 0), was_streaming
            for k in range(r * a.row_hop):
                value_q, valid_q = Signal(w, name=f"skew_a_{r}_{k}"), Signal(name=f"skew_v_{r}_{k}")
                m.d.sync += [value_q.eq(value), valid_q.eq(valid)]
                value, valid = value_q, valid_q
            m.d.comb += [self.a_in[r].eq(value), self.a_valid[r].eq(valid)]
        writing = self._write_back(m, folds)
        m.d.comb += self.idle.eq((phase == _IDLE) & (folds.level == 0) & ~take & ~writing)
        return m

    def _write_back(self, m: Module, folds: SyncFIFOBuffered) -> Signal:
        """De-skew the columns and write each line of sums into the accumulator (read-modify-write when
        accumulating); returns the signal that a write is pending."""
        p = self.params
        a = p.array
        aw = p.acc_width
        sums = []
        for c in range(a.cols):   # column c leaves c cycles after column 0: delay it to the last column's cycle
            value = self.psum_out[c]
            for k in range(a.cols - 1 - c):
                value_q = Signal(aw, name=f"deskew_{c}_{k}")
                m.d.sync += value_q.eq(value)
                value = value_q
            sums.append(value)
        row_valid = self.out_valid[a.cols - 1]
        head_addr, head_len = folds.r_data[:16], folds.r_data[16:32]
        head_accumulate, head_push = folds.r_data[32], folds.r_data[33]
        row = Signal(16)
        last = Signal()
        m.d.comb += last.eq(row == head_len - 1)
        # cycle 1: the sums of a line arrive; ask for the accumulator line they add to
        m.d.comb += [self.acc_raddr.eq(head_addr + row), self.acc_ren.eq(row_valid & head_accumulate)]
        with m.If(row_valid):
            m.d.sync += row.eq(Mux(last, 0, row + 1))
            m.d.comb += folds.r_en.eq(last)
        # cycle 2: add (or not) and write
        wb_valid, wb_accumulate, wb_give = Signal(), Signal(), Signal()
        wb_addr = Signal(16)
        wb_sums = [Signal(aw, name=f"wb_sum_{c}") for c in range(a.cols)]
        m.d.sync += [wb_valid.eq(row_valid), wb_accumulate.eq(head_accumulate), wb_addr.eq(head_addr + row),
                     wb_give.eq(row_valid & last & head_push)]
        m.d.sync += [wb_sums[c].eq(sums[c]) for c in range(a.cols)]
        new = []
        for c in range(a.cols):
            old = self.acc_rdata[c * aw:(c + 1) * aw]
            if a.is_fp:
                adder = FPAdder(a.flush_subnormals)
                m.submodules[f"acc_add_{c}"] = adder
                m.d.comb += [adder.a.eq(old), adder.b.eq(wb_sums[c])]
                total = adder.sum
            else:
                total = (old + wb_sums[c])[:aw]
            new.append(Mux(wb_accumulate, total, wb_sums[c]))
        m.d.comb += [self.acc_waddr.eq(wb_addr), self.acc_wdata.eq(Cat(*new)), self.acc_wen.eq(wb_valid),
                     self.store_give.eq(wb_give)]
        return wb_valid
