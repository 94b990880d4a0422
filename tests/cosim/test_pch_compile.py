"""The compiler prefix that gives a design's own compiles the Verilator runtime header precompiled."""

from accelgen.cosim import pch_compile

RUNTIME = "/venv/verilator/include"
FLAGS = ["-I.", "-MMD", f"-I{RUNTIME}", "-DVM_TRACE=0", "-O0"]


def test_a_design_compile_qualifies_and_a_runtime_one_does_not():
    assert pch_compile.design_source([*FLAGS, "-c", "-o", "Vtop__ALL.o", "Vtop__ALL.cpp"], RUNTIME) == \
        "Vtop__ALL.cpp"
    assert pch_compile.design_source([*FLAGS, "-c", "-o", "verilator.o", "/venv/cocotb/verilator.cpp"],
                                     RUNTIME) == "/venv/cocotb/verilator.cpp"
    assert pch_compile.design_source([*FLAGS, "-c", "-o", "verilated.o", f"{RUNTIME}/verilated.cpp"],
                                     RUNTIME) is None
    # a header precompile, a compile that already includes a header first, a link
    assert pch_compile.design_source([*FLAGS, "-x", "c++-header", "Vtop__pch.h", "-o", "x.gch"], RUNTIME) is None
    assert pch_compile.design_source([*FLAGS, "-include", "Vtop__pch.h.fast", "-c", "Vtop.cpp"], RUNTIME) is None
    assert pch_compile.design_source(["verilator.o", "Vtop__ALL.a", "-o", "top"], RUNTIME) is None


def test_header_flags_drop_the_files_and_dependency_output_only():
    args = [*FLAGS, "-c", "-o", "Vtop__ALL.o", "-MF", "x.d", "Vtop__ALL.cpp"]
    assert pch_compile.header_flags(args, "Vtop__ALL.cpp") == ["-I.", f"-I{RUNTIME}", "-DVM_TRACE=0", "-O0"]
    # the model and the main program share one header when their flags agree
    main = [*FLAGS, "-c", "-o", "verilator.o", "/venv/cocotb/verilator.cpp"]
    assert pch_compile.header_flags(main, main[-1]) == pch_compile.header_flags(args, "Vtop__ALL.cpp")


def test_a_compiler_that_is_not_gcc_gets_no_header(tmp_path):
    clang = tmp_path / "fake-clang"
    clang.write_text("#!/bin/sh\necho '#define __clang__ 1'\necho '#define __GNUC__ 4'\n")
    clang.chmod(0o755)
    assert pch_compile.ensure_header(tmp_path, "k", str(clang), ["-O0"]) is None
    assert (tmp_path / "k" / "failed").read_text().endswith("is not GCC\n")
    assert pch_compile.ensure_header(tmp_path, "k", str(clang), ["-O0"]) is None  # remembered, not retried


def test_a_compiler_that_writes_no_header_gets_none(tmp_path):
    gcc_like = tmp_path / "fake-gcc"
    gcc_like.write_text("#!/bin/sh\necho '#define __GNUC__ 12'\n")
    gcc_like.chmod(0o755)
    assert pch_compile.ensure_header(tmp_path, "k", str(gcc_like), ["-O0"]) is None
    assert "wrote no precompiled header" in (tmp_path / "k" / "failed").read_text()
