"""PPA units as plug-ins: the registry, ``core.units`` in architecture files, ART and the linear chain placed in a
chip, die blocks, third-party units through the entry-point group, and the performance model asking a unit."""

from __future__ import annotations

import warnings
from importlib.metadata import EntryPoint

import pytest

from accelgen.errors import ConfigError
from accelgen.ppa import estimate, parse_arch
from accelgen.ppa.estimate import walk
from accelgen.ppa.perf import evaluate
from accelgen.ppa.units import base, core_units, placeable_kinds, unit_class, unit_kinds
from accelgen.ppa.units.die_block import DieBlockUnit

REDUCTION_KINDS = ("fan", "fan_linear", "adder_tree", "art", "linear_reduction")
#: the datatype each reduction tree has a shipped fitted model for (fp32 where there is one)
SHIPPED_DTYPE = {"fan": "fp32", "fan_linear": "int", "adder_tree": "int", "art": "fp32", "linear_reduction": "fp32"}


def _arch(units, **core):
    return {"name": "t", "node_nm": 28, "clock_mhz": 500, "core": {"units": units, **core}}


def _node(est, name):
    return next(node for _, node, _ in walk(est.breakdown) if node["name"] == name)


def test_every_block_of_a_chip_is_a_unit_kind():
    assert set(unit_kinds()) >= {"systolic", *REDUCTION_KINDS, "dot_product", "flexdpe", "tensordash", "vector_unit",
                                 "regfile", "memory", "noc", "dram_phy", "pcie", "scalar_core", "die_block"}
    for kind in unit_kinds():
        assert unit_class(kind).kind == kind


def test_unknown_kind_is_one_line_naming_the_field_and_the_kinds():
    with pytest.raises(ConfigError, match=r"core\.units\[0\]\.kind: 'warp_drive' is not a unit kind; allowed: "
                                          r"activation, adder_tree, array_io, art, ") as exc:
        parse_arch(_arch([{"kind": "warp_drive", "inputs": 8}]))
    assert "\n" not in str(exc.value)
    assert ", ".join(placeable_kinds()) in str(exc.value)


def test_unit_parameters_are_checked_at_their_field():
    with pytest.raises(ConfigError, match=r"core\.units\[0\]\.inputs: 1 is not allowed"):
        parse_arch(_arch([{"kind": "art", "inputs": 1}]))
    with pytest.raises(ConfigError, match=r"core\.units\[0\]\.kind: missing required field"):
        parse_arch(_arch([{"inputs": 8}]))


def test_a_core_of_die_blocks_alone_has_no_compute():
    block = {"kind": "die_block", "name": "link", "area_mm2": 1.0, "ref_node_nm": 28, "ref_vdd_v": 0.9}
    with pytest.raises(ConfigError, match="at least one compute unit"):
        parse_arch(_arch([block]))


@pytest.mark.parametrize("kind", REDUCTION_KINDS)
def test_every_reduction_tree_can_be_placed_in_an_architecture_file(kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = estimate(_arch([{"kind": kind, "inputs": 64, "dtype": SHIPPED_DTYPE[kind]}]))
    (choice,) = est.pipelining
    assert choice["component"] == "core.units[0]"
    assert choice["model"] == (kind if SHIPPED_DTYPE[kind] == "int" else f"{kind}-fp32")
    assert _node(est, f"{kind}0")["area_mm2"] > 0


@pytest.mark.parametrize("tree_kind, unit_kind", [("art", "art"), ("linear_reduction", "linear_reduction"),
                                                  ("linear", "fan_linear"), ("tree", "adder_tree")])
def test_reduction_trees_field_names_the_same_units(tree_kind, unit_kind):
    arch = parse_arch({"name": "t", "node_nm": 28, "clock_mhz": 500,
                       "core": {"reduction_trees": [{"kind": tree_kind, "inputs": 32}]}})
    (unit,) = core_units(arch.core)
    assert unit.kind == unit_kind and unit.path == "core.reduction_trees[0]"


def test_listed_units_estimate_as_the_fixed_fields():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fixed = estimate({"name": "t", "node_nm": 28, "clock_mhz": 500,
                          "core": {"tensor_units": [{"rows": 16, "cols": 16}]}})
        listed = estimate(_arch([{"kind": "systolic", "rows": 16, "cols": 16}]))
    assert listed.area_mm2 == pytest.approx(fixed.area_mm2, rel=1e-12)
    assert listed.tdp_w == pytest.approx(fixed.tdp_w, rel=1e-12)
    assert listed.peak_tops == pytest.approx(fixed.peak_tops, rel=1e-12)


def test_die_block_scales_to_the_node_and_adds_its_area():
    block = {"kind": "die_block", "name": "chip_link", "area_mm2": 2.0, "energy_pj_per_cycle": 50.0,
             "leakage_mw": 5.0, "ref_node_nm": 28, "ref_vdd_v": 0.9}
    tu = {"kind": "systolic", "rows": 16, "cols": 16}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        without = estimate(_arch([tu]))
        with_block = estimate(_arch([tu, block]))
    node = _node(with_block, "chip_link")
    assert with_block.area_mm2 - without.area_mm2 == pytest.approx(node["area_mm2"], rel=1e-9)
    arch = parse_arch(_arch([tu, block], ))
    params = unit_class("die_block").parse({k: v for k, v in block.items() if k != "kind"}, "core.units[1]")
    from accelgen.ppa.process import technology
    at_7 = DieBlockUnit(params, tech=technology(7), path="core.units[1]")
    at_28 = DieBlockUnit(params, tech=technology(28), path="core.units[1]")
    assert at_7.area_um2 < at_28.area_um2 == pytest.approx(2.0e6)
    assert at_7.energy_pj("cycle") < at_28.energy_pj("cycle")
    assert arch.core.units[1]["activity_key"] == "default"   # defaults kept beside the inputs


def test_a_third_party_unit_is_found_through_the_entry_point_group(monkeypatch):
    class InterChipLink(DieBlockUnit):
        kind = "inter_chip_link"

    ep = EntryPoint(name="inter_chip_link", value="x:InterChipLink", group=base.ENTRY_POINT_GROUP)
    monkeypatch.setattr(EntryPoint, "load", lambda self: InterChipLink)
    monkeypatch.setattr(base, "entry_points", lambda group: [ep] if group == base.ENTRY_POINT_GROUP else [])
    monkeypatch.setattr(base, "_discovered", False)
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    assert unit_class("inter_chip_link") is InterChipLink
    link = {"kind": "inter_chip_link", "name": "link", "area_mm2": 3.0, "ref_node_nm": 28, "ref_vdd_v": 0.9}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = estimate(_arch([{"kind": "systolic", "rows": 8, "cols": 8}, link]))
    assert _node(est, "link")["area_mm2"] == pytest.approx(3.0)


def test_performance_model_asks_the_unit_for_its_cycles():
    wl = {"name": "w", "layers": [{"name": "g", "type": "gemm", "M": 64, "N": 64, "K": 256, "compute": "reduction"}]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        art = evaluate(_arch([{"kind": "art", "inputs": 64, "dtype": "fp32", "pipeline": {"add_stages": 0}}]), wl)
        chain = evaluate(_arch([{"kind": "linear_reduction", "inputs": 64, "dtype": "fp32",
                                 "pipeline": {"add_stages": 0}}]), wl)
    # the same passes; unpipelined, the chain drains in n cycles, the tree in log2 n + 1
    assert chain.total["cycles"] - art.total["cycles"] == 64 - 7
