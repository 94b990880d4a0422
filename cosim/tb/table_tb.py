"""Generic cycle-table testbench (runs inside the simulator under cocotb).

The host writes a :class:`~accelgen.cosim.vectors.CycleTable` and a small JSON
plan; this testbench resets the DUT, applies the table's inputs cycle by cycle,
compares every checked output with the expected value, and writes a JSON
summary (cycles run, comparisons made, the first mismatches). Blocks are driven
at their ports only, so the cost is per port per cycle.

Environment: ``ACCELGEN_PLAN`` is the path of the plan JSON.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge, Timer

from accelgen.cosim.vectors import CycleTable

MAX_REPORTED_MISMATCHES = 20


class TB:
    """Clock, reset and port access for a DUT with one clock domain."""

    def __init__(self, dut, clock: str | None = "clk", reset: str | None = "rst", period_ns: int = 10):
        self.dut = dut
        self.clk = getattr(dut, clock) if clock else None
        self.rst = getattr(dut, reset) if reset else None
        self.period_ns = period_ns

    def port(self, name: str):
        return getattr(self.dut, name)

    def start_clock(self) -> None:
        if self.clk is not None:
            Clock(self.clk, self.period_ns, unit="ns").start()

    async def settle(self) -> None:
        """Wait until this cycle's inputs have propagated (a purely combinational DUT has no clock)."""
        if self.clk is None:
            await Timer(self.period_ns // 2, unit="ns")
        await ReadOnly()

    async def next_cycle(self) -> None:
        if self.clk is None:
            await Timer(self.period_ns - self.period_ns // 2, unit="ns")
        else:
            await RisingEdge(self.clk)

    async def reset(self, inputs, cycles: int = 2) -> None:
        for handle in inputs:
            handle.value = 0
        if self.rst is None or self.clk is None:
            return
        self.rst.value = 1
        for _ in range(cycles):
            await RisingEdge(self.clk)
        self.rst.value = 0


#: a resolvable bit string ("0", "1", "L", "H") as binary digits; any other character (X, Z, U, W, -) stays
_RESOLVE = str.maketrans("LH", "01")


def _read(handle):
    """The port's value as an unsigned int, or its bit string when a bit is not resolvable (X, Z, ...).

    Read from the value's bit string: ``LogicArray.is_resolvable`` builds a ``Logic`` object per bit, which was
    60% of the testbench's Python time on a 4x4 systolic array (0.41 of 0.69 s, 3,944 reads; cocotb 2.0
    profile, 2026-11-28)."""
    value = handle.value
    bits = str(value).translate(_RESOLVE)
    try:
        return int(bits, 2)
    except ValueError:
        return str(value)


async def run_table(tb: TB, table: CycleTable, result_path: Path, record: tuple[str, ...] = (),
                    record_path: Path | None = None) -> dict:
    """Apply ``table`` to the DUT behind ``tb`` and return (and write) the summary.

    Ports named in ``record`` are sampled in every cycle, independently of the
    expectations, and saved to ``record_path`` (``.npz``, unsigned bit patterns;
    unresolved values as all-ones) so that the host can rebuild results from what
    the DUT really produced.
    """
    drives = [(tb.port(name), [int(v) for v in col]) for name, col in table.inputs.items()]
    monitors = [
        (name, tb.port(name), [int(v) for v in table.expect[name]], [bool(c) for c in table.check[name]])
        for name in table.expect
    ]
    tb.start_clock()
    await tb.reset([h for h, _ in drives])

    recorders = [(name, tb.port(name), np.zeros(table.cycles, dtype=np.uint64)) for name in record]
    mismatches: list[dict] = []
    n_mismatch = 0
    checks = 0
    last = [None] * len(drives)
    cycles = table.cycles
    for t in range(cycles):
        for i, (handle, col) in enumerate(drives):
            v = col[t]
            if v != last[i]:
                handle.value = v
                last[i] = v
        await tb.settle()
        for name, handle, values in recorders:
            got = _read(handle)
            values[t] = got if isinstance(got, int) else np.iinfo(np.uint64).max
        for name, handle, col, chk in monitors:
            if chk[t]:
                checks += 1
                got = _read(handle)
                if got != col[t]:
                    n_mismatch += 1
                    if len(mismatches) < MAX_REPORTED_MISMATCHES:
                        mismatches.append({"cycle": t, "port": name, "expected": col[t], "got": got})
        await tb.next_cycle()

    if recorders and record_path is not None:
        with open(record_path, "wb") as fh:
            np.savez_compressed(fh, **{name: values for name, _, values in recorders})
    summary = {"cycles": cycles, "checks": checks, "mismatches": n_mismatch, "first_mismatches": mismatches}
    result_path.write_text(json.dumps(summary, indent=1))
    return summary


@cocotb.test()
async def table_test(dut):
    """Drive the plan's cycle table through the DUT and compare every checked output."""
    plan = json.loads(Path(os.environ["ACCELGEN_PLAN"]).read_text())
    table = CycleTable.load(Path(plan["table"]))
    tb = TB(dut, clock=plan.get("clock"), reset=plan.get("reset"))
    record_path = Path(plan["recorded"]) if plan.get("recorded") else None
    summary = await run_table(tb, table, Path(plan["result"]), tuple(plan.get("record", ())), record_path)
    if summary["mismatches"]:
        first = summary["first_mismatches"][0]
        raise AssertionError(
            f"{summary['mismatches']} of {summary['checks']} checks failed; first at cycle {first['cycle']}: "
            f"{first['port']} expected {first['expected']:#x}, got {first['got']}"
        )
