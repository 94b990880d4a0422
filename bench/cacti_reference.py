"""Regenerate ``ppa/data/cacti7_reference.csv``: run a CACTI 7 binary over the reference grid.

Usage: ``python bench/cacti_reference.py /path/to/cacti [--out ppa/data/cacti7_reference.csv]``

CACTI (https://github.com/HewlettPackard/cacti) is built separately with ``make``;
only its *outputs* are committed. Each configuration starts from the
``cache.cfg`` that ships with CACTI (its defaults: itrs-hp cells and
peripherals, 360 K, design objective 0:0:0:100:0 with deviation 20:100000:...)
and changes only: ``cache type "ram"`` (scratchpad, no tag array),
associativity 1, one read/write port, the size, the block size, the bank count,
the technology, and the output bus width (= block size in bits).
"""

from __future__ import annotations

import argparse
import csv
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from accelgen.ppa.cacti_cfg import cacti_config, run_cacti

SIZES = [2**k for k in range(15, 26)]          # 32 kB .. 32 MB
BANKS = [1, 2, 4, 8, 16]
NODES = [65, 45, 32, 22]
BLOCKS = [64]
EXTRA = [(s, b, 1, n) for s in (2**16, 2**20, 2**23) for b in (16, 32, 128) for n in (45, 22)]


def run_one(cacti: Path, template: str, cfg: tuple[int, int, int, int]) -> dict | None:
    size, block, banks, node = cfg
    vals = run_cacti(cacti, cacti_config(template, size, block, banks, node))
    if vals is None:
        return None
    row = {"capacity_bytes": size, "block_bytes": block, "banks": banks, "node_nm": node, **vals}
    row["area_mm2"] = row["height_mm"] * row["width_mm"]
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cacti", type=Path)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "ppa/data/cacti7_reference.csv")
    args = ap.parse_args()
    cacti = args.cacti.resolve()
    template = (cacti.parent / "cache.cfg").read_text()
    grid = [(s, b, k, n) for n in NODES for s in SIZES for k in BANKS for b in BLOCKS] + EXTRA
    rows, failed = [], []
    with ThreadPoolExecutor(2) as pool:
        for i, (cfg, row) in enumerate(zip(grid, pool.map(lambda c: run_one(cacti, template, c), grid))):
            (rows if row else failed).append(row or cfg)
            print(f"\r{i + 1}/{len(grid)} configurations", end="", file=sys.stderr)
    print(file=sys.stderr)
    cols = ["capacity_bytes", "block_bytes", "banks", "node_nm", "area_mm2", "read_energy_nj", "write_energy_nj",
            "access_time_ns", "cycle_time_ns", "leakage_mw", "gate_leakage_mw", "height_mm", "width_mm",
            "ndwl", "ndbl", "nspd"]
    with open(args.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, cols, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} rows -> {args.out}; {len(failed)} configurations without a CACTI solution: {failed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
