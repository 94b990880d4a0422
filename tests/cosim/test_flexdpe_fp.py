"""SIGMA Flex-DPE in floating point (fp16 / bf16 / fp32 operands, fp32 products and FAN reduction).

Cosim checks every FAN slot bit-exactly in every cycle, rebuilds C from the recorded
slots (fold partials added in fold order) and compares it bit for bit with
:func:`accelgen.golden.flexdpe.flexdpe_fp_reference`, which recomputes C from the
mapping alone; measured cycles equal the model (the integer Flex-DPE's). k = 8 bf16 (every
other cosim test here shares its build) and k = 4 fp16 run by default; k = 8 fp16, k = 16 bf16
(~1 min build) and fp32 are slow.
"""

import numpy as np
import pytest

import accelgen.cosim.flexdpe as sigma
from accelgen.cosim import run_cosim
from accelgen.golden.fp import dot_sequential, fp_mul, is_zero, random_fp_bits, to_float32
from accelgen.golden.flexdpe import flexdpe_fp_reference
from accelgen.cosim.flexdpe import BitmapMatrix, flexdpe_table, plan_gemm, sparse_operands
from accelgen.cosim.flexdpe import verify as sigma_verify
from accelgen.registry import family
from accelgen.gen import render, write
from accelgen.cosim.check import cosim_emitted
from accelgen.rtl.flexdpe import FlexDPEParams


def test_params_fill_and_reject():
    assert FlexDPEParams(k=8, dtype="bf16").width == 16 and FlexDPEParams(k=8, dtype="fp32").width == 32
    p = FlexDPEParams(k=16, dtype="bf16")
    assert (p.product_width, p.sum_width, p.latency) == (32, 32, FlexDPEParams(k=16).latency)
    with pytest.raises(ValueError, match=r"flexdpe: width: 8 is not allowed with dtype='bf16'; bf16 operands are 16"):
        FlexDPEParams.validate_kwargs(dict(k=8, dtype="bf16", width=8))
    with pytest.raises(ValueError, match=r"signed: false is not allowed with dtype='fp16'"):
        FlexDPEParams.validate_kwargs(dict(k=8, dtype="fp16", signed=False))
    with pytest.raises(ValueError, match=r"width=20 is not allowed with dtype='int'; allowed: 1..16"):
        FlexDPEParams.validate_kwargs(dict(k=8, width=20))
    with pytest.raises(ValueError, match=r"dtype: 'fp8' is not allowed"):
        FlexDPEParams.validate_kwargs(dict(k=8, dtype="fp8"))


def test_negative_zero_is_a_zero():
    d = np.array([[0x8000, 0x3F80], [0x0000, 0x0001]])          # bf16: -0, 1.0 / +0, smallest subnormal
    bm = BitmapMatrix.from_dense(d, "bf16")
    assert bm.bitmap.tolist() == [[False, True], [False, True]]
    assert BitmapMatrix.from_dense(d).bitmap.tolist() == [[True, True], [False, True]]   # int: 0x8000 != 0
    p = FlexDPEParams(k=4, dtype="bf16")
    A = np.array([[0x8000, 0x7F80]])                             # -0 and +Inf
    B = np.array([[0x7F80], [0x3F80]])                           # +Inf and 1.0
    plan = plan_gemm(p, A, B)
    # -0 x Inf is never formed (it would be NaN): C = Inf x 1 = +Inf
    assert flexdpe_fp_reference(A, B, plan.mapping, "bf16").tolist() == [[0x7F800000]]
    assert plan.model.useful_macs == 1


@pytest.mark.parametrize("dtype", ["bf16", "fp16", "fp32"])
def test_reference_is_close_to_float64_and_order_matters(dtype):
    p = FlexDPEParams(k=8, dtype=dtype)
    rng = np.random.default_rng(4)
    differ = 0
    for kind in ("random", "ties", "random", "ties"):
        A, B = sparse_operands(p, (9, 7, 37), 0.3, 0.2, rng, kind)
        if kind == "random":   # no specials: compare with a float64 product
            for X in (A, B):
                v = to_float32(X, dtype)
                X[~np.isfinite(v) | (np.abs(v) > 1e4)] = 0
        plan = plan_gemm(p, A, B)
        C = flexdpe_fp_reference(A, B, plan.mapping, dtype).view(np.float32).astype(np.float64)
        exact = to_float32(A, dtype).astype(np.float64) @ to_float32(B, dtype).astype(np.float64)
        if kind == "random":
            scale = np.abs(to_float32(A, dtype)).astype(np.float64) @ np.abs(to_float32(B, dtype)).astype(np.float64)
            assert np.all(np.abs(C - exact) <= 1e-5 * scale + 1e-30)
        # a sequential dot product (k in order, skipping zeros) is a different, wrong order for the Flex-DPE
        prods = fp_mul(A[:, :, None], B[None, :, :], dtype)                       # M x K x N
        live = ~is_zero(A, dtype)[:, :, None] & ~is_zero(B, dtype)[None, :, :]
        seq = dot_sequential(np.where(live, prods, 0).transpose(0, 2, 1))
        differ += int((seq != flexdpe_fp_reference(A, B, plan.mapping, dtype)).sum())
    assert differ > 0


def test_driver_expectations_agree_with_reference():
    """The per-slot FAN expectations, combined by the host as the hardware's would be, give the reference C."""
    for dtype in ("bf16", "fp16", "fp32"):
        p = FlexDPEParams(k=8, dtype=dtype)
        table, plans = flexdpe_table(p, 2, 7)
        assert sigma_verify(p, table, plans, dict(table.expect)) == []


# --------------------------------------------------------------------------- cosim

def _run(tmp_path, params, name, **kw):
    e = write(render(family("flexdpe"), params, name), tmp_path)
    return cosim_emitted(family("flexdpe"), params, e, sim="verilator", **kw)


def _check(result):
    assert result.passed, (result.summary(), result.error, result.first_mismatches[:3])
    assert result.mismatches == 0 and result.checks > 0


@pytest.mark.cosim
@pytest.mark.parametrize("k,dtype", [(8, "bf16"), (4, "fp16"), pytest.param(8, "fp16", marks=pytest.mark.slow),
                                     pytest.param(8, "fp32", marks=pytest.mark.slow)])
def test_directed_and_random_gemms(tmp_path, k, dtype):
    """Directed GEMMs (dense / sparse / zero rows / specials / ties / cancellation / overflow / underflow) and
    random ones, auto stationary: every slot, C and the cycle counts exact.

    fp16 runs at k = 4 by default (~half the build of k = 8): what fp16 changes is the multipliers, the same
    at every k; the k = 8 fp FAN (its level-2 adder) is checked by default by the bf16 case. k = 8 fp16 is
    the same check at a larger size: slow only."""
    _check(_run(tmp_path, FlexDPEParams(k=k, dtype=dtype), f"fd{k}{dtype}", vectors=2, seed=k))


IRREGULAR_SPARSE = {"gemm": [(13, 7, 29), (40, 3, 17), (8, 16, 64)], "sparsity_a": 0.5, "sparsity_b": 0.3}


@pytest.mark.cosim
def test_k8_bf16_irregular_sparse_gemms(tmp_path):
    """Irregular sparse GEMMs (several folds each) on the k = 8 bf16 design of test_directed_and_random_gemms
    (its build is shared)."""
    _check(_run(tmp_path, FlexDPEParams(k=8, dtype="bf16"), "fd8bf16", seed=16, options=IRREGULAR_SPARSE))


@pytest.mark.cosim
@pytest.mark.slow
def test_k16_bf16_gemms(tmp_path):
    """Slow only: the GEMMs of test_k8_bf16_irregular_sparse_gemms on a 16-multiplier Flex-DPE (one more
    build); the 16-input FAN and Benes are covered by default in tests/cosim/test_fan.py and test_benes.py."""
    _check(_run(tmp_path, FlexDPEParams(k=16, dtype="bf16"), "fd16bf16", seed=16, options=IRREGULAR_SPARSE))


@pytest.mark.cosim
def test_wrong_reference_order_is_caught(tmp_path, monkeypatch):
    """Mutant: a host reference that sums each dot product sequentially (k in order) instead of in
    the FAN's order must disagree with what the hardware produced."""
    params = FlexDPEParams(k=8, dtype="bf16")
    table, plans = flexdpe_table(params, 0, 3, gemm=[(9, 7, 37), (6, 5, 20)], sparsity_a=0.2, sparsity_b=0.1)

    def sequential(A, B, mapping, dtype):
        prods = fp_mul(A[:, :, None], B[None, :, :], dtype)
        live = ~is_zero(A, dtype)[:, :, None] & ~is_zero(B, dtype)[None, :, :]
        return dot_sequential(np.where(live, prods, 0).transpose(0, 2, 1))

    monkeypatch.setattr(sigma, "flexdpe_fp_reference", sequential)
    e = write(render(family("flexdpe"), params, "fd8bf16"), tmp_path)
    result = run_cosim(e.verilog_path, e.manifest, table, record=tuple(table.info["record"]), waves_on_failure=False,
                       host_check=lambda rec: sigma_verify(params, table, plans, rec))
    assert not result.passed and "the fp32 reference" in result.error


def test_activity_stimulus_is_fp_aware():
    from accelgen.cosim.flexdpe import flexdpe_activity
    p = FlexDPEParams(k=8, dtype="bf16")
    dense, sparse = flexdpe_activity(p, 1.0, 120, 1), flexdpe_activity(p, 0.2, 120, 1)
    assert dense.cycles == sparse.cycles == 120

    def nonzero_words(a):
        return sum(int(np.count_nonzero(np.asarray(a.inputs[f"data_in__{i}"], dtype=np.int64) & 0x7FFF))
                   for i in range(8))
    assert nonzero_words(dense) > nonzero_words(sparse) > 0
    loads = np.asarray(dense.inputs["load"], dtype=np.int64)
    assert loads.sum() >= 2                                                 # several folds: loads and streams


@pytest.mark.parametrize("k,density", [(8, 1.0), (16, 0.5), (4, 0.2)])
def test_activity_schedule_cut_to_its_cycles_is_the_whole_schedules_start(k, density):
    """The activity stimulus plans only the cycles it keeps: they equal the first cycles of the whole schedule."""
    params = FlexDPEParams(k=k, dtype="bf16")
    rng = np.random.default_rng(7)
    gemms = [tuple(random_fp_bits(rng, (2 * k, 2 * k), "bf16", density=density).astype(np.int64)
                   for _ in range(2))]
    whole, _ = sigma.gemm_schedule(params, gemms)
    cut, _ = sigma.gemm_schedule(params, gemms, max_cycles=24)
    assert 24 <= cut.cycles <= whole.cycles
    assert {n: v[:24].tolist() for n, v in cut.inputs.items()} == {n: v[:24].tolist() for n, v in whole.inputs.items()}
