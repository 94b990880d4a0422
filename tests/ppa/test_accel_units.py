"""The units that cost a generated accelerator beside its array and memories (issue 52): ``dma`` (the DMA and the
command path), ``array_io`` (the array's skew, de-skew and accumulate adders) and the ``activation`` unit's scale
stage, pinned at small configurations at 45 nm with the cell arithmetic written out (cell figures as in
tests/ppa/test_die_blocks.py: area DFF_X1 4.522, MUX2_X1 1.862, XOR2_X1 1.596, AND2/OR2_X1 1.064 um^2, placed at
0.7; a flip-flop's clock pin 6.873 fJ per cycle); and the performance model charging them per layer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from accelgen.ppa import parse_arch
from accelgen.ppa.arch import load_arch
from accelgen.ppa.perf import evaluate
from accelgen.ppa.process import technology
from accelgen.ppa.units import LayerActivity, unit_class

ROOT = Path(__file__).resolve().parents[2]
T45 = technology(45)
REL = 1e-3
DFF, MUX, XOR, AND = 4.522, 1.862, 1.596, 1.064
FA = 2 * XOR + 3 * AND   # two XOR2, two AND2 and an OR2 (OR2 = AND2's area)


def _unit(kind: str, **params):
    cls = unit_class(kind)
    return cls(cls.parse(params, "core.units[0]"), tech=T45, path="core.units[0]")


def test_array_io_is_the_skew_triangles_the_write_back_and_the_adders():
    u = _unit("array_io", rows=3, cols=3, in_bits=4, out_bits=8)
    # skew: 0 + 1 + 2 registers of 4 bits and a valid bit; de-skew: 0 + 1 + 2 of 8 bits; write-back 3 x 8
    flops = 3 * 5 + 3 * 8 + 3 * 8
    cells = flops * DFF + 3 * 8 * FA + 3 * 8 * MUX     # an 8-bit adder and a 2:1 select per column
    assert u.component.params["flip_flops"] == flops
    assert u.area_um2 == pytest.approx(cells / 0.7, rel=REL)
    # its clock: every flip-flop's clock pin (6.873 fJ internal, 0.95 fF at 1.1 V) and the tree that drives them
    pins = flops * (6.873 + 0.95 * 1.21) * 1e-3
    assert pins < u.energy_pj("cycle") < 1.6 * pins
    fp = _unit("array_io", rows=3, cols=3, in_bits=16, out_bits=32, accumulate="fp32")
    assert fp.area_um2 > 2 * _unit("array_io", rows=3, cols=3, in_bits=16, out_bits=32).area_um2


def test_dma_flip_flops_are_its_queues_records_bursts_tokens_and_write_queue():
    u = _unit("dma", line_bits=128)
    queues = 3 * (8 * 128 + 3 + 3)                 # 8 commands of 128 bits and two 3-bit pointers each
    records = 3 * (4 * 33 + 2 + 2 + 32 + 16)       # 4 records of 33 bits, the start/count registers, the line counter
    bursts = 2 * (32 + 16 + 32 + 2)                # address, lines remaining, stride, two flags
    tokens = 4 * 8
    write_queue = 16 * 128 + 4 + 4
    assert u.component.params["flip_flops"] == queues + records + bursts + tokens + write_queue
    deeper = _unit("dma", line_bits=128, queue_depth=16)
    # 8 more commands a queue: their flip-flops and write selects, 8 more read-mux inputs, a pointer bit each way
    added = 3 * (8 * 128 * (DFF + MUX) + 8 * 128 * MUX + 2 * (DFF + XOR + AND))
    assert deeper.area_um2 - u.area_um2 == pytest.approx(added / 0.7, rel=REL)


def test_the_activation_scale_stage_adds_a_multiplier_and_its_registers():
    base = dict(lanes=1, width=8, out_bits=4, max_pool=False)
    plain, scaled = _unit("activation", **base), _unit("activation", **base, scale="int", scale_bits=4)
    # 8 x 4 multiplier: 32 AND2 and 3 x 8 full adders; product (13 bits) and output (4 bits) registers; a 14-bit
    # rounding adder; a 14-bit shifter by up to 63 (6 levels of 2:1 selects)
    cells = 32 * AND + 24 * FA + 17 * DFF + 14 * FA + 14 * 6 * MUX
    assert scaled.area_um2 - plain.area_um2 == pytest.approx(cells / 0.7, rel=REL)


def test_perf_charges_the_units_per_layer_as_control_energy():
    arch = load_arch(ROOT / "examples/accel/int8_ws16.yaml")
    layer = {"name": "g", "type": "gemm", "M": 37, "N": 29, "K": 45, "a_width": 8, "b_width": 8}
    row = evaluate(arch, {"name": "g", "layers": [layer]}, batch=1).layers[0]
    units = {u["kind"]: _unit(u["kind"], **{k: v for k, v in u.items() if k != "kind"}) for u in arch.core.units}
    cycles = row["time_s"] * arch.clock_mhz * 1e6
    dma = units["dma"].component.energy_pj
    want = cycles * dma["cycle"] + row["dram_bytes"] / 16 * dma["line"]
    want += 37 * 29 * units["activation"].component.energy_pj["element"]
    activity = LayerActivity(cycles=np.array([cycles]), dram_bytes=np.array([row["dram_bytes"]]), outputs=np.array([37.0 * 29]),
                             streamed_bytes=np.array([37 * 45 * 2.0]), cores=1)
    want += units["array_io"].layer_energy_pj(activity)[0]
    assert row["energy_breakdown_j"]["control_j"] * 1e12 == pytest.approx(want, rel=1e-6)


def test_a_chip_without_such_units_charges_no_control_energy():
    arch = parse_arch({"name": "x", "node_nm": 45, "clock_mhz": 500, "core": {
        "tensor_units": [{"rows": 4, "cols": 4, "a_width": 8, "b_width": 8, "acc_width": 32}],
        "memories": [{"name": "sp", "capacity_bytes": 4096, "block_bytes": 4}]}})
    row = evaluate(arch, {"name": "g", "layers": [{"name": "g", "type": "gemm", "M": 8, "N": 8, "K": 8}]},
                   batch=1).layers[0]
    assert "control_j" not in row["energy_breakdown_j"]
