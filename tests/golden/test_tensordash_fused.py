"""TensorDash's fused PE (``summation``): the accumulator and the lane products summed by one multi-operand fp32
adder with one rounding (Mahmoud et al., MICRO 2020, sect. II-B), against the lane tree of two-operand adders.

Pure Python and Amaranth elaboration only; the emitted Verilog of both structures is checked against the golden
model in tests/cosim/test_tensordash_fused.py."""

import numpy as np
import pytest
from amaranth.hdl import Fragment

from accelgen.cli import main
from accelgen.golden.fp import fp_sum, random_fp_bits
from accelgen.golden.tensordash import pe_latency, simulate_pe
from accelgen.rtl.tensordash import TensorDashPE, TensorDashPEParams, TensorDashTileParams

NEG_ZERO = 0x8000_0000


def _f32(x) -> int:
    return int(np.float32(x).view(np.uint32))


def _fp16(x) -> int:
    return int(np.float16(x).view(np.uint16))


def test_fused_sum_rounds_once_where_the_tree_rounds_twice():
    """1 + 3 * 2**-24 (lane products 1, 2**-24, 2**-24, 2**-24): the tree's (1 + t) rounds to 1 (even) and
    (t + t) is exact, giving 1 + 2**-23; the fused sum rounds the exact total once: a tie between 1 + 2**-23
    and 1 + 2**-22, to the even 1 + 2**-22."""
    a = np.array([[_fp16(1.0), _fp16(2.0 ** -12), _fp16(2.0 ** -12), _fp16(2.0 ** -12)]], np.int64)
    b = np.array([[_fp16(1.0), _fp16(2.0 ** -12), _fp16(2.0 ** -12), _fp16(2.0 ** -12)]], np.int64)
    tree = simulate_pe(a, b, depth=2, dtype="fp16", summation="tree")
    fused = simulate_pe(a, b, depth=2, dtype="fp16", summation="fused")
    assert tree.result == [_f32(1.0 + 2.0 ** -23)]
    assert fused.result == [_f32(1.0 + 2.0 ** -22)]
    assert fused.cycles == tree.cycles == 1 and (fused.sel == tree.sel).all()


@pytest.mark.parametrize("threads", [1, 2, 4])
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_fused_dense_is_one_fp_sum_per_busy_cycle(dtype, threads):
    """The dense tile, fused: thread ``j mod T`` becomes ``fp_sum(thread, p0..p3)`` in busy cycle ``j``, and the
    threads fold pairwise in the loop's order, each add ``fp_sum(u, v, -0, -0, -0)`` (written out here
    cycle by cycle with numpy float32 products, exact for these formats)."""
    rng = np.random.default_rng(threads)
    n = 9
    a = np.asarray(random_fp_bits(rng, (2, n, 4), dtype, density=0.8), np.int64)
    b = np.asarray(random_fp_bits(rng, (n, 4), dtype, density=0.8), np.int64)
    tr = simulate_pe(a, b, depth=1, dtype=dtype, threads=threads, side="b", summation="fused")
    shift = 16 if dtype == "bf16" else 0
    f = (lambda v: (np.asarray(v, np.uint32) << shift).view(np.float32)) if dtype == "bf16" else \
        (lambda v: np.asarray(v, np.uint16).view(np.float16).astype(np.float32))
    for r in range(2):
        acc = [np.uint32(0)] * threads
        for k in range(n):
            products = (f(a[r, k]) * f(b[k])).view(np.uint32)
            acc[(k + 1) % threads] = fp_sum([acc[(k + 1) % threads], *products])
        vals = [acc[(n + 1 + i) % threads] for i in range(threads)]
        while len(vals) > 1:
            vals = [fp_sum([vals[i], vals[i + 1], NEG_ZERO, NEG_ZERO, NEG_ZERO]) if i + 1 < len(vals) else vals[i]
                    for i in range(0, len(vals), 2)]
        assert tr.result[r] == int(vals[0])


def test_fused_differs_from_the_tree_on_random_operands():
    """The golden model tells the two structures apart (so cosim of one against the other's golden fails)."""
    rng = np.random.default_rng(7)
    a = np.asarray(random_fp_bits(rng, (64, 4), "fp16", density=0.8), np.int64)
    b = np.asarray(random_fp_bits(rng, (64, 4), "fp16", density=0.8), np.int64)
    fused = simulate_pe(a, b, depth=3, dtype="fp16", threads=2, summation="fused")
    tree = simulate_pe(a, b, depth=3, dtype="fp16", threads=2, summation="tree")
    assert fused.cycles == tree.cycles and fused.result != tree.result


def test_fused_latency_has_no_tree_term():
    for lanes, m, a in ((4, 2, 1), (8, 3, 3), (3, 0, 2), (4, 1, 0)):
        tree = TensorDashPEParams(lanes=lanes, dtype="fp16", mul_stages=m, add_stages=a, summation="tree")
        fused = TensorDashPEParams(lanes=lanes, dtype="fp16", mul_stages=m, add_stages=a, summation="fused")
        fold = 0 if a == 0 else 4 * a - 1
        assert fused.latency == 1 + m + fold == pe_latency(lanes, m, a, dtype="fp16", summation="fused")
        assert tree.latency == 1 + m + (lanes - 1).bit_length() * a + fold == \
            pe_latency(lanes, m, a, dtype="fp16", summation="tree")
        assert fused.pipeline_delay == m and fused.fused and not tree.fused
        # integers ignore summation: one datapath, the tree's latency
        ints = [TensorDashTileParams(lanes=lanes, mul_stages=m, add_stages=a, summation=s) for s in ("fused", "tree")]
        assert ints[0].latency == ints[1].latency == tree.latency and not ints[0].fused


def test_integer_pe_ignores_summation():
    def names(**kw):
        return {name for _, name, _ in Fragment.get(TensorDashPE(**kw), None).subfragments}
    assert names(mul_stages=1, add_stages=1) == names(mul_stages=1, add_stages=1, summation="tree")
    assert "add_acc" in names(mul_stages=1, add_stages=1)


def test_summation_rejected_with_one_line_error(capsys, tmp_path):
    with pytest.raises(ValueError, match=r"^tensordash_pe\.summation: 'sum' is not allowed; expected 'fused' or "
                                         r"'tree'$"):
        TensorDashPE(dtype="fp16", summation="sum")
    rc = main(["gen", "tensordash_tile", "--dtype", "fp16", "--summation", "adder", "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and "summation" in err and "'fused'" in err
    assert not (tmp_path / "out").exists()
