"""The accelerator: its shell (command queue, dispatcher and token counters around the load, execute and store units,
and the memories' bank logic), the banks of the scratchpad and the accumulator, and the systolic tensor unit (emitted
as its own cell module). The shell is everything but the memory arrays and the tensor unit: the control and DMA
logic a synthesis flow maps, with the banks and the array as its ports (:class:`AcceleratorShell`)."""

from __future__ import annotations

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from ...params.accel import COMMAND_BITS, OPCODES, AccelParams
from .._cells import HierarchicalComponent
from ..systolic import SystolicArray
from .axi import axi4_master_members, drive_address_defaults
from .banked import BankPorts, bank_memories
from .execute import ExecuteUnit
from .load import LoadUnit
from .store import StoreUnit

__all__ = ["QUEUES", "TOKENS", "TOKEN_BITS", "Accelerator"]

#: the in-order units, each with its own command queue
QUEUES = ("load", "execute", "store")
#: width of each token counter: more tokens than a queue of commands can give
TOKEN_BITS = 8
#: the token counters: load -> execute, execute -> load, execute -> store, store -> execute
TOKENS = 4
_UNIT_OF = {"load": "load", "compute": "execute", "store": "store", "config": "store"}


def _memories(p: AccelParams) -> dict[str, BankPorts]:
    """The bank logic of the scratchpad (one reader: the execute unit) and of the accumulator (two: the execute
    unit's read-modify-write first, then the store unit)."""
    return {"sp": BankPorts(p.sp_lines, p.line_bits, p.sp_banks, readers=1),
            "acc": BankPorts(p.acc_lines, p.array.cols * p.acc_width, p.acc_banks, readers=2)}


def _bank_members(ports: BankPorts):
    """``(name, member)`` of the bank side of ``ports``: what the shell passes through to the memory arrays."""
    return [(name, member) for name, member in ports.signature.members.items() if name.startswith("bank_")]


class AcceleratorShell(wiring.Component):
    """The accelerator without its memory arrays and its tensor unit: their ports are the shell's.

    Ports
    -----
    cmd_data, cmd_valid, cmd_ready, idle, m_axi_* : as :class:`Accelerator`'s.
    sp_bank_*, acc_bank_* : each memory's bank ports (:class:`~accelgen.rtl.accel.banked.BankPorts`).
    a_in[rows], a_valid[rows], w_in[cols], w_load : Out; psum_out[cols], out_valid[cols] : In : the tensor unit's.
    """

    def __init__(self, params: AccelParams):
        self.params = p = params
        a = p.array
        members = {"cmd_data": In(COMMAND_BITS), "cmd_valid": In(1), "cmd_ready": Out(1), "idle": Out(1)}
        members |= axi4_master_members("m_axi", p.addr_width, p.line_bits)
        for mem, ports in _memories(p).items():
            members |= {f"{mem}_{name}": member for name, member in _bank_members(ports)}
        members |= {"a_in": Out(p.operand_bits).array(a.rows), "a_valid": Out(1).array(a.rows),
                    "w_in": Out(p.operand_bits).array(a.cols), "w_load": Out(1),
                    "psum_out": In(p.acc_width).array(a.cols), "out_valid": In(1).array(a.cols)}
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        p = self.params
        a = p.array
        units = dict(zip(QUEUES, (LoadUnit(p), ExecuteUnit(p), StoreUnit(p)), strict=True))
        for name, unit in units.items():
            m.submodules[name] = unit
        load, execute, store = units["load"], units["execute"], units["store"]
        queues = {name: SyncFIFOBuffered(width=COMMAND_BITS, depth=p.queue_depth) for name in units}
        for name, queue in queues.items():
            m.submodules[f"{name}_queue"] = queue
            unit = units[name]
            m.d.comb += [unit.cmd_valid.eq(queue.r_rdy), unit.cmd_data.eq(queue.r_data), queue.r_en.eq(unit.cmd_ready)]
        all_idle = Signal()
        m.d.comb += all_idle.eq(load.idle & execute.idle & store.idle
                                & (queues["load"].level == 0) & (queues["execute"].level == 0)
                                & (queues["store"].level == 0))
        # ---- dispatch by opcode
        op = self.cmd_data[:4]
        m.d.comb += self.idle.eq(all_idle)
        with m.Switch(op):
            for name, code in OPCODES.items():
                with m.Case(code):
                    if name == "fence":
                        m.d.comb += self.cmd_ready.eq(all_idle)
                    else:
                        queue = queues[_UNIT_OF[name]]
                        m.d.comb += [self.cmd_ready.eq(queue.w_rdy), queue.w_data.eq(self.cmd_data),
                                     queue.w_en.eq(self.cmd_valid & queue.w_rdy)]
            with m.Default():
                m.d.comb += self.cmd_ready.eq(1)
        # ---- tokens: load -> execute, execute -> load, execute -> store, store -> execute
        for give, take, ok in ((load.token_give, execute.load_take, execute.load_ok),
                               (execute.load_give, load.token_take, load.token_ok),
                               (execute.store_give, store.token_take, store.token_ok),
                               (store.token_give, execute.store_take, execute.store_ok)):
            count = Signal(TOKEN_BITS)
            m.d.sync += count.eq(count + give - take)
            m.d.comb += ok.eq(count != 0)
        # ---- memories: the bank logic here, the banks' ports out
        memories = _memories(p)
        m.submodules.scratchpad = sp = memories["sp"]
        m.submodules.accumulator = acc = memories["acc"]
        for mem, ports in memories.items():
            for name, member in _bank_members(ports):
                outer, inner = getattr(self, f"{mem}_{name}"), getattr(ports, name)
                for o, i in (zip(outer, inner) if member.dimensions else [(outer, inner)]):
                    m.d.comb += i.eq(o) if member.flow == In else o.eq(i)
        m.d.comb += [sp.w_addr.eq(load.sp_addr), sp.w_data.eq(load.sp_data), sp.w_en.eq(load.sp_en),
                     sp.r_addr[0].eq(execute.sp_raddr), sp.r_en[0].eq(execute.sp_ren), execute.sp_rdata.eq(sp.r_data[0]),
                     acc.w_addr.eq(execute.acc_waddr), acc.w_data.eq(execute.acc_wdata), acc.w_en.eq(execute.acc_wen),
                     acc.r_addr[0].eq(execute.acc_raddr), acc.r_en[0].eq(execute.acc_ren),
                     execute.acc_rdata.eq(acc.r_data[0]),
                     acc.r_addr[1].eq(store.acc_raddr), acc.r_en[1].eq(store.acc_ren), store.acc_grant.eq(acc.r_grant[1]),
                     store.acc_rdata.eq(acc.r_data[1])]
        # ---- the tensor unit's edges
        for r in range(a.rows):
            m.d.comb += [self.a_in[r].eq(execute.a_in[r]), self.a_valid[r].eq(execute.a_valid[r])]
        for c in range(a.cols):
            m.d.comb += [self.w_in[c].eq(execute.w_in[c]), execute.psum_out[c].eq(self.psum_out[c]),
                         execute.out_valid[c].eq(self.out_valid[c])]
        m.d.comb += self.w_load.eq(execute.w_load)
        # ---- AXI4
        drive_address_defaults(m, self, "m_axi", "ar", p.line_bytes)
        drive_address_defaults(m, self, "m_axi", "aw", p.line_bytes)
        m.d.comb += [self.m_axi_araddr.eq(load.ar_addr), self.m_axi_arlen.eq(load.ar_len),
                     self.m_axi_arvalid.eq(load.ar_valid), load.ar_ready.eq(self.m_axi_arready),
                     load.r_data.eq(self.m_axi_rdata), load.r_valid.eq(self.m_axi_rvalid),
                     self.m_axi_rready.eq(load.r_ready),
                     self.m_axi_awaddr.eq(store.aw_addr), self.m_axi_awlen.eq(store.aw_len),
                     self.m_axi_awvalid.eq(store.aw_valid), store.aw_ready.eq(self.m_axi_awready),
                     self.m_axi_wdata.eq(store.w_data), self.m_axi_wstrb.eq(-1), self.m_axi_wlast.eq(store.w_last),
                     self.m_axi_wvalid.eq(store.w_valid), store.w_ready.eq(self.m_axi_wready),
                     store.b_valid.eq(self.m_axi_bvalid), self.m_axi_bready.eq(store.b_ready)]
        return m


class Accelerator(HierarchicalComponent):
    """A weight-stationary systolic accelerator with a DMA over AXI4 (parameters: :class:`~accelgen.params.accel.AccelParams`;
    the command set: :mod:`accelgen.params.accel`).

    Ports
    -----
    cmd_data : In(128), cmd_valid : In(1), cmd_ready : Out(1)
        The command queue: a command is taken in a cycle with both ``cmd_valid`` and ``cmd_ready``. Each command goes
        to its unit's queue of ``queue_depth`` commands; a FENCE is taken once every unit is idle and every queue
        empty. An unknown opcode is taken and ignored.
    idle : Out(1)
        Every queue empty and every unit idle: all data of the commands taken so far is in external memory.
    m_axi_* : the AXI4 master (:func:`~accelgen.rtl.accel.axi.axi4_master_members`), data one scratchpad line wide.

    Protocol
    --------
    Synchronous to ``clk``, reset ``rst`` (synchronous, active high). Each unit starts a command when its tokens are
    there and gives its tokens as it finishes (:mod:`accelgen.params.accel`); a host that waits for a token no
    command will give deadlocks the accelerator, as VTA's does.
    """

    def __init__(self, params: AccelParams):
        if not isinstance(params, AccelParams):
            raise TypeError(f"Accelerator() takes an AccelParams, not {params!r}")
        self.params = p = params
        super().__init__({"cmd_data": In(COMMAND_BITS), "cmd_valid": In(1), "cmd_ready": Out(1), "idle": Out(1)}
                         | axi4_master_members("m_axi", p.addr_width, p.line_bits))

    def elaborate(self, platform):
        m = Module()
        p = self.params
        a = p.array
        m.submodules.shell = shell = AcceleratorShell(p)
        outer = ["cmd_data", "cmd_valid", "cmd_ready", "idle", *axi4_master_members("m_axi", p.addr_width,
                                                                                     p.line_bits)]
        for name in outer:
            port, inner = getattr(self, name), getattr(shell, name)
            m.d.comb += (inner.eq(port) if shell.signature.members[name].flow == In else port.eq(inner))
        # ---- the banks
        for mem, ports in _memories(p).items():
            bank_memories(m, ports, "scratchpad" if mem == "sp" else "accumulator", shell, f"{mem}_")
        # ---- the tensor unit
        array = SystolicArray(a)
        ports = {}
        for r in range(a.rows):
            ports[f"a_in__{r}"], ports[f"a_valid__{r}"] = shell.a_in[r], shell.a_valid[r]
        for c in range(a.cols):
            ports[f"w_in__{c}"] = shell.w_in[c]
            ports[f"psum_out__{c}"], ports[f"out_valid__{c}"] = shell.psum_out[c], shell.out_valid[c]
        ports["w_load"] = shell.w_load
        m.submodules.tensor_unit = self.cell_instance("tensor_unit", array, **ports)
        return m
