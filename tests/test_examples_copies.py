"""``examples/`` holds copies of the shipped data (package data, :mod:`accelgen.shipped`): they must not drift.

Refresh the copies with ``python examples/refresh_copies.py``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from accelgen import shipped
from accelgen.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


def _refresh_script():
    spec = importlib.util.spec_from_file_location("refresh_copies", ROOT / "examples" / "refresh_copies.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


REFRESH = _refresh_script()


def test_every_shipped_kind_has_a_copy_folder_at_its_package_data():
    assert set(REFRESH.COPIES) == set(shipped.KINDS)
    for kind, (original, _) in REFRESH.COPIES.items():
        # the dev checkout is installed editable: the package data is the checkout's folder
        assert shipped.folder(kind).resolve() == (ROOT / original).resolve(), kind
        assert shipped.names(kind), kind


def test_examples_are_copies_of_the_package_data():
    diffs = REFRESH.differences()
    assert not diffs, "examples/ differs from the package data; run `python examples/refresh_copies.py`:\n" + \
        "\n".join(diffs)


def test_differences_names_a_drifted_a_missing_and_an_orphan_copy(tmp_path):
    for original, copy in REFRESH.COPIES.values():
        (tmp_path / original).mkdir(parents=True)
        (tmp_path / copy).mkdir(parents=True)
    original, copy = REFRESH.COPIES["chips"]
    (tmp_path / original / "a.yaml").write_text("name: a\n")
    (tmp_path / original / "b.yaml").write_text("name: b\n")
    (tmp_path / copy / "a.yaml").write_text("name: a  # edited\n")
    (tmp_path / copy / "c.yaml").write_text("name: c\n")
    assert REFRESH.differences(tmp_path) == [
        "examples/arch/b.yaml: missing (copy of ppa/chips/b.yaml)",
        "examples/arch/a.yaml: differs from ppa/chips/a.yaml",
        "examples/arch/c.yaml: no original ppa/chips/c.yaml (add it there or delete the copy)"]
    assert REFRESH.refresh(tmp_path) == ["examples/arch/a.yaml", "examples/arch/b.yaml"]
    assert REFRESH.differences(tmp_path) == [
        "examples/arch/c.yaml: no original ppa/chips/c.yaml (add it there or delete the copy)"]


# --------------------------------------------------------------------------- accelgen.shipped


def test_shipped_names_and_paths():
    assert {"tpu_v1", "tpu_v2", "eyeriss", "sigma", "tensordash"} <= set(shipped.names("chips"))
    assert "resnet50" in shipped.names("workloads")
    assert {"neurometer_datacenter", "neurometer_base"} <= set(shipped.names("dse"))
    assert {"default", "nightly", "fp"} <= set(shipped.names("regressions"))
    p = shipped.path("workloads", "resnet50")
    assert p.is_file() and p.name == "resnet50.yaml"


def test_shipped_unknown_name_lists_the_shipped_ones():
    with pytest.raises(ConfigError, match=r"^unknown chip 'tpu_v9'; shipped: diannao, eyeriss, shidiannao, sigma, sigma_systolic, tensordash, tensordash_baseline, tpu_v1"):
        shipped.path("chips", "tpu_v9")
    with pytest.raises(ConfigError, match=r"unknown workload '../chips/tpu_v1'"):
        shipped.path("workloads", "../chips/tpu_v1")
    with pytest.raises(ValueError, match=r"kind 'chip' is not allowed; expected one of chips, workloads"):
        shipped.names("chip")


def test_shipped_resolve_prefers_an_existing_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert shipped.resolve("chips", "tpu_v1") == shipped.path("chips", "tpu_v1")
    (tmp_path / "tpu_v1").write_text("name: mine\n")
    assert shipped.resolve("chips", "tpu_v1") == Path("tpu_v1")
    own = tmp_path / "mine.yaml"
    own.write_text("name: mine\n")
    assert shipped.resolve("workloads", str(own)) == own
    with pytest.raises(ConfigError, match=r"^nope\.yaml: file not found and not a shipped workload; shipped: "
                                          r"alexnet_conv, bert_base, .*resnet50"):
        shipped.resolve("workloads", "nope.yaml")
