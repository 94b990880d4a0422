"""Cold Verilator builds of distinct small designs, with and without the compiler cache (issue 18).

Each mode starts from an empty accelgen cache (new ACCELGEN_CACHE_DIR, so an empty ccache too) and
builds the same N MAC designs of different widths in a fresh process, cocotb/VPI builds and native
testbench builds alike. With ccache the first build compiles the Verilator runtime and the later ones
take it from the cache. Prints wall seconds per build and in total.

    python bench/verilator_builds.py [--designs 4]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, tempfile, time
from pathlib import Path
from accelgen.cosim import simulators
from accelgen.cosim.native import build_native
from accelgen.gen import render, write
from accelgen.registry import FAMILIES
fam = FAMILIES["mac"]
out = []
for i in range(int(sys.argv[1])):
    params = fam.validate({"a_width": 4 + i, "b_width": 4 + i, "acc_width": 2 * (4 + i) + 4})
    with tempfile.TemporaryDirectory() as tmp:
        e = write(render(fam, params, f"mac{i}"), tmp)
        t0 = time.perf_counter()
        simulators.build(e.verilog_path, e.name, "verilator")
        t1 = time.perf_counter()
        build_native(e.verilog, e.manifest)
        t2 = time.perf_counter()
    out.append({"design": e.name, "cocotb_s": round(t1 - t0, 1), "native_s": round(t2 - t1, 1)})
print(json.dumps(out))
"""


def run(designs: int, ccache: bool) -> list[dict]:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, ACCELGEN_CACHE_DIR=cache, ACCELGEN_CCACHE="1" if ccache else "0")
        env.pop("OBJCACHE", None)
        proc = subprocess.run([sys.executable, "-c", CHILD, str(designs)], env=env, capture_output=True, text=True,
                              check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--designs", type=int, default=4)
    args = ap.parse_args()
    for ccache in (False, True):
        rows = run(args.designs, ccache)
        total = sum(r["cocotb_s"] + r["native_s"] for r in rows)
        print(f"compiler cache {'on ' if ccache else 'off'}: total {total:.1f} s over {len(rows)} designs")
        for r in rows:
            print(f"  {r['design']:<6} cocotb/VPI build {r['cocotb_s']:6.1f} s   native build {r['native_s']:6.1f} s")


if __name__ == "__main__":
    main()
