"""Design points per second of `accelgen dse`: chip-level PPA (vectorized) and full workload evaluation.

Usage: python bench/dse_throughput.py [--chip-x N] [--repeats N] [--workload-points N]

1. Chip level: a grid over X (4..256 in steps of 4), N (1..4), Tx, Ty (1..16), clock (8 values) and node
   (45/28/16/7 nm) with the on-chip SRAM split over the cores (a ``set:`` expression), evaluated by
   ``accelgen.ppa.dse.evaluate_chip_points`` (the batch estimator, constraints included). Goal >= 1,000,000/s.
2. Workload level: points of examples/dse/neurometer_datacenter.yaml (3 networks x 3 batch regimes each),
   evaluated one by one (estimate + performance model, vectorized over layers).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

from accelgen.ppa import dse

ROOT = Path(__file__).resolve().parents[1]


def chip_space(n_x: int) -> dict:
    return {"name": "bench_chip", "base": str(ROOT / "examples/dse/neurometer_base.yaml"),
            "parameters": [{"name": "X", "range": [4, 4 * n_x], "step": 4}, {"name": "N", "range": [1, 4]},
                           {"name": "Tx", "range": [1, 16]}, {"name": "Ty", "range": [1, 16]},
                           {"name": "clock", "path": "clock_mhz", "values": [300, 400, 500, 600, 700, 800, 900, 1000]},
                           {"name": "node", "path": "node_nm", "values": [45, 28, 16, 7]}],
            "set": {"core.memories.0.capacity_bytes": "33554432 // cores"},
            "constraints": {"area_mm2": {"max": 500}, "tdp_w": {"max": 300}, "peak_tops": {"max": 92}},
            "objectives": ["peak_tops_per_w", "peak_tops_per_tco"]}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chip-x", type=int, default=64, help="X values in the chip grid (4 * 4 * 16 * 16 * 8 * 4 each)")
    ap.add_argument("--workload-points", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=5, help="chip-level runs (the median is reported)")
    a = ap.parse_args()

    plan = dse.resolve(chip_space(a.chip_x))
    t0 = time.perf_counter()
    df = dse.sample(plan)
    t_sample = time.perf_counter() - t0
    dse.evaluate_chip_points(plan, df.iloc[:1000])  # warm up (model load)
    times = []
    for _ in range(a.repeats):
        r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        out = dse.evaluate_chip_points(plan, df)
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        times.append((time.perf_counter() - t0, r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime))
    n = len(df)
    dt, user, system = sorted(times)[len(times) // 2]
    print(f"chip-level PPA: {n:,} design points in {dt:.3f} s = {n / dt:,.0f} points/s, the median of {a.repeats} "
          f"runs ({', '.join(f'{t:.2f}' for t, _, _ in times)} s; this one {user:.2f} s user, {system:.2f} s system: "
          f"the kernel zeroing fresh pages for the arrays, which varies from run to run; "
          f"{(user + system) / n * 1e9:.0f} ns of CPU per point, less sensitive to a loaded machine than the time) "
          f"(sampling the grid: {t_sample:.3f} s; {int(out['feasible'].sum()):,} within 500 mm^2 / 300 W / 92 TOPS)")
    t0 = time.perf_counter()
    front = dse.pareto_mask(out.loc[out["feasible"], ["peak_tops_per_w", "peak_tops_per_tco"]].to_numpy(),
                            ["max", "max"])
    print(f"  Pareto front over peak TOPS/W and peak TOPS/TCO of the feasible points: {int(front.sum())} points "
          f"in {time.perf_counter() - t0:.3f} s")

    plan = dse.load_space(ROOT / "examples/dse/neurometer_datacenter.yaml")
    pts = dse.sample(plan)
    # the points that pass the chip-level constraints (the ones whose workloads run)
    pts = pts[(pts["X"] >= 16) & (pts["X"] <= 128) & (pts["Tx"] * pts["Ty"] <= 4)].head(a.workload_points)
    recs = pts.to_dict("records")
    dse.evaluate_points(plan, recs[:1])  # warm up
    t0 = time.perf_counter()
    rows = dse.evaluate_points(plan, recs)
    dt = time.perf_counter() - t0
    runs = sum(1 for r in rows for k in r if k.endswith(".batch"))
    print(f"full workload evaluation: {len(recs)} design points x (resnet50, inception_v3, nasnet_a_large) x "
          f"(batch 1, <= 10 ms, batch 256) in {dt:.2f} s = {len(recs) / dt:.1f} points/s "
          f"({runs / dt:.0f} network runs/s; {sum(r['feasible'] for r in rows)} feasible)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
