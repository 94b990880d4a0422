"""Pipelined MACs (``mul_stages``, ``add_stages``) on the emitted Verilog: bit-exact and cycle-exact.

With ``add_stages`` the cell holds ``add_stages + 1`` interleaved sums (:class:`accelgen.rtl.MAC`,
"Interleaved sums"); the cycle table (:func:`accelgen.cosim.mac.mac_table`) follows them. Three
Verilator builds in the default suite, one per datapath: the integer one (PipelinedMultiplier,
PipelinedAdder, the reset delay line, ``c_in`` and zero gating delayed alongside), the fp one without
``addend_input`` (the -0.0 identity in the loop; the issue's ``accelgen cosim mac --dtype fp16
--mul-stages 3 --add-stages 2``) and the fp one with it (the bypass registers beside the adder).
``product_reg=true`` alone is ``mul_stages=1``: tests/cosim/test_mac.py and test_mac_fp.py run it
(``u4_pipe``, ``s8_addend_pipe``, ``bf16_gated_pipe``, ``bf16_flush_addend``) with today's latency.
"""

from __future__ import annotations

import pytest

from accelgen.cli import main
from accelgen.cosim.mac import mac_activity, mac_table
from accelgen.cosim.native import run_native
from accelgen.gen import render, write
from accelgen.registry import family
from accelgen.rtl import MACParams

pytestmark = pytest.mark.cosim

VARIANTS = {
    "s6x5_stages": dict(a_width=6, b_width=5, acc_width=14, signed=True, input_reg=True, zero_gating=True,
                        addend_input=True, mul_stages=2, add_stages=1),
    "fp16_stages": dict(dtype="fp16", mul_stages=3, add_stages=2),
    "bf16_addend_stages": dict(dtype="bf16", addend_input=True, flush_subnormals=True, input_reg=True,
                               zero_gating=True, mul_stages=2, add_stages=1),
}
#: Slow only (``-m slow``), each covered by default by the variant named in its comment at a smaller size
#: or with fewer stages.
SLOW_VARIANTS = {
    # s6x5_stages with the CLI's default widths: the issue's `accelgen cosim mac --mul-stages 2 --add-stages 1`
    "s8_stages": dict(mul_stages=2, add_stages=1),
    # s6x5_stages unsigned and wide, with product_reg (mul_stages=1) and the deepest adder
    "u16_product_reg_add3": dict(a_width=16, b_width=16, acc_width=40, signed=False, input_reg=True, product_reg=True,
                                 add_stages=3, output_reg=True),
    # bf16_addend_stages in fp32, every option and the most stages
    "fp32_full_stages": dict(dtype="fp32", input_reg=True, output_reg=True, zero_gating=True, addend_input=True,
                             flush_subnormals=True, mul_stages=3, add_stages=3),
}


def design_name(variant: str) -> str:
    """The family's default name ``mac`` for the issue's two configurations (as the CLI and regressions name
    them), else ``mac_<variant>``."""
    return "mac" if variant in ("fp16_stages", "s8_stages") else f"mac_{variant}"


def _run(tmp_path, variant: str, table):
    params = MACParams(**(VARIANTS | SLOW_VARIANTS)[variant])
    e = write(render(family("mac"), params, design_name(variant)), tmp_path)
    return run_native(e.verilog_path, e.manifest, table, seed=1, waves_on_failure=False)


@pytest.mark.parametrize("name", list(VARIANTS) + [pytest.param(n, marks=pytest.mark.slow) for n in SLOW_VARIANTS])
def test_pipelined_mac_bit_and_cycle_exact(tmp_path, name):
    params = MACParams(**(VARIANTS | SLOW_VARIANTS)[name])
    table = mac_table(params, vectors=6000, seed=7)
    result = _run(tmp_path, name, table)
    assert result.passed, (result.error, result.first_mismatches)
    assert result.cycles == table.cycles and result.checks == table.checks == table.cycles
    assert table.info["latency"] == 1 + params.input_reg + params.mul_stages + params.add_stages + params.output_reg
    assert table.info["threads"] == params.add_stages + 1 > 1
    assert "overflow" in table.info["sections"]


def test_cycle_model_one_stage_short_fails(tmp_path, monkeypatch):
    """Mutant 1: a cycle model that counts one register stage less than the design has."""
    params = MACParams(**VARIANTS["s6x5_stages"])
    latency = params.latency
    monkeypatch.setattr(MACParams, "latency", property(lambda self: latency - 1))
    table = mac_table(params, vectors=500, seed=3)
    assert table.info["latency"] == latency - 1
    result = _run(tmp_path, "s6x5_stages", table)  # the design of test_pipelined_mac_bit_and_cycle_exact: its build
    assert not result.passed and result.mismatches > 0


@pytest.mark.parametrize("variant", ["s6x5_stages", "fp16_stages"])
def test_golden_ignoring_the_adder_registers_fails(tmp_path, monkeypatch, variant):
    """Mutant 2: a golden that treats the adder as unpipelined (one sum, L = 1) at the right latency."""
    monkeypatch.setattr(MACParams, "threads", property(lambda self: 1))
    params = MACParams(**VARIANTS[variant])
    table = mac_table(params, vectors=500, seed=3)
    assert table.info["threads"] == 1 and table.info["latency"] == params.latency
    result = _run(tmp_path, variant, table)
    assert not result.passed and result.mismatches > 0


@pytest.mark.parametrize("args,message", [
    (["--mul-stages", "4"], "mac.mul_stages: 4 is not allowed; expected an integer in 0..3"),
    (["--add-stages", "-1"], "mac.add_stages: -1 is not allowed; expected an integer in 0..3"),
    (["--product-reg", "--mul-stages", "0"], "mac: product_reg: true is not allowed with mul_stages=0"),
    (["--no-product-reg", "--mul-stages", "2"], "mac: product_reg: false is not allowed with mul_stages=2"),
])
def test_cli_rejects_bad_stages_in_one_line(tmp_path, monkeypatch, capsys, args, message):
    """Stages out of range and a product_reg that contradicts mul_stages: one line, exit 2, before any build."""
    monkeypatch.chdir(tmp_path)
    assert main(["cosim", "mac", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("accelgen: error: ") and message in err[0], err


@pytest.mark.parametrize("kw,warmup", [({}, 4), ({"input_reg": True, "mul_stages": 1}, 4),
                                       ({"input_reg": True, "mul_stages": 3, "add_stages": 3, "output_reg": True}, 10)])
def test_activity_window_starts_after_the_pipeline_fills(kw, warmup):
    """The sweep's energy window opens once every register holds streamed pairs (``latency + 1``, at least 4)."""
    p = MACParams(a_width=8, b_width=8, acc_width=24, **kw)
    act = mac_activity(p, 1.0, 160, seed=1)
    assert act.warmup == warmup == max(4, p.latency + 1)
    assert act.ops == 160 - warmup and act.cycles == 160
