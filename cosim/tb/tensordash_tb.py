"""Reactive cocotb testbench for the TensorDash PE and tile: the environment follows ``take``.

Unlike the cycle table (which presents the windows the golden model predicts),
this testbench holds the operand streams itself and advances each stream's
read pointer by the ``take`` the DUT shows, so the number of busy cycles it
reports is measured on the RTL alone. For every stream it gives ``start``,
drives the window rows every cycle, counts the cycles until ``done``, and
compares the accumulator(s) and the count with the expectations.

Busy cycles are the cycles after ``start`` in which the DUT takes rows (``take``
is ``AS >= 1`` while busy, 0 otherwise); the cycles after the last of them until
``done`` are the drain of a pipelined PE (``latency - 1``; none without
pipelining).

Plan keys (besides those of :func:`accelgen.cosim.run.run_cosim`): ``streams``,
an ``.npz`` with ``a`` (``(S, N, L)``, or ``(S, R, N, L)`` for a tile), ``b``
(``(S, N, L)``) and ``lengths`` (``(S,)``); ``depth``, ``lanes``, ``rows`` (0 for
a PE). The cycle table carries one row per stream with the expected ``acc``
(``acc__r`` for a tile), ``cycles`` (busy cycles) and optionally ``drain``
(``latency - 1``, checked on its own). Without a ``drain`` column, ``cycles`` is
compared with all the cycles from ``start`` to ``done`` (busy plus drain: the
unpipelined PE has no drain). The result JSON adds ``measured_cycles`` (busy),
``measured_drain`` and ``measured_acc`` (bit patterns).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import cocotb
import numpy as np

from accelgen.cosim.tb.table_tb import MAX_REPORTED_MISMATCHES, TB, _read
from accelgen.cosim.vectors import CycleTable

#: cycles a stream may take beyond its row count before the DUT counts as hung: more than the longest
#: drain (latency - 1 = 3 + 4 * 3 + 11 = 26 with 3 multiplier stages, 16 lanes and 3 adder stages, whose
#: accumulator folds four interleaved partial sums in 11 cycles)
HANG_MARGIN = 32


@cocotb.test()
async def tensordash_stream_test(dut):
    """Run every stream through the PE, following ``take``; compare results and cycle counts."""
    plan = json.loads(Path(os.environ["ACCELGEN_PLAN"]).read_text())
    table = CycleTable.load(Path(plan["table"]))
    with np.load(plan["streams"]) as data:
        a, b, lengths = data["a"], data["b"], data["lengths"]
    depth, lanes, rows = int(plan["depth"]), int(plan["lanes"]), int(plan["rows"])
    a_widths = int(plan["a_width"])
    b_widths = int(plan["b_width"])
    tb = TB(dut, clock=plan.get("clock"), reset=plan.get("reset"))
    start = tb.port("start")
    valid = tb.port("next_valid")
    take = tb.port("take")
    done = tb.port("done")
    a_ports = [[[tb.port(f"a_next__{r}__{s}__{l}" if rows else f"a_next__{s}__{l}") for l in range(lanes)]
                for s in range(depth)] for r in range(max(rows, 1))]
    b_ports = [[tb.port(f"b_next__{s}__{l}") for l in range(lanes)] for s in range(depth)]
    acc_names = [f"acc__{r}" for r in range(rows)] if rows else ["acc"]
    acc_ports = [tb.port(n) for n in acc_names]
    inputs = [start, valid] + [h for r in a_ports for row in r for h in row] + [h for row in b_ports for h in row]
    last: dict[int, int] = {}

    def drive(handle, value: int) -> None:
        if last.get(id(handle)) != value:
            handle.value = value
            last[id(handle)] = value

    def window(i: int, p: int) -> None:
        n = int(lengths[i])
        bits = 0
        for s in range(depth):
            k = p + s
            exists = k < n
            bits |= int(exists) << s
            for l in range(lanes):
                # rows past the end carry a nonzero pattern the DUT must ignore
                for r in range(len(a_ports)):
                    va = int(a[i, r, k, l] if rows else a[i, k, l]) if exists else 1
                    drive(a_ports[r][s][l], va & ((1 << a_widths) - 1))
                drive(b_ports[s][l], (int(b[i, k, l]) if exists else 1) & ((1 << b_widths) - 1))
        drive(valid, bits)

    tb.start_clock()
    await tb.reset(inputs)
    cycles = checks = n_mismatch = 0
    mismatches: list[dict] = []
    measured_cycles: list[int] = []
    measured_drain: list[int] = []
    measured_acc: list[list[int]] = []

    def check(port: str, stream: int, expected: int, got) -> None:
        nonlocal checks, n_mismatch
        checks += 1
        if got != expected:
            n_mismatch += 1
            if len(mismatches) < MAX_REPORTED_MISMATCHES:
                mismatches.append({"cycle": cycles, "port": port, "stream": stream, "expected": expected,
                                   "got": got})

    for i in range(len(lengths)):
        n = int(lengths[i])
        limit = n + HANG_MARGIN
        drive(start, 1)
        window(i, 0)
        await tb.settle()
        p = _read(take)
        await tb.next_cycle()
        cycles += 1
        drive(start, 0)
        busy = waited = 0
        while True:
            window(i, p)
            await tb.settle()
            if _read(done) == 1:
                break
            got = _read(take)
            took = got if isinstance(got, int) else 0
            p += took
            busy += took != 0
            waited += 1
            await tb.next_cycle()
            cycles += 1
            if waited > limit:  # a hung DUT: report and move on
                break
        accs = [_read(h) for h in acc_ports]
        measured_cycles.append(busy)
        measured_drain.append(waited - busy)
        measured_acc.append([v if isinstance(v, int) else -1 for v in accs])
        if "drain" in table.expect:
            check("cycles", i, int(table.expect["cycles"][i]), busy)
            check("drain", i, int(table.expect["drain"][i]), waited - busy)
        else:
            check("cycles", i, int(table.expect["cycles"][i]), waited)
        for name, got in zip(acc_names, accs):
            check(name, i, int(table.expect[name][i]), got)
        await tb.next_cycle()
        cycles += 1

    summary = {"cycles": cycles, "checks": checks, "mismatches": n_mismatch, "first_mismatches": mismatches,
               "measured_cycles": measured_cycles, "measured_drain": measured_drain, "measured_acc": measured_acc}
    Path(plan["result"]).write_text(json.dumps(summary, indent=1))
    if n_mismatch:
        first = mismatches[0]
        raise AssertionError(f"{n_mismatch} of {checks} checks failed; first: stream {first['stream']} "
                             f"{first['port']} expected {first['expected']}, got {first['got']}")
