"""A memory of lines split into banks of consecutive lines, each bank an Amaranth ``lib.memory`` with one write port
and one read port (1R1W: what the architecture file's ``ports: 1r1w`` costs).

Several readers share the banks' read ports by fixed priority (reader 0 first): a reader is granted a cycle when no
reader before it reads the same bank, so readers working in different banks (the tensor unit accumulating into one
accumulator buffer while the store unit drains the other) never wait. One writer. A read returns its line the cycle
after it was granted; a read of the line being written in the same cycle returns the new line (the read port is
transparent for the write port), so a read-modify-write may follow itself on one line every cycle.
"""

from __future__ import annotations

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

__all__ = ["BankedMemory"]


class BankedMemory(wiring.Component):
    """``lines`` lines of ``width`` bits in ``banks`` banks of consecutive lines.

    Ports
    -----
    w_addr : In(16), w_data : In(width), w_en : In(1)
        The writer: line ``w_addr`` takes ``w_data`` at the end of a cycle with ``w_en``.
    r_addr[readers] : In(16), r_en[readers] : In(1), r_grant[readers] : Out(1)
        Reader ``i`` asks for line ``r_addr[i]``; ``r_grant[i]`` (combinational) says whether it reads this cycle.
    r_data[readers] : Out(width)
        The line reader ``i`` was granted in the previous cycle.
    """

    def __init__(self, lines: int, width: int, banks: int, readers: int = 1):
        self.lines, self.width, self.banks, self.readers = lines, width, banks, readers
        self.bank_lines = lines // banks
        super().__init__({"w_addr": In(16), "w_data": In(width), "w_en": In(1),
                          "r_addr": In(16).array(readers), "r_en": In(1).array(readers),
                          "r_grant": Out(1).array(readers), "r_data": Out(width).array(readers)})

    def _bank(self, addr):
        return addr[self.bank_lines.bit_length() - 1:16] if self.banks > 1 else 0

    def elaborate(self, platform):
        m = Module()
        low = self.bank_lines.bit_length() - 1
        granted_bank = [Signal(range(max(self.banks, 2)), name=f"r_bank_{i}") for i in range(self.readers)]
        for i in range(self.readers):
            clash = 0
            for j in range(i):
                same = self._bank(self.r_addr[j]) == self._bank(self.r_addr[i])
                clash = clash | (self.r_grant[j] & same)
            m.d.comb += self.r_grant[i].eq(self.r_en[i] & ~clash)
            m.d.sync += granted_bank[i].eq(self._bank(self.r_addr[i]))
        datas = []
        for b in range(self.banks):
            mem = Memory(shape=self.width, depth=self.bank_lines, init=[])
            m.submodules[f"bank{b}"] = mem
            wp = mem.write_port()
            rp = mem.read_port(transparent_for=(wp,))
            m.d.comb += [wp.addr.eq(self.w_addr[:low]), wp.data.eq(self.w_data),
                         wp.en.eq(self.w_en & (self._bank(self.w_addr) == b)), rp.en.eq(0)]
            # the first reader (by priority) that asks for this bank drives its port
            for i in reversed(range(self.readers)):
                with m.If(self.r_grant[i] & (self._bank(self.r_addr[i]) == b)):
                    m.d.comb += [rp.addr.eq(self.r_addr[i][:low]), rp.en.eq(1)]
            datas.append(rp.data)
        for i in range(self.readers):
            if self.banks == 1:
                m.d.comb += self.r_data[i].eq(datas[0])
            else:
                with m.Switch(granted_bank[i]):
                    for b in range(self.banks):
                        with m.Case(b):
                            m.d.comb += self.r_data[i].eq(datas[b])
        return m
