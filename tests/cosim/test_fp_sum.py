"""The multi-operand fp32 adder (rtl/fp_sum.py) on its emitted Verilog, against the golden
:func:`accelgen.golden.fp.fp_sum`; with two operands against the fp32 adder's golden :func:`~accelgen.golden.fp.fp_add`
(so FPSum(2) is FPAdder bit for bit). One combinational top holds every configuration: one Verilator build."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from amaranth import Module
from amaranth.back import verilog
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from accelgen.cosim.native import run_native
from accelgen.cosim.vectors import CycleTable
from accelgen.golden import fp as gold
from accelgen.rtl.fp_sum import FPSum

pytestmark = pytest.mark.cosim

#: (unit name, operands, flush_subnormals)
UNITS = [("sum2", 2, False), ("sum2_ftz", 2, True), ("sum3", 3, False), ("sum5", 5, False), ("sum5_ftz", 5, True),
         ("sum9", 9, False)]


class FPSumTop(wiring.Component):
    """Every unit of :data:`UNITS`, ports ``<unit>_op<i>`` and ``<unit>_y``."""

    def __init__(self):
        members = {}
        for name, n, _ in UNITS:
            members |= {f"{name}_op{i}": In(32) for i in range(n)}
            members[f"{name}_y"] = Out(32)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        for name, n, flush in UNITS:
            m.submodules[name] = unit = FPSum(n, flush)
            m.d.comb += [unit.operands[i].eq(getattr(self, f"{name}_op{i}")) for i in range(n)]
            m.d.comb += getattr(self, f"{name}_y").eq(unit.sum)
        return m


def _compose(rng, exps, signs=None):
    count = np.shape(exps)
    signs = rng.integers(0, 2, count) if signs is None else signs
    return ((signs << 31) | (np.asarray(exps) << 23) | rng.integers(0, 1 << 23, count)).astype(np.uint32)


def operand_sets(rng, n: int, count: int) -> np.ndarray:
    """``(n, ~count)`` operands: specials, random bits, close and far exponents, one sign, cancellation,
    subnormals, the overflow threshold."""
    specials = gold.special_values("fp32")
    if n == 2:
        cross = np.stack([np.repeat(specials, len(specials)), np.tile(specials, len(specials))])
    else:
        cross = rng.choice(specials, (n, count // 8))
    k = count // 8
    top = rng.integers(30, 255, k)
    sections = [
        cross,
        rng.integers(0, 1 << 32, (n, k), dtype=np.uint64).astype(np.uint32),
        _compose(rng, top - rng.integers(0, 4, (n, k))),                                 # no bit shifted out
        _compose(rng, np.maximum(top - rng.integers(0, 40, (n, k)), 1)),                 # stickies
        _compose(rng, np.maximum(top - rng.integers(0, 30, (n, k)), 1), np.repeat(rng.integers(0, 2, (1, k)), n, 0)),
        _compose(rng, rng.integers(0, 3, (n, k))),                                       # subnormal range
        _compose(rng, rng.integers(250, 255, (n, k))) & np.uint32(0x7FFFFFFF),           # overflow
        rng.choice(specials, (n, k)) | np.where(rng.random((n, k)) < 0.5, 0, 0x80000000).astype(np.uint32),
    ]
    x = _compose(rng, np.minimum(top, 240) - rng.integers(0, 25, (n - 1, k)))               # cancellation
    last = -np.sum(x.view(np.float32).astype(np.float64), axis=0)
    sections.append(np.concatenate([x, last.astype(np.float32).view(np.uint32)[None]], axis=0))
    return np.concatenate(sections, axis=1)


def test_fp_sum_bit_exact(tmp_path: Path):
    rng = np.random.default_rng(7)
    streams = {name: operand_sets(rng, n, 16000) for name, n, _ in UNITS}
    cycles = max(ops.shape[1] for ops in streams.values())
    inputs, expect, check, ports = {}, {}, {}, []
    for name, n, flush in UNITS:
        ops = streams[name]
        y = gold.fp_sum(list(ops), flush)
        if n == 2:
            assert np.array_equal(y, gold.fp_add(ops[0], ops[1], flush))
        k = ops.shape[1]
        for i in range(n):
            inputs[f"{name}_op{i}"] = np.zeros(cycles, np.uint64)
            inputs[f"{name}_op{i}"][:k] = ops[i]
            ports.append({"name": f"{name}_op{i}", "direction": "in", "width": 32, "signed": False})
        expect[f"{name}_y"] = np.zeros(cycles, np.uint64)
        expect[f"{name}_y"][:k] = y
        check[f"{name}_y"] = np.arange(cycles) < k
        ports.append({"name": f"{name}_y", "direction": "out", "width": 32, "signed": False})
    path = tmp_path / "fp_sum_check.v"
    path.write_text(verilog.convert(FPSumTop(), name="fp_sum_check", emit_src=False))
    manifest = {"name": "fp_sum_check", "clock": None, "reset": None, "ports": ports, "latency": 0}
    table = CycleTable(inputs=inputs, expect=expect, check=check, info={"vectors": cycles, "unit": "sums"})
    result = run_native(path, manifest, table, seed=7, waves_on_failure=False)
    assert result.passed, (result.error, result.first_mismatches[:3])
    assert result.checks == table.checks >= 6 * 16000


@pytest.mark.parametrize("n, error", [(1, ValueError), (0, ValueError), (2.0, TypeError), (True, TypeError)])
def test_fp_sum_rejects_bad_sizes(n, error):
    with pytest.raises(error, match="n"):
        FPSum(n)
