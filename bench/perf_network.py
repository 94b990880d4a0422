"""Whole-network evaluation time of ``accelgen.ppa.perf`` (issue 10 target: well under a second per network).

    python bench/perf_network.py

For each shipped workload on each example architecture: the first evaluation (builds the estimator
context: SRAM models, fitted compute models) and the median of 5 repeated per-batch evaluations
(``run_layers`` + report: mapping, bytes, roofline, energy), which is what a --latency-ms search repeats.
Energy needs fitted models; architectures whose models are not shipped yet run without energy.
"""

from __future__ import annotations

import statistics
import time
import warnings
from pathlib import Path

from accelgen.errors import AccelgenError
from accelgen.ppa.perf import PerfContext, evaluate, layer_report, run_layers
from accelgen.ppa.arch import load_arch
from accelgen.ppa.workload import load_workload, shipped_workloads

ROOT = Path(__file__).resolve().parents[1]
ARCHS = ["tpu_v1", "tpu_v2", "sigma", "tensordash", "eyeriss"]


def main():
    warnings.simplefilter("ignore")
    print(f"{'arch':12s} {'workload':16s} {'layers':>6s} {'first ms':>9s} {'per-batch ms':>12s} {'latency ms':>11s} "
          f"{'TOPS':>7s} energy")
    worst = 0.0
    for a in ARCHS:
        arch = load_arch(ROOT / "examples" / "arch" / f"{a}.yaml")
        for w in shipped_workloads():
            wl = load_workload(w)
            t0 = time.perf_counter()
            try:
                rep = evaluate(arch, wl, batch=8 if w not in ("irregular",) else 1)
            except AccelgenError as exc:
                print(f"{a:12s} {w:16s} error: {exc}")
                break
            first = time.perf_counter() - t0
            ctx = PerfContext(arch, None)
            ts = []
            for _ in range(5):
                t0 = time.perf_counter()
                layer_report(ctx, wl, run_layers(ctx, wl, rep.batch), rep.batch)
                ts.append(time.perf_counter() - t0)
            med = statistics.median(ts)
            worst = max(worst, first)
            print(f"{a:12s} {w:16s} {len(wl.layers):6d} {first * 1e3:9.1f} {med * 1e3:12.2f} "
                  f"{rep.total['latency_ms']:11.4g} {rep.total['achieved_tops']:7.3g} "
                  f"{'yes' if rep.energy_available else 'no'}")
    print(f"slowest whole-network evaluation (incl. estimator set-up): {worst * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
