"""Hierarchical cell emission and the clockless (combinational) testbench mode."""

import re

import numpy as np
import pytest
from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from pydantic import Field

from accelgen.cosim import run_cosim
from accelgen.cosim.vectors import CycleTable
from accelgen.family import BlockFamily
from accelgen.gen import render, write
from accelgen.rtl import BlockParams
from accelgen.rtl._cells import HierarchicalComponent


class _Inc(wiring.Component):
    def __init__(self, width):
        super().__init__({"x": In(width), "y": Out(width)})

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.y.eq(self.x + 1)
        return m


class _ChainParams(BlockParams):
    block = "chain"
    length: int = Field(3, ge=1, le=16)
    width: int = Field(8, ge=1, le=32)


class _Chain(HierarchicalComponent):
    """``length`` incrementer cells in series: y = x + length (combinational)."""

    def __init__(self, params):
        self.params = params
        super().__init__({"x": In(params.width), "y": Out(params.width)})

    def elaborate(self, platform):
        m = Module()
        prev = self.x
        for i in range(self.params.length):
            nxt = Signal(self.params.width, name=f"s{i}")
            m.submodules[f"inc{i}"] = self.cell_instance("inc", _Inc(self.params.width), clocked=False, x=prev, y=nxt)
            prev = nxt
        m.d.comb += self.y.eq(prev)
        return m


def _table(params, vectors, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1 << params.width, vectors, dtype=np.uint64)
    y = (x + params.length) & ((1 << params.width) - 1)
    return CycleTable(inputs={"x": x}, expect={"y": y.astype(np.uint64)}, info={"vectors": vectors})


CHAIN = BlockFamily("chain", "test chain", _ChainParams, _Chain, golden="", cycle_table=_table)  # no golden module


def test_cell_module_emitted_once_with_prefix():
    e = render(CHAIN, _ChainParams(length=5), "chain5")
    assert e.verilog.count("module chain5__inc(") == 1
    assert e.verilog.count("chain5__inc ") == 5 or e.verilog.count("chain5__inc") >= 6
    assert re.findall(r"^module (\w+)\(", e.verilog, re.MULTILINE)[0] == "chain5"   # the top, written first, once
    assert e.verilog.count("module chain5(") == 1
    assert e.manifest["clock"] is None


@pytest.mark.cosim
def test_clockless_design_in_table_testbench(tmp_path):
    params = _ChainParams(length=4, width=6)
    e = write(render(CHAIN, params, "chain4"), tmp_path)
    result = run_cosim(e.verilog_path, e.manifest, _table(params, 200, 3), sim="verilator", seed=3)
    assert result.passed, result
    assert result.checks == 200
