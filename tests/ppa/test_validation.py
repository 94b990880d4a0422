"""validate-chips: scope and kind of each published figure, parts, docs/validation.md's table, the white-space rule."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from accelgen import shipped
from accelgen.cli import main
from accelgen.errors import ConfigError
from accelgen.ppa import estimate, parse_arch
from accelgen.ppa.arch import load_arch
from accelgen.ppa.perf import evaluate
from accelgen.ppa.chips import summary, table_rows, validate_chip, validate_chips
from accelgen.ppa.docs import VALIDATION_BEGIN, VALIDATION_END, replace_validation_table

sys.path.insert(0, str(Path(__file__).parent))
import ppa_models

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    return ppa_models.write_models(tmp_path_factory.mktemp("models"))


def _arch(published, **over):
    a = {"name": "t", "node_nm": 28, "clock_mhz": 500,
         "core": {"tensor_units": [{"rows": 32, "cols": 32}], "vector_unit": {},
                  "memories": [{"name": "buf", "capacity_bytes": 2**20, "block_bytes": 64, "banks": 4}]},
         "chip": {"offchip": {"type": "ddr4", "bandwidth_gbps": 25.6}, "white_space_fraction": "die"},
         "published": published}
    a.update(over)
    return parse_arch(a)


def _node(tree, name):
    stack = [tree]
    while stack:
        n = stack.pop()
        if n["name"] == name:
            return n
        stack += n.get("children", [])
    raise KeyError(name)


def test_scopes_pick_their_subtree(models):
    pub = {"source": "s", "area": {"mm2": 1.0, "scope": "compute_array", "kind": "synthesis", "source": "t"},
           "power": {"w": 1.0, "scope": "core", "kind": "tdp", "source": "t"}}
    arch = _arch(pub, cores=2, chip={"noc": {"tx": 2, "ty": 1}, "white_space_fraction": "die",
                                     "offchip": {"type": "ddr4", "bandwidth_gbps": 25.6}})
    row = validate_chip(arch, models)
    tree = estimate(arch, model_paths=models).breakdown
    core = _node(tree, "core")
    # compute array: the tensor unit of both cores; not the vector unit, its register file or the memories
    assert row["area"]["estimate"] == pytest.approx(2 * _node(tree, "tensor_unit0")["area_mm2"])
    assert row["area"]["matched"] == ["core/execution_units/tensor_unit0"]
    # core: every core, without the NoC, the DRAM PHY and the white space
    assert row["power"]["estimate"] == pytest.approx(core["tdp_w"]) and core["count"] == 2
    assert row["power"]["estimate"] < tree["tdp_w"]
    assert row["area"]["error_pct"] == pytest.approx(100 * (row["area"]["estimate"] - 1.0))


def test_white_space_rule_and_chip_scope(models):
    from accelgen.ppa.estimate import DIE_WHITE_SPACE
    pub = {"source": "s", "area": {"mm2": 100.0, "scope": "chip", "kind": "die", "source": "t",
                                   "parts": [{"name": "buffer", "match": ["core/memories/*"], "share": 0.5},
                                             {"name": "phy", "match": ["io/ddr4_phy"], "value": 2.0}]}}
    row = validate_chip(_arch(pub), models)
    tree = estimate(_arch(pub), model_paths=models).breakdown
    assert row["area"]["estimate"] == pytest.approx(tree["area_mm2"])
    assert _node(tree, "white_space")["area_mm2"] == pytest.approx(DIE_WHITE_SPACE * tree["area_mm2"])
    buf, phy = row["area"]["parts"]
    assert buf["published"] == 50.0 and buf["estimate"] == pytest.approx(_node(tree, "buf")["area_mm2"])
    assert phy["published"] == 2.0 and phy["matched"] == ["io/ddr4_phy"]


def test_unmodelled_blocks_with_and_without_a_published_share(models):
    """A block known to be on the die is listed even when its share is not published; only published shares add up."""
    area = {"mm2": 100.0, "scope": "chip", "kind": "die", "source": "t"}
    both = [{"name": "links", "share": 0.05, "source": "u"}, {"name": "codec", "source": "v"}]
    row = validate_chip(_arch({"source": "s", "area": area, "unmodelled": both}), models)
    assert row["unmodelled_share"] == pytest.approx(0.05) and row["unmodelled"][1]["share"] is None
    listed = [t for t in table_rows([row]) if "not modelled" in t[2]]
    assert listed == [("", "", "  not modelled (share of the area)", "", "", "", "5% + ?", "links 5%, codec")]
    only = validate_chip(_arch({"source": "s", "area": area, "unmodelled": both[1:]}), models)
    assert only["unmodelled_share"] == 0 and [t[6] for t in table_rows([only]) if "not modelled" in t[2]] == [
        "not published"]
    with pytest.raises(ConfigError, match="share"):
        _arch({"source": "s", "area": area, "unmodelled": [{"name": "x", "share": 1.5, "source": "w"}]})


def test_every_shipped_die_uses_the_one_white_space_rule():
    for name in shipped.names("chips"):
        ws = load_arch(shipped.path("chips", name)).chip.white_space_fraction
        assert ws in ("die", 0.0), f"{name}: white_space_fraction {ws!r}; shipped chips use the rule 'die'"


def test_measured_power_is_the_workload_at_its_operating_point(models):
    wl = {"name": "g", "layers": [{"name": "l", "type": "gemm", "M": 256, "N": 256, "K": 256}]}
    path = Path(models["systolic"]).parent / "g.yaml"
    path.write_text(json.dumps(wl))
    pub = {"source": "s", "power": {"w": 1.0, "scope": "chip", "kind": "measured", "workload": str(path),
                                    "inferences_per_s": 1000.0, "clock_mhz": 250, "vdd_v": 0.8, "source": "t"}}
    row = validate_chip(_arch(pub), models)
    p = row["power"]
    assert p["operating_point"] == {"clock_mhz": 250, "vdd_v": 0.8}
    assert p["run"]["clock_mhz"] == 250 and 0 < p["run"]["activity"]["tensor"] <= 1
    tdp = validate_chip(_arch({"source": "s", "power": {"w": 1.0, "scope": "chip", "kind": "tdp", "source": "t"}},
                              clock_mhz=250, vdd_v=0.8), models)["power"]["estimate"]
    assert 0 < p["estimate"] < tdp
    # the published rate splits the power error: power = energy per inference x rate
    rate, energy = p["run_figures"]["inferences_per_s"], p["run_figures"]["energy_per_inference_mj"]
    assert rate["estimate"] == pytest.approx(p["run"]["batch"] / p["run"]["time_s"]) and rate["published"] == 1000.0
    assert energy["published"] == pytest.approx(1.0)    # 1 W at 1000 inferences/s: 1 mJ each
    assert 1 + p["error_pct"] / 100 == pytest.approx((1 + rate["error_pct"] / 100) * (1 + energy["error_pct"] / 100))
    rows = table_rows([{**row, "chip": "c", "node_nm": 45}])
    assert [r[2] for r in rows if "inference" in r[2]] == ["  inferences/s (performance model)",
                                                           "  energy per inference mJ"]
    with pytest.raises(ConfigError, match="inferences_per_s is the rate of a workload run"):
        _arch({"source": "s", "power": {"w": 1.0, "scope": "chip", "kind": "post_layout", "inferences_per_s": 5.0,
                                        "source": "t"}})



def test_published_activity_time_spreads_the_runs_energy_over_the_papers_time(models):
    """NeuroMeter's method (sect. II-C, footnote 3): the run's energy over the published time, so that the performance
    model's time error stays out of the power; the energy per inference is the same either way."""
    wl = {"name": "g", "layers": [{"name": "l", "type": "gemm", "M": 256, "N": 256, "K": 256}]}
    path = Path(models["systolic"]).parent / "g2.yaml"
    path.write_text(json.dumps(wl))
    fig = {"w": 1.0, "scope": "chip", "kind": "measured", "workload": str(path), "inferences_per_s": 10.0,
           "source": "t"}
    by_model = validate_chip(_arch({"source": "s", "power": fig}), models)["power"]
    by_paper = validate_chip(_arch({"source": "s", "power": {**fig, "activity_time": "published"}}), models)["power"]
    assert by_model["run"]["activity_time_s"] == by_model["run"]["time_s"]
    assert by_paper["run"]["activity_time_s"] == pytest.approx(by_paper["run"]["batch"] / 10.0)
    # the run takes far less than the published 0.1 s: spread over the paper's time, the power is lower
    assert by_paper["estimate"] < by_model["estimate"]
    e_model = by_model["run_figures"]["energy_per_inference_mj"]["estimate"]
    e_paper = by_paper["run_figures"]["energy_per_inference_mj"]["estimate"]
    leak_mj = 1e3 * estimate(_arch(None), model_paths=models).leakage_w * (
        by_paper["run"]["activity_time_s"] - by_model["run"]["time_s"])
    assert e_paper == pytest.approx(e_model + leak_mj, rel=0.02)   # the same energy, and leakage over the longer time
    with pytest.raises(ConfigError, match="give the rate it ran at"):
        _arch({"source": "s", "power": {**fig, "inferences_per_s": None, "activity_time": "published"}})


def test_published_dram_traffic_is_the_runs_accesses_per_mac(models):
    wl = {"name": "g", "layers": [{"name": "l", "type": "gemm", "M": 256, "N": 256, "K": 256}]}
    path = Path(models["systolic"]).parent / "g2.yaml"
    path.write_text(json.dumps(wl))
    power = {"w": 1.0, "scope": "chip", "kind": "measured", "workload": str(path), "source": "t",
             "dram_accesses_per_mac": 0.01, "dram_word_bits": 16}
    p = validate_chip(_arch({"source": "s", "power": power}), models)["power"]
    d = p["run_figures"]["dram_accesses_per_mac"]
    assert d["estimate"] == pytest.approx(p["run"]["dram_bytes"] / 2 / p["run"]["macs"])
    assert d["published"] == 0.01 and d["error_pct"] == pytest.approx(100 * (d["estimate"] / 0.01 - 1))
    rows = table_rows([{"power": p, "chip": "c", "node_nm": 45}])
    assert "  DRAM accesses per MAC (performance model)" in [r[2] for r in rows]
    with pytest.raises(ConfigError, match="needs dram_word_bits"):
        _arch({"source": "s", "power": {**power, "dram_word_bits": None}})
    with pytest.raises(ConfigError, match="traffic of a workload run"):
        _arch({"source": "s", "power": {**{k: v for k, v in power.items() if k != "workload"},
                                        "kind": "post_layout"}})
    no_dram = _arch({"source": "s", "power": power}, chip={"white_space_fraction": "die"})
    with pytest.raises(ConfigError, match="dram_accesses_per_mac: the description has no off-chip memory"):
        validate_chip(no_dram, models)


def test_published_layers_are_compared_layer_by_layer(models):
    wl = {"name": "g", "layers": [{"name": "big", "type": "gemm", "M": 512, "N": 256, "K": 256},
                                  {"name": "small", "type": "gemm", "M": 16, "N": 256, "K": 64}]}
    path = Path(models["systolic"]).parent / "g3.yaml"
    path.write_text(json.dumps(wl))
    power = {"w": 1.0, "scope": "core", "kind": "measured", "workload": str(path), "source": "t",
             "layers": [{"name": "big", "latency_ms": 1.0, "power_w": 0.5}, {"name": "small", "power_w": 0.4}]}
    p = validate_chip(_arch({"source": "s", "power": power}), models)["power"]
    big, small = p["layers"]
    assert big["latency_ms"]["published"] == 1.0 and "latency_ms" not in small
    assert big["latency_ms"]["error_pct"] == pytest.approx(100 * (big["latency_ms"]["estimate"] / 1.0 - 1))
    # each layer's power is the estimate at its own activity: weighted by the layers' times they average to the run's
    times = [r["time_s"] for r in evaluate(_arch(None), str(path), model_paths=models).layers]
    mean = (big["power_w"]["estimate"] * times[0] + small["power_w"]["estimate"] * times[1]) / sum(times)
    assert big["latency_ms"]["estimate"] == pytest.approx(1e3 * times[0])
    assert mean == pytest.approx(p["estimate"], rel=1e-6)
    assert big["power_w"]["estimate"] != pytest.approx(small["power_w"]["estimate"])
    labels = [r[2] for r in table_rows([{"power": p, "chip": "c", "node_nm": 45}])]
    assert labels[-3:] == ["  big latency ms", "  big power W", "  small power W"]
    json.dumps(p)   # the run's report does not leak into the output
    bad = {**power, "layers": [{"name": "conv9", "latency_ms": 1.0}]}
    with pytest.raises(ConfigError, match=r"layers\[0\]\.name: 'conv9' is not a layer of workload 'g'; allowed: big"):
        validate_chip(_arch({"source": "s", "power": bad}), models)
    with pytest.raises(ConfigError, match="give latency_ms, power_w or both"):
        _arch({"source": "s", "power": {**power, "layers": [{"name": "big"}]}})
    with pytest.raises(ConfigError, match="layers are the layers of a workload run"):
        _arch({"source": "s", "power": {**{k: v for k, v in power.items() if k != "workload"}, "kind": "post_layout"}})


def test_post_layout_power_counts_switching_without_glitches(models):
    """A tool's average counts each net once per cycle (zero-delay or vectorless activity); silicon glitches."""
    figure = {"w": 1.0, "scope": "compute_array", "source": "t"}
    post = validate_chip(_arch({"source": "s", "power": {**figure, "kind": "post_layout"}}), models)["power"]
    tdp = validate_chip(_arch({"source": "s", "power": {**figure, "kind": "tdp"}}), models)["power"]
    timed = validate_chip(_arch({"source": "s", "power": {**figure, "kind": "post_layout", "switching": "timed"}}),
                          models)["power"]
    assert post["switching"] == "zero_delay" and tdp["switching"] == timed["switching"] == "timed"
    assert timed["estimate"] == pytest.approx(tdp["estimate"])
    unit = _node(estimate(_arch(None, activity={"switching": "zero_delay"}), model_paths=models).breakdown,
                 "tensor_unit0")
    assert post["estimate"] == pytest.approx(unit["tdp_w"]) and post["estimate"] < tdp["estimate"]


def test_zero_delay_switching_needs_a_model_that_has_it(models, tmp_path):
    data = json.loads(Path(models["systolic"]).read_text())
    del data["targets"]["energy_zero_delay_pj"]
    old = tmp_path / "systolic.json"
    old.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="needs the fitted target energy_zero_delay_pj.*refit it with"):
        estimate(_arch(None, activity={"switching": "zero_delay"}), model_paths={**models, "systolic": str(old)})
    assert estimate(_arch(None), model_paths={**models, "systolic": str(old)}).tdp_w > 0


@pytest.mark.parametrize("bad, match", [
    ({"power": {"w": 1, "scope": "chip", "kind": "tdp", "switching": "zero_delay", "source": "t"}},
     "silicon, which switches with its glitches"),
    ({"power": {"w": 1, "scope": "chip", "kind": "measured", "source": "t"}}, "needs the workload"),
    ({"power": {"w": 1, "scope": "die", "kind": "tdp", "source": "t"}}, r"published\.power\.scope"),
    ({"area": {"mm2": 1, "scope": "chip", "kind": "die", "source": "t",
               "parts": [{"name": "x", "match": ["core"], "share": 0.5, "value": 1}]}}, "exactly one of share"),
    ({}, "give area, power, or comparison"),
    ({"area": {"mm2": 1, "scope": "chip", "kind": "die", "source": "t"}, "evidence": "abstract"},
     "list what the description takes on trust"),
    ({"area": {"mm2": 1, "scope": "chip", "kind": "die", "source": "t"}, "unverified": ["x"]},
     "this one says evidence 'paper'"),
])
def test_published_block_errors_name_the_field(bad, match):
    with pytest.raises(ConfigError, match=match):
        _arch({"source": "s", **bad})


def test_json_has_scope_kind_and_parts(capsys):
    assert main(["validate-chips", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    rows = {r["chip"]: r for r in d["chips"]}
    for r in rows.values():
        for q in ("area", "power"):
            if q in r:
                assert {"published", "estimate", "error_pct", "scope", "kind", "parts"} <= set(r[q]), (r["chip"], q)
    assert rows["tpu_v1"]["area"]["parts"] and rows["eyeriss"]["power"]["kind"] == "measured"
    assert d["summary"]["area"]["chips"] >= 4


def test_descriptions_from_abstracts_stay_out_of_the_headline(models):
    """The headline means are over the descriptions checked against their papers; one from an abstract is reported
    apart, under its own heading, with what it takes on trust."""
    area = {"mm2": 1.0, "scope": "compute_array", "kind": "synthesis", "source": "t"}
    paper = validate_chip(_arch({"source": "s", "area": area}, name="p"), models)
    abstract = validate_chip(_arch({"source": "s", "area": {**area, "mm2": 100.0}, "evidence": "abstract",
                                    "unverified": ["the whole core"]}, name="a"), models)
    s = summary([paper, abstract])
    assert s["area"]["chips"] == 1
    assert s["area"]["mean_abs_error_pct"] == pytest.approx(abs(paper["area"]["error_pct"]))
    assert s["from_abstracts"]["area"]["chips"] == 1
    assert s["from_abstracts"]["area"]["mean_abs_error_pct"] == pytest.approx(abs(abstract["area"]["error_pct"]))
    rows = table_rows([abstract, paper])
    chips = [r[0] for r in rows if r[0]]
    assert chips[0] == "p" and chips[1].startswith("descriptions from abstracts") and chips[2] == "a"
    assert any(r[2].strip() == "unverified" and r[7] == "the whole core" for r in rows)


def test_include_adds_a_block_beyond_the_scope(models):
    """A figure that counts a block with its compute array (TensorDash's transposers) includes its path."""
    area = {"mm2": 1.0, "scope": "compute_array", "kind": "synthesis", "source": "t"}
    bare = validate_chip(_arch({"source": "s", "area": area}), models)["area"]
    wider = validate_chip(_arch({"source": "s", "area": {**area, "include": ["core/memories/buf"]}}), models)["area"]
    tree = estimate(_arch(None), model_paths=models).breakdown
    assert wider["estimate"] == pytest.approx(bare["estimate"] + _node(tree, "buf")["area_mm2"])
    assert "core/memories/buf" in wider["matched"] and "core/memories/buf" not in bare["matched"]


def test_reference_estimate_is_printed_beside_the_figure(models):
    pub = {"source": "s", "area": {"mm2": 10.0, "scope": "chip", "kind": "die", "source": "t"},
           "reference": [{"tool": "NeuroMeter", "area_mm2": 8.0, "source": "sect. II-C"}]}
    rows = table_rows([validate_chip(_arch(pub), models)])
    ref = [r for r in rows if "NeuroMeter's own estimate" in r[2]]
    assert len(ref) == 1 and ref[0][5:] == ("8.0", "10", "-20%")


def test_validation_doc_table_is_current():
    text = (ROOT / "docs" / "validation.md").read_text()
    assert VALIDATION_BEGIN in text and VALIDATION_END in text
    assert replace_validation_table(text, validate_chips()) == text, \
        "docs/validation.md's table is stale: run `accelgen validate-chips --doc docs/validation.md`"


def test_validation_doc_command_rewrites_the_table_and_keeps_readme_as_its_alias(tmp_path, capsys):
    """``--doc`` rewrites the table between the markers; ``--readme``, its old name, does the same; a file without
    the markers is a one-line error and is left as it was."""
    doc = tmp_path / "validation.md"
    doc.write_text(f"intro\n{VALIDATION_BEGIN}\nold\n{VALIDATION_END}\noutro\n")
    for option in ("--doc", "--readme"):
        assert main(["validate-chips", option, str(doc)]) == 0
        text = doc.read_text()
        assert "old" not in text and text.startswith("intro\n") and text.endswith("outro\n")
        assert "| tpu_v1 | 28 nm | area mm^2 | chip | upper_bound |" in text
    capsys.readouterr()
    bare = tmp_path / "bare.md"
    bare.write_text("no markers\n")
    assert main(["validate-chips", "--doc", str(bare)]) == 2
    assert "no generated-part markers" in capsys.readouterr().err and bare.read_text() == "no markers\n"


def test_pe_memories_follow_the_compute_and_shared_memories_count_instances(models):
    """A per-PE scratch pad is inside the PEs: its activity is the compute's and it is not part of the shared
    on-chip level; a shared memory of ``count`` independent instances gives that level count x its bandwidth."""
    from accelgen.ppa.perf_layers import PerfContext
    core = {"tensor_units": [{"rows": 32, "cols": 32}],
            "memories": [{"name": "glb", "capacity_bytes": 4096, "block_bytes": 8, "banks": 1, "count": 4},
                         {"name": "spad", "capacity_bytes": 64, "block_bytes": 2, "banks": 1, "count": 1024,
                          "level": "pe"}]}
    arch = parse_arch({"name": "t", "node_nm": 28, "clock_mhz": 500, "core": core,
                       "activity": {"default": 1.0, "tensor": 0.5, "memory": 0.25}})
    sram = PerfContext(arch, models).levels[0]
    assert sram["name"] == "sram" and sram["capacity_bytes"] == 4 * 4096 and sram["bytes_per_cycle"] == 4 * 8
    tree = estimate(arch, model_paths=models).breakdown
    for name, act in (("spad", 0.5), ("glb", 0.25)):
        n = _node(tree, name)
        assert n["runtime_w"] - n["leakage_w"] == pytest.approx(act * n["dynamic_w"]), name


def test_dot_products_are_a_compute_unit_and_the_reduction_type(models, tmp_path):
    """NeuroMeter's reduction-tree unit: ``inputs`` MACs per cycle per unit, costed by the dot_product model, and
    the unit the performance model's 'reduction' layers run on."""
    from accelgen.ppa.perf import evaluate
    core = {"dot_products": [{"count": 16, "inputs": 16, "a_width": 16, "b_width": 16}],
            "memories": [{"name": "sb", "capacity_bytes": 32768, "block_bytes": 32, "banks": 1}]}
    arch = parse_arch({"name": "t", "node_nm": 65, "clock_mhz": 500, "core": core})
    est = estimate(arch, model_paths=models)
    assert est.peak_tops == pytest.approx(2 * 16 * 16 * 500e6 * 1e-12)
    assert _node(est.breakdown, "dot_product0")["count"] == 16
    wl = {"name": "g", "layers": [{"name": "l", "type": "gemm", "M": 64, "N": 64, "K": 256}]}
    rep = evaluate(arch, wl, model_paths=models)
    assert rep.layers[0]["compute"] == "reduction" and rep.layers[0]["cycles"] >= 64 * 64 * 256 // (16 * 16)
    with pytest.raises(ConfigError, match="inputs: 12 is not allowed"):
        parse_arch({"name": "t", "node_nm": 65, "clock_mhz": 500,
                    "core": {"dot_products": [{"inputs": 12}]}})
    with pytest.raises(ConfigError, match="not both"):
        parse_arch({"name": "t", "node_nm": 65, "clock_mhz": 500,
                    "core": {"dot_products": [{"inputs": 16}], "reduction_trees": [{"inputs": 16}]}})
