"""Every registered block family is complete: each piece its declaration names is there (issue 48).

A family's declaration (:class:`accelgen.family.BlockFamily`, in :mod:`accelgen.registry`) names its parameter
schema, generator, golden module, cycle table, coverage collector with its fp-unreachable rules, activity
stimulus (or why it has none), sweep variants and PPA unit; its sweep files, shipped models and default
regression entry are found by its name. :func:`missing_pieces` lists what is missing or wrong; it must find
nothing for every registered family, and each broken declaration below must be reported.
"""

from __future__ import annotations

import dataclasses
import importlib
import shutil
from pathlib import Path

import pydantic
import pytest
import yaml
from amaranth.hdl import Elaboratable

from accelgen.cosim.coverage import Coverage
from accelgen.ppa.units.base import unit_kinds
from accelgen.registry import FAMILIES

ROOT = Path(__file__).resolve().parents[1]
SWEEPS = ROOT / "fit" / "sweeps"
MODELS = ROOT / "fit" / "models"
DEFAULT_REGRESSION = ROOT / "cosim" / "regressions" / "default.yaml"
FP_OPERATIONS = {"mul", "add"}
#: a short cosim stimulus: enough to build a table and collect coverage from it
VECTORS = 2


def _module_of(fn) -> str | None:
    return getattr(fn, "__module__", None)


def _regression_blocks(path: Path) -> set[str]:
    return {entry.get("block") for entry in yaml.safe_load(path.read_text()).get("blocks", [])}


def _host_problems(fam) -> list[str]:
    """The cycle table, and the pieces that sit beside it in the family's cosim module."""
    if not callable(fam.cycle_table):
        return [f"cycle_table {fam.cycle_table!r} is not callable"]
    host = _module_of(fam.cycle_table)
    out = [] if host and host.startswith("accelgen.cosim.") else [f"cycle_table is not in accelgen.cosim ({host})"]
    pieces = {"coverage": fam.coverage, "activity_table": fam.activity_table, "fp_unreachable": fam.fp_unreachable,
              "verify": fam.verify}
    for what, fn in pieces.items():
        if fn is not None and not callable(fn):
            out.append(f"{what} {fn!r} is not callable")
        elif fn is not None and what != "verify" and _module_of(fn) != host:
            out.append(f"{what} is in {_module_of(fn)}, not beside the cycle table in its family module {host}")
    if fam.coverage is None:
        out.append("no coverage collector")
    if fam.activity_table is None and not fam.no_activity:
        out.append("no activity stimulus, and no reason (no_activity) why")
    if fam.activity_table is not None and fam.no_activity:
        out.append("an activity stimulus and a reason for having none (no_activity)")
    if not set(fam.fp_operations) <= FP_OPERATIONS:
        out.append(f"fp_operations {fam.fp_operations!r}: allowed {sorted(FP_OPERATIONS)}")
    if fam.fp_unreachable is not None and not fam.fp_operations:
        out.append("fp_unreachable rules for a family without fp_operations")
    out += [f"cosim option {o.name!r}: parse is not callable" for o in fam.cosim_options if not callable(o.parse)]
    return out


def _run_problems(fam) -> list[str]:
    """Build the default parameters' generator, a short cycle table and its coverage, as a regression test does."""
    try:
        params = fam.validate({})
    except Exception as exc:     # noqa: BLE001  (any failure is the finding)
        return [f"default parameters do not validate: {exc}"]
    out = []
    component = fam.build_component(params)
    if not isinstance(component, Elaboratable):
        out.append(f"build_component gave {type(component).__name__}, not an Amaranth component")
    if out or not callable(fam.cycle_table) or not callable(fam.coverage):
        return out
    made = fam.cycle_table(params, VECTORS, 1)
    table, context = made if isinstance(made, tuple) else (made, None)
    if made is not table and fam.verify is None:
        out.append("cycle_table returns (table, context) but the family has no verify")
    cov = fam.coverage(params, table, context if context is not None else {"vectors": VECTORS, "seed": 1})
    if not isinstance(cov, Coverage) or not cov.bins:
        out.append(f"coverage gave {cov!r}, not a Coverage with bins")
    if fam.fp_unreachable is not None and not isinstance(fam.fp_unreachable(params), dict):
        out.append("fp_unreachable(params) is not a {bin: reason} mapping")
    return out


def _file_problems(fam, sweeps: Path, models: Path, regression: Path) -> list[str]:
    """The pieces found by the family's name: sweep files, shipped models, the default regression entry."""
    out = []
    for sweep in fam.sweeps:
        path = sweeps / f"{sweep}.yaml"
        if not path.is_file():
            out.append(f"no sweep file fit/sweeps/{sweep}.yaml")
        elif (named := yaml.safe_load(path.read_text()).get("family")) != fam.name:
            out.append(f"fit/sweeps/{sweep}.yaml says family: {named}, not {fam.name}")
        if not (models / f"{sweep}.json").is_file():
            out.append(f"no shipped model fit/models/{sweep}.json")
    if fam.name not in _regression_blocks(regression):
        out.append(f"no entry '- block: {fam.name}' in the default regression")
    return out


def missing_pieces(fam, *, sweeps: Path = SWEEPS, models: Path = MODELS,
                   regression: Path = DEFAULT_REGRESSION) -> list[str]:
    """Every piece family ``fam`` lacks, one line each (empty: complete)."""
    out = []
    if not (isinstance(fam.params_model, type) and issubclass(fam.params_model, pydantic.BaseModel)):
        out.append(f"params_model {fam.params_model!r} is not a pydantic schema")
    if not callable(fam.build_component):
        out.append(f"build_component {fam.build_component!r} is not callable")
    try:
        if not fam.golden.startswith("accelgen.golden."):
            out.append(f"golden {fam.golden!r} is not a module of accelgen.golden")
        else:
            importlib.import_module(fam.golden)
    except (AttributeError, ImportError):
        out.append(f"golden module {fam.golden!r} cannot be imported")
    if not isinstance(fam.ppa_unit, str) or not fam.ppa_unit:
        out.append("no PPA unit (ppa_unit)")
    elif fam.ppa_unit not in unit_kinds():
        out.append(f"ppa_unit {fam.ppa_unit!r} is not a PPA unit kind (accelgen.ppa.units): {', '.join(unit_kinds())}")
    if not fam.summary:
        out.append("no summary")
    out += _host_problems(fam)
    out += _file_problems(fam, sweeps, models, regression)
    return out or _run_problems(fam)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_family_is_complete(name):
    assert missing_pieces(FAMILIES[name]) == []


def test_every_sweep_model_and_regression_block_belongs_to_a_family():
    declared = {sweep: fam.name for fam in FAMILIES.values() for sweep in fam.sweeps}
    for path in sorted(SWEEPS.glob("*.yaml")):
        named = yaml.safe_load(path.read_text()).get("family")
        assert declared.get(path.stem) == named, f"{path.name} (family: {named}) is not among its family's sweeps"
    assert {p.stem for p in MODELS.glob("*.json")} <= set(declared)
    assert _regression_blocks(DEFAULT_REGRESSION) <= set(FAMILIES)


def _elsewhere(params):
    return {}


BROKEN = {
    "coverage": ({"coverage": None}, "no coverage collector"),
    "cycle_table": ({"cycle_table": "art_table"}, "cycle_table 'art_table' is not callable"),
    "activity": ({"activity_table": None}, "no activity stimulus, and no reason"),
    "fp_rules_elsewhere": ({"fp_unreachable": _elsewhere}, "fp_unreachable is in"),
    "golden": ({"golden": "accelgen.golden.no_such_model"}, "cannot be imported"),
    "ppa_unit": ({"ppa_unit": ""}, "no PPA unit"),
    "ppa_unit_unknown": ({"ppa_unit": "no_such_unit"}, "'no_such_unit' is not a PPA unit kind"),
    "sweep_variant": ({"sweep_variants": ("fp32", "int4")}, "no sweep file fit/sweeps/art-int4.yaml"),
    "params": ({"params_model": dict}, "is not a pydantic schema"),
}


@pytest.mark.parametrize("change,reported", BROKEN.values(), ids=list(BROKEN))
def test_a_declaration_missing_a_piece_is_reported(change, reported):
    broken = dataclasses.replace(FAMILIES["art"], **change)
    found = missing_pieces(broken)
    assert any(reported in line for line in found), found


def test_a_family_whose_files_are_removed_is_reported(tmp_path):
    sweeps, models = tmp_path / "sweeps", tmp_path / "models"
    shutil.copytree(SWEEPS, sweeps)
    shutil.copytree(MODELS, models)
    (sweeps / "art-fp32.yaml").unlink()
    (models / "art.json").unlink()
    regression = tmp_path / "default.yaml"
    data = yaml.safe_load(DEFAULT_REGRESSION.read_text())
    data["blocks"] = [b for b in data["blocks"] if b.get("block") != "art"]
    regression.write_text(yaml.safe_dump(data))
    found = missing_pieces(FAMILIES["art"], sweeps=sweeps, models=models, regression=regression)
    assert found == ["no shipped model fit/models/art.json", "no sweep file fit/sweeps/art-fp32.yaml",
                     "no entry '- block: art' in the default regression"]
    assert missing_pieces(FAMILIES["fan"], sweeps=sweeps, models=models, regression=regression) == []


def test_a_new_family_without_its_files_is_reported():
    new = dataclasses.replace(FAMILIES["art"], name="art2")
    found = missing_pieces(new)
    assert "no sweep file fit/sweeps/art2.yaml" in found and "no shipped model fit/models/art2.json" in found
    assert "no entry '- block: art2' in the default regression" in found
