"""Regenerate ``ppa/data/cacti7_ports_reference.csv``: CACTI 7 on multi-ported scratchpads.

Usage: ``python bench/cacti_ports_reference.py /path/to/cacti [--out ppa/data/cacti7_ports_reference.csv]``

The settings of the single-port grid (``bench/cacti_reference.py``: CACTI's shipped ``cache.cfg``, ``cache type
"ram"``, associativity 1, itrs-hp, the size, block, banks, technology and output bus width) with CACTI's four port
counts set per configuration (:data:`PORTS`: read/write, exclusive read, exclusive write, single-ended read). Only
the outputs are committed (the CSV); the model's check against them is
:func:`accelgen.ppa.sram_calibration.port_ratios_vs_reference`.
"""

from __future__ import annotations

import argparse
import csv
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from accelgen.ppa.cacti_cfg import cacti_config, run_cacti

#: label -> (read/write, exclusive read, exclusive write, single-ended read ports)
PORTS = {"1rw": (1, 0, 0, 0), "2rw": (2, 0, 0, 0), "1r1w": (0, 1, 1, 0), "2r1w": (0, 2, 1, 0),
         "1r1w_se": (0, 1, 1, 1), "2r1w_se": (0, 2, 1, 2), "3rw": (3, 0, 0, 0), "4rw": (4, 0, 0, 0),
         "1rw1r": (1, 1, 0, 0)}
NODES = (22, 28, 32, 45, 65)          # 28 nm: CACTI interpolates its 22 and 32 nm technology files
SIZES = (2**15, 2**18, 2**20, 2**23)
GRID = ([(s, 64, 1, n, p) for n in NODES for s in SIZES for p in PORTS]
        + [(2**20, b, 1, 45, p) for b in (16, 128) for p in ("1rw", "2rw", "1r1w", "2r1w")]
        + [(2**20, 64, 4, 45, p) for p in ("1rw", "2rw", "1r1w", "2r1w")])
COLUMNS = ["capacity_bytes", "block_bytes", "banks", "node_nm", "ports", "rw_ports", "read_ports", "write_ports",
           "se_read_ports", "area_mm2", "read_energy_nj", "write_energy_nj", "access_time_ns", "cycle_time_ns",
           "leakage_mw", "gate_leakage_mw", "height_mm", "width_mm", "ndwl", "ndbl", "nspd"]


def run_one(cacti: Path, template: str, cfg: tuple) -> dict | None:
    size, block, banks, node, label = cfg
    rw, r, w, se = PORTS[label]
    vals = run_cacti(cacti, cacti_config(template, size, block, banks, node, rw, r, w, se), timeout=900)
    if vals is None:
        return None
    row = {"capacity_bytes": size, "block_bytes": block, "banks": banks, "node_nm": node, "ports": label,
           "rw_ports": rw, "read_ports": r, "write_ports": w, "se_read_ports": se, **vals}
    row["area_mm2"] = row["height_mm"] * row["width_mm"]
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cacti", type=Path)
    ap.add_argument("--out", type=Path,
                    default=Path(__file__).resolve().parents[1] / "ppa/data/cacti7_ports_reference.csv")
    args = ap.parse_args()
    cacti = args.cacti.resolve()
    template = (cacti.parent / "cache.cfg").read_text()
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda c: run_one(cacti, template, c), GRID))
    rows = [r for r in results if r]
    with open(args.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    failed = [c for c, r in zip(GRID, results) if not r]
    print(f"{len(rows)} rows -> {args.out}; {len(failed)} configurations without a CACTI solution: {failed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
