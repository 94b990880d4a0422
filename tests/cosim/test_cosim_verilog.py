"""``accelgen cosim --verilog FILE.v --manifest FILE.json``: an existing, possibly hand-edited design checked against
its family's golden model without being generated again (issue 51, item 3).

The design is test_mac.py's ``s4`` MAC under the family's default name ``mac``, so the pass shares that test's
simulator build; the hand-edited copy (one operator changed) is a build of its own.
"""

import json
import re

import pytest

from accelgen.cli import blocks

pytestmark = pytest.mark.cosim

S4 = ("--a-width", 4, "--b-width", 4, "--acc-width", 10, "--signed")


@pytest.fixture
def emitted(tmp_path, accelgen_main):
    """``mac.v`` and ``mac.json`` as ``accelgen gen`` writes them."""
    ran = accelgen_main("gen", "mac", *S4, "-o", tmp_path)
    assert ran.returncode == 0, ran.stderr
    return tmp_path / "mac.v", tmp_path / "mac.json"


def _no_render(*args, **kwargs):
    raise AssertionError("cosim --verilog generated the design again")


def test_cosim_verilog_passes_on_the_emitted_design(emitted, accelgen_main, monkeypatch):
    monkeypatch.setattr(blocks, "render", _no_render)
    verilog, manifest = emitted
    ran = accelgen_main("cosim", "--verilog", verilog, "--manifest", manifest, "--vectors", 300, "--seed", 7)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.startswith("PASS mac on verilator (seed 7): ")
    assert "edited" not in ran.stdout            # the file the manifest was written with
    # the grouped name runs the same command; the manifest beside the file is the default
    ran = accelgen_main("hw", "cosim", "--verilog", verilog, "--vectors", 300, "--seed", 7, "--json")
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout)
    assert result["passed"] and result["edited"] is False and result["checks"] == result["cycles"] > 300


def test_cosim_verilog_fails_on_a_hand_edited_copy_showing_the_first_mismatches(emitted, tmp_path, accelgen_main):
    verilog, manifest = emitted
    text = verilog.read_text()
    # the ECO: the accumulator's adder becomes a subtractor (the first addition of an assign)
    edited_text, n = re.subn(r"^(\s*assign\s[^;]*?) \+ ", r"\1 - ", text, count=1, flags=re.MULTILINE)
    assert n == 1, "no addition to edit in the emitted MAC"
    edited = tmp_path / "eco" / "mac_eco.v"
    edited.parent.mkdir()
    edited.write_text(edited_text)
    ran = accelgen_main("cosim", "--verilog", edited, "--manifest", manifest, "--vectors", 50)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    lines = ran.stdout.splitlines()
    assert "differs from the Verilog" in lines[0] and "(edited)" in lines[0]
    assert lines[1].startswith("FAIL mac on verilator (seed 1): ")
    shown = [line for line in lines if line.startswith("  cycle ")]
    assert 1 <= len(shown) <= 5
    # each mismatch with the inputs of its cycle; the signed operands shown signed
    first = re.fullmatch(r"  cycle (\d+): acc expected (-?\d+), got (-?\d+); inputs a=(-?\d+) b=(-?\d+) en=[01] "
                         r"clear=[01]", shown[0])
    assert first, shown[0]
    assert first.group(2) != first.group(3)
    operands = [int(v) for line in shown for v in re.findall(r"\b[ab]=(-?\d+)", line)]
    assert min(operands) < 0 and max(operands) <= 7


def test_cosim_verilog_bad_input_is_one_line_exit_2(emitted, tmp_path, accelgen_main):
    verilog, manifest = emitted
    good = json.loads(manifest.read_text())

    def manifest_with(stem: str, **changes) -> str:
        data = {k: v for k, v in (good | changes).items() if v is not None}
        path = tmp_path / f"{stem}.json"
        path.write_text(json.dumps(data))
        return path

    cases = [
        (("--verilog", tmp_path / "missing.v", "--manifest", manifest), "verilog: ", "missing.v", "is not a file"),
        (("--verilog", verilog, "--manifest", tmp_path / "missing.json"), "manifest: ", "is not a file"),
        (("--verilog", verilog, "--manifest", manifest_with("nofamily", block=None)), "manifest.block: missing"),
        (("--verilog", verilog, "--manifest", manifest_with("unknown", block="mca")),
         "manifest.block: unknown block 'mca'; allowed: mac"),
        (("--verilog", verilog, "--manifest", manifest_with("badparams", params=good["params"] | {"a_width": 0})),
         "manifest.params.a_width: 0 is not allowed"),
        (("--verilog", verilog, "--manifest", manifest_with("othertop", name="mac_other")),
         "declares no module 'mac_other'"),
        (("mac", "--verilog", verilog), "No such option"),          # an option of the group, not of a block
    ]
    for args, *fragments in cases:
        ran = accelgen_main("cosim", *args)
        assert ran.returncode == 2, (args, ran.stdout, ran.stderr)
        lines = ran.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in ran.stderr, ran.stderr
        for fragment in fragments:
            assert fragment in lines[0], (fragment, lines[0])
        assert not ran.stdout


def test_cosim_verilog_excludes_a_block_and_the_block_options_need_it(emitted, accelgen_main):
    verilog, _ = emitted
    ran = accelgen_main("cosim", "--verilog", verilog, "mac")
    assert ran.returncode == 2 and "give one of a block, --config, --verilog or --arch" in ran.stderr
    ran = accelgen_main("cosim", "--vectors", 10, "mac")
    assert ran.returncode == 2 and "go with --verilog" in ran.stderr
