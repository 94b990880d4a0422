"""The accelerator's AXI4 master port and the burst splitter both DMA directions share.

Ports are flat, ``m_axi_<signal>`` (the AMBA AXI4 names in lower case, the prefix IP packagers and cocotbext-axi's
``AxiBus.from_prefix`` expect). One ID (0), INCR bursts, full-width beats, every transfer aligned to a beat; no
locking, caching, protection or QoS attributes (driven to their defaults, so a slave sees a plain master).
"""

from __future__ import annotations

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["AXI_BURST_INCR", "BOUNDARY_BYTES", "BurstSplitter", "axi4_master_members"]

AXI_BURST_INCR = 1
#: AXI4: a burst must not cross a 4 KB address boundary (AMBA AXI and ACE Protocol Specification, A3.4.1)
BOUNDARY_BYTES = 4096


def axi4_master_members(prefix: str, addr_width: int, data_width: int) -> dict:
    """The members of an AXI4 master port (write and read channels), flat: ``<prefix>_awaddr``, ..."""
    def channel(name, fields):
        return {f"{prefix}_{name}{field}": flow(width) for field, (flow, width) in fields.items()}

    address = {"addr": (Out, addr_width), "len": (Out, 8), "size": (Out, 3), "burst": (Out, 2), "id": (Out, 1),
               "lock": (Out, 1), "cache": (Out, 4), "prot": (Out, 3), "qos": (Out, 4), "valid": (Out, 1),
               "ready": (In, 1)}
    return (channel("aw", address)
            | channel("w", {"data": (Out, data_width), "strb": (Out, data_width // 8), "last": (Out, 1),
                            "valid": (Out, 1), "ready": (In, 1)})
            | channel("b", {"id": (In, 1), "resp": (In, 2), "valid": (In, 1), "ready": (Out, 1)})
            | channel("ar", address)
            | channel("r", {"id": (In, 1), "data": (In, data_width), "resp": (In, 2), "last": (In, 1),
                            "valid": (In, 1), "ready": (Out, 1)}))


def drive_address_defaults(m: Module, port, prefix: str, channel: str, beat_bytes: int) -> None:
    """The constant fields of an address channel: full-width INCR bursts of ID 0, no attributes."""
    m.d.comb += [getattr(port, f"{prefix}_{channel}size").eq(beat_bytes.bit_length() - 1),
                 getattr(port, f"{prefix}_{channel}burst").eq(AXI_BURST_INCR)]


class BurstSplitter(wiring.Component):
    """Turns a transfer of ``lines`` lines of one beat each, ``stride`` bytes apart from ``addr`` on, into AXI4
    bursts: when ``stride`` is the line size the lines are one contiguous region, cut into bursts of at most
    ``max_burst`` beats that cross no 4 KB boundary; any other stride gives one single-beat burst per line.

    Ports
    -----
    start : In(1), with addr, lines, stride : takes a new transfer (only when ``idle``; ``lines`` >= 1).
    idle : Out(1), no transfer in progress.
    burst_valid, burst_ready : the next burst's handshake; burst_addr : Out(addr_width), burst_beats : Out(9),
    burst_last : Out(1), the transfer's last burst.
    """

    def __init__(self, addr_width: int, beat_bytes: int, max_burst: int):
        self.beat_bytes, self.max_burst = beat_bytes, max_burst
        super().__init__({"start": In(1), "addr": In(addr_width), "lines": In(16), "stride": In(32),
                          "idle": Out(1), "burst_valid": Out(1), "burst_ready": In(1),
                          "burst_addr": Out(addr_width), "burst_beats": Out(9), "burst_last": Out(1)})

    def elaborate(self, platform):
        m = Module()
        shift = self.beat_bytes.bit_length() - 1
        addr = Signal.like(self.addr, name="cur_addr")
        remaining = Signal(16)
        stride = Signal(32)
        contiguous = Signal()
        busy = Signal()
        to_boundary = Signal(range(BOUNDARY_BYTES // self.beat_bytes + 1))
        m.d.comb += to_boundary.eq((BOUNDARY_BYTES - addr[:12]) >> shift)
        beats = Signal(9)
        run = Signal(17)
        m.d.comb += run.eq(Mux(remaining < self.max_burst, remaining, self.max_burst))
        with m.If(~contiguous):
            m.d.comb += beats.eq(1)
        with m.Elif(run < to_boundary):
            m.d.comb += beats.eq(run)
        with m.Else():
            m.d.comb += beats.eq(to_boundary)
        m.d.comb += [self.idle.eq(~busy), self.burst_valid.eq(busy), self.burst_addr.eq(addr),
                     self.burst_beats.eq(beats), self.burst_last.eq(beats == remaining)]
        with m.If(self.start & ~busy):
            m.d.sync += [addr.eq(self.addr), remaining.eq(self.lines), stride.eq(self.stride),
                         contiguous.eq(self.stride == self.beat_bytes), busy.eq(self.lines != 0)]
        with m.Elif(busy & self.burst_ready):
            m.d.sync += [addr.eq(addr + Mux(contiguous, beats << shift, stride)), remaining.eq(remaining - beats)]
            with m.If(beats == remaining):
                m.d.sync += busy.eq(0)
        return m
