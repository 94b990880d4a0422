"""Datatypes in the estimator: the ``dtype`` field (validation, implied widths), model-variant selection
(``<family>-<dtype>``), missing-variant errors, peak TOPS and batch evaluation with an fp dtype."""

from __future__ import annotations

import copy
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from accelgen.errors import ConfigError
from accelgen.fit.model import FitRangeWarning
from accelgen.ppa import estimate, parse_arch

sys.path.insert(0, str(Path(__file__).parent))
import ppa_models  # noqa: E402


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The int fixture models plus fp variants whose coefficients differ (area x3, energy x2) from the int ones,
    with ``dtype`` as a model input as the fp sweeps record it."""
    d = tmp_path_factory.mktemp("models")
    paths = ppa_models.write_models(d)
    for fam, dtype in (("systolic", "bf16"), ("flexdpe", "bf16"), ("tensordash_pe", "fp16"), ("fan", "fp32"),
                       ("mac", "bf16")):
        m = copy.deepcopy(ppa_models.MODELS[fam])
        m["name"] = f"{fam}-{dtype}"
        m["inputs"]["dtype"] = {"kind": "choice", "default": dtype, "values": [dtype]}
        m["targets"]["area_um2"]["coef"] = [3 * c for c in m["targets"]["area_um2"]["coef"]]
        m["targets"]["energy_pj"]["coef"] = [2 * c for c in m["targets"]["energy_pj"]["coef"]]
        p = d / f"{fam}-{dtype}.json"
        p.write_text(json.dumps(m))
        paths[m["name"]] = str(p)
    return paths


def _arch(core, **over):
    return {"name": "t", "node_nm": 28, "clock_mhz": 500, "core": core, **over}


@pytest.mark.parametrize("unit, match", [
    ({"tensor_units": [{"rows": 4, "cols": 4, "dtype": "int8"}]},
     r"core\.tensor_units\[0\]\.dtype: 'int8' is not allowed; input should be 'int', 'fp16', 'bf16' or 'fp32'"),
    ({"tensor_units": [{"rows": 4, "cols": 4, "dtype": "bf16", "acc_width": 24}]},
     r"core\.tensor_units\[0\]\.acc_width: 24 is not allowed with dtype='bf16'; bf16 products and sums are 32 bits"),
    ({"tensor_units": [{"rows": 4, "cols": 4, "dtype": "fp32", "a_width": 16}]},
     r"core\.tensor_units\[0\]\.a_width: 16 is not allowed with dtype='fp32'; fp32 operands are 32 bits"),
    ({"flex_dpes": {"count": 2, "k": 8, "dtype": "bf16", "width": 8}},
     r"core\.flex_dpes\.width: 8 is not allowed with dtype='bf16'; bf16 operands are 16 bits"),
    ({"tensordash": {"count": 2, "dtype": "fp16", "b_width": 8}},
     r"core\.tensordash\.b_width: 8 is not allowed with dtype='fp16'"),
    ({"reduction_trees": [{"inputs": 8, "dtype": "fp16", "width": 16}]},
     r"core\.reduction_trees\[0\]\.width: 16 is not allowed with dtype='fp16'; fp16 products and sums are 32 bits"),
    ({"vector_unit": {"lanes": 8, "dtype": "fp32", "width": 16}},
     r"core\.vector_unit\.width: 16 is not allowed with dtype='fp32'; fp32 operands are 32 bits"),
    ({"tensor_units": [{"rows": 4, "cols": 4, "flush_subnormals": True}]},
     r"core\.tensor_units\[0\].*flush_subnormals: true is not allowed with dtype='int'"),
    ({"tensor_units": [{"rows": 8, "cols": 4, "sum_group": 4}]},
     r"core\.tensor_units\[0\]\.sum_group: 4 is not allowed with dtype='int'; it needs a floating-point dtype"),
    ({"tensor_units": [{"rows": 8, "cols": 4, "dtype": "bf16", "dataflow": "os", "sum_group": 2}]},
     r"core\.tensor_units\[0\]\.sum_group: 2 is not allowed with dataflow='os'"),
    ({"tensor_units": [{"rows": 6, "cols": 4, "dtype": "bf16", "sum_group": 4}]},
     r"core\.tensor_units\[0\]\.sum_group: 4 is not allowed with rows=6; allowed: a divisor of rows"),
    ({"tensor_units": [{"rows": 6, "cols": 4, "dtype": "bf16", "sum_group": 3}]},
     r"core\.tensor_units\[0\]\.sum_group: 3 is not allowed"),
])
def test_dtype_validation_errors_name_the_field(unit, match):
    with pytest.raises(ConfigError, match=match):
        parse_arch(_arch(unit))


def test_fp_dtype_implies_widths_and_accepts_consistent_ones():
    a = parse_arch(_arch({"tensor_units": [{"rows": 4, "cols": 4, "dtype": "bf16"},
                                           {"rows": 4, "cols": 4, "dtype": "fp32", "a_width": 32, "acc_width": 32}],
                          "flex_dpes": {"count": 2, "k": 8, "dtype": "fp16"},
                          "tensordash": {"count": 1, "dtype": "bf16"},
                          "reduction_trees": [{"inputs": 8, "dtype": "bf16"}],
                          "vector_unit": {"lanes": 8, "dtype": "bf16"}}))
    t0, t1 = a.core.tensor_units
    assert a.core.vector_unit.width == 16
    assert (t0.a_width, t0.b_width, t0.acc_width) == (16, 16, 32)
    assert (t1.a_width, t1.b_width, t1.acc_width) == (32, 32, 32)
    assert a.core.flex_dpes.width == 16 and a.core.reduction_trees[0].width == 32
    td = a.core.tensordash
    assert (td.a_width, td.b_width, td.acc_width) == (16, 16, 32)
    i = parse_arch(_arch({"tensor_units": [{"rows": 4, "cols": 4, "a_width": 4}]})).core.tensor_units[0]
    assert (i.dtype, i.a_width, i.acc_width) == ("int", 4, 32)   # int: widths as given / defaults


def test_fp_units_use_the_variant_models(models):
    core_int = {"tensor_units": [{"rows": 8, "cols": 8, "a_width": 16, "b_width": 16}],
                "flex_dpes": {"count": 4, "k": 16}, "tensordash": {"count": 2, "a_width": 16, "b_width": 16},
                "reduction_trees": [{"inputs": 16}], "vector_unit": {"lanes": 8, "width": 16}}
    core_fp = {"tensor_units": [{"rows": 8, "cols": 8, "dtype": "bf16"}], "flex_dpes": {"count": 4, "k": 16,
                                                                                         "dtype": "bf16"},
               "tensordash": {"count": 2, "dtype": "fp16"}, "reduction_trees": [{"inputs": 16, "dtype": "bf16"}],
               "vector_unit": {"lanes": 8, "dtype": "bf16"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitRangeWarning)
        ei = estimate(_arch(core_int), model_paths=models)
        ef = estimate(_arch(core_fp), model_paths=models)
    used = {t["component"]: t["model"] for t in ef.compute_models}
    assert used == {"core.tensor_units[0]": "systolic-bf16", "core.flex_dpes": "flexdpe-bf16",
                    "core.tensordash": "tensordash_pe-fp16", "core.reduction_trees[0]": "fan-fp32",
                    "core.vector_unit": "mac-bf16"}
    assert {t["model"] for t in ei.compute_models} == {"systolic", "flexdpe", "tensordash_pe", "fan", "mac"}
    # same widths, the variant's coefficients: area x3 for every unit (the fixture's variants)
    units = lambda e: {c["name"]: c for c in e.breakdown["children"][0]["children"][0]["children"]}  # noqa: E731
    ui, uf = units(ei), units(ef)
    for name in ("tensor_unit0", "flex_dpes", "tensordash_pes", "reduction_tree0", "vector_unit"):
        assert uf[name]["area_mm2"] == pytest.approx(3 * ui[name]["area_mm2"], rel=1e-9), name
        assert uf[name]["params"]["dtype"] != "int"
    # a MAC is 2 ops whatever the datatype
    assert ef.peak_tops == pytest.approx(ei.peak_tops)
    assert ef.peak_tops == pytest.approx((2 * 64 + 4 * 2 * 16 + 2 * 2 * 4 + 2 * 8) * 500e6 / 1e12)


@pytest.mark.parametrize("core, where, name", [
    ({"tensor_units": [{"rows": 4, "cols": 4, "dtype": "bf16"}]}, r"core\.tensor_units\[0\]\.dtype", "systolic-bf16"),
    ({"flex_dpes": {"count": 2, "k": 8, "dtype": "fp32"}}, r"core\.flex_dpes\.dtype", "flexdpe-fp32"),
    ({"reduction_trees": [{"inputs": 8, "kind": "linear", "dtype": "bf16"}]}, r"core\.reduction_trees\[0\]\.dtype",
     "fan_linear-fp32"),
])
def test_missing_variant_model_names_field_and_model_to_fit(core, where, name, models, monkeypatch, tmp_path):
    from accelgen.fit import model as model_mod
    monkeypatch.setattr(model_mod, "_models_dir", lambda: tmp_path)   # nothing shipped
    with pytest.raises(ConfigError, match=rf"{where}: '\w+' needs the fitted model variant '{name}', which is not "
                                          rf"shipped; fit it with `accelgen sweep {name} && accelgen fit {name} --ship`"):
        estimate(_arch(core), model_paths={k: v for k, v in models.items() if "-" not in k})


def test_missing_variant_is_a_one_line_cli_error(models, tmp_path, capsys, monkeypatch):
    from accelgen.fit import model as model_mod
    from accelgen.cli import main
    monkeypatch.setattr(model_mod, "_models_dir", lambda: tmp_path)
    p = tmp_path / "a.yaml"
    p.write_text(json.dumps(_arch({"tensor_units": [{"rows": 4, "cols": 4, "dtype": "fp16"}]},
                                  models={"systolic": models["systolic"]})))
    assert main(["estimate", str(p)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "core.tensor_units[0].dtype: 'fp16' needs the fitted model variant 'systolic-fp16'" \
        in err[0]


def test_batch_with_fp_dtype(models):
    from accelgen.ppa.batch import evaluate_batch
    paths = {k: models[k] for k in ("systolic", "systolic-bf16")}
    kw = dict(rows=np.array([4, 8, 16]), cols=8, sram_bytes=2**20, sram_banks=4, node_nm=28, clock_mhz=500,
              model_paths=paths)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitRangeWarning)
        fp = evaluate_batch(**kw, dtype="bf16")
        same = evaluate_batch(**kw, dtype="bf16", a_width=16, b_width=16, acc_width=32)
        i16 = evaluate_batch(**kw, a_width=16, b_width=16, acc_width=32)
        # the estimator's chip for the same point: one tensor unit, one SRAM, their data bus, 10% white space
        est = estimate(_arch({"tensor_units": [{"rows": 16, "cols": 8, "dtype": "bf16"}],
                              "memories": [{"name": "m", "capacity_bytes": 2**20, "banks": 4, "cell": "sram_lp"}]},
                             chip={"white_space_fraction": 0.1}), model_paths=paths)
    np.testing.assert_allclose(fp["area_mm2"], same["area_mm2"])
    assert np.all(fp["area_mm2"] > i16["area_mm2"]) and np.all(fp["tdp_w"] > i16["tdp_w"])
    np.testing.assert_allclose(fp["peak_tops"], i16["peak_tops"])
    assert fp["area_mm2"][2] == pytest.approx(est.area_mm2, rel=1e-9)
    assert fp["tdp_w"][2] == pytest.approx(est.tdp_w, rel=1e-9)
    with pytest.raises(ConfigError, match=r"batch\.acc_width: 24 is not allowed with dtype='bf16'"):
        evaluate_batch(**kw, dtype="bf16", acc_width=24)
    with pytest.raises(ConfigError, match=r"batch\.dtype: 'int4' is not allowed"):
        evaluate_batch(**kw, dtype="int4")


def test_flushing_tensor_unit_is_the_flush_points_of_the_shipped_model():
    """``flush_subnormals`` reaches the shipped systolic-bf16 model (an input it was fitted on): the exact bf16
    product makes a flushing PE smaller and cheaper; an integer unit has no such input."""
    unit = {"rows": 8, "cols": 8, "dataflow": "ws", "weight_load": "double", "dtype": "bf16"}
    tu = {}
    for flush in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("error", FitRangeWarning)
            e = estimate(_arch({"tensor_units": [{**unit, "flush_subnormals": flush}]}))
        units = e.breakdown["children"][0]["children"][0]["children"]
        tu[flush] = next(c for c in units if c["name"] == "tensor_unit0")
        assert tu[flush]["params"]["flush_subnormals"] is flush
    assert tu[True]["area_mm2"] < 0.95 * tu[False]["area_mm2"]
    assert tu[True]["tdp_w"] < 0.95 * tu[False]["tdp_w"]


def test_grouped_tensor_unit_takes_the_grouped_model():
    """A grouped unit (``sum_group`` > 1) is costed by its own shipped model, systolic-grouped_bf16 (the one-adder-per
    row model, systolic-bf16, holds ``sum_group`` at 1): one multi-operand adder per group of four rows makes the
    array smaller (measured 0.76x), and its deeper logic glitches more (timed samples 7.1 against 4.5), so its energy
    with glitches is higher. A grouped fp16 unit needs a model nobody shipped, and the error says which."""
    unit = {"rows": 16, "cols": 4, "dataflow": "ws", "weight_load": "double", "dtype": "bf16", "flush_subnormals": True}
    tu, models = {}, {}
    for group in (1, 4):
        with warnings.catch_warnings():
            warnings.simplefilter("error", FitRangeWarning)
            e = estimate(_arch({"tensor_units": [{**unit, "sum_group": group}]}))
        units = e.breakdown["children"][0]["children"][0]["children"]
        tu[group] = next(c for c in units if c["name"] == "tensor_unit0")
        models[group] = next(t["model"] for t in e.compute_models if t["component"] == "core.tensor_units[0]")
    assert models == {1: "systolic-bf16", 4: "systolic-grouped_bf16"}
    assert "sum_group" not in tu[1]["params"] and tu[4]["params"]["sum_group"] == 4
    assert tu[4]["area_mm2"] == pytest.approx(0.76 * tu[1]["area_mm2"], rel=0.1)
    assert tu[4]["tdp_w"] > tu[1]["tdp_w"]
    with pytest.raises(ConfigError, match=r"core\.tensor_units\[0\]\.dtype: 'fp16' needs the fitted model variant "
                                          r"'systolic-grouped_fp16'"):
        estimate(_arch({"tensor_units": [{**unit, "dtype": "fp16", "sum_group": 4}]}))


def test_grouped_rows_are_pipelined_for_a_fast_clock():
    """The grouped model measured every stage pair, so ``auto`` pipelines a grouped unit as any other: the least
    energy per op among the stage pairs that meet the clock (all 16 at 300 MHz, fewer at a faster clock); stages a
    description gives are costed as given."""
    unit = {"rows": 16, "cols": 4, "dataflow": "ws", "weight_load": "double", "dtype": "bf16", "flush_subnormals": True,
            "sum_group": 4}
    meeting = {}
    for clock in (300, 1000):
        e = estimate(_arch({"tensor_units": [unit]}, clock_mhz=clock))
        c = next(c for c in e.pipelining if c["component"] == "core.tensor_units[0]")
        assert c["mode"] == "auto" and c["meets_clock"] and c["options"] == 16
        fits = [r for r in c["candidates"] if r["meets_clock"]]
        chosen = next(r for r in fits if (r["mul_stages"], r["add_stages"]) == (c["mul_stages"], c["add_stages"]))
        assert chosen["energy_pj"] == min(r["energy_pj"] for r in fits)
        meeting[clock] = len(fits)
    assert meeting[300] == 16 > meeting[1000] > 0
    e = estimate(_arch({"tensor_units": [{**unit, "pipeline": {"mul_stages": 1, "add_stages": 2}}]}, clock_mhz=1000))
    c = next(c for c in e.pipelining if c["component"] == "core.tensor_units[0]")
    assert (c["mode"], c["mul_stages"], c["add_stages"], c["latency_cycles"]) == ("given", 1, 2, 3)
