"""SIGMA's linear reduction (skewed chain): parameter validation, constructor, ports, latency and the O(n)
registers of the emitted top module (no simulator build)."""

import re

import pytest
from amaranth import Shape

from accelgen.gen import render
from accelgen.golden.linear_reduction import input_cycle, linear_reduction_latency, slot_cycle
from accelgen.registry import FAMILIES
from accelgen.rtl import LinearReduction


@pytest.mark.parametrize("n,add_stages,latency", [(2, 0, 2), (16, 0, 16), (2, 3, 8), (16, 2, 48), (512, 3, 2048)])
def test_latency_is_n_times_one_plus_add_stages(n, add_stages, latency):
    """n * (1 + add_stages): a vector's partial sum passes n chain elements, 1 + add_stages cycles each."""
    lr = LinearReduction(n=n, add_stages=add_stages)
    assert lr.latency == latency == linear_reduction_latency(n, add_stages)
    p = lr.params
    assert p.skew == 1 + add_stages
    # input i enters i * skew after input 0; slot j is ready skew cycles after its input j; the last slot is the latency
    assert [p.input_cycle(i) for i in range(3)] == [input_cycle(0, i, add_stages) for i in range(3)] == \
        [0, p.skew, 2 * p.skew]
    assert p.slot_cycle(0) == slot_cycle(0, 0, add_stages) == p.skew
    assert p.slot_cycle(n - 1) == p.latency


def test_fp32_latency_equals_int():
    assert LinearReduction(n=8, dtype="fp32", add_stages=1).latency == LinearReduction(n=8, add_stages=1).latency == 16


@pytest.mark.parametrize("kwargs,exc,message", [
    ({"n": 12}, ValueError, "linear_reduction: n=12 is not a power of two; allowed: 2, 4, 8, ..., 512"),
    ({"n": 1024}, ValueError, "linear_reduction.n: 1024 is not allowed; expected an integer in 2..512"),
    ({"n": 1}, ValueError, "linear_reduction.n: 1 is not allowed; expected an integer in 2..512"),
    ({"n": 8.0}, TypeError, "linear_reduction.n: 8.0 is not allowed; expected an integer in 2..512"),
    ({"add_stages": 4}, ValueError, "linear_reduction.add_stages: 4 is not allowed; expected an integer in 0..3"),
    ({"add_stages": -1}, ValueError, "linear_reduction.add_stages: -1 is not allowed; expected an integer in 0..3"),
    ({"add_stages": True}, TypeError,
     "linear_reduction.add_stages: True is not allowed; expected an integer in 0..3"),
    ({"width": 0}, ValueError, "linear_reduction.width: 0 is not allowed; expected an integer in 1..32"),
    ({"dtype": "fp16"}, ValueError, "linear_reduction.dtype: 'fp16' is not allowed; expected 'int' or 'fp32'"),
    ({"dtype": "fp32", "width": 16}, ValueError,
     "linear_reduction: width: 16 is not allowed with dtype='fp32'; fp32 values are 32 bits wide"),
])
def test_params_errors_name_the_parameter_on_one_line(kwargs, exc, message):
    with pytest.raises(exc) as info:
        LinearReduction(**kwargs)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_cli_rejects_add_stages_out_of_range(tmp_path, capsys):
    """--add-stages comes from the schema; a value out of range is one line naming field, value and range, exit 2."""
    from accelgen.cli import main
    assert main(["gen", "linear_reduction", "--n", "4", "--add-stages", "4", "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["accelgen: error: linear_reduction.add_stages: 4 is not allowed; expected an integer in 0..3"]


def test_ports_and_widths_are_fans():
    lr = LinearReduction(n=16, width=6, signed=True)
    members = lr.signature.members
    assert members["value"].shape.width == 6 and members["value"].shape.signed
    assert Shape.cast(members["vec_id"].shape).width == 4
    assert members["sum"].shape.width == 6 + 4 and members["sum"].dimensions == (16,)
    assert set(members) == {"value", "valid", "vec_id", "sum", "sum_id", "sum_valid"}
    fp = LinearReduction(n=4, dtype="fp32").signature.members
    assert fp["value"].shape.width == 32 and fp["sum"].shape.width == 32


def _top_register_bits(verilog: str) -> int:
    """Flip-flop bits declared in module ``top`` (Amaranth declares registers with their reset value)."""
    top = re.search(r"^module top\(.*?^endmodule", verilog, re.MULTILINE | re.DOTALL).group(0)
    return sum(int(m.group(1) or 0) + 1
               for m in re.finditer(r"^\s*reg (?:signed )?(?:\[(\d+):0\] )?\S+ = ", top, re.MULTILINE))


@pytest.mark.parametrize("n,add_stages", [(8, 0), (16, 1)])
def test_registers_are_linear_in_n(n, add_stages):
    """Outside the adder cells: per chain element one partial-sum register, its valid flag and its vecID
    (``sum_width + 1 + id_width`` bits), input 0 waiting ``add_stages`` more cycles, and each other input's
    vecID delayed alongside its adder's ``add_stages`` registers. No skew lines (FanLinear has O(n²))."""
    fam = FAMILIES["linear_reduction"]
    p = fam.validate({"n": n, "add_stages": add_stages})
    e = render(fam, p, "top")
    per_element = p.sum_width + 1 + p.id_width
    expected = (n + add_stages) * per_element + (n - 1) * add_stages * p.id_width
    assert _top_register_bits(e.verilog) == expected
    assert e.verilog.count("top__adder adder_") == n - 1       # one cell instance per chain adder
