"""A memory of lines split into banks of consecutive lines: the bank decoding and read-port sharing
(:class:`BankPorts`, logic of the accelerator's shell), and the banks themselves (:func:`bank_memories`: each an
Amaranth ``lib.memory`` with one write port and one read port, 1R1W, what the architecture file's ``ports: 1r1w``
costs and what a synthesis flow replaces by an SRAM macro).

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

__all__ = ["BankPorts", "bank_memories"]


class BankPorts(wiring.Component):
    """The line side (one writer, ``readers`` readers, line addresses) of ``lines`` lines of ``width`` bits in ``banks``
    banks, and the banks' ports.

    Ports
    -----
    w_addr : In(16), w_data : In(width), w_en : In(1)
        The writer: line ``w_addr`` takes ``w_data`` at the end of a cycle with ``w_en``.
    r_addr[readers] : In(16), r_en[readers] : In(1), r_grant[readers] : Out(1)
        Reader ``i`` asks for line ``r_addr[i]``; ``r_grant[i]`` (combinational) says whether it reads this cycle.
    r_data[readers] : Out(width)
        The line reader ``i`` was granted in the previous cycle.
    bank_w_en[banks], bank_w_addr, bank_w_data; bank_r_en[banks], bank_r_addr[banks], bank_r_data[banks] : In
        Each bank's write and read port (addresses within the bank; read data one cycle after ``bank_r_en``).
    """

    def __init__(self, lines: int, width: int, banks: int, readers: int = 1):
        self.lines, self.width, self.banks, self.readers = lines, width, banks, readers
        self.bank_lines = lines // banks
        self.low = self.bank_lines.bit_length() - 1   # address bits within a bank
        low = max(self.low, 1)
        super().__init__({"w_addr": In(16), "w_data": In(width), "w_en": In(1),
                          "r_addr": In(16).array(readers), "r_en": In(1).array(readers),
                          "r_grant": Out(1).array(readers), "r_data": Out(width).array(readers),
                          "bank_w_en": Out(1).array(banks), "bank_w_addr": Out(low), "bank_w_data": Out(width),
                          "bank_r_en": Out(1).array(banks), "bank_r_addr": Out(low).array(banks),
                          "bank_r_data": In(width).array(banks)})

    def _bank(self, addr):
        return addr[self.low:16] if self.banks > 1 else 0

    def elaborate(self, platform):
        m = Module()
        low = self.low
        granted_bank = [Signal(range(max(self.banks, 2)), name=f"r_bank_{i}") for i in range(self.readers)]
        for i in range(self.readers):
            clash = 0
            for j in range(i):
                same = self._bank(self.r_addr[j]) == self._bank(self.r_addr[i])
                clash = clash | (self.r_grant[j] & same)
            m.d.comb += self.r_grant[i].eq(self.r_en[i] & ~clash)
            m.d.sync += granted_bank[i].eq(self._bank(self.r_addr[i]))
        m.d.comb += [self.bank_w_addr.eq(self.w_addr[:low]), self.bank_w_data.eq(self.w_data)]
        for b in range(self.banks):
            m.d.comb += self.bank_w_en[b].eq(self.w_en & (self._bank(self.w_addr) == b))
            # the reader granted this bank drives its port (at most one is: the grants exclude each other per bank)
            for i in reversed(range(self.readers)):
                with m.If(self.r_grant[i] & (self._bank(self.r_addr[i]) == b)):
                    m.d.comb += [self.bank_r_addr[b].eq(self.r_addr[i][:low]), self.bank_r_en[b].eq(1)]
        for i in range(self.readers):
            if self.banks == 1:
                m.d.comb += self.r_data[i].eq(self.bank_r_data[0])
            else:
                with m.Switch(granted_bank[i]):
                    for b in range(self.banks):
                        with m.Case(b):
                            m.d.comb += self.r_data[i].eq(self.bank_r_data[b])
        return m


def bank_memories(m: Module, ports: BankPorts, name: str, owner, prefix: str = "") -> None:
    """The banks of ``ports`` as ``lib.memory`` memories (submodules ``<name>_bank<b>``), wired to the bank ports
    ``<prefix>bank_*`` of ``owner`` (``ports`` itself, or a component that passes them through)."""
    def port(attr):
        return getattr(owner, f"{prefix}{attr}")
    for b in range(ports.banks):
        mem = Memory(shape=ports.width, depth=ports.bank_lines, init=[])
        m.submodules[f"{name}_bank{b}"] = mem
        wp = mem.write_port()
        rp = mem.read_port(transparent_for=(wp,))
        m.d.comb += [wp.addr.eq(port("bank_w_addr")), wp.data.eq(port("bank_w_data")), wp.en.eq(port("bank_w_en")[b]),
                     rp.addr.eq(port("bank_r_addr")[b]), rp.en.eq(port("bank_r_en")[b]),
                     port("bank_r_data")[b].eq(rp.data)]
