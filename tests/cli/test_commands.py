"""The command line end to end, including every kind of bad input (exit 2, one line, nothing written).

The commands run in this process through :func:`accelgen.cli.main` (tests/conftest.py's ``accelgen_main``), the
function ``python -m accelgen`` and the console script call (a ``python -m accelgen`` subprocess costs about 1 s of
CPU in its imports alone); ``test_gen_writes_verilog_and_manifest`` and ``test_missing_simulator`` start the real
process, and tests/cli/test_installed_wheel.py runs the installed console script.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def accelgen(accelgen_main):
    """``accelgen ARGS`` in this process (tests/conftest.py)."""
    return accelgen_main


def accelgen_process(*args, cwd=None):
    """``python -m accelgen ARGS`` as its own process."""
    return subprocess.run([sys.executable, "-m", "accelgen", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True)


def assert_usage_error(proc, *fragments):
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for frag in fragments:
        assert frag in lines[0], lines[0]


def test_gen_writes_verilog_and_manifest(tmp_path):
    proc = accelgen_process("gen", "mac", "--a-width", 8, "--b-width", 8, "--acc-width", 32, "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "latency 1 cycles" in proc.stdout
    assert (tmp_path / "mac.v").exists()
    man = json.loads((tmp_path / "mac.json").read_text())
    assert man["params"]["acc_width"] == 32


def test_gen_with_config(tmp_path, accelgen):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("blocks:\n  - {name: x1, block: mac, params: {a_width: 4, b_width: 4, acc_width: 8}}\n"
                   "  - {name: x2, block: mac, params: {signed: false}}\n")
    proc = accelgen("gen", "--config", cfg, "-o", tmp_path / "o")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["x1.json", "x1.v", "x1.vlt", "x2.json", "x2.v",
                                                                  "x2.vlt"]


def test_gen_name_and_flags(tmp_path, accelgen):
    proc = accelgen("gen", "mac", "--unsigned", "--input-reg", "--zero-gating", "--name", "g", "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    man = json.loads((tmp_path / "g.json").read_text())
    assert man["params"]["signed"] is False and man["params"]["zero_gating"] is True and man["latency"] == 2


def test_blocks_lists_parameters(accelgen):
    proc = accelgen("blocks")
    assert proc.returncode == 0 and "acc_width" in proc.stdout and "1..32" in proc.stdout


@pytest.mark.parametrize("args,fragments", [
    (["gen", "foo"], ["unknown block 'foo'; allowed: mac"]),
    (["gen", "mac", "--a-width", "0"], ["mac.a_width: 0 is not allowed; expected an integer in 1..32"]),
    (["gen", "mac", "--a-width", "-4"], ["a_width: -4", "1..32"]),
    (["gen", "mac", "--a-width", "100000"], ["a_width: 100000", "1..32"]),
    (["gen", "mac", "--a-width", "eight"], ["'eight' is not a valid integer"]),
    (["gen", "mac", "--acc-width", "12"], ["acc_width=12 is too narrow", "a_width + b_width = 16"]),
    (["gen", "mac", "--rows", "4"], ["No such option '--rows'"]),
    (["gen", "mac", "--zero-gating"], ["zero_gating=true requires input_reg=true"]),
    (["gen"], ["give a block (mac, systolic", "or --config FILE"]),
    (["cosim", "mac", "--sim", "modelsim"], ["'modelsim' is not one of 'verilator', 'icarus'"]),
    (["cosim", "mac", "--vectors", "-1"], ["--vectors"]),
    (["synth", "bar"], ["unknown block 'bar'"]),
    (["build", "does-not-exist.yaml"], ["does-not-exist.yaml: file not found"]),
    (["nonsense"], ["No such command 'nonsense'"]),
])
def test_bad_input_is_one_line_exit_2(tmp_path, args, fragments, accelgen):
    out = tmp_path / "out"
    proc = accelgen(*args, *(["-o", out] if args[0] == "gen" and len(args) > 1 else []), cwd=tmp_path)
    assert_usage_error(proc, *fragments)
    assert not out.exists() or list(out.iterdir()) == []


def test_malformed_yaml_config(tmp_path, accelgen):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("blocks: [\n")
    out = tmp_path / "o"
    assert_usage_error(accelgen("build", cfg, "-o", out), "malformed YAML", "line")
    assert not out.exists()


def test_invalid_config_lists_every_problem(tmp_path, accelgen):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("blocks:\n  - {block: mac, params: {a_width: 0}}\n  - {block: fan0}\n")
    proc = accelgen("gen", "--config", cfg, "-o", tmp_path / "o")
    assert_usage_error(proc, "blocks[0].params.a_width", "blocks[1].block: unknown block 'fan0'")


def test_unwritable_output_dir(tmp_path, accelgen):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert_usage_error(accelgen("gen", "mac", "-o", blocker), "--out", "is a file")
    assert_usage_error(accelgen("gen", "mac", "-o", blocker / "sub"), "output directory", "cannot be created")


def test_missing_simulator(tmp_path, monkeypatch):
    """With no iverilog on PATH, asking for Icarus is a clean usage error."""
    env_path = str(Path(sys.executable).parent)
    proc = subprocess.run([sys.executable, "-m", "accelgen", "cosim", "mac", "--sim", "icarus"],
                          capture_output=True, text=True, env={"PATH": env_path, "HOME": str(tmp_path)})
    assert_usage_error(proc, "simulator 'icarus' not found")


def test_help_and_version(accelgen):
    assert accelgen("--help").returncode == 0
    assert "a-width" in accelgen("gen", "mac", "--help").stdout
    proc = accelgen("--version")
    assert proc.returncode == 0 and "version" in proc.stdout


@pytest.mark.synth
def test_synth_json(tmp_path, accelgen):
    proc = accelgen("synth", "mac", "--a-width", 4, "--b-width", 4, "--acc-width", 8, "--json")
    assert proc.returncode == 0, proc.stderr
    stats = json.loads(proc.stdout)
    assert stats["flip_flops"] == 8 and stats["transistors"] > 0 and stats["logic_depth"] > 0
    assert stats["cells"] == sum(stats["cells_by_type"].values())


def test_a_shipped_name_wins_over_a_directory_of_that_name(tmp_path, accelgen):
    """``accelgen estimate tpu_v1`` (and regress, dse, perf) from a directory holding a ``tpu_v1/`` (an earlier
    run's output, say) reads the shipped file; a directory that names nothing shipped is the one-line error."""
    (tmp_path / "tpu_v1").mkdir()
    proc = accelgen("estimate", "tpu_v1", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["name"] == "tpu_v1"
    (tmp_path / "mine").mkdir()
    proc = accelgen("estimate", "mine", cwd=tmp_path)
    assert proc.returncode == 2 and "not a shipped chip" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
