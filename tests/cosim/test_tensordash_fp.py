"""TensorDash PE and tile in floating point (fp16 / bf16 operands, fp32 accumulation), issue 12.

The golden model (:func:`accelgen.golden.tensordash.simulate_pe` with ``dtype``) is the
cycle-accurate scheduler model accumulating in fp32 in the documented hardware order: each
lane's fp32 product, idle lanes -0.0, then the in-order pairwise lane tree and ``acc + tree`` (the default
``summation``), or with ``summation="fused"`` the fused sum ``fp_sum(acc, p0..pL-1)``
(both structures: also tests/cosim/test_tensordash_fused.py).
Cosim checks every cycle's selects, ``take``, ``done`` and the fp32 accumulator bits against it;
special values (+-0, subnormals, +-Inf, NaN, extremes, cancellation, ties) are in every table.
Two mutants show the checks can fail: a golden that sums the lanes left to right (against the tree), and an RTL
whose zero detector misses -0 (so it forms Inf x -0 = NaN and schedules differently).
"""

import numpy as np
import pytest

from accelgen.cosim import run_cosim
from accelgen.golden import tensordash as td_model
from accelgen.golden.fp import fp_add, from_float32, to_float32
from accelgen.golden.tensordash import cycle_counts, fp_nonzero, lane_tree_sum, simulate_pe
from accelgen.cosim.tensordash import Stream, pe_streams, pe_table
from accelgen.cosim.tensordash_speedup import run_streams
from accelgen.registry import FAMILIES
from accelgen.cli import main
from accelgen.gen import render, write
from accelgen.rtl import tensordash_datapath as td_datapath
from accelgen.rtl.tensordash import TensorDashPE, TensorDashPEParams, TensorDashTile, TensorDashTileParams

NAN = 0x7FC0_0000
NEG_ZERO = 0x8000_0000


def _f32(x) -> int:
    return int(np.float32(x).view(np.uint32))


def _bits(values, dtype):
    return np.asarray(from_float32(np.asarray(values, dtype=np.float32), dtype), dtype=np.int64)


# --------------------------------------------------------------------------- parameters

def test_fp_dtype_implies_widths():
    for dtype, w in (("fp16", 16), ("bf16", 16), ("fp32", 32)):
        p = TensorDashPEParams(dtype=dtype)
        assert (p.a_width, p.b_width, p.acc_width, p.signed) == (w, w, 32, True)
        assert TensorDashPEParams(**p.model_dump()) == p  # the filled-in values are not contradictions
        t = TensorDashTileParams(dtype=dtype, rows=2)
        assert (t.a_width, t.acc_width, t.rows) == (w, 32, 2)
    pe = TensorDashPE(dtype="bf16")
    assert pe.latency == TensorDashPE().latency == 1
    assert pe.signature.members["acc"].shape.width == 32 and not pe.signature.members["acc"].shape.signed
    assert TensorDashTile(dtype="fp16").signature.members["a_next"].shape.width == 16
    assert TensorDashPEParams().dtype == "int" and TensorDashPEParams().a_width == 8  # int unchanged


@pytest.mark.parametrize("kw, msg", [
    (dict(dtype="fp16", acc_width=24),
     "acc_width: 24 is not allowed with dtype='fp16'; fp16 operands accumulate in fp32 (acc_width 32)"),
    (dict(dtype="bf16", a_width=8), "a_width: 8 is not allowed with dtype='bf16'; bf16 operands are 16 bits wide"),
    (dict(dtype="fp32", b_width=16), "b_width: 16 is not allowed with dtype='fp32'; fp32 operands are 32 bits wide"),
    (dict(dtype="fp16", signed=False), "signed: false is not allowed with dtype='fp16'"),
    (dict(flush_subnormals=True), "flush_subnormals: true is not allowed with dtype='int'"),
])
def test_contradictions_rejected(kw, msg):
    with pytest.raises(ValueError, match="^tensordash_pe: " + msg.replace("(", r"\(").replace(")", r"\)")):
        TensorDashPE(**kw)
    with pytest.raises(ValueError, match="tensordash_tile: "):
        TensorDashTile(**kw)


def test_cli_rejects_fp_with_integer_accumulator(capsys, tmp_path):
    rc = main(["gen", "tensordash_tile", "--dtype", "fp16", "--acc-width", "24", "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1
    assert "acc_width: 24 is not allowed with dtype='fp16'" in err and "acc_width 32" in err
    assert not (tmp_path / "out").exists()
    rc = main(["gen", "tensordash_pe", "--dtype", "fp8", "-o", str(tmp_path / "out")])
    assert rc == 2 and "fp16" in capsys.readouterr().err


# --------------------------------------------------------------------------- golden model (pure Python)

@pytest.mark.parametrize("dtype", ["fp16", "bf16", "fp32"])
def test_golden_small_integers_equal_integer_golden(dtype):
    """Small integers are exact in every format and every order: the fp golden equals the int one,
    with the same schedule, for the PE and the tile."""
    rng = np.random.default_rng(3)
    for n, zero_frac in ((1, 0.0), (9, 0.3), (23, 0.7), (40, 0.95)):
        ai = rng.integers(-7, 8, (n, 4)) * (rng.random((n, 4)) >= zero_frac)
        bi = rng.integers(-7, 8, (n, 4)) * (rng.random((n, 4)) >= zero_frac)
        tf = simulate_pe(_bits(ai, dtype), _bits(bi, dtype), depth=4, dtype=dtype)
        ti = simulate_pe(ai, bi, depth=4)
        assert tf.cycles == ti.cycles and (tf.sel == ti.sel).all() and (tf.as_rows == ti.as_rows).all()
        assert to_float32(np.array(tf.result, np.uint32), "fp32").tolist() == ti.result
        rows = rng.integers(-7, 8, (3, n, 4))
        tf = simulate_pe(_bits(rows, dtype), _bits(bi, dtype), depth=3, side="b", dtype=dtype)
        ti = simulate_pe(rows, bi, depth=3, side="b")
        assert tf.cycles == ti.cycles
        assert to_float32(np.array(tf.result, np.uint32), "fp32").tolist() == ti.result


def test_lane_tree_order_and_idle_lane_identity():
    one, tiny = _f32(1.0), _f32(2.0 ** -24)
    # (1 + 2**-24) rounds to even (1.0); (2**-24 + 2**-24) is exact; pairwise: 1 + 2**-23
    assert int(lane_tree_sum(np.array([one, tiny, tiny, tiny], np.uint32))) == _f32(1.0 + 2.0 ** -23)
    # the left fold ((1 + t) + t) + t loses every tiny term: the order is observable
    seq = one
    for v in (tiny, tiny, tiny):
        seq = int(fp_add(np.uint32(seq), np.uint32(v)))
    assert seq == one
    # L = 3: (p0 + p1) + p2
    assert int(lane_tree_sum(np.array([tiny, tiny, one], np.uint32))) == _f32(1.0 + 2.0 ** -23)
    # -0.0 is the exact identity: idle lanes change nothing, signed zeros included
    for x in (one, NEG_ZERO, 0, _f32(-3.5), _f32(np.inf), 1):
        assert int(lane_tree_sum(np.array([x, NEG_ZERO, NEG_ZERO, NEG_ZERO], np.uint32))) == x
        assert int(lane_tree_sum(np.array([NEG_ZERO, NEG_ZERO, x, NEG_ZERO], np.uint32))) == x


def test_golden_skips_zero_pairs_never_forming_inf_times_zero():
    inf, zero, nzero, two = _bits([np.inf], "fp16")[0], 0, 0x8000, _bits([2.0], "fp16")[0]
    a = np.array([[inf, two, 0, two], [two, nzero, inf, two]], np.int64)
    b = np.array([[nzero, two, inf, zero], [two, inf, zero, two]], np.int64)
    t = simulate_pe(a, b, depth=2, dtype="fp16")
    assert t.pairs_used == 3 and t.result == [_f32(12.0)]
    # the tile skips on B's zeros only: a zero A operand times Inf is formed (NaN)
    t = simulate_pe(a[None], b, depth=2, dtype="fp16", side="b")
    assert t.result == [NAN]
    assert fp_nonzero(np.array([0, 0x8000, 1, 0x8001, 0x7C00]), "fp16").tolist() == [False, False, True, True, True]


# --------------------------------------------------------------------------- cosim

def _cosim(params, table, tmp_path, name, build=None):
    fam = FAMILIES["tensordash_tile" if hasattr(params, "rows") else "tensordash_pe"]
    if build is not None:
        from dataclasses import replace
        fam = replace(fam, build_component=build)
    e = write(render(fam, params, name), tmp_path)
    return run_cosim(e.verilog_path, e.manifest, table, sim="verilator", seed=1, waves_on_failure=False)


def _int_pattern(stream: Stream, dtype: str, tile: bool) -> Stream:
    """The integer stream with the same zero pattern (1 where the fp operand is nonzero)."""
    return Stream(stream.section, fp_nonzero(stream.a, dtype).astype(np.int64),
                  fp_nonzero(stream.b, dtype).astype(np.int64))


def _check_table(params, streams, table):
    """Schedule and cycle counts equal the integer PE's for the same zero pattern; specials are covered."""
    tile = hasattr(params, "rows")
    ip = (TensorDashTileParams if tile else TensorDashPEParams)(lanes=params.lanes, depth=params.depth)
    for s, cycles in zip(streams, table.info["model_cycles"]):
        ti = simulate_pe(_int_pattern(s, params.dtype, tile).a, _int_pattern(s, params.dtype, tile).b,
                         depth=ip.depth, side="b" if tile else "both")
        assert ti.cycles == cycles
    accs = np.concatenate([v for k, v in table.expect.items() if k.startswith("acc")]).astype(np.uint32)
    f = accs.view(np.float32)
    assert np.isnan(f).any() and np.isinf(f).any()
    assert (np.isfinite(f) & (f != 0)).mean() > 0.3  # most checks are on finite, nonzero sums
    if params.dtype != "fp16":  # fp16 products are >= 2**-48: fp32 subnormal sums need bf16 / fp32
        assert ((np.abs(f) < np.finfo(np.float32).tiny) & (f != 0)).any()
    w = params.a_width
    for side in ("a", "b"):  # subnormal operands (exponent 0, fraction not 0) reach the multipliers
        ops = np.concatenate([getattr(s, side).reshape(-1) for s in streams])
        exp_bits = 5 if params.dtype == "fp16" else 8
        assert ((ops >> (w - 1 - exp_bits) & ((1 << exp_bits) - 1) == 0) & fp_nonzero(ops, params.dtype)).any()
    for sec in ("fp_specials", "fp_inf_times_zero", "fp_cancellation", "fp_ties", "fp_extremes", "fp_underflow"):
        assert table.info["sections"][sec] == 1


@pytest.mark.cosim
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_pe_fp_bit_exact(tmp_path, dtype):
    params = TensorDashPEParams(lanes=4, depth=4, dtype=dtype)
    streams = pe_streams(params, 48, seed=7)
    table = pe_table(params, streams=streams, seed=7)
    _check_table(params, streams, table)
    result = _cosim(params, table, tmp_path, f"tdpe_{dtype}")
    assert result.passed, result.summary() + str(result.first_mismatches[:3])
    assert result.checks == table.checks and result.cycles == table.cycles


def _tile_fp16_bit_exact(tmp_path, rows):
    params = TensorDashTileParams(lanes=4, depth=4, rows=rows, dtype="fp16")
    streams = pe_streams(params, 32, seed=5, tile=True)
    table = pe_table(params, streams=streams, seed=5)
    _check_table(params, streams, table)
    e = render(FAMILIES["tensordash_tile"], params, "tensordash_tile")
    assert e.verilog.count("module tensordash_tile__row(") == 1
    result = _cosim(params, table, tmp_path, "tensordash_tile")  # same Verilog as the CLI run below
    assert result.passed, result.summary() + str(result.first_mismatches[:3])
    assert result.checks == table.checks


@pytest.mark.cosim
def test_tile_2x4_fp16_bit_exact(tmp_path):
    """Two rows of four fp16 lanes: rows share the B-side schedule, each has its own fp32 accumulator."""
    _tile_fp16_bit_exact(tmp_path, rows=2)


@pytest.mark.cosim
@pytest.mark.slow
def test_tile_4x4_fp16_bit_exact(tmp_path):
    """Slow only (~2 min build on a loaded machine): four rows are the two-row tile at a larger size. By
    default test_tile_2x4_fp16_bit_exact checks the fp16 tile (every special, same assertions) and
    tests/cosim/test_tensordash.py::test_tile_4x4_exact_results_and_cycles checks a four-row tile."""
    _tile_fp16_bit_exact(tmp_path, rows=4)


@pytest.mark.cosim
def test_cli_cosim_tile_fp16(capsys):
    # two rows: the design of test_tile_2x4_fp16_bit_exact, so the two share one build
    rc = main(["cosim", "tensordash_tile", "--dtype", "fp16", "--rows", "2", "--vectors", "8"])
    out = capsys.readouterr().out
    assert rc == 0 and "PASS" in out, out


@pytest.mark.cosim
def test_pe_fp16_reactive_cycles_equal_model_and_int():
    """The testbench follows the RTL's take: measured cycles = fp model = integer fast model (same zeros)."""
    params = TensorDashPEParams(dtype="fp16")
    streams = pe_streams(params, 24, seed=13)
    run = run_streams(FAMILIES["tensordash_pe"], params, streams, name="tdpe_fp16")
    assert run.passed and run.results_exact, run.cosim.summary()
    assert run.measured_cycles == run.model_cycles
    fast = [int(cycle_counts(fp_nonzero(s.a, "fp16") & fp_nonzero(s.b, "fp16"), depth=4)[0]) if s.rows else 0
            for s in streams]
    assert run.measured_cycles == fast


@pytest.mark.cosim
def test_mutant_golden_left_fold_fails(tmp_path, monkeypatch):
    """A golden that adds the lane products left to right instead of the pairwise tree is caught (the lane
    tree's PE: the build of tests/cosim/test_tensordash_fused.py's tree PE)."""
    def left_fold(products, flush_subnormals=False):
        p = np.asarray(products, np.uint32)
        acc = p[..., 0]
        for i in range(1, p.shape[-1]):
            acc = fp_add(acc, p[..., i], flush_subnormals=flush_subnormals)
        return np.asarray(acc, np.uint32)

    params = TensorDashPEParams(dtype="fp16", summation="tree")
    monkeypatch.setattr(td_model, "lane_tree_sum", left_fold)
    table = pe_table(params, vectors=48, seed=7)
    result = _cosim(params, table, tmp_path, "tdpe_fp16_tree")  # the correct RTL (build cached)
    assert not result.passed and result.mismatches > 0
    assert {m["port"] for m in result.first_mismatches} == {"acc"}


@pytest.mark.cosim
@pytest.mark.parametrize("lanes,depth", [(2, 2), pytest.param(4, 4, marks=pytest.mark.slow)])
def test_mutant_rtl_zero_detector_misses_negative_zero_fails(tmp_path, monkeypatch, lanes, depth):
    """An RTL whose fp zero detector compares the whole word with 0 multiplies -0 operands
    (Inf x -0 = NaN) and schedules differently: the checks fail on acc and on the schedule.

    The mutant is a build of its own; by default it is the smallest PE (2 lanes, depth 2: ~half the
    build), which the same table catches. The 4-lane, depth-4 mutant is the same check at a larger
    size: slow only."""
    params = TensorDashPEParams(dtype="fp16", lanes=lanes, depth=depth)
    table = pe_table(params, vectors=16, seed=7)
    monkeypatch.setattr(td_datapath, "nonzero_detect", lambda p, v: v != 0)
    result = _cosim(params, table, tmp_path, "tdpe_fp16_zmutant", build=TensorDashPE.from_params)
    assert not result.passed and result.mismatches > 0
    ports = {m["port"] for m in result.first_mismatches}
    assert "acc" in ports or any(p.startswith(("sel", "take")) for p in ports)


@pytest.mark.cosim
@pytest.mark.slow
def test_pe_bf16_flush_subnormals_bit_exact(tmp_path):
    """DAZ+FTZ multipliers and adders (subnormal operands are not zero for the scheduler: they are
    multiplied, as zeros of their sign). Slow: one more Verilator build."""
    params = TensorDashPEParams(lanes=4, depth=3, dtype="bf16", flush_subnormals=True)
    table = pe_table(params, vectors=48, seed=9)
    accs = np.concatenate([v for k, v in table.expect.items() if k.startswith("acc")]).astype(np.uint32)
    assert (accs == NEG_ZERO).any()  # a flushed negative subnormal sum: only FTZ makes the accumulator -0
    result = _cosim(params, table, tmp_path, "tdpe_bf16_ftz")
    assert result.passed, result.summary() + str(result.first_mismatches[:3])
