"""Timing-driven mapping to the default cell library and static timing of the result (issue 20 item 1)."""

import json

import pytest

from accelgen.cli import main
from accelgen.errors import ConfigError
from accelgen.fit.cells import load_cells
from accelgen.fit.liberty_write import write_liberty
from accelgen.fit.mapping import map_and_time
from accelgen.flow import time_design
from accelgen.gen.emit import render
from accelgen.registry import FAMILIES

pytestmark = pytest.mark.synth

#: a 4x4-bit MAC with an 8-bit accumulator: registers on both sides of its multiply-add path
MAC = {"a_width": 4, "b_width": 4, "acc_width": 8, "input_reg": True}


def _mac(**kw):
    fam = FAMILIES["mac"]
    return fam, fam.validate(MAC | kw)


def test_mac_is_timed_register_to_register_with_its_path():
    fam, params = _mac()
    t = time_design(fam, params, clock_mhz=1000)
    path = t.critical_path
    assert t.delay_ns > t.logic_ns > 0 and t.cells > 0 and t.area_um2 > 0
    assert path["start_kind"] == "register" and path["end_kind"] == "register"   # clk->Q ... setup
    assert path["cells"] >= 3 and len(path["path"]) >= path["cells"]
    assert set(t.cells_by_type) <= set(load_cells()["cells"])
    assert t.meets_clock == (t.delay_ns <= 1.0)
    assert t.fmax_mhz == pytest.approx(1000 / t.delay_ns)


def test_a_looser_target_maps_smaller_or_equal_and_the_cache_returns_the_same():
    fam, params = _mac(a_width=8, b_width=8, acc_width=20)
    tight = time_design(fam, params, clock_mhz=2000)
    loose = time_design(fam, params, clock_mhz=100)
    assert loose.area_um2 <= tight.area_um2 and loose.clock_mhz == 100 and tight.clock_mhz == 2000
    assert time_design(fam, params, clock_mhz=2000).to_dict() == tight.to_dict()


def test_bad_clock_and_missing_library_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match=r"clock_mhz: 0 is not allowed; expected a number in 1\.\.20000"):
        map_and_time("module m(input a, output b); assign b = a; endmodule", "m", clock_mhz=0)
    with pytest.raises(ConfigError, match="is not a readable file"):
        map_and_time("module m(input a, output b); assign b = a; endmodule", "m", liberty=tmp_path / "none.lib")


def test_cli_synth_json_reports_timing_and_no_timing_skips_it(capsys):
    args = ["synth", "mac", "--a-width", "4", "--b-width", "4", "--acc-width", "8", "--input-reg", "--json"]
    assert main(args + ["--clock-mhz", "500"]) == 0
    out = json.loads(capsys.readouterr().out)
    timing = out["timing"]
    assert timing["clock_mhz"] == 500 and timing["delay_ns"] > 0 and timing["critical_path"]["path"]
    assert out["flip_flops"] > 0  # the generic statistics stay
    assert main(args + ["--no-timing"]) == 0
    assert "timing" not in json.loads(capsys.readouterr().out)
    assert main(["synth", "mac", "--clock-mhz", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "clock_mhz: 0.0 is not allowed; expected a number in 1..20000" in err


def test_cli_liberty_goes_through_the_same_path(tmp_path, capsys):
    """``--liberty FILE`` with the default library written to a file gives the same keys and the same timing
    as the default (same cells, same script), named after the file."""
    lib = write_liberty(load_cells(), tmp_path / "mine.lib")
    args = ["synth", "mac", "--a-width", "4", "--b-width", "4", "--acc-width", "8", "--input-reg", "--json"]
    assert main(args) == 0
    default = json.loads(capsys.readouterr().out)["timing"]
    assert main(args + ["--liberty", str(lib)]) == 0
    mine = json.loads(capsys.readouterr().out)["timing"]
    assert mine["library"] == "mine.lib" and set(mine) == set(default)
    assert mine["delay_ns"] == pytest.approx(default["delay_ns"]) and mine["cells"] == default["cells"]


def test_modules_identical_up_to_names_share_a_signature():
    from accelgen.fit.mapping import _signature
    a = "module \\dut.mul0\n  wire $and$design.v:10$5_Y\n  cell $_AND_ $and$design.v:10$5\n  end\nend\n"
    b = "module \\dut.mul1\n  attribute \\src \"design.v:20\"\n  wire $and$design.v:20$9_Y\n" \
        "  cell $_AND_ $and$design.v:20$9\n  end\nend\n"
    c = b.replace("$_AND_", "$_OR_")
    assert _signature("dut.mul0", a) == _signature("dut.mul1", b)
    assert _signature("dut.mul1", c) != _signature("dut.mul0", a)      # cell types are not renamed


def test_a_network_abc_buffers_only_in_topological_order_maps_with_the_first_script():
    """The integer TensorDash PE below crashed ABC's ``buffer`` after ``map`` (network out of topological order)
    and fell through every delay-oriented script to ``&nf`` (2.10 ns); with ``topo`` first it maps with ``dch``."""
    fam = FAMILIES["tensordash_pe"]
    t = time_design(fam, fam.validate({"lanes": 8, "depth": 3, "a_width": 4, "b_width": 4, "acc_width": 16}))
    assert t.extra["abc_script"].startswith("+strash;dch,-f;map,-D,1000;topo;buffer"), t.extra["abc_script"]
    assert t.delay_ns < 1.8


def test_an_array_of_registered_cells_is_timed_per_cell_and_its_area_composed():
    # every path between PEs passes a register, so the PE mapped and timed alone is the array's delay; the whole
    # array is not flattened (a 128x128 bf16 array flattened exceeds the WebAssembly build's memory)
    fam = FAMILIES["systolic"]
    params = fam.validate({"rows": 3, "cols": 3, "emit_tile": 2})
    t = time_design(fam, params)
    assert t.scope.startswith("registered cells: systolic__pe") and t.extra["instances"] == {"systolic__pe": 9}
    assert t.critical_path["start"].startswith("systolic__pe.")
    e = render(fam, params, "systolic")
    pe = map_and_time(e.verilog, "systolic__pe")
    assert t.delay_ns == pytest.approx(pe.delay_ns) and t.area_um2 == pytest.approx(9 * pe.area_um2)
    flat = map_and_time(e.verilog, "systolic", cells=e.manifest["cells"])     # the array mapped whole
    assert t.delay_ns == pytest.approx(flat.delay_ns, rel=0.05) and t.area_um2 == pytest.approx(flat.area_um2, rel=0.05)
