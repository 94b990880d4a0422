"""The load unit: LOAD commands move lines from external memory into the scratchpad over the AXI4 read channels.

The address side takes a command (after the token it waits for, if any), cuts it into bursts
(:class:`~accelgen.rtl.accel.axi.BurstSplitter`) and issues them back to back; it then takes the next command while
the data of the previous ones is still returning. The data side writes every beat into the next scratchpad line of
the oldest command still receiving, and gives that command's token (``push_next``) with its last line.
"""

from __future__ import annotations

from amaranth import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from ...params.accel import COMMAND_BITS, FIELDS, AccelParams
from .axi import BurstSplitter

__all__ = ["LoadUnit", "field"]

#: commands whose data is still returning, at most (the address side waits beyond that)
PENDING_LOADS = 4


def field(word, op: str, name: str):
    """The bits of field ``name`` of an ``op`` command in ``word`` (:data:`accelgen.params.accel.FIELDS`)."""
    lsb, width = FIELDS[op][name]
    return word[lsb:lsb + width]


class LoadUnit(wiring.Component):
    """Executes LOAD commands (see the module docstring).

    Ports
    -----
    cmd_valid, cmd_ready, cmd_data : the unit's command queue (a LOAD command at its head when ``cmd_valid``).
    token_ok : In(1), a token from the execute unit is available; token_take : Out(1), takes it (``pop_next``).
    token_give : Out(1), gives the execute unit a token (``push_next``, with a command's last line).
    ar_addr, ar_len, ar_valid, ar_ready; r_data, r_valid, r_ready : the AXI4 read channels (other fields constant).
    sp_addr, sp_data, sp_en : the scratchpad's write port.
    idle : Out(1), no command in progress and no data outstanding.
    """

    def __init__(self, params: AccelParams):
        self.params = p = params
        super().__init__({"cmd_valid": In(1), "cmd_ready": Out(1), "cmd_data": In(COMMAND_BITS),
                          "token_ok": In(1), "token_take": Out(1), "token_give": Out(1),
                          "ar_addr": Out(p.addr_width), "ar_len": Out(8), "ar_valid": Out(1), "ar_ready": In(1),
                          "r_data": In(p.line_bits), "r_valid": In(1), "r_ready": Out(1),
                          "sp_addr": Out(16), "sp_data": Out(p.line_bits), "sp_en": Out(1), "idle": Out(1)})

    def elaborate(self, platform):
        m = Module()
        p = self.params
        m.submodules.bursts = bursts = BurstSplitter(p.addr_width, p.line_bytes, p.max_burst)
        # one record per command whose data is outstanding: first line, line count, whether to give a token
        m.submodules.pending = pending = SyncFIFOBuffered(width=33, depth=PENDING_LOADS)
        cmd = self.cmd_data
        wait = field(cmd, "load", "pop_next")
        lines = field(cmd, "load", "lines")
        start = Signal()
        m.d.comb += start.eq(self.cmd_valid & bursts.idle & pending.w_rdy & (~wait | self.token_ok))
        m.d.comb += [
            self.cmd_ready.eq(start),
            self.token_take.eq(start & wait),
            bursts.start.eq(start), bursts.addr.eq(field(cmd, "load", "dram_addr")), bursts.lines.eq(lines),
            bursts.stride.eq(field(cmd, "load", "stride")),
            pending.w_en.eq(start),
            pending.w_data.eq(Cat(field(cmd, "load", "sp_addr"), lines, field(cmd, "load", "push_next"))),
            self.ar_addr.eq(bursts.burst_addr), self.ar_len.eq(bursts.burst_beats - 1),
            self.ar_valid.eq(bursts.burst_valid), bursts.burst_ready.eq(self.ar_ready),
        ]
        # data side: the oldest pending command takes each beat
        offset = Signal(16)
        head_addr, head_lines, head_push = pending.r_data[:16], pending.r_data[16:32], pending.r_data[32]
        last = Signal()
        m.d.comb += [last.eq(offset == head_lines - 1),
                     self.r_ready.eq(pending.r_rdy),
                     self.sp_addr.eq(head_addr + offset), self.sp_data.eq(self.r_data),
                     self.sp_en.eq(self.r_valid & pending.r_rdy)]
        with m.If(self.r_valid & pending.r_rdy):
            m.d.sync += offset.eq(offset + 1)
            with m.If(last):
                m.d.sync += offset.eq(0)
                m.d.comb += [pending.r_en.eq(1), self.token_give.eq(head_push)]
        m.d.comb += self.idle.eq(bursts.idle & (pending.level == 0) & ~start)
        return m
