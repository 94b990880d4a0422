"""Rewrite the copies in ``examples/`` from the package data they copy.

The shipped chips, workloads, DSE studies and regressions live as package data (``accelgen.shipped``);
``examples/`` holds copies to read and edit. Edit the package data, then::

    python examples/refresh_copies.py            # copy every original over its copy
    python examples/refresh_copies.py --check    # list differences, exit 1 if any (tests/test_examples_copies.py)
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: shipped kind (accelgen.shipped.KINDS) -> (package-data folder, copy folder), relative to the repository root
COPIES = {
    "chips": ("ppa/chips", "examples/arch"),
    "workloads": ("ppa/workloads", "examples/workloads"),
    "dse": ("ppa/dse_spaces", "examples/dse"),
    "regressions": ("cosim/regressions", "examples/regress"),
    "accelerators": ("accelgen/system/accelerators", "examples/accel"),
}
#: the files of a kind that are copied (the accelerators ship their test model beside their descriptions)
PATTERNS = {"accelerators": ("*.yaml", "*.onnx")}
DEFAULT_PATTERNS = ("*.yaml",)


def _files(folder: Path, kind: str) -> dict[str, Path]:
    return {p.name: p for pattern in PATTERNS.get(kind, DEFAULT_PATTERNS) for p in folder.glob(pattern)}


def differences(root: Path = ROOT) -> list[str]:
    """One line per copy that is missing, differs from its original or has no original."""
    out = []
    for kind, (original, copy) in COPIES.items():
        src, dst = _files(root / original, kind), _files(root / copy, kind)
        for name in sorted(src.keys() - dst.keys()):
            out.append(f"{copy}/{name}: missing (copy of {original}/{name})")
        for name in sorted(src.keys() & dst.keys()):
            if src[name].read_bytes() != dst[name].read_bytes():
                out.append(f"{copy}/{name}: differs from {original}/{name}")
        for name in sorted(dst.keys() - src.keys()):
            out.append(f"{copy}/{name}: no original {original}/{name} (add it there or delete the copy)")
    return out


def refresh(root: Path = ROOT) -> list[str]:
    """Copy every original over its copy; returns the copies written."""
    written = []
    for kind, (original, copy) in COPIES.items():
        (root / copy).mkdir(parents=True, exist_ok=True)
        for p in sorted(_files(root / original, kind).values()):
            q = root / copy / p.name
            if not q.exists() or q.read_bytes() != p.read_bytes():
                shutil.copyfile(p, q)
                written.append(f"{copy}/{p.name}")
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only list the differences; exit 1 if there are any")
    args = ap.parse_args(argv)
    if not args.check:
        for line in refresh():
            print(f"wrote {line}")
    diffs = differences()
    for line in diffs:
        print(line)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
