"""TensorDash's dense baseline (``depth: 1``) on the emitted Verilog (Verilator).

The cycle tables of the TensorDash PE and tile drive the dense designs unchanged (same port names; one-row
windows): every cycle checks each lane's select (1 while busy), ``take`` (1), ``done`` and every accumulator
against the golden model, whose dense path multiplies every pair (zeros included) and takes one busy cycle
per stream row. Two mutants show the checks can fail: a cycle model that skips all-zero rows at depth 1 (what
TensorDash would do), and a golden that skips the zero pairs in floating point (TensorDash's idle lanes, -0.0,
instead of the dense products: ``Inf x 0`` is NaN in the dense tile).

Builds: two by default (the integer and the fp16 tile, under the CLI's module name, so ``accelgen cosim
tensordash_tile --depth 1`` and ``--dtype fp16 --depth 1`` share them); the mutants reuse them. The PE, the
pipelined variants and the reactive run are ``slow``.
"""

import numpy as np
import pytest

from accelgen.cli import main
from accelgen.cosim import run_cosim, tensordash as td_host
from accelgen.cosim.tensordash import Stream, pe_streams, pe_table
from accelgen.cosim.tensordash_speedup import run_streams
from accelgen.gen import render, write
from accelgen.golden.tensordash import cycle_counts, fp_nonzero
from accelgen.registry import FAMILIES

pytestmark = pytest.mark.cosim

#: ``accelgen cosim tensordash_tile --depth 1``
INT_TILE = {"depth": 1}
#: ``accelgen cosim tensordash_tile --dtype fp16 --depth 1``
FP16_TILE = {"depth": 1, "dtype": "fp16"}


def _params(family, kw):
    return FAMILIES[family].validate(kw)


def _cosim(family, params, table, tmp_path):
    fam = FAMILIES[family]
    e = write(render(fam, params, fam.default_name(params)), tmp_path)  # the CLI's name: one build for both
    return run_cosim(e.verilog_path, e.manifest, table, sim="verilator", seed=1, waves_on_failure=False)


def _exact(family, kw, tmp_path, vectors=48, seed=5):
    """The table's run passes; the model's busy cycles are the stream lengths (no zero skipping)."""
    p = _params(family, kw)
    table = pe_table(p, vectors=vectors, seed=seed)
    assert table.info["model_cycles"] == table.info["stream_rows"]
    assert table.info["busy_cycles"] == table.info["dense_cycles"]
    result = _cosim(family, p, table, tmp_path)
    assert result.passed, result.summary() + str(result.first_mismatches[:3])
    assert result.checks == table.checks and result.cycles == table.cycles
    return p, table


def test_tile_dense_int_exact_results_and_cycles(tmp_path):
    _, table = _exact("tensordash_tile", INT_TILE, tmp_path)
    assert {"all_zero_b", "all_zero_both", "dense", "empty"} <= set(table.info["sections"])


def test_tile_dense_fp16_bit_exact(tmp_path):
    """fp16 tile at depth 1: fp32 sums bit-exact, special values included (Inf x 0 = NaN: every pair is
    multiplied)."""
    _, table = _exact("tensordash_tile", FP16_TILE, tmp_path)
    assert "fp_inf_times_zero" in table.info["sections"]


# --------------------------------------------------------------------------- mutants (reuse the builds above)

def test_mutant_cycle_model_skipping_zero_rows_fails(tmp_path, monkeypatch):
    """A cycle model that skips the all-zero rows of a depth-1 stream (TensorDash's behaviour, not the dense
    baseline's) expects fewer busy cycles: the RTL disagrees on done (and take/acc)."""
    p = _params("tensordash_tile", INT_TILE)
    real = td_host.simulate_pe

    def skipping(a, b, *, depth, **kw):
        keep = np.asarray(b, dtype=np.int64).any(axis=1)  # the tile's rows with an effectual pair
        return real(np.asarray(a)[..., keep, :], np.asarray(b)[keep], depth=depth, **kw)

    monkeypatch.setattr(td_host, "simulate_pe", skipping)
    table = pe_table(p, vectors=48, seed=5)
    assert table.info["busy_cycles"] < table.info["dense_cycles"]
    result = _cosim("tensordash_tile", p, table, tmp_path)
    assert not result.passed and result.mismatches > 0
    assert {"done", "take"} & {m["port"] for m in result.first_mismatches}


def test_mutant_golden_skipping_zero_pairs_fails_in_fp(tmp_path, monkeypatch):
    """A golden that skips the zero pairs at depth 1 (an idle lane's -0.0: +0 x -0) instead of multiplying
    them gives no NaN for Inf x 0: the fp16 tile disagrees on its accumulators only."""
    p = _params("tensordash_tile", FP16_TILE)
    real = td_host.simulate_pe

    def skipping(a, b, *, dtype, **kw):
        zero = ~fp_nonzero(np.asarray(b, dtype=np.int64), dtype)
        a = np.where(zero, 0, np.asarray(a, dtype=np.int64))
        b = np.where(zero, 0x8000, np.asarray(b, dtype=np.int64))
        return real(a, b, dtype=dtype, **kw)

    monkeypatch.setattr(td_host, "simulate_pe", skipping)
    result = _cosim("tensordash_tile", p, pe_table(p, vectors=48, seed=5), tmp_path)
    assert not result.passed and result.mismatches > 0
    assert {m["port"] for m in result.first_mismatches} <= {f"acc__{r}" for r in range(p.rows)}


# --------------------------------------------------------------------------- more configurations (slow)

@pytest.mark.slow
@pytest.mark.parametrize("family, kw", [
    ("tensordash_pe", {"depth": 1}),
    ("tensordash_pe", {"depth": 1, "dtype": "fp16"}),
    ("tensordash_pe", {"depth": 1, "mul_stages": 2, "add_stages": 1}),
    ("tensordash_pe", {"depth": 1, "dtype": "fp16", "mul_stages": 2, "add_stages": 1}),
    ("tensordash_tile", {"depth": 1, "mul_stages": 2, "add_stages": 1}),
    ("tensordash_tile", {"depth": 1, "dtype": "fp16", "mul_stages": 2, "add_stages": 1}),
    # degenerate: two lanes, one row, unsigned narrow operands, the accumulator wraps; odd lanes in bf16
    ("tensordash_tile", {"depth": 1, "lanes": 2, "rows": 1, "a_width": 4, "b_width": 4, "acc_width": 8, "signed": False}),
    ("tensordash_pe", {"depth": 1, "lanes": 3, "dtype": "bf16", "flush_subnormals": True, "mul_stages": 1, "add_stages": 3}),
], ids=["pe_int", "pe_fp16", "pe_int_m2a1", "pe_fp16_m2a1", "tile_int_m2a1", "tile_fp16_m2a1", "tile_l2_r1_u4",
        "pe_bf16_l3_ftz_m1a3"])
def test_dense_more_configs(tmp_path, family, kw):
    _exact(family, kw, tmp_path, vectors=64, seed=9)


@pytest.mark.slow
def test_pe_dense_reactive_counts_one_cycle_per_row():
    """The testbench follows the RTL's take: one busy cycle per row, zero rows included, results exact."""
    p = _params("tensordash_pe", {"depth": 1})
    streams = pe_streams(p, 16, seed=3)
    z = np.zeros((9, 4), np.int64)
    streams += [Stream("zeros", z, z), Stream("empty", z[:0], z[:0])]
    run = run_streams(FAMILIES["tensordash_pe"], p, streams, name="tensordash_pe")
    assert run.passed and run.results_exact, run.cosim.summary()
    assert run.measured_cycles == run.model_cycles == [s.rows for s in streams]
    n = max(s.rows for s in streams)
    eff = np.stack([np.pad((s.a != 0) & (s.b != 0), ((0, n - s.rows), (0, 0))) for s in streams])
    assert run.measured_cycles == cycle_counts(eff, [s.rows for s in streams], depth=1).tolist()


@pytest.mark.slow
def test_cli_cosim_dense():
    for args in (["tensordash_tile", "--depth", "1"], ["tensordash_tile", "--dtype", "fp16", "--depth", "1"],
                 ["tensordash_pe", "--depth", "1", "--mul-stages", "2", "--add-stages", "1"]):
        assert main(["cosim", *args, "--vectors", "16"]) == 0
