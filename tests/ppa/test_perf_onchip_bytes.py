"""The performance model's on-chip bytes (:mod:`accelgen.ppa.perf`, bytes per level) on a chip without a memory of
sums: whole lines for a weight-stationary array, every byte a load brings written once, every output written once
and read once more where it leaves the chip, and nothing extra where a layer's activations stay on chip."""

from __future__ import annotations

import math
import warnings

import pytest

from accelgen.ppa import parse_arch
from accelgen.ppa.perf import evaluate

ROWS = COLS = 16


def _arch(capacity_bytes: int) -> dict:
    return {"name": "t", "node_nm": 28, "clock_mhz": 500,
            "core": {"tensor_units": [{"rows": ROWS, "cols": COLS, "dataflow": "ws", "a_width": 8, "b_width": 8,
                                       "acc_width": 32}],
                     "memories": [{"name": "buf", "capacity_bytes": capacity_bytes, "block_bytes": 64, "banks": 4}]},
            "chip": {"offchip": {"type": "ddr4", "bandwidth_gbps": 25.6}}}


def _run(arch: dict, layers: list[dict]):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(parse_arch(arch), {"name": "w", "a_width": 8, "b_width": 8, "layers": [
            {"name": f"g{i}", "type": "gemm", "M": m, "N": n, "K": k} for i, (m, n, k) in enumerate(layers)]})


def _padded(m: int, n: int, k: int) -> dict:
    """Bytes of int8 operands and int32 partial sums in whole lines (the memory's 64-byte line holds a row's 16
    operands or 16 sums: K padded to ROWS, N to COLS), the streamed A read once per N-slice, the weights in whole
    tiles, the partial sums written and read back once per K fold after the first; outputs as they are."""
    kp, np_ = math.ceil(k / ROWS) * ROWS, math.ceil(n / COLS) * COLS
    folds = math.ceil(k / ROWS)
    return {"a_reads": m * kp * math.ceil(n / COLS), "b": kp * np_, "out": m * n, "psum_each": (folds - 1) * m * np_ * 4}


def test_a_chain_on_chip_loads_its_input_and_weights_and_stores_only_the_last_output():
    # both layers' activations fit: the first input comes in, each layer's weights, the last output goes out
    shapes = [(64, 40, 50), (64, 24, 40)]
    rep = _run(_arch(1 << 20), shapes)
    first, last = (_padded(*s) for s in shapes)
    s0, s1 = (row["sram_bytes_split"] for row in rep.layers)
    assert s0["operands_read"] == pytest.approx(first["a_reads"] + first["b"] + first["psum_each"])
    # the DMA writes what it loads as it crosses (its off-chip layout, not the array's lines); the output stays
    assert s0["operands_write"] == pytest.approx(64 * 50 + 50 * 40 + first["psum_each"] + first["out"])
    assert s1["operands_write"] == pytest.approx(40 * 24 + last["psum_each"] + last["out"])
    # the last output is read once more, to go off chip
    assert s1["operands_read"] == pytest.approx(last["a_reads"] + last["b"] + last["psum_each"] + last["out"])
    assert s0["sums_read"] == s0["sums_write"] == 0
    for row in rep.layers:
        assert row["sram_bytes"] == pytest.approx(sum(row["sram_bytes_split"].values()))


def test_a_layer_tiled_off_chip_writes_every_byte_it_reads_from_off_chip():
    # 256 KB of A in a 64 KB memory: A and B re-cross; each crossing is written on chip once, the output read once
    rep = _run(_arch(1 << 16), [(512, 96, 512)])
    row = rep.layers[0]
    p = _padded(512, 96, 512)
    out = 512 * 96
    assert row["dram_bytes"] > 512 * 512 + 512 * 96 + out   # re-crossing
    assert row["sram_bytes_split"]["operands_write"] == pytest.approx(row["dram_bytes"] - out + p["psum_each"]
                                                                      + p["out"])
    assert row["sram_bytes_split"]["operands_read"] == pytest.approx(p["a_reads"] + p["b"] + p["psum_each"]
                                                                     + p["out"])


def test_a_line_narrower_than_the_array_holds_a_row_of_a_in_fewer_bytes():
    # 8-byte lines: a row of A's 20 operands takes 3 lines (24 bytes), not two 16-wide K-slices (32); the weights
    # still fill the array's 32 x 16 tile; the partial sums are 2 a line (N = 16 already whole)
    arch = _arch(1 << 20)
    arch["core"]["memories"][0].update(block_bytes=8, banks=16)
    split = _run(arch, [(10, 16, 20)]).layers[0]["sram_bytes_split"]
    psum_each = (2 - 1) * 10 * 16 * 4
    assert split["operands_read"] == pytest.approx(10 * 24 + 32 * 16 + psum_each + 10 * 16)
