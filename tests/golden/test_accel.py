"""The accelerator's golden model (issue 52): the activation stage's arithmetic, pinned by hand, and the command
words' encoding."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from accelgen.golden.accel import activation, gemm, to_bf16_bits
from accelgen.params.accel import FIELDS, OPCODES, AccelParams, decode, encode
from accelgen.params.systolic import SystolicParams

INT8 = AccelParams(array=SystolicParams(rows=4, cols=4), sp_lines=64, acc_lines=16)
BF16 = AccelParams(array=SystolicParams(rows=4, cols=4, dtype="bf16"), sp_lines=64, acc_lines=16)


def test_int_activation_rounds_half_up_rectifies_and_clamps():
    acc = np.array([[5, -5, 1000, -1000, 6, 7]])
    # (acc * 3 + 2) >> 2: 17 >> 2 = 4, -13 >> 2 = -4, 3002 >> 2 = 750 -> 127, ..., 20 >> 2 = 5, 23 >> 2 = 5
    got = activation(acc, INT8, relu=False, shift=2, scale=3)
    assert got.tolist() == [[4, -4, 127, -128, 5, 5]]
    assert activation(acc, INT8, relu=True, shift=2, scale=3).tolist() == [[4, 0, 127, 0, 5, 5]]


def test_int_activation_takes_the_low_16_bits_of_the_scale_as_signed():
    assert activation(np.array([10]), INT8, relu=False, shift=0, scale=0xFFFF).tolist() == [-10]
    assert activation(np.array([10]), INT8, relu=False, shift=0, scale=0x10002).tolist() == [20]


def test_bf16_conversion_rounds_to_nearest_even():
    bits = np.array([0x3F808000,   # halfway, even below: stays 0x3F80
                     0x3F818000,   # halfway, odd below: up to 0x3F82
                     0x3F808001,   # above halfway: up
                     0x7F7FFFFF,   # the largest fp32 rounds to Inf
                     0x7FC00001,   # NaN: canonical
                     0x80000000], dtype=np.uint32)
    assert to_bf16_bits(bits).tolist() == [0x3F80, 0x3F82, 0x3F81, 0x7F80, 0x7FC0, 0x8000]


def test_fp_activation_scales_rectifies_and_converts():
    acc = np.array([np.float32(3.0), np.float32(-2.0), np.float32("nan")]).view(np.uint32)
    half = int(np.float32(0.5).view(np.uint32))
    assert activation(acc, BF16, relu=True, shift=0, scale=half).tolist() == [0x3FC0, 0x0000, 0x7FC0]
    assert activation(acc, BF16, relu=False, shift=0, scale=half).tolist() == [0x3FC0, 0xBF80, 0x7FC0]


def test_int_gemm_wraps_to_the_accumulator_width():
    params = AccelParams(array=SystolicParams(rows=4, cols=4, a_width=8, b_width=8, acc_width=16),
                         sp_lines=64, acc_lines=16)
    A, B = np.full((1, 8), 127), np.full((8, 1), 127)
    # 8 * 127 * 127 = 129032 = 0x1F808 -> 0xF808 = -2040 as a 16-bit sum; >> 4 = -127.5 -> round half up -127
    assert gemm(A, B, params, shift=4, scale=1).tolist() == [[-127]]


@given(st.sampled_from(sorted(OPCODES)), st.data())
def test_commands_decode_to_what_was_encoded(op, data):
    fields = {name: data.draw(st.integers(0, (1 << width) - 1)) for name, (_, width) in FIELDS[op].items()}
    assert decode(encode(op, **fields)) == (op, fields)


def test_command_fields_do_not_overlap_and_fit_128_bits():
    for op, fields in FIELDS.items():
        spans = sorted([(0, 4)] + [(lsb, lsb + width) for lsb, width in fields.values()])
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), op
        assert spans[-1][1] <= 128


@pytest.mark.parametrize("call, message", [
    (lambda: encode("jump"), "opcode 'jump' is not allowed"),
    (lambda: encode("load", rows=3), "load: field 'rows' is not allowed"),
    (lambda: encode("load", lines=1 << 16), "load.lines=65536 does not fit in 16 bits"),
])
def test_bad_commands_are_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("array, kw, message", [
    ({"rows": 4, "cols": 8}, {}, "rows=4 and cols=8 differ"),
    ({"rows": 4, "cols": 4, "dataflow": "os"}, {}, "weight-stationary"),
    ({"rows": 4, "cols": 4, "dtype": "fp16"}, {}, "'fp16' is not built"),
    ({"rows": 4, "cols": 4, "a_width": 8, "b_width": 4, "acc_width": 32}, {}, "a_width=8 and b_width=4 differ"),
    ({"rows": 4, "cols": 4}, {"sp_lines": 96, "sp_banks": 2}, "sp_lines=96 is not sp_banks=2 banks"),
    ({"rows": 3, "cols": 3}, {}, "a line of 3 operands is 24 bits"),
])
def test_accelerators_the_generator_cannot_build_are_refused(array, kw, message):
    with pytest.raises(ValueError, match=message):
        AccelParams(array=SystolicParams(**array), **({"sp_lines": 64, "acc_lines": 16} | kw))
