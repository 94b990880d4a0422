"""Benes router timing: permutations (one pass) and multicasts (max fan-out passes), 8..256 ports.

    python bench/bench_benes_router.py [--repeat 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from accelgen.cosim.benes_router import route
from accelgen.golden.benes import random_multicast


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"{'ports':>5} {'permutation ms':>15} {'multicast ms':>13} {'passes (mean)':>14}")
    for n in (8, 16, 32, 64, 128, 256):
        perms = [rng.permutation(n) for _ in range(args.repeat)]
        t0 = time.perf_counter()
        for p in perms:
            route(p)
        t_perm = (time.perf_counter() - t0) / args.repeat * 1e3
        mcs = [random_multicast(n, rng) for _ in range(max(1, args.repeat // 4))]
        t0 = time.perf_counter()
        passes = [route(mc).passes for mc in mcs]
        t_mc = (time.perf_counter() - t0) / len(mcs) * 1e3
        print(f"{n:>5} {t_perm:>15.3f} {t_mc:>13.3f} {np.mean(passes):>14.2f}")


if __name__ == "__main__":
    main()
