"""Speed of the TensorDash cycle models: cycle-accurate per-stream loop versus the vectorized fast model.

    python bench/bench_tensordash_model.py [--streams 2000] [--rows 256] [--lanes 16] [--depth 3]

Prints the time per model and checks that both give the same cycle counts on a
subset of the streams.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from accelgen.golden.tensordash import cycle_counts, simulate_pe


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, default=2000)
    ap.add_argument("--rows", type=int, default=256)
    ap.add_argument("--lanes", type=int, default=16)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--sparsity", type=float, default=0.6)
    ap.add_argument("--check", type=int, default=50, help="streams also run through the cycle-accurate model")
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    eff = rng.random((args.streams, args.rows, args.lanes)) >= args.sparsity
    t0 = time.perf_counter()
    fast = cycle_counts(eff, depth=args.depth)
    t_fast = time.perf_counter() - t0
    n = min(args.check, args.streams)
    ones = np.ones((args.rows, args.lanes), dtype=np.int64)
    t0 = time.perf_counter()
    slow = [simulate_pe(eff[i].astype(np.int64), ones, depth=args.depth).cycles for i in range(n)]
    t_slow = (time.perf_counter() - t0) / n * args.streams
    assert list(fast[:n]) == slow, "fast and cycle-accurate models disagree"
    dense = args.rows * args.streams
    print(f"L={args.lanes} D={args.depth} s={args.sparsity}: {args.streams} streams x {args.rows} rows "
          f"({dense} dense cycles), speedup {dense / fast.sum():.3f}")
    print(f"fast vectorized model: {t_fast:.2f} s; cycle-accurate model: {t_slow:.1f} s (extrapolated from {n} "
          f"streams); ratio {t_slow / t_fast:.0f}x; counts agree on the checked streams")


if __name__ == "__main__":
    main()
