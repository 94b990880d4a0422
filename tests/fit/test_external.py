"""A user's own Verilog through the flow: ``accelgen synth FILE.v --top NAME`` (fit/external.py) and an external
module's sweep, fit and prediction (fit/external_sweep.py). The modules are tests/data/external/*.v, written for these
tests: a registered adder (``WIDTH``, ``ifdef WIDE_SUM``) and a small multiplier whose clock and reset are ``clock``
and ``reset_n``."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from accelgen.errors import ConfigError
from accelgen.fit.api import sweep_dataset
from accelgen.fit.external import port_roles, random_stimuli, read_stimulus, synth_files
from accelgen.fit.external_sweep import load_external_sweep
from accelgen.registry import FAMILIES

DATA = Path(__file__).resolve().parents[1] / "data" / "external"
ADDER = DATA / "reg_adder.v"
MUL = DATA / "small_mul.v"
ADDER_PORTS = {"clk": ("input", 1), "rst": ("input", 1), "a": ("input", 4), "b": ("input", 4),
               "sum": ("output", 4)}


def test_port_roles_by_name_and_given():
    roles = port_roles(ADDER_PORTS)
    assert (roles.clock, roles.reset, roles.reset_active_low, roles.data) == ("clk", "rst", False, ("a", "b"))
    low = port_roles({"clock": ("input", 1), "reset_n": ("input", 1), "x": ("input", 3)})
    assert (low.clock, low.reset, low.reset_active_low, low.data) == ("clock", "reset_n", True, ("x",))
    given = port_roles(ADDER_PORTS, clock="clk", reset="a:low")
    assert (given.reset, given.reset_active_low, given.data) == ("a", True, ("rst", "b"))
    with pytest.raises(ConfigError, match=r"--clock: 'ck' is not an input port; inputs: clk, rst, a, b"):
        port_roles(ADDER_PORTS, clock="ck")
    with pytest.raises(ConfigError, match="several inputs could be it"):
        port_roles({"clk": ("input", 1), "CLOCK": ("input", 1)})


def test_random_stimulus_toggle_rate_and_reset():
    roles = port_roles(ADDER_PORTS)
    for activity in (0.5, 0.1):
        stims = random_stimuli(ADDER_PORTS, roles, activity=activity, cycles=400, lanes=4)
        a = [s.inputs["a"] for s in stims]
        flips = sum(bin(int(x) ^ int(y)).count("1") for col in a for x, y in zip(col[1:], col[:-1]))
        rate = flips / (4 * 399 * 4)            # lanes, transitions, bits
        assert rate == pytest.approx(activity, abs=0.03)
        assert list(stims[0].inputs["rst"][:3]) == [1, 0, 0]
        assert stims[0].ops == 400 - stims[0].warmup


def test_read_stimulus_csv_and_json(tmp_path):
    roles = port_roles(ADDER_PORTS)
    csv = tmp_path / "s.csv"
    csv.write_text("a,b\n1,0x2\n15,-1\n3,0b11\n")
    (s,) = read_stimulus(csv, ADDER_PORTS, roles)
    assert list(s.inputs["a"]) == [0, 1, 15, 3] and list(s.inputs["b"]) == [0, 2, 15, 3]
    assert list(s.inputs["rst"]) == [1, 0, 0, 0] and s.warmup == 2 and s.ops == 2
    js = tmp_path / "s.json"
    js.write_text(json.dumps([{"a": [1, 2, 3]}, {"a": [4, 5, 6]}]))
    assert len(read_stimulus(js, ADDER_PORTS, roles)) == 2
    js.write_text(json.dumps({"sum": [1, 2]}))
    with pytest.raises(ConfigError, match="'sum' is not a data or reset input"):
        read_stimulus(js, ADDER_PORTS, roles)
    csv.write_text("a\n16\n1\n")
    with pytest.raises(ConfigError, match="a: '16' does not fit its 4 bits"):
        read_stimulus(csv, ADDER_PORTS, roles)


def test_synth_adder_width_and_define():
    """Area, delay, leakage and energy are positive; a wider adder is larger; ``WIDE_SUM`` keeps the carry (one more
    flip-flop)."""
    narrow = synth_files([ADDER], "reg_adder", params={"WIDTH": 4})
    wide = synth_files([ADDER], "reg_adder", params={"WIDTH": 16}, glitch=False)
    for rep in (narrow, wide):
        assert rep.area_um2 > rep.cell_area_um2 > 0 and rep.delay_ns > 0 and rep.leakage_uw > 0
        assert rep.energy_pj >= rep.energy_zero_delay_pj > rep.clock_energy_pj > 0
        assert rep.slack_ns == pytest.approx(1.0 - rep.delay_ns)
    assert narrow.glitch_ratio >= 1 and "probability 0.5" in narrow.stimulus
    assert wide.area_um2 > 2 * narrow.area_um2 and wide.energy_zero_delay_pj > 2 * narrow.energy_zero_delay_pj
    assert narrow.flip_flops == 4 and wide.glitch_ratio is None and wide.energy_pj == wide.energy_zero_delay_pj
    carry = synth_files([ADDER], "reg_adder", params={"WIDTH": 4}, defines={"WIDE_SUM": "1"}, glitch=False)
    assert carry.flip_flops == 5 and carry.area_um2 > narrow.area_um2


def test_synth_stimulus_file_constant_inputs(tmp_path):
    """Constant inputs from a file: after the register takes the first sum, nothing switches but the clock, so the
    switching energy per counted cycle falls as 1 / (counted cycles): 5 counted cycles against 20."""
    parts = []
    for cycles in (6, 21):
        still = tmp_path / f"still{cycles}.csv"
        still.write_text("a,b\n" + "5,9\n" * cycles)
        rep = synth_files([ADDER], "reg_adder", params={"WIDTH": 4}, stimulus=still, glitch=False)
        assert f"still{cycles}.csv" in rep.stimulus
        parts.append((rep.energy_zero_delay_pj - rep.clock_energy_pj) * (cycles - 1))
    assert parts[0] > 0 and parts[0] == pytest.approx(parts[1], rel=1e-9)


def test_cli_synth_json_and_errors(accelgen_main, tmp_path):
    r = accelgen_main("synth", str(MUL), "--top", "small_mul", "-P", "N=3", "--json", "--no-glitch", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["top"] == "small_mul" and rep["flip_flops"] == 12 and rep["area_um2"] > 0
    assert "reset reset_n, active low" in rep["ports"] and rep["energy_per"] == "cycle"
    for args, message in (
            ((str(ADDER), "--top", "nope"), "--top: 'nope' is not a module of the files; modules: reg_adder"),
            ((str(tmp_path / "missing.v"), "--top", "x"), "does not exist or is not a file"),
            ((str(ADDER), "--top", "reg_adder", "--define", "1X=2"), "--define: '1X=2' is not allowed"),
            ((str(ADDER), "--top", "reg_adder", "--param", "DEPTH=2"), "'DEPTH' is not a parameter of reg_adder")):
        r = accelgen_main("synth", *args, cwd=tmp_path)
        assert r.returncode == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_synth_hierarchy_async_reset_outside_the_tree(tmp_path):
    """A file under /tmp (which the WebAssembly Yosys sees as its own temporary directory), a parameter passed down to
    a submodule, and an asynchronous active-low reset (the default library has no such flip-flop: modelled as
    synchronous); W=6 gives 6 flip-flops and more area than W=3."""
    src = tmp_path / "pipe.v"
    src.write_text("module addsub #(parameter W = 4) (input [W-1:0] a, b, input sub, output [W-1:0] y);\n"
                   "  assign y = sub ? a - b : a + b;\nendmodule\n"
                   "module pipe #(parameter W = 4) (input clk, input arst_n, input [W-1:0] a, b, input sub,\n"
                   "                                output reg [W-1:0] q);\n"
                   "  wire [W-1:0] y;\n  addsub #(.W(W)) u (.a(a), .b(b), .sub(sub), .y(y));\n"
                   "  always @(posedge clk or negedge arst_n) if (!arst_n) q <= 0; else q <= y;\nendmodule\n")
    small, large = (synth_files([src], "pipe", params={"W": w}, reset="arst_n", glitch=False) for w in (3, 6))
    assert (small.flip_flops, large.flip_flops) == (3, 6) and large.area_um2 > small.area_um2 > 0
    assert "reset arst_n, active low; data inputs a, b, sub" in large.ports


def test_external_sweep_file_errors(tmp_path):
    """An external module's sweep file: its problems are collected with their keys, before any synthesis."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("verilog: [nope.v]\ntop: 3x\nports: {clk: clk}\ncolour: red\ngrid: []\n")
    with pytest.raises(ConfigError) as err:
        load_external_sweep(bad)
    text = str(err.value)
    for fragment in ("bad.yaml.colour: unknown key", "bad.yaml.verilog: 'nope.v' does not exist",
                     "bad.yaml.top: '3x' is not allowed", "bad.yaml.ports:", "bad.yaml.grid: expected a non-empty"):
        assert fragment in text
    with pytest.raises(ConfigError, match="'adder' is not allowed: the model of reg_adder.yaml is named 'reg_adder'"):
        load_external_sweep(DATA / "reg_adder.yaml", "adder")


def test_external_sweep_one_point(tmp_path):
    """A one-point sweep of the adder: the dataset has the point at both densities, measured by the flow of
    ``accelgen synth`` (the same mapped area and delay), with less energy where half the words are zero."""
    res = sweep_dataset(str(DATA / "reg_adder_one.yaml"), families=FAMILIES, jobs=1, out=tmp_path / "one.csv",
                        progress=False)
    df = pd.read_csv(res.dataset)
    assert res.points == 1 and list(df["WIDTH"]) == [4, 4] and list(df["density"]) == [1.0, 0.5]
    rep = synth_files([ADDER], "reg_adder", params={"WIDTH": 4}, glitch=False)
    assert df["area_um2"].iloc[0] == pytest.approx(rep.area_um2, rel=1e-12)
    assert df["delay_ns"].iloc[0] == pytest.approx(rep.delay_ns, rel=1e-12)
    assert df["energy_pj"].iloc[1] < df["energy_pj"].iloc[0] and (df["energy_per"] == "cycle").all()
    with pytest.raises(ConfigError, match="'DEPTH' is not a parameter of reg_adder; parameters: WIDTH"):
        bad = tmp_path / "depth.yaml"
        bad.write_text(f"verilog: [{ADDER}]\ntop: reg_adder\ngrid: [{{DEPTH: [2]}}]\n")
        load_external_sweep(bad)


@pytest.mark.slow
def test_external_sweep_fit_predict(accelgen_main, tmp_path):
    """Sweep the adder's WIDTH (3 training points, one held out), fit, and predict from the model file alone."""
    yaml_file = str(DATA / "reg_adder.yaml")
    assert accelgen_main("sweep", yaml_file, "-j", "1", cwd=tmp_path).returncode == 0
    r = accelgen_main("fit", yaml_file, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    model = json.loads((tmp_path / "out" / "fit" / "reg_adder.json").read_text())
    assert (model["family"], model["name"], model["external"]["top"]) == ("external", "reg_adder", "reg_adder")
    assert model["targets"]["area_um2"]["heldout"]["mape_pct"] < 15
    r = accelgen_main("predict", "--model", "out/fit/reg_adder.json", "WIDTH=12", "density=1", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    pred = json.loads(r.stdout)
    measured = pd.read_csv(tmp_path / "out" / "fit" / "reg_adder.csv").query("WIDTH == 12 and density == 1.0")
    assert pred["model"] == "reg_adder" and pred["family"] == "external"
    assert pred["predicted"]["area_um2"] == pytest.approx(measured["area_um2"].iloc[0], rel=0.15)
    r = accelgen_main("fit", yaml_file, "--ship", cwd=tmp_path)
    assert r.returncode == 2 and "only the block families' models are shipped" in r.stderr
