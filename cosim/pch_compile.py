"""The compiler prefix of Verilator builds: a design's own C++ reads the Verilator runtime header precompiled.

Verilator's Makefile runs every compile as ``$(OBJCACHE) $(CXX) flags...``; :mod:`.simulators` sets
``OBJCACHE`` to this script (run by the interpreter with ``-I``; standard library only, so it starts in
~20 ms). Each design compiles two files of its own, its model (``Vtop__ALL.cpp``) and the main program
(cocotb's ``verilator.cpp`` or the native testbench's ``harness.cpp``), and both begin by parsing
``verilated.h``, most of their compile time at ``-O0``. This script gives those compiles
``-include <cache>/pch/<key>/verilated_pch.h`` beside a GCC precompiled header made once per set of
flags (``key`` hashes the flags, the compiler and the runtime headers), under a file lock so that
concurrent builds share it. The Verilator runtime's own files (``verilated.cpp``, ...) are the same for
every design and go through ccache unchanged, as without this script.

GCC rejects a precompiled header whose flags or compiler differ and then reads the plain header, so a
stale or foreign one costs time, never correctness. Measured 2026-11-28 on the 2-core machine, a 16-bit
pipelined MAC: cocotb's ``verilator.cpp`` 1.34 -> 0.49 CPU-s, ``Vtop__ALL.cpp`` 1.60 -> 0.46 CPU-s;
making the header takes 3.4 CPU-s and 70 MB once per flag set.

    python -I pch_compile.py PCH_DIR [--ccache CCACHE] CXX FLAG...
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

#: The header every design compile includes first; ``verilated.h`` is most of its parse time.
HEADER_NAME = "verilated_pch.h"
HEADER_TEXT = '#include "verilated.h"\n'
#: Flags that name this compile's files or dependency output, not how the header is compiled.
_FILE_FLAGS = {"-o", "-MF", "-MT", "-MQ"}
_DEPENDENCY_FLAGS = {"-MMD", "-MD", "-MP"}


def design_source(args: list[str], runtime_include: str | None) -> str | None:
    """The C++ source of a compile that should use the precompiled header, or ``None``.

    Only a plain ``-c`` compile of one ``.cpp`` outside the Verilator runtime qualifies: not a header
    precompile (``-x``), not one that already includes a file first (``-include``), not a link."""
    if "-c" not in args or "-x" in args or "-include" in args:
        return None
    sources = [a for a in args if a.endswith((".cpp", ".cc", ".cxx")) and not a.startswith("-")]
    if len(sources) != 1:
        return None
    source = sources[0]
    if runtime_include and os.path.abspath(source).startswith(runtime_include + os.sep):
        return None
    return source


def header_flags(args: list[str], source: str) -> list[str]:
    """The compile's flags without its input, output and dependency files: those a header must share."""
    flags, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in _FILE_FLAGS:
            skip = True
        elif arg in _DEPENDENCY_FLAGS or arg in ("-c", source):
            continue
        else:
            flags.append(arg)
    return flags


def _stat_key(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return f"{path}:missing"
    return f"{os.path.realpath(path)}:{st.st_size}:{st.st_mtime_ns}"


def header_key(compiler: str, flags: list[str], runtime_include: str | None) -> str:
    """A name for the precompiled header of ``flags``: the flags, the compiler binary and the runtime
    headers it reads (a reinstalled Verilator or compiler gets a new one)."""
    parts = [_stat_key(shutil.which(compiler) or compiler), *flags]
    if runtime_include:
        parts += [_stat_key(os.path.join(runtime_include, name))
                  for name in ("verilated.h", "verilated_config.h", "verilatedos.h", "verilated_types.h")]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:20]


def ensure_header(pch_dir: Path, key: str, compiler: str, flags: list[str]) -> Path | None:
    """The header to ``-include`` (its precompiled form beside it), made now if missing; ``None`` when the
    compiler could not precompile it (the compile then runs as Verilator wrote it)."""
    where = pch_dir / key
    header = where / HEADER_NAME
    gch = where / (HEADER_NAME + ".gch")
    failed = where / "failed"
    if gch.exists():
        return header
    if failed.exists():
        return None
    where.mkdir(parents=True, exist_ok=True)
    with open(where / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if gch.exists():
            return header
        macros = subprocess.run([compiler, "-x", "c++", "-dM", "-E", os.devnull], capture_output=True, text=True,
                                check=False).stdout
        if "__GNUC__" not in macros or "__clang__" in macros:
            # Clang fails on a precompiled header that does not match instead of reading the plain one.
            failed.write_text(f"{compiler} is not GCC\n")
            return None
        header.write_text(HEADER_TEXT)
        partial = where / f"{HEADER_NAME}.gch.{os.getpid()}"
        proc = subprocess.run([compiler, *flags, "-x", "c++-header", str(header), "-o", str(partial)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        if proc.returncode != 0 or not partial.is_file():
            partial.unlink(missing_ok=True)
            failed.write_text(proc.stderr or f"{compiler} wrote no precompiled header\n")
            return None
        partial.replace(gch)
    return header


def main(argv: list[str]) -> None:
    pch_dir, rest = Path(argv[0]), argv[1:]
    ccache = None
    if rest[:1] == ["--ccache"]:
        ccache, rest = rest[1], rest[2:]
    compiler, args = rest[0], rest[1:]
    root = os.environ.get("VERILATOR_ROOT")
    runtime_include = os.path.abspath(os.path.join(root, "include")) if root else None
    source = design_source(args, runtime_include)
    if source is not None:
        flags = header_flags(args, source)
        header = ensure_header(pch_dir, header_key(compiler, flags, runtime_include), compiler, flags)
        if header is not None:
            # A design's compile is a miss in ccache anyway (its model header differs); run it directly.
            # -Winvalid-pch: a header GCC rejects says why in the build log.
            at = args.index(source)
            os.execvp(compiler, [compiler, *args[:at], "-Winvalid-pch", "-include", str(header), *args[at:]])
    command = [ccache, compiler, *args] if ccache else [compiler, *args]
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
