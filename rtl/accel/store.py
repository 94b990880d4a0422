"""The store unit: STORE commands move accumulator lines through the activation stage to external memory over the
AXI4 write channels; CONFIG commands, in order with the stores, set the activation stage.

A STORE reads its accumulator lines as the accumulator's second reader (a cycle the execute unit reads the same
bank is lost), one per cycle while the write-data queue has room for everything in flight, and gives its token
(``push_prev``) with its last read. The address side issues the command's bursts meanwhile; the data side sends the
queued lines as the bursts' beats (``wlast`` on each burst's last), and the unit is idle once every burst's response
is back. A CONFIG waits until no line is between the accumulator and the queue.
"""

from __future__ import annotations

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from ...params.accel import COMMAND_BITS, OPCODES, AccelParams
from .activation import ACTIVATION_LATENCY, ActivationStage
from .axi import BurstSplitter
from .load import field

__all__ = ["StoreUnit"]

#: lines of results waiting for the write channel, at most
WRITE_QUEUE = 16
#: bursts issued whose data has not all been sent, at most
PENDING_BURSTS = 8


class StoreUnit(wiring.Component):
    """Executes STORE and CONFIG commands (see the module docstring).

    Ports
    -----
    cmd_valid, cmd_ready, cmd_data : the unit's command queue.
    token_ok, token_take : a token from the execute unit (``pop_prev``); token_give : gives the execute unit one when
    a store has read its last accumulator line (``push_prev``).
    acc_raddr, acc_ren, acc_grant, acc_rdata : the accumulator's second reader.
    aw_addr, aw_len, aw_valid, aw_ready; w_data, w_last, w_valid, w_ready; b_valid, b_ready : the AXI4 write channels.
    idle : Out(1), no command in progress, nothing queued, every response back.
    """

    def __init__(self, params: AccelParams):
        self.params = p = params
        super().__init__({"cmd_valid": In(1), "cmd_ready": Out(1), "cmd_data": In(COMMAND_BITS),
                          "token_ok": In(1), "token_take": Out(1), "token_give": Out(1),
                          "acc_raddr": Out(16), "acc_ren": Out(1), "acc_grant": In(1),
                          "acc_rdata": In(p.array.cols * p.acc_width),
                          "aw_addr": Out(p.addr_width), "aw_len": Out(8), "aw_valid": Out(1), "aw_ready": In(1),
                          "w_data": Out(p.line_bits), "w_last": Out(1), "w_valid": Out(1), "w_ready": In(1),
                          "b_valid": In(1), "b_ready": Out(1), "idle": Out(1)})

    def elaborate(self, platform):
        m = Module()
        p = self.params
        m.submodules.bursts = bursts = BurstSplitter(p.addr_width, p.line_bytes, p.max_burst)
        m.submodules.act = act = ActivationStage(p)
        m.submodules.queue = queue = SyncFIFOBuffered(width=p.line_bits, depth=WRITE_QUEUE)
        m.submodules.lengths = lengths = SyncFIFOBuffered(width=9, depth=PENDING_BURSTS)
        relu, shift, scale = Signal(), Signal(6), Signal(32)
        m.d.comb += [act.relu.eq(relu), act.shift.eq(shift), act.scale.eq(scale)]
        # ---- reads: one line per granted cycle
        reading = Signal()
        base, count, index = Signal(16), Signal(16), Signal(16)
        give = Signal()
        in_flight = Signal(range(ACTIVATION_LATENCY + 2))   # reads granted whose line is not yet queued
        granted_q = Signal()
        room = Signal()
        m.d.comb += room.eq(queue.level + in_flight < WRITE_QUEUE - 1)
        m.d.comb += [self.acc_raddr.eq(base + index), self.acc_ren.eq(reading & room)]
        granted = Signal()
        m.d.comb += granted.eq(self.acc_ren & self.acc_grant)
        m.d.sync += granted_q.eq(granted)
        m.d.comb += [act.acc.eq(self.acc_rdata), act.valid_in.eq(granted_q),
                     queue.w_data.eq(act.out), queue.w_en.eq(act.valid_out)]
        m.d.sync += in_flight.eq(in_flight + granted - act.valid_out)
        with m.If(granted):
            m.d.sync += index.eq(index + 1)
            with m.If(index == count - 1):
                m.d.sync += reading.eq(0)
                m.d.comb += self.token_give.eq(give)
        # ---- commands
        cmd = self.cmd_data
        op = cmd[:4]
        is_store, is_config = op == OPCODES["store"], op == OPCODES["config"]
        wait = field(cmd, "store", "pop_prev")
        start_store, set_config = Signal(), Signal()
        m.d.comb += [
            start_store.eq(self.cmd_valid & is_store & ~reading & bursts.idle & (~wait | self.token_ok)),
            set_config.eq(self.cmd_valid & is_config & ~reading & (in_flight == 0) & ~granted_q),
            self.cmd_ready.eq(start_store | set_config | (self.cmd_valid & ~is_store & ~is_config)),
            self.token_take.eq(start_store & wait),
            bursts.start.eq(start_store), bursts.addr.eq(field(cmd, "store", "dram_addr")),
            bursts.lines.eq(field(cmd, "store", "lines")), bursts.stride.eq(field(cmd, "store", "stride")),
        ]
        with m.If(start_store):
            m.d.sync += [reading.eq(1), base.eq(field(cmd, "store", "acc_addr")),
                         count.eq(field(cmd, "store", "lines")), index.eq(0),
                         give.eq(field(cmd, "store", "push_prev"))]
        with m.If(set_config):
            m.d.sync += [relu.eq(field(cmd, "config", "relu")), shift.eq(field(cmd, "config", "shift")),
                         scale.eq(field(cmd, "config", "scale"))]
        # ---- addresses: each burst's length goes to the data side
        m.d.comb += [self.aw_addr.eq(bursts.burst_addr), self.aw_len.eq(bursts.burst_beats - 1),
                     self.aw_valid.eq(bursts.burst_valid & lengths.w_rdy),
                     bursts.burst_ready.eq(self.aw_ready & lengths.w_rdy),
                     lengths.w_en.eq(bursts.burst_valid & self.aw_ready & lengths.w_rdy),
                     lengths.w_data.eq(bursts.burst_beats)]
        # ---- data: the queued lines as beats of the bursts in order
        beat = Signal(9)
        last = Signal()
        m.d.comb += [last.eq(beat == lengths.r_data - 1),
                     self.w_data.eq(queue.r_data), self.w_last.eq(last),
                     self.w_valid.eq(queue.r_rdy & lengths.r_rdy)]
        sent = Signal()
        m.d.comb += [sent.eq(self.w_valid & self.w_ready), queue.r_en.eq(sent)]
        with m.If(sent):
            m.d.sync += beat.eq(beat + 1)
            with m.If(last):
                m.d.sync += beat.eq(0)
                m.d.comb += lengths.r_en.eq(1)
        # ---- responses
        outstanding = Signal(16)
        issued = Signal()
        m.d.comb += [issued.eq(self.aw_valid & self.aw_ready), self.b_ready.eq(1)]
        m.d.sync += outstanding.eq(outstanding + issued - (self.b_valid & self.b_ready))
        m.d.comb += self.idle.eq(~reading & ~start_store & bursts.idle & (in_flight == 0) & ~granted_q
                                 & (queue.level == 0) & (lengths.level == 0) & (outstanding == 0) & ~issued)
        return m
