"""MAC parameter validation: the constructor, the schema and their messages."""

import pytest

from accelgen.rtl import MAC, MACParams


def test_defaults_build():
    mac = MAC()
    assert mac.params == MACParams()
    assert mac.latency == 1
    assert mac.signature.members["a"].shape.width == 8


@pytest.mark.parametrize("regs,latency", [
    ({}, 1), ({"input_reg": True}, 2), ({"product_reg": True}, 2), ({"output_reg": True}, 2),
    ({"input_reg": True, "product_reg": True, "output_reg": True}, 4),
    ({"mul_stages": 1}, 2), ({"mul_stages": 3}, 4), ({"add_stages": 2}, 3),
    ({"input_reg": True, "mul_stages": 2, "add_stages": 1, "output_reg": True}, 6),
    ({"dtype": "fp16", "mul_stages": 3, "add_stages": 2}, 6),
])
def test_latency_counts_pipeline_registers(regs, latency):
    """latency = 1 + input_reg + mul_stages + add_stages + output_reg (product_reg is mul_stages=1)."""
    assert MAC(**regs).latency == latency == MACParams(**regs).latency


@pytest.mark.parametrize("given,product_reg,mul_stages", [
    ({}, False, 0), ({"product_reg": True}, True, 1), ({"product_reg": False}, False, 0),
    ({"mul_stages": 2}, True, 2), ({"mul_stages": 0}, False, 0), ({"product_reg": True, "mul_stages": 3}, True, 3),
    ({"product_reg": None, "mul_stages": 1}, True, 1), ({"product_reg": True, "mul_stages": None}, True, 1),
])
def test_product_reg_and_mul_stages_imply_each_other(given, product_reg, mul_stages):
    p = MACParams(**given)
    assert (p.product_reg, p.mul_stages) == (product_reg, mul_stages)
    assert MAC(**given).params == p
    assert MACParams(**p.model_dump()) == p  # a manifest's parameters validate to the same set


def test_add_stages_sets_the_interleaved_sums():
    assert MACParams().threads == 1 and MACParams(add_stages=3).threads == 4


@pytest.mark.parametrize("kw,match", [
    ({"a_width": 0}, r"mac\.a_width: 0 is not allowed; expected an integer in 1\.\.32"),
    ({"b_width": -3}, r"mac\.b_width: -3 is not allowed; expected an integer in 1\.\.32"),
    ({"a_width": 1000}, r"a_width: 1000 .*1\.\.32"),
    ({"acc_width": 100}, r"acc_width: 100 .*2\.\.64"),
    ({"acc_width": 12}, r"acc_width=12 is too narrow for a 8x8-bit product; allowed: acc_width >= a_width \+ b_width = 16"),
    ({"zero_gating": True}, r"zero_gating=true requires input_reg=true"),
    ({"dtype": "fp8"}, r"dtype: 'fp8' is not allowed; expected 'int' or 'fp16' or 'bf16' or 'fp32'"),
    ({"dtype": "fp16", "acc_width": 24},
     r"mac: acc_width: 24 is not allowed with dtype='fp16'; fp16 operands accumulate in fp32 \(acc_width 32\)"),
    ({"dtype": "bf16", "a_width": 8}, r"a_width: 8 is not allowed with dtype='bf16'; bf16 operands are 16 bits"),
    ({"dtype": "fp32", "b_width": 16}, r"b_width: 16 is not allowed with dtype='fp32'; fp32 operands are 32 bits"),
    ({"dtype": "bf16", "signed": True}, r"signed: true is not allowed with dtype='bf16'; floating-point operands"),
    ({"flush_subnormals": True},
     r"flush_subnormals: true is not allowed with dtype='int'; it needs a floating-point dtype"),
    ({"dtype": "fp16", "zero_gating": True}, r"zero_gating=true requires input_reg=true"),
    ({"mul_stages": 4}, r"^mac\.mul_stages: 4 is not allowed; expected an integer in 0\.\.3$"),
    ({"add_stages": -1}, r"^mac\.add_stages: -1 is not allowed; expected an integer in 0\.\.3$"),
    ({"dtype": "bf16", "add_stages": 7}, r"^mac\.add_stages: 7 is not allowed; expected an integer in 0\.\.3$"),
    ({"product_reg": True, "mul_stages": 0},
     (r"^mac: product_reg: true is not allowed with mul_stages=0 \(product_reg is the one-stage multiplier\); "
      r"allowed: product_reg=true with mul_stages >= 1, or leave one of the two out$")),
    ({"product_reg": False, "mul_stages": 2},
     (r"^mac: product_reg: false is not allowed with mul_stages=2 \(a pipelined multiplier registers its "
      r"product\); allowed: product_reg=false with mul_stages=0, or leave product_reg out$")),
])
def test_impossible_values_raise_value_error(kw, match):
    with pytest.raises(ValueError, match=match):
        MAC(**kw)


@pytest.mark.parametrize("kw,match", [
    ({"a_width": 8.0}, r"a_width: 8\.0 is not allowed; expected an integer"),
    ({"a_width": "8"}, r"a_width: '8' is not allowed"),
    ({"signed": 1}, r"signed: 1 is not allowed; expected true or false"),
    ({"mul_stages": True}, r"mul_stages: True is not allowed; expected an integer in 0\.\.3"),
    ({"add_stages": 1.0}, r"add_stages: 1\.0 is not allowed; expected an integer in 0\.\.3"),
])
def test_wrong_types_raise_type_error(kw, match):
    with pytest.raises(TypeError, match=match):
        MAC(**kw)


def test_unknown_parameter_is_rejected():
    with pytest.raises(ValueError, match=r"unknown parameter 'rows' of block 'mac'; allowed: a_width"):
        MACParams.validate_kwargs({"rows": 4})


def test_all_problems_reported_together():
    with pytest.raises(ValueError) as info:
        MACParams.validate_kwargs({"a_width": 0, "b_width": 99})
    assert "a_width" in str(info.value) and "b_width" in str(info.value)


def test_degenerate_one_bit_operands():
    assert MAC(a_width=1, b_width=1, acc_width=2, signed=False).latency == 1
    assert MAC(a_width=1, b_width=1, acc_width=2, signed=True).params.product_width == 2


@pytest.mark.parametrize("dtype,w", [("fp16", 16), ("bf16", 16), ("fp32", 32)])
def test_fp_dtype_implies_widths(dtype, w):
    mac = MAC(dtype=dtype, input_reg=True, product_reg=True)
    p = mac.params
    assert (p.a_width, p.b_width, p.acc_width, p.signed, p.product_width) == (w, w, 32, False, 32)
    assert mac.latency == 3  # the same as the integer MAC with the same registers
    assert mac.signature.members["acc"].shape.width == 32
    # explicit values that agree with the dtype are accepted
    assert MACParams(dtype=dtype, a_width=w, b_width=w, acc_width=32, signed=False) == MACParams(dtype=dtype)
    assert MAC.from_params(p).params == p
