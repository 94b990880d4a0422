"""Accelerator entries in regressions (issue 52, item 4): the format, its expansion into tests, and runs through
``accelgen regress`` (results, reports, resume, a failing tolerance)."""

from __future__ import annotations

import json
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
import yaml

from accelgen.cosim.regression import load_regression, parse_regression
from accelgen.errors import ConfigError
from accelgen.registry import FAMILIES
from accelgen.schemas import schema
from accelgen.system.regress import accelerator_tests

ROOT = Path(__file__).resolve().parents[2]
INT8 = str(ROOT / "examples/accel/int8_ws16.yaml")
ONNX = str(ROOT / "examples/accel/tiny_cnn.onnx")


def _problems(data: dict) -> str:
    with pytest.raises(ConfigError) as exc:
        accelerator_tests(parse_regression(data, FAMILIES, "r.yaml"))
    return str(exc.value)


# --------------------------------------------------------------------------- format (no simulator)

@pytest.mark.parametrize("entry,message", [
    ({"arch": INT8, "gemms": ["37,29,45", "5,6"]},
     "accelerators[0].gemms[1]: '5,6' is not allowed; expected M,N,K with three integers >= 1"),
    ({"arch": INT8, "gemms": ["5,6,7"], "cycle_tolerance": 2},
     "accelerators[0].cycle_tolerance: 2 is not allowed; input should be less than or equal to 1"),
    ({"arch": INT8, "gemms": ["5,6,7"], "seed": [1]},
     "accelerators[0].seed: unknown field 'seed'; did you mean 'seeds'?"),
    ({"arch": INT8, "gemms": ["5,6,7"], "sim": ["modelsim"]}, "accelerators[0].sim[0]: 'modelsim' is not allowed"),
    ({"arch": INT8}, "accelerators[0]: no layer to run; give gemms (M,N,K shapes) or onnx"),
    ({"arch": INT8, "gemms": ["5,6,7"], "layers": ["conv1"]},
     "accelerators[0].layers: names convolutions of an ONNX model; give the model in onnx"),
    ({"arch": INT8, "onnx": ONNX, "layers": ["conv1", "conv9"]},
     f"accelerators[0].layers[1]: 'conv9' is not a convolution of {ONNX}; allowed: conv1, conv2"),
    ({"arch": "no/such.yaml", "gemms": ["5,6,7"]}, "accelerators[0].arch: 'no/such.yaml': file not found"),
    ({"arch": str(ROOT / "examples/arch/tpu_v1.yaml"), "gemms": ["5,6,7"]},
     "accelerators[0].arch: " + str(ROOT / "examples/arch/tpu_v1.yaml") + ": core.vector_unit: is not built"),
    ({"arch": INT8, "onnx": INT8}, "accelerators[0].onnx: '" + INT8 + "' is not a readable ONNX model"),
], ids=["gemm", "tolerance", "misspelt", "sim", "no-layer", "layers-without-onnx", "unknown-layer", "missing-arch",
        "arch-not-built", "not-onnx"])
def test_a_bad_accelerator_field_is_named_by_its_path_in_one_line(entry, message):
    text = _problems({"accelerators": [entry]})
    assert text.startswith("r.yaml: ") and message in text and "\n" not in text, text


def test_a_file_lists_blocks_accelerators_or_both_but_not_neither():
    assert "blocks: no block and no accelerator to run" in _problems({"seeds": [1]})
    assert "blocks: no block and no accelerator to run" in _problems({"blocks": [], "accelerators": []})
    reg = parse_regression({"accelerators": [{"arch": INT8, "gemms": ["5,6,7"]}]}, FAMILIES)
    assert reg.tests == [] and len(reg.accelerators) == 1
    reg = parse_regression({"blocks": [{"block": "mac"}], "accelerators": [{"arch": INT8, "gemms": ["5,6,7"]}]},
                           FAMILIES)
    assert len(reg.tests) == 2 and len(accelerator_tests(reg)) == 1


def test_the_json_schema_takes_the_shipped_accelerator_file_and_rejects_what_the_loader_rejects():
    validator = jsonschema.Draft202012Validator(schema("regress", FAMILIES))
    good = yaml.safe_load((ROOT / "examples/regress/accelerator.yaml").read_text())
    assert not list(validator.iter_errors(good))
    for bad in ({"accelerators": [{"arch": INT8, "gemms": ["5,6"]}]}, {"accelerators": []},
                {"accelerators": [{"arch": INT8, "gemms": ["5,6,7"], "typo": 1}]}):
        assert list(validator.iter_errors(bad)), bad
        with pytest.raises(ConfigError):
            parse_regression(bad, FAMILIES)


def test_expansion_runs_each_layer_with_each_seed_and_simulator(monkeypatch):
    monkeypatch.chdir(ROOT)       # the shipped files name their paths from the repository's root
    tests = accelerator_tests(load_regression(ROOT / "examples/regress/accelerator.yaml", FAMILIES))
    # 2 descriptions x (3 GEMMs + 2 convolutions + the 5-row GEMM) x 2 seeds, Verilator
    assert len(tests) == 2 * 6 * 2 and {t.sim for t in tests} == {"verilator"}
    assert {t.accelerator for t in tests} == {"accel_int8_ws16", "accel_bf16_ws8"}
    assert {t.cycle_tolerance for t in tests if t.layer == "gemm_5x17x33"} == {0.08}
    conv2 = next(t for t in tests if t.layer == "conv2" and t.seed == 2 and t.accelerator == "accel_bf16_ws8")
    assert conv2.reproduce == ("accelgen cosim --arch examples/accel/bf16_ws8.yaml --onnx examples/accel/tiny_cnn.onnx "
                               "--layer conv2 --seed 2 --sim verilator")
    (default,) = accelerator_tests(load_regression(ROOT / "examples/regress/default.yaml", FAMILIES))
    assert (default.layer, default.seed, default.sim) == ("gemm_37x29x45", 1, "verilator")
    # the command line's --seed and --sim replace every list; a test listed twice runs once
    reg = parse_regression({"seeds": [1, 2], "accelerators": [
        {"arch": INT8, "gemms": ["5,6,7", "5x6x7"], "onnx": ONNX, "layers": ["conv2"]},
        {"arch": INT8, "gemms": ["5,6,7"], "seeds": [3]}]}, FAMILIES, seeds=[9], sims=["icarus"])
    tests = accelerator_tests(reg)
    assert sorted(t.test_id for t in tests) == ["accel_int8_ws16.conv2.s9.icarus",
                                                "accel_int8_ws16.gemm_5x6x7.s9.icarus"]


def test_the_resume_key_follows_the_files_content_not_their_path(tmp_path):
    copy = tmp_path / "copy.yaml"
    copy.write_text(Path(INT8).read_text())
    base = {"arch": INT8, "gemms": ["5,6,7"], "onnx": ONNX, "layers": ["conv1"]}
    keys = {t.layer: t.key for t in accelerator_tests(parse_regression({"accelerators": [base]}, FAMILIES))}
    same = accelerator_tests(parse_regression({"accelerators": [base | {"arch": str(copy)}]}, FAMILIES))
    assert {t.layer: t.key for t in same} == keys
    copy.write_text(Path(INT8).read_text() + "\n# edited\n")
    edited = accelerator_tests(parse_regression({"accelerators": [base | {"arch": str(copy)}]}, FAMILIES))
    assert not {t.key for t in edited} & set(keys.values())
    other_seed = accelerator_tests(parse_regression({"seeds": [2], "accelerators": [base]}, FAMILIES))
    assert not {t.key for t in other_seed} & set(keys.values())


# --------------------------------------------------------------------------- runs (Verilator; the int8 build is
# shared with tests/cosim/test_accel.py: the same description at the same C++ level)

def _regression(tmp_path: Path, name: str, **entry) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(json.dumps({"name": name, "accelerators": [{"arch": INT8, **entry}]}))
    return path


@pytest.mark.cosim
def test_regress_runs_accelerator_tests_reports_them_and_reuses_their_passes(tmp_path, accelgen_main):
    reg = _regression(tmp_path, "accel", gemms=["37,29,45", "70,37,50"])
    out, junit = tmp_path / "out", tmp_path / "j.xml"
    ran = accelgen_main("regress", reg, "--out", out, "--junit", junit)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "accel_int8_ws16" in ran.stdout and "PASS" in ran.stdout
    res = json.loads((out / "results.json").read_text())
    assert res["passed"] and res["tests"] == []
    accel = res["accelerators"]
    assert accel["counts"]["passed"] == 2 and accel["reused"] == 0
    by_layer = {t["layer"]: t for t in accel["tests"]}
    assert by_layer["gemm_37x29x45"]["shape"] == [37, 29, 45] and by_layer["gemm_37x29x45"]["mismatches"] == 0
    assert all(abs(t["cycle_error"]) <= 0.05 for t in accel["tests"])
    (summary,) = accel["summary"].values()
    assert summary["tests"] == 2 and summary["cycles"] == sum(t["cycles"] for t in accel["tests"])
    assert summary["worst_cycle_error"] == max(abs(t["cycle_error"]) for t in accel["tests"])
    root = ET.parse(junit).getroot()
    assert root.get("tests") == "2" and root.get("failures") == "0"
    assert {c.get("name") for c in root.iter("testcase")} == {"accel_int8_ws16.gemm_37x29x45.s1.verilator",
                                                              "accel_int8_ws16.gemm_70x37x50.s1.verilator"}
    page = (out / "report.html").read_text()
    assert "<h2>Accelerators</h2>" in page and f"accelgen cosim --arch {INT8} --gemm 70,37,50 --seed 1" in page

    # the same arguments again: nothing runs, both passes are the earlier run's
    again = accelgen_main("regress", reg, "--out", out)
    assert again.returncode == 0, again.stdout + again.stderr
    accel2 = json.loads((out / "results.json").read_text())["accelerators"]
    assert accel2["reused"] == 2 and all(t["reused"] for t in accel2["tests"])
    assert {t["run_id"] for t in accel2["tests"]} == {t["run_id"] for t in accel["tests"]}


@pytest.mark.cosim
def test_a_cycle_count_beyond_the_tolerance_fails_with_exit_1_and_a_reproduce_command(tmp_path, accelgen_main):
    # 5 x 6 x 7 pays the 17 fixed cycles the prediction leaves out (docs/accelerator.md): far beyond 0.1%
    reg = _regression(tmp_path, "tight", gemms=["5,6,7"], cycle_tolerance=0.001)
    ran = accelgen_main("regress", reg, "--out", tmp_path / "out")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    (test,) = json.loads((tmp_path / "out" / "results.json").read_text())["accelerators"]["tests"]
    assert test["status"] == "failed" and test["mismatches"] == 0 and test["cycle_error"] > 0.001
    assert "beyond the tolerance of 0.1%" in test["error"] and "FAIL" in ran.stdout
    reproduce = f"accelgen cosim --arch {INT8} --gemm 5,6,7 --seed 1 --sim verilator --cycle-tolerance 0.001"
    assert test["reproduce"] == reproduce and reproduce in " ".join(ran.stdout.split())
    # the reproduce command fails the same way
    assert accelgen_main(*shlex.split(reproduce)[1:]).returncode == 1
    # a failure is not reused: with the tolerance it needs the same test passes
    loose = _regression(tmp_path, "tight", gemms=["5,6,7"], cycle_tolerance=0.5)
    ran = accelgen_main("regress", loose, "--out", tmp_path / "out")
    assert ran.returncode == 0, ran.stdout + ran.stderr
