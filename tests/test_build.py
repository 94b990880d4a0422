"""`accelgen build`: the main job end to end."""

import json
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.cosim, pytest.mark.synth]


def test_build_generates_checks_and_synthesizes(tmp_path):
    cfg = tmp_path / "small.yaml"
    cfg.write_text(
        "cosim: {vectors: 1500, seed: 4}\n"
        "blocks:\n"
        "  - {name: b_s4, block: mac, params: {a_width: 4, b_width: 4, acc_width: 10, signed: true}}\n"
        "  - {name: b_u4, block: mac, params: {a_width: 4, b_width: 4, acc_width: 9, signed: false,"
        " input_reg: true, product_reg: true}}\n")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "accelgen", "build", str(cfg), "-o", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for col in ("cosim", "cycles checked", "cells", "transistors", "depth"):
        assert col in proc.stdout
    assert proc.stdout.count("PASS") == 2
    names = sorted(p.name for p in out.iterdir())
    assert names == ["b_s4.json", "b_s4.synth.json", "b_s4.v", "b_u4.json", "b_u4.synth.json", "b_u4.v",
                     "build.json"]
    report = json.loads((out / "build.json").read_text())
    assert [b["ok"] for b in report["blocks"]] == [True, True]
    assert report["blocks"][0]["cosim"]["cycles"] > 1500
    assert report["blocks"][1]["synth"]["flip_flops"] == 9 + 10 + 10


def test_build_json_output(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("synth: false\ncosim: {vectors: 300}\nblocks:\n  - {name: j4, block: mac,"
                   " params: {a_width: 4, b_width: 4, acc_width: 10}}\n")
    proc = subprocess.run([sys.executable, "-m", "accelgen", "build", str(cfg), "-o", str(tmp_path / "o"), "--json"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (blk,) = json.loads(proc.stdout)
    assert blk["cosim"]["passed"] and blk["synth"] is None
