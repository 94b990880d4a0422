"""`accelgen build`: the main job end to end.

The blocks are named and parametrized like tests/cosim/test_mac.py's ``s4`` (``mac``) and ``u4_pipe``
(``mac_u4_pipe``) variants, so every file shares their simulator builds (the cache key is the Verilog).
"""

import json

import pytest

pytestmark = [pytest.mark.cosim, pytest.mark.synth]


def test_build_generates_checks_and_synthesizes(tmp_path, accelgen_main):
    cfg = tmp_path / "small.yaml"
    cfg.write_text(
        "cosim: {vectors: 1500, seed: 4}\n"
        "blocks:\n"
        "  - {name: mac, block: mac, params: {a_width: 4, b_width: 4, acc_width: 10, signed: true}}\n"
        "  - {name: mac_u4_pipe, block: mac, params: {a_width: 4, b_width: 4, acc_width: 9, signed: false,"
        " input_reg: true, product_reg: true}}\n")
    out = tmp_path / "out"
    proc = accelgen_main("build", cfg, "-o", out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for col in ("cosim", "cycles checked", "cells", "transistors", "depth"):
        assert col in proc.stdout
    assert proc.stdout.count("PASS") == 2
    names = sorted(p.name for p in out.iterdir())
    assert names == ["build.json", "mac.json", "mac.synth.json", "mac.v", "mac.vlt", "mac_u4_pipe.json",
                     "mac_u4_pipe.synth.json", "mac_u4_pipe.v", "mac_u4_pipe.vlt"]
    report = json.loads((out / "build.json").read_text())
    assert [b["ok"] for b in report["blocks"]] == [True, True]
    assert report["blocks"][0]["cosim"]["cycles"] > 1500
    assert report["blocks"][1]["synth"]["flip_flops"] == 9 + 10 + 10


def test_build_json_output(tmp_path, accelgen_main):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("synth: false\ncosim: {vectors: 300}\nblocks:\n  - {name: mac, block: mac,"
                   " params: {a_width: 4, b_width: 4, acc_width: 10}}\n")
    proc = accelgen_main("build", cfg, "-o", tmp_path / "o", "--json")
    assert proc.returncode == 0, proc.stderr
    (blk,) = json.loads(proc.stdout)
    assert blk["cosim"]["passed"] and blk["synth"] is None
