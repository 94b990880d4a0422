"""Cosim throughput: simulated cycles/s of a 16x16 systolic array driven at its edges, and the
wall time of the default regression.

    python bench/cosim_throughput.py                 # both numbers
    python bench/cosim_throughput.py --skip-regress  # only the cycles/s
    python bench/cosim_throughput.py --gemms 40      # a longer run

Cycles/s = cycles in the cycle table / wall time of the simulation run (the build is
cached and not counted). Measured for the compiled Verilator testbench (goal >= 50,000
cycles/s) and, for comparison, the cocotb testbench (on a smaller run: it is slow).
The C++ optimization level comes from ACCELGEN_VERILATOR_OPT: the native testbench is built at
-O2 unless it is given; the cocotb build keeps the project default (-O0: at -O2 its much larger
VPI model takes minutes to compile, and cocotb's per-port Python work dominates anyway). The regression runs ``accelgen regress examples/regress/default.yaml`` into a
fresh report directory (so nothing is reused), on 2 local processes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def systolic_throughput(gemms: int, testbench: str) -> tuple[int, float, float]:
    from accelgen.registry import FAMILIES
    from accelgen.gen import render, write
    from accelgen.cosim.check import cosim_emitted

    fam = FAMILIES["systolic"]
    params = fam.validate({"rows": 16, "cols": 16, "dataflow": "ws"})
    with tempfile.TemporaryDirectory() as tmp:
        e = write(render(fam, params, "systolic"), tmp)
        # the GEMMs: 64x16x16 (one fold), 48x32x32 (folds on both array dimensions), repeated
        shapes = [(64, 16, 16), (48, 32, 32)] * (gemms // 2)
        r = cosim_emitted(fam, params, e, options={"gemm": shapes}, seed=1, testbench=testbench,
                          waves_on_failure=False)
    if not r.passed:
        raise SystemExit(f"systolic cosim failed: {r.error or r.first_mismatches[:2]}")
    return r.cycles, r.run_s, r.build_s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gemms", type=int, default=200, help="GEMMs in the native run (default 200)")
    ap.add_argument("--cocotb-gemms", type=int, default=4, help="GEMMs in the cocotb run (default 4)")
    ap.add_argument("--skip-regress", action="store_true", help="do not run the default regression")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()
    given = os.environ.get("ACCELGEN_VERILATOR_OPT")
    os.environ["ACCELGEN_VERILATOR_OPT"] = opt = given or "-O2"
    systolic_throughput(2, "native")  # build (cached) outside the measurement
    cycles, run_s, _ = systolic_throughput(args.gemms, "native")
    native = cycles / run_s
    print(f"16x16 WS systolic, edges only, Verilator {opt}: native testbench {cycles} cycles in {run_s:.3f} s = "
          f"{native:,.0f} cycles/s (goal >= 50,000: {'met' if native >= 50_000 else 'NOT met'})", flush=True)
    if given is None:
        del os.environ["ACCELGEN_VERILATOR_OPT"]
    systolic_throughput(2, "cocotb")
    c_cycles, c_run_s, _ = systolic_throughput(args.cocotb_gemms, "cocotb")
    print(f"16x16 WS systolic, edges only, Verilator {given or '-O0'}: cocotb testbench {c_cycles} cycles in "
          f"{c_run_s:.2f} s = {c_cycles / c_run_s:,.0f} cycles/s", flush=True)

    if not args.skip_regress:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.monotonic()
            proc = subprocess.run([sys.executable, "-m", "accelgen", "regress",
                                   str(REPO / "examples/regress/default.yaml"), "-j", str(args.jobs),
                                   "--report", tmp, "--junit", str(Path(tmp) / "junit.xml")],
                                  capture_output=True, text=True)
            wall = time.monotonic() - t0
        status = "passed" if proc.returncode == 0 else f"FAILED (exit {proc.returncode})"
        print(f"default regression (examples/regress/default.yaml, -j {args.jobs}): {wall:.1f} s wall, {status} "
              f"(goal <= 600 s from a warm cache: {'met' if wall <= 600 else 'NOT met'})", flush=True)
        if proc.returncode != 0:
            print(proc.stdout[-3000:], proc.stderr[-2000:])
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
