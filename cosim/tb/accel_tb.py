"""cocotb testbench of the generated accelerator: external memory is cocotbext-axi's ``AxiRam`` on the ``m_axi``
port; the host writes the operands into it, feeds the command words as fast as ``cmd_ready`` takes them, waits for
``idle`` and reads the results back.

Plan keys (``$ACCELGEN_PLAN``): ``commands`` (hex words), ``images`` (``[[address, file], ...]``), ``dram_bytes``,
``outputs`` (``[[address, bytes, file], ...]``: regions written to files after the run), ``result`` (JSON:
``cycles`` from the cycle the first command is offered to the first cycle ``idle`` is seen after the last was taken,
``commands``), ``max_cycles`` (a hang ends the test). ``clock``/``reset`` name the ports.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge
from cocotbext.axi import AxiBus, AxiRam

#: ns per clock period (the count of cycles does not depend on it)
PERIOD_NS = 10


@cocotb.test()
async def accel_program_test(dut):
    """Run one program on the accelerator and save its results and cycle count."""
    plan = json.loads(Path(os.environ["ACCELGEN_PLAN"]).read_text())
    clk, rst = getattr(dut, plan.get("clock") or "clk"), getattr(dut, plan.get("reset") or "rst")
    Clock(clk, PERIOD_NS, unit="ns").start()
    ram = AxiRam(AxiBus.from_prefix(dut, "m_axi"), clk, rst, reset_active_level=True, size=int(plan["dram_bytes"]))
    for address, path in plan["images"]:
        ram.write(int(address), Path(path).read_bytes())
    dut.cmd_valid.value = 0
    dut.cmd_data.value = 0
    rst.value = 1
    for _ in range(3):
        await RisingEdge(clk)
    rst.value = 0
    await RisingEdge(clk)
    commands = [int(word, 16) for word in plan["commands"]]
    limit = int(plan["max_cycles"])
    cycle = 0
    for word in commands:
        dut.cmd_data.value = word
        dut.cmd_valid.value = 1
        while True:
            await ReadOnly()
            taken = dut.cmd_ready.value == 1
            await RisingEdge(clk)
            cycle += 1
            if taken:
                break
            assert cycle < limit, f"command {word:#x} not taken within {limit} cycles: the accelerator hangs"
    dut.cmd_valid.value = 0
    while True:
        await ReadOnly()
        if dut.idle.value == 1:
            break
        await RisingEdge(clk)
        cycle += 1
        assert cycle < limit, f"not idle within {limit} cycles: the accelerator hangs"
    await RisingEdge(clk)
    for address, length, path in plan["outputs"]:
        Path(path).write_bytes(ram.read(int(address), int(length)))
    Path(plan["result"]).write_text(json.dumps({"cycles": cycle, "commands": len(commands)}))
