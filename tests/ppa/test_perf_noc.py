"""The NoC roof of the performance model (:mod:`accelgen.ppa.perf`, bytes per level): on a multi-core chip with
shared memories every core reads all input activations, a read is remote with probability ``(cores - 1) / cores``,
and the NoC delivers uniform traffic at its bisection bandwidth over the share that crosses it."""

from __future__ import annotations

import warnings

import pytest

from accelgen.fit.model import FitRangeWarning
from accelgen.ppa import parse_arch
from accelgen.ppa.components import bisection_bits_per_cycle, mean_hops
from accelgen.ppa.perf import evaluate

WL = {"name": "w", "a_width": 8, "b_width": 8, "layers": [{"name": "g", "type": "gemm", "M": 4096, "N": 512, "K": 512}]}


def _arch(cores: int, tx: int, ty: int, topology: str = "mesh", **noc) -> dict:
    return {"name": "t", "node_nm": 28, "clock_mhz": 700, "cores": cores,
            "core": {"tensor_units": [{"rows": 32, "cols": 32}],
                     "memories": [{"name": "buf", "capacity_bytes": 1 << 22, "block_bytes": 64, "banks": 16}]},
            "chip": {"noc": {"topology": topology, "tx": tx, "ty": ty, **noc}}}


def _run(arch: dict):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitRangeWarning)
        warnings.simplefilter("ignore", UserWarning)
        return evaluate(parse_arch(arch), WL)


def test_one_core_has_no_noc_roof():
    rep = _run(_arch(1, 1, 1))
    assert [lv["name"] for lv in rep.levels] == ["sram"]
    assert "noc_bytes" not in rep.layers[0]


@pytest.mark.parametrize("cores, tx, ty, topology, share", [(16, 4, 4, "mesh", 0.5), (8, 8, 1, "ring", 0.5),
                                                             (4, 4, 1, "bus", 1.0)])
def test_remote_activation_reads_at_the_bisection(cores, tx, ty, topology, share):
    rep = _run(_arch(cores, tx, ty, topology))
    noc = next(lv for lv in rep.levels if lv["name"] == "noc")
    assert noc["remote_fraction"] == pytest.approx((cores - 1) / cores)
    # 128-bit flits (no bisection target): the bisection's bytes per cycle over the share that crosses it
    assert noc["bytes_per_cycle"] == pytest.approx(bisection_bits_per_cycle(topology, tx, ty, 128) / 8 / share)
    assert noc["mean_hops"] == pytest.approx(mean_hops(topology, tx, ty) * cores / (cores - 1))
    layer = rep.layers[0]
    # the remote reads are a fixed share of the streamed A's on-chip reads, which are part of the SRAM bytes
    assert 0 < layer["noc_bytes"] < layer["sram_bytes"]
    assert layer["noc_time_s"] == pytest.approx(layer["noc_bytes"] / (noc["bandwidth_gbps"] * 1e9))
    assert layer["time_s"] >= layer["noc_time_s"]
    assert layer["energy_breakdown_j"]["noc_j"] == pytest.approx(layer["noc_bytes"] * noc["energy_pj_per_byte"] * 1e-12)
    assert noc["energy_pj_per_byte"] > 0


def test_a_narrow_noc_binds_and_a_wider_bisection_lifts_it():
    narrow = _run(_arch(16, 4, 4))
    wide = _run(_arch(16, 4, 4, bisection_gbps=4096))
    assert narrow.layers[0]["bound"] == "noc"
    assert wide.total["time_s"] < narrow.total["time_s"]
    # the same bytes cross; wider flits move them sooner
    assert wide.layers[0]["noc_bytes"] == pytest.approx(narrow.layers[0]["noc_bytes"])


def test_mean_hops_of_uniform_traffic():
    # a 2-node line: half of the pairs are 1 hop apart; a 4x4 mesh: 2 x (16 - 1) / 12; a ring of 8: 8 / 4
    assert mean_hops("mesh", 2, 1) == pytest.approx(0.5)
    assert mean_hops("mesh", 4, 4) == pytest.approx(2 * 15 / 12)
    assert mean_hops("ring", 8, 1) == pytest.approx(2.0)
    assert mean_hops("bus", 4, 1) == 1.0
