"""Issue 50 items 6 and 7: the achievable clock's timed paths (memories' macro cycle, register files, wires), what
one die can hold, the SRAM roof at the macros' cycle time, and achieved (effectual) against dense-equivalent
figures."""

from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from accelgen import shipped
from accelgen.cli import main
from accelgen.errors import ConfigError
from accelgen.ppa import dse, estimate
from accelgen.ppa.batch import evaluate_batch
from accelgen.ppa.estimate import walk
from accelgen.ppa.perf import evaluate
from accelgen.ppa.process import technology
from accelgen.ppa.sram import RETICLE_MM2, SRAM
from accelgen.ppa.units.memory import sustained_gbps

sys.path.insert(0, str(Path(__file__).parent))
import ppa_models


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    return ppa_models.write_models(tmp_path_factory.mktemp("models"))


MEM = {"name": "buf", "capacity_bytes": 2 ** 20, "block_bytes": 64, "banks": 4}


def _arch(clock_mhz=200, memories=(MEM,), **over):
    a = {"name": "t", "node_nm": 28, "clock_mhz": clock_mhz,
         "core": {"tensor_units": [{"rows": 32, "cols": 32}], "vector_unit": {}, "memories": list(memories)},
         "chip": {"offchip": {"type": "ddr4", "bandwidth_gbps": 25.6}, "white_space_fraction": 0.1}}
    a.update(over)
    return a


def _macro(m=MEM, node_nm=28):
    return SRAM(capacity_bytes=m["capacity_bytes"], block_bytes=m["block_bytes"], banks=m["banks"], node_nm=node_nm,
                cell="sram_lp").result


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


# --------------------------------------------------------------------------- the achievable clock

def test_memory_macro_cycle_limits_the_clock(models):
    """1 MB in 4 banks at 28 nm: a 256 kB bank whose macro cycles in ~3.1 ns, slower than any unit of the core."""
    est = _quiet(estimate, _arch(), model_paths=models)
    cycle = _macro().cycle_time_ns
    assert est.achievable_clock_mhz == pytest.approx(1e3 / cycle, rel=1e-12)
    assert est.critical_component == "t/core/memories/buf" and est.critical_path == "memory macro cycle"
    assert est.timing_paths[0] == {"path": "t/core/memories/buf", "kind": "memory_cycle", "delay_ns": cycle}
    assert est.meets_timing   # 200 MHz


def test_a_clock_faster_than_a_memory_misses_timing_and_says_why(models):
    with pytest.warns(UserWarning, match=r"clock_mhz 500 exceeds the achievable 3\d\d MHz \(t/core/memories/buf, "
                                         r"memory macro cycle 3\.\d+ ns\).*more banks"):
        est = estimate(_arch(clock_mhz=500), model_paths=models)
    assert not est.meets_timing


def test_more_banks_make_smaller_faster_macros(models):
    """64 banks of 16 kB: the macro's cycle is shorter, and the memory stops being the critical path or limits
    the clock less."""
    banked = _quiet(estimate, _arch(memories=[{**MEM, "banks": 64}]), model_paths=models)
    one = _quiet(estimate, _arch(), model_paths=models)
    assert banked.achievable_clock_mhz > 1.5 * one.achievable_clock_mhz


def test_register_files_and_wires_are_timed_paths(models):
    tech = technology(28)
    est = _quiet(estimate, _arch(), model_paths=models)
    kinds = {(t["path"].rsplit("/", 1)[-1], t["kind"]) for t in est.timing_paths}
    assert ("vector_regfile", "register_file") in kinds and ("tensor_unit0", "logic") in kinds
    # the wire of a systolic array is one PE's side (neighbour to neighbour), of the repeated semi-global wire
    tu = next(c for c in est.breakdown["children"][0]["children"][0]["children"] if c["name"] == "tensor_unit0")
    side_mm = math.sqrt(tu["area_mm2"]) / 32
    wire = next(t for t in est.timing_paths if t["kind"] == "wire" and t["path"].endswith("tensor_unit0"))
    assert wire["length_mm"] == pytest.approx(side_mm, rel=1e-9)
    assert wire["delay_ns"] == pytest.approx(side_mm * tech.repeated_wire_delay_ps_per_mm("semi_global") * 1e-3,
                                             rel=1e-9)


def test_tpu_v1_clock_is_what_its_unified_buffer_allows():
    """The shipped TPU v1 (28 nm, 24 MiB Unified Buffer in NeuroMeter's two 1R1W banks, ``cell: auto``): the
    achievable clock is the buffer's macro cycle, not the 4,360 MHz of its fully pipelined vector unit. Its 12 MiB
    two-port bank cycles slower than 700 MHz in low-power cells (643 MHz on 2026-11-28), so it takes
    high-performance cells (1,180 MHz), and the chip meets its clock."""
    est = _quiet(estimate, shipped.resolve("chips", "tpu_v1"))
    ub = next(t for t in est.timing_paths if t["path"].endswith("unified_buffer"))
    assert est.critical_component.endswith("unified_buffer") and est.critical_path == "memory macro cycle"
    assert est.achievable_clock_mhz == pytest.approx(1e3 / ub["delay_ns"], rel=1e-12)
    assert 700 <= est.achievable_clock_mhz < 1500 and est.meets_timing
    ub_node = next(n for _, n, _ in walk(est.breakdown) if n["name"] == "unified_buffer")
    assert ub_node["params"]["cell"] == "sram"


# --------------------------------------------------------------------------- what one die holds

def test_reticle_is_26_by_33_mm():
    assert RETICLE_MM2 == 858.0


def test_sram_cli_refuses_a_terabyte(capsys):
    assert main(["sram", "--capacity-bytes", "1099511627776", "--node", "7"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "--capacity-bytes: 1099511627776 is not allowed" in err and "reticle limit is 858 mm^2" in err
    area = SRAM(capacity_bytes=2 ** 40, node_nm=7, cell="sram_lp").result.area_mm2
    assert f"would take {area:.4g} mm^2" in err and area > 100 * RETICLE_MM2


def test_estimate_refuses_a_memory_or_chip_no_die_holds(models):
    with pytest.raises(ConfigError, match=r"core\.memories\[0\]\.capacity_bytes: 1073741824 is not allowed: memory "
                                          r"'buf' \(4 bank\(s\)\) would take \d+ mm\^2, more than one die can hold: "
                                          r"the reticle limit is 858 mm\^2"):
        _quiet(estimate, _arch(memories=[{**MEM, "capacity_bytes": 2 ** 30}]), model_paths=models)
    big = _arch(cores=16, chip={"noc": {"tx": 4, "ty": 4}}, memories=[{**MEM, "capacity_bytes": 2 ** 27}])
    with pytest.raises(ConfigError, match=r"chip 't' \(16 core\(s\)\) would take .* more than one die can hold.*allowed: a chip within the limit"):
        _quiet(estimate, big, model_paths=models)


def test_batch_marks_points_over_the_reticle_invalid():
    out = _quiet(evaluate_batch, rows=32, cols=32, units=np.array([1, 1]), cores=1,
                 sram_bytes=np.array([2 ** 20, 2 ** 30]), node_nm=28, clock_mhz=500)
    assert out["invalid"][0] == "" and np.isfinite(out["area_mm2"][0])
    assert out["invalid"][1].startswith("core.memories[0].capacity_bytes: the memory would take")
    assert np.isnan(out["area_mm2"][1])


# --------------------------------------------------------------------------- one SRAM cell default

def test_sram_cli_defaults_to_the_estimators_cell(capsys, models):
    assert main(["sram", "--capacity-bytes", "2097152", "--node", "28", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["cell"] == "sram_lp"
    est = _quiet(estimate, _arch(memories=[{"name": "m", "capacity_bytes": 2097152, "banks": 1}]),
                 model_paths=models)
    mem = next(n for n in est.breakdown["children"][0]["children"] if n["name"] == "memories")["children"][0]
    assert d["leakage_mw"] == pytest.approx(mem["leakage_w"] * 1e3, rel=1e-9)


# --------------------------------------------------------------------------- the SRAM roof

@pytest.mark.parametrize("clock_mhz", [100, 500])   # a period longer, then shorter, than the macro's cycle
def test_sram_roof_is_banks_ports_blocks_per_macro_cycle_or_period(models, clock_mhz):
    r = _macro()
    rep = _quiet(evaluate, _arch(clock_mhz=clock_mhz), {"layers": [{"name": "a", "type": "gemm", "M": 64, "N": 64,
                                                                     "K": 64}]}, model_paths=models)
    sram = rep.levels[0]
    want = 4 * 64 / max(r.cycle_time_ns, 1e3 / clock_mhz)
    assert sram["bandwidth_gbps"] == pytest.approx(want, rel=1e-12)
    assert sram["bandwidth_gbps"] == pytest.approx(sustained_gbps(4, 1, 64, r.cycle_time_ns, clock_mhz), rel=1e-12)
    assert sram["bytes_per_cycle"] == pytest.approx(want * 1e3 / clock_mhz, rel=1e-12)
    if clock_mhz == 500:   # never more than the macro allows: 82 GB/s, not the 128 GB/s of 4 x 64 B at 500 MHz
        assert sram["bandwidth_gbps"] < 4 * 64 * clock_mhz * 1e-3 * 0.7


# --------------------------------------------------------------------------- achieved vs dense-equivalent

GEMM = {"name": "a", "type": "gemm", "M": 256, "N": 256, "K": 256}


def _sparse(d, **over):
    return {"a_density": d, "b_density": d, "layers": [GEMM], **over}


def test_sparse_chip_reports_effectual_achieved_and_dense_equivalent_apart(models):
    arch = Path(__file__).resolve().parents[2] / "examples/arch/sigma.yaml"
    dense = _quiet(evaluate, arch, _sparse(1.0), model_paths=models)
    sparse = _quiet(evaluate, arch, _sparse(0.1), model_paths=models)
    t = sparse.total
    assert t["effectual_ops"] == pytest.approx(2 * 256 ** 3 * 0.01, rel=1e-12)
    assert t["achieved_tops"] == pytest.approx(t["effectual_ops"] / t["time_s"] * 1e-12, rel=1e-12)
    assert t["dense_equivalent_tops"] == pytest.approx(2 * 256 ** 3 / t["time_s"] * 1e-12, rel=1e-12)
    assert t["speedup_vs_dense"] == pytest.approx(dense.total["time_s"] / t["time_s"], rel=1e-12)
    assert t["speedup_vs_dense"] > 3   # SIGMA skips the zeros
    peak = max(sparse.peak_tops.values())
    assert t["dense_equivalent_tops"] > t["achieved_tops"] and t["achieved_tops"] <= peak
    for rep in (dense, sparse):
        assert 0 < rep.total["utilization"] <= 1 and all(0 <= r["utilization"] <= 1 for r in rep.layers)
    assert dense.total["speedup_vs_dense"] == 1.0 and dense.total["achieved_tops"] == dense.total[
        "dense_equivalent_tops"]


def test_dense_chip_reads_sparse_operands_dense_on_chip(models):
    """A systolic array that skips no zeros: the same on-chip bytes and compute time at any density; only its
    off-chip traffic is compressed (the workload's storage), and with ``storage: dense`` nothing changes."""
    arch = _arch(clock_mhz=200, memories=[{**MEM, "banks": 64}])
    dense = _quiet(evaluate, arch, _sparse(1.0), model_paths=models)
    sparse = _quiet(evaluate, arch, _sparse(0.1), model_paths=models)
    plain = _quiet(evaluate, arch, _sparse(0.1, storage="dense"), model_paths=models)
    assert sparse.layers[0]["onchip_operands"] == "dense"
    assert sparse.total["sram_bytes"] == pytest.approx(dense.total["sram_bytes"], rel=1e-12)
    assert sparse.layers[0]["compute_time_s"] == pytest.approx(dense.layers[0]["compute_time_s"], rel=1e-12)
    assert sparse.total["dram_bytes"] < dense.total["dram_bytes"]
    assert plain.total["time_s"] == pytest.approx(dense.total["time_s"], rel=1e-12)
    assert plain.total["speedup_vs_dense"] == pytest.approx(1.0, rel=1e-12)
    assert sparse.total["achieved_tops"] == pytest.approx(0.01 * sparse.total["dense_equivalent_tops"], rel=1e-12)


def test_dse_point_over_the_reticle_is_infeasible_with_the_reason():
    """A workload-mode design point whose memory no die holds is marked infeasible with the estimator's reason,
    not a crash; its neighbour is evaluated."""
    root = Path(__file__).resolve().parents[2]
    wl = {"name": "tiny", "layers": [{"name": "fc", "type": "gemm", "M": 4, "N": 64, "K": 64}]}
    plan = dse.resolve({"name": "t", "base": str(root / "examples" / "dse" / "neurometer_base.yaml"),
                        "parameters": [{"name": "mem", "path": "core.memories.0.capacity_bytes",
                                        "values": [2 ** 20, 2 ** 33]}],
                        "workloads": [wl], "regimes": [{"name": "b1", "batch": 1}],
                        "objectives": ["achieved_tops"]}, root=root)
    ok = _quiet(dse.evaluate_point, plan, {"mem": 2 ** 20})
    big = _quiet(dse.evaluate_point, plan, {"mem": 2 ** 33})
    assert ok["feasible"], ok["reason"]
    assert not big["feasible"]
    assert big["reason"].startswith("invalid: core.memories[0].capacity_bytes: 8589934592 is not allowed: memory")
    assert "reticle limit is 858 mm^2" in big["reason"]


# --------------------------------------------------------------------------- cell: auto

def test_auto_cell_is_low_power_unless_its_macro_misses_the_clock(models):
    """``cell: auto`` takes the low-power cells while their macro cycles within the clock period, and the
    high-performance cells (a faster macro) above that clock."""
    mem = {"name": "buf", "capacity_bytes": 4 * 2**20, "block_bytes": 256, "banks": 1, "cell": "auto"}
    lp = SRAM(capacity_bytes=mem["capacity_bytes"], block_bytes=256, node_nm=28, cell="sram_lp").result
    hp = SRAM(capacity_bytes=mem["capacity_bytes"], block_bytes=256, node_nm=28, cell="sram").result
    assert hp.cycle_time_ns < lp.cycle_time_ns
    limit_mhz = 1e3 / lp.cycle_time_ns

    def cell_at(clock_mhz):
        arch = {"name": "m", "node_nm": 28, "clock_mhz": clock_mhz,
                "core": {"tensor_units": [{"rows": 8, "cols": 8}], "memories": [mem]}}
        est = _quiet(estimate, arch, model_paths=models)
        return next(n for _, n, _ in walk(est.breakdown) if n["name"] == "buf")["params"]["cell"]

    assert cell_at(0.9 * limit_mhz) == "sram_lp"
    assert cell_at(1.1 * limit_mhz) == "sram"
