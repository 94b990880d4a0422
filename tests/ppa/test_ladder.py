"""validate-components: the reference ladder's data, its ratios, its supply scaling, its JSON and its generated doc."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelgen.cli import main
from accelgen.errors import ConfigError
from accelgen.ppa.ladder import (LADDER_BEGIN, LADDER_END, OPERATORS_FILE, AccelgenFigure, ThirdPartyFile,
                                 ladder_section, ladder_rows, load_references, load_third_party,
                                 replace_ladder_section, summary)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rows():
    return ladder_rows()


def test_every_reference_has_a_source_where_scope_and_activity():
    refs = load_references()
    for ref in refs.references:
        assert ref.source in refs.sources and refs.sources[ref.source].cite, ref.id
        assert ref.where and ref.activity and ref.includes, ref.id
        # a reference accelgen has no figure for says why
        assert ref.accelgen.none or ref.cause, f"{ref.id}: give the cause where accelgen and the reference differ"


def test_operator_figures_record_their_commit_command_and_operating_point():
    data = json.loads(OPERATORS_FILE.read_text())
    assert len(data["commit"]) == 40 and data["command"].startswith("python bench/operator_ladder.py")
    assert data["vdd_v"] == 1.1 and data["node_nm"] == 45 and data["clock_mhz"] == 1000
    used = {r.accelgen.operator for r in load_references().references if r.accelgen.operator}
    assert used <= set(data["operators"]), used - set(data["operators"])


def test_ratios_are_accelgen_over_published_and_energies_are_at_the_references_supply(rows):
    for r in rows:
        fig = r["accelgen"]
        if r["ratio"] is None:
            assert fig["value"] is None or r["published"] is None, r["id"]
            continue
        assert r["ratio"] == pytest.approx(fig["value"] / r["published"], rel=1e-12), r["id"]
        if "raw" in fig:  # an energy: raw at accelgen's supply, compared at the reference's
            vdd = r["operating_point"]["vdd_v"]
            assert fig["value"] == pytest.approx(fig["raw"] * (vdd / fig["raw_vdd_v"]) ** 2, rel=1e-12), r["id"]
            assert r["ratio_zero_delay"] == pytest.approx(fig["zero_delay"] / r["published"], rel=1e-12)
    int8_mul = next(r for r in rows if r["id"] == "int8-mul-energy")
    assert int8_mul["accelgen"]["supply_scale"] == pytest.approx((0.9 / 1.1) ** 2, rel=1e-9)


def test_json_prints_at_least_15_rows_with_ratios_from_3_sources(capsys):
    assert main(["validate-components", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    with_ratio = [r for r in out["rows"] if r["ratio"] is not None]
    assert len(with_ratio) >= 15 and len({r["source"] for r in with_ratio}) >= 3
    assert out["summary"]["with_ratio"] == len(with_ratio)
    assert {"operator", "compute_array"} <= {r["scope"] for r in with_ratio}


def test_a_reference_takes_exactly_one_kind_of_accelgen_figure():
    with pytest.raises(ValueError, match="exactly one of operator, model"):
        AccelgenFigure(operator="int8_mul", model="mac")
    with pytest.raises(ValueError, match="minus subtracts a description"):
        AccelgenFigure(chip="sigma", minus={"name": "x"})


def test_a_reference_file_naming_an_unknown_source_is_a_one_line_error(tmp_path):
    bad = tmp_path / "refs.yaml"
    bad.write_text("sources: {a: {cite: A}}\nreferences:\n  - {id: x, rung: r, source: b, where: w, scope: operator, "
                   "node_nm: 45, activity: '-', includes: '-', quantity: area_um2, value: 1, accelgen: {none: n}}\n")
    with pytest.raises(ConfigError, match=r"unknown sources \['b'\]"):
        load_references(bad)


def test_third_party_rtl_rows_say_why_until_measured_and_compare_once_measured(tmp_path):
    pending = load_third_party()
    assert pending.designs and all(d.status for d in pending.designs if d.report is None or d.accelgen is None)
    with pytest.raises(ValueError, match="says why"):
        ThirdPartyFile.model_validate({"designs": [{"name": "pe", "repository": "o/r"}]})
    measured = ThirdPartyFile.model_validate({"designs": [{
        "name": "pe", "repository": "o/r", "commit": "0" * 40, "path": "rtl/pe.v", "top": "pe",
        "report": {"tool": "DC", "library": "28 nm", "node_nm": 28, "activity": "DC vectorless default toggle rates",
                   "file": "reports/pe_area.rpt", "area_um2": 1000.0, "power_mw": 2.0},
        "accelgen": {"command": "accelgen synth rtl/pe.v --top pe", "commit": "1" * 40,
                     "activity": "vectorless toggle rates emulated", "area_um2": 1100.0, "power_mw": 3.0}}]})
    rows = ladder_rows(load_references(), json.loads(OPERATORS_FILE.read_text()), measured)
    area, power = [r for r in rows if r["kind"] == "third_party_rtl"]
    assert area["ratio"] == pytest.approx(1.1) and power["ratio"] == pytest.approx(1.5)
    assert power["published"] == pytest.approx(0.002) and area["where"] == "reports/pe_area.rpt"
    assert summary(rows)["rows"] == len(rows)


def test_validation_doc_ladder_is_current(rows):
    text = (ROOT / "docs" / "validation.md").read_text()
    current = text.split(LADDER_BEGIN, 1)[1].split(LADDER_END, 1)[0]
    assert current == "\n" + ladder_section(rows), (
        "docs/validation.md's reference ladder is stale: run `accelgen validate-components --doc docs/validation.md`")
    assert replace_ladder_section(f"a\n{LADDER_BEGIN}\nold\n{LADDER_END}\nb", rows).endswith(f"{LADDER_END}\nb")
