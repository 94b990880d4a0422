"""Design points per second of the batch estimator (and SRAM configurations per second; CACTI's too if given).

Usage: python bench/estimator_throughput.py [--points N] [--models DIR] [--cacti PATH]
Without fitted models shipped (issue 7), --models DIR takes model files (the test fixtures can be written with
tests/ppa_models.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from accelgen.ppa.batch import evaluate_batch
from accelgen.ppa.sram import SRAM, sram_batch


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--models", type=Path)
    ap.add_argument("--cacti", type=Path)
    a = ap.parse_args()
    paths = {p.stem: str(p) for p in a.models.glob("*.json")} if a.models else None
    rng = np.random.default_rng(0)
    n = a.points
    pts = dict(rows=2 ** rng.integers(3, 9, n), cols=2 ** rng.integers(3, 9, n), units=rng.integers(1, 5, n),
               cores=rng.integers(1, 17, n), sram_bytes=2 ** rng.integers(16, 25, n),
               node_nm=rng.choice([45, 28, 16, 7], n), clock_mhz=rng.uniform(200, 1500, n))
    evaluate_batch(**{k: v[:1000] for k, v in pts.items()}, model_paths=paths)  # warm up
    t0 = time.perf_counter()
    out = evaluate_batch(**pts, model_paths=paths)
    dt = time.perf_counter() - t0
    print(f"batch estimator: {n} design points in {dt:.3f} s = {n / dt:,.0f} points/s "
          f"(area {out['area_mm2'].min():.1f}..{out['area_mm2'].max():.1f} mm^2)")
    # harder: rows and cols any integer 8..256 (~250k distinct tensor-unit configurations with the node)
    pts["rows"], pts["cols"] = rng.integers(8, 257, n), rng.integers(8, 257, n)
    t0 = time.perf_counter()
    evaluate_batch(**pts, model_paths=paths)
    dt = time.perf_counter() - t0
    print(f"batch estimator, rows/cols any integer 8..256: {n} design points in {dt:.3f} s = {n / dt:,.0f} "
          f"points/s")
    m = 20_000
    caps, banks, nodes = 2 ** rng.integers(15, 26, m), 2 ** rng.integers(0, 5, m), rng.choice([65, 45, 32, 22], m)
    t0 = time.perf_counter()
    sram_batch(caps, 64, banks, nodes)
    dt = time.perf_counter() - t0
    print(f"SRAM model: {m} configurations in {dt:.3f} s = {m / dt:,.0f} configurations/s (organization search "
          f"included)")
    if a.cacti:
        k = 10
        t0 = time.perf_counter()
        for i in range(k):
            SRAM(capacity_bytes=int(caps[i]), banks=int(banks[i]), node_nm=int(nodes[i]), cacti=a.cacti)
        dt = time.perf_counter() - t0
        print(f"CACTI binary: {k} configurations in {dt:.2f} s = {k / dt:.2f} configurations/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
