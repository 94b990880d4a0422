"""Emission (and optionally synthesis) time of systolic arrays by size.

    python bench/bench_systolic_emit.py [--sizes 8,16,32,64] [--synth]

Prints one line per size and dataflow: Verilog emission seconds, file size, and
with --synth the hierarchical Yosys run time and transistor count. Run it on an
otherwise idle machine; numbers are wall-clock.
"""

from __future__ import annotations

import argparse
import time

from accelgen.registry import family
from accelgen.gen import render
from accelgen.fit.generic_gates import gate_statistics
from accelgen.rtl.systolic import SystolicParams


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="8,16,32,64")
    ap.add_argument("--dataflows", default="ws,os")
    ap.add_argument("--synth", action="store_true")
    args = ap.parse_args()
    fam = family("systolic")
    print(f"{'size':>7} {'flow':>4} {'emit_s':>8} {'verilog_kB':>10}" + (f" {'synth_s':>8} {'transistors':>12}"
                                                                          if args.synth else ""))
    for n in (int(x) for x in args.sizes.split(",")):
        for df in args.dataflows.split(","):
            params = SystolicParams(rows=n, cols=n, dataflow=df)
            t0 = time.perf_counter()
            e = render(fam, params, f"sa{n}")
            emit_s = time.perf_counter() - t0
            line = f"{n:>3}x{n:<3} {df:>4} {emit_s:8.2f} {len(e.verilog) / 1024:10.0f}"
            if args.synth:
                t0 = time.perf_counter()
                stats = gate_statistics(e.verilog, e.name, cells=e.manifest["cells"],
                                        registered=e.manifest["registered_modules"], use_cache=False)
                line += f" {time.perf_counter() - t0:8.2f} {stats.transistors:12d}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
