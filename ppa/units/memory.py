"""On-chip memories: SRAM macros (:mod:`accelgen.ppa.sram`) or flip-flop arrays, banked for a bandwidth."""

from __future__ import annotations

import numpy as np

from ...errors import ConfigError
from ..components import Component
from ..process import TechNode
from ..sram import MIN_WORDS, SRAM, SRAMResult, dff_array
from .base import AnalyticalUnit, register
from .params import Memory


def sustained_gbps(banks, ports, block_bytes, cycle_time_ns, clock_mhz=None):
    """Bytes per ns (GB/s) a memory of ``banks`` banks of ``ports`` ports of ``block_bytes`` sustains: one access
    per port per macro cycle, and at a clock no more than one per clock cycle, so each port's access takes
    ``max(cycle_time_ns, clock period)``. Without a clock (bank choice before the clock is known) the macro's own
    rate. Numbers or numpy arrays. The one formula of the banks' choice and of the performance model's SRAM roof."""
    period = cycle_time_ns if clock_mhz is None else np.maximum(cycle_time_ns, 1e3 / np.asarray(clock_mhz, float))
    return banks * ports * block_bytes / period


def sram_macro(m: Memory, banks: int, tech: TechNode, clock_mhz, path: str) -> tuple[str, SRAMResult]:
    """The SRAM cell of memory ``m`` and its bank's macro: its ``cell``, or for ``auto`` the low-power cell unless
    its macro cycles slower than the clock period, then the high-performance cell (whose macro is faster; kept even
    if it still misses, the timing report then says so). Without a clock (the estimator's probe for the fastest
    clock the chip reaches) ``auto`` is the faster, high-performance cell."""
    def macro(cell: str) -> SRAMResult:
        return SRAM(capacity_bytes=m.capacity_bytes, block_bytes=m.block_bytes, banks=banks, node_nm=tech.node_nm,
                    ports=m.port_config, cell=cell, path=path).result

    if m.cell != "auto":
        cell = "sram" if m.cell == "dff" else m.cell
        return cell, macro(cell)
    if clock_mhz is None or not np.all(clock_mhz):
        return "sram", macro("sram")
    if np.ndim(clock_mhz):
        raise ConfigError([(f"{path}.cell", "'auto' needs one clock; allowed with a batch of clocks: 'sram' or "
                                            "'sram_lp'")])
    lp = macro("sram_lp")
    return ("sram_lp", lp) if lp.cycle_time_ns <= 1e3 / float(clock_mhz) else ("sram", macro("sram"))


def bank_count(m: Memory, tech: TechNode, path: str) -> int:
    """``m.banks``, or the smallest power-of-two bank count whose aggregate bandwidth meets ``m.bandwidth_gbps``
    (and whose access time meets ``latency_ns``), each bank deep enough to be an SRAM macro (MIN_WORDS; a
    shallower memory is one bank: an error for an SRAM, a register file as dff)."""
    if m.banks is not None:
        return m.banks
    banks = 1
    if m.bandwidth_gbps and m.capacity_bytes >= MIN_WORDS * m.block_bytes:
        while True:
            r = SRAM(capacity_bytes=m.capacity_bytes, block_bytes=m.block_bytes, banks=banks, node_nm=tech.node_nm,
                     ports=m.port_config, cell={"dff": "sram", "auto": "sram_lp"}.get(m.cell, m.cell), path=path).result
            bw = sustained_gbps(banks, m.port_count, m.block_bytes, r.cycle_time_ns)   # every port, read or write
            lat_ok = m.latency_ns is None or r.access_time_ns <= m.latency_ns
            if (bw >= m.bandwidth_gbps and lat_ok) or banks * 2 * m.block_bytes * MIN_WORDS > m.capacity_bytes:
                break
            banks *= 2
    return banks


@register
class MemoryUnit(AnalyticalUnit):
    """One memory of a core (``count`` identical instances), read and written by every bank and port each cycle
    at full activity; a stated bandwidth caps its accesses per cycle at the clock."""

    kind = "memory"
    params_schema = Memory

    def __init__(self, params: Memory, *, tech: TechNode, path: str, clock_mhz: float | None):
        super().__init__(params, path=path, name=params.name)
        m = params
        banks = bank_count(m, tech, path)
        if m.cell == "dff":
            p = m.port_config
            d = dff_array(capacity_bytes=m.capacity_bytes, block_bytes=m.block_bytes, read_ports=p.read_capable,
                          write_ports=p.write_capable, node_nm=tech.node_nm)
            area, leak, er, ew, delay = d["area_um2"], d["leakage_mw"], d["read_energy_pj"], d["write_energy_pj"], \
                d["cycle_time_ns"]
            extra = {"cell": "dff", "cycle_time_ns": d["cycle_time_ns"]}
        else:
            cell, r = sram_macro(m, banks, tech, clock_mhz, path)
            area, leak, er, ew = r.area_mm2 * 1e6, r.leakage_mw, r.read_energy_pj, r.write_energy_pj
            # accesses pipelined over two cycles: accelgen's rule, not NeuroMeter's (its text says only that "Mem is
            # always configured as multi-banked" by "the throughput requirements", sect. II-A; no access pipelining)
            delay = r.access_time_ns / 2.0
            extra = {"cell": cell, "organization": r.organization, "access_time_ns": round(r.access_time_ns, 4),
                     "cycle_time_ns": r.cycle_time_ns}   # the bank's macro: one access per cycle_time_ns
        self.component = memory_leaf(m, banks=banks, clock_mhz=clock_mhz, area_um2=area, leakage_mw=leak,
                                     read_pj=er, write_pj=ew, delay_ns=delay,
                                     params={"capacity_bytes": m.capacity_bytes, "block_bytes": m.block_bytes,
                                             "banks": banks, "ports": m.port_count,
                                             "port_config": m.port_config.label, "level": m.level, **extra})


def memory_leaf(m: Memory, *, banks, clock_mhz, area_um2, leakage_mw, read_pj, write_pj, delay_ns=0.0,
                params: dict | None = None) -> Component:
    """The component of memory ``m`` with ``banks`` banks whose macros have these figures (floats, or numpy arrays
    of design points: the batch estimator's).

    Full activity: every bank and port does one access per cycle: a read port a read, a write port a write, a
    read/write port reads and writes equally (:meth:`accelgen.ppa.sram_ports.PortConfig.reads_writes_per_cycle`);
    a stated bandwidth is what the memory serves, so at the clock it caps the accesses per cycle, in the same
    read/write proportion (banks chosen for a bandwidth round up, and an access time shorter than the cycle does
    not make the units ask for more)."""
    ports = m.port_config
    reads, writes = ports.reads_writes_per_cycle()
    apc = banks * ports.total * m.activity
    if m.bandwidth_gbps and np.all(np.asarray(clock_mhz, dtype=float) > 0):
        cap = m.bandwidth_gbps * 1e3 / (clock_mhz * m.block_bytes)
        apc = min(apc, cap) if np.ndim(apc) == 0 and np.ndim(cap) == 0 else np.minimum(apc, cap)
    return Component(m.name, "memory", count=m.count, area_um2_each=area_um2, leakage_mw_each=leakage_mw,
                     energy_pj={"read": read_pj, "write": write_pj},
                     actions_per_cycle={"read": apc * reads / ports.total, "write": apc * writes / ports.total},
                     delay_ns=delay_ns,
                     activity_key="pe_memory" if m.level == "pe" else "memory", params=params or {})
