"""The Amaranth-simulator harness of the pipelined arithmetic units' tests (test_fp_pipeline, test_intarith,
test_dot_product, test_fp_sum_pipeline)."""

from __future__ import annotations

import numpy as np
from amaranth import ClockDomain, Module
from amaranth.sim import Simulator


def simulate(unit, a, b, out: str) -> np.ndarray:
    """Port ``out`` of ``unit`` in each cycle ``t`` while the operands of row ``t`` are applied, for
    ``len(a) + unit.latency`` cycles (zeros after the last row); Python ints."""
    rows = [{"a": a[t] if t < len(a) else 0, "b": b[t] if t < len(b) else 0} for t in range(len(a) + unit.latency)]
    return np.array(run_rows(unit, rows, out), dtype=object)


def delay_mismatches(got, expected, delay: int) -> np.ndarray:
    """Rows ``t`` whose expected result is not the output ``delay`` cycles later."""
    return np.nonzero(np.asarray(got[delay:delay + len(expected)]) != np.asarray(expected, dtype=object))[0]


def run_rows(cell, rows: list[dict], out: str) -> list[int]:
    """``cell``'s port ``out`` in each cycle ``t`` while the inputs of row ``t`` are applied (ports ``name``, or
    ``name__i`` for member ``i`` of an array port), for ``len(rows)`` cycles."""
    m = Module()
    m.domains.sync = ClockDomain()
    m.submodules.cell = cell
    sim = Simulator(m)
    sim.add_clock(1e-6)
    got = []

    async def bench(ctx):
        for row in rows:
            for name, value in row.items():
                port, _, index = name.partition("__")
                ctx.set(getattr(cell, port)[int(index)] if index else getattr(cell, port), int(value))
            got.append(ctx.get(getattr(cell, out)))
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    return got
