"""Peer check against SCALE-Sim: compute cycles of GEMMs on square arrays, os / ws / is, side by side.

SCALE-Sim is *not* a dependency of accelgen. Install it into a separate venv and point this script at it::

    python3 -m venv /tmp/scalesim-venv && /tmp/scalesim-venv/bin/pip install scalesim "numpy<2"
    python bench/peer_scalesim.py [--scalesim-python /tmp/scalesim-venv/bin/python] [--quick]

For every (array, dataflow, GEMM) the script runs SCALE-Sim once in the other venv (GEMM topology
``M, N, K``; SCALE-Sim 3.0 needs numpy < 2 (with numpy 2 its read buffer fails on ``int(max(array))``); SRAMs large and the interface bandwidth high so that no stall occurs), reads "Total Cycles"
from its COMPUTE_REPORT.csv, and compares it with ``accelgen cycles systolic --convention scalesim``
(:func:`accelgen.ppa.mapping.scalesim_cycles`) and with accelgen's own cosim-proven model. It prints the
table, the mismatches, and the wall time of both tools (SCALE-Sim's measured inside its process, only the
simulation call, excluding interpreter start-up).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_RUNNER = r'''
import csv, json, os, sys, time, io, contextlib
from scalesim.scale_sim import scalesim
cases = json.loads(sys.argv[1]); out = []
root = sys.argv[2]
for i, c in enumerate(cases):
    d = os.path.join(root, f"c{i}"); os.makedirs(d, exist_ok=True)
    cfg = os.path.join(d, "a.cfg"); topo = os.path.join(d, "t.csv")
    open(cfg, "w").write(f"""[general]
run_name = r{i}
[architecture_presets]
ArrayHeight: {c['rows']}
ArrayWidth: {c['cols']}
IfmapSramSzkB: 65536
FilterSramSzkB: 65536
OfmapSramSzkB: 65536
IfmapOffset: 0
FilterOffset: 10000000
OfmapOffset: 20000000
Dataflow: {c['dataflow']}
Bandwidth: 100000
ReadRequestBuffer: 32
WriteRequestBuffer: 32
[layout]
IfmapCustomLayout: False
FilterCustomLayout: False
IfmapSRAMBankBandwidth: 10
IfmapSRAMBankNum: 10
IfmapSRAMBankPort: 2
FilterSRAMBankBandwidth: 10
FilterSRAMBankNum: 10
FilterSRAMBankPort: 2
[sparsity]
SparsitySupport: false
SparseRep: ellpack_block
OptimizedMapping: false
BlockSize: 8
RandomNumberGeneratorSeed: 40
[run_presets]
InterfaceBandwidth: USER
UseRamulatorTrace: False
""")
    open(topo, "w").write(f"Layer, M, N, K,\ng, {c['M']}, {c['N']}, {c['K']},\n")
    lay = os.path.join(d, "layout.csv")   # required by SCALE-Sim 3 even without custom layouts (header only)
    open(lay, "w").write("Layer name,\n")
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        s = scalesim(save_disk_space=True, verbose=False, config=cfg, topology=topo, layout=lay,
                     input_type_gemm=True)
        s.run_scale(top_path=d)
    wall = time.perf_counter() - t0
    rep = None
    for dirpath, _, files in os.walk(d):
        if "COMPUTE_REPORT.csv" in files:
            rep = os.path.join(dirpath, "COMPUTE_REPORT.csv")
    rows = list(csv.reader(open(rep)))
    head = [h.strip() for h in rows[0]]
    vals = dict(zip(head, [v.strip() for v in rows[1]]))
    out.append({"total": int(float(vals["Total Cycles"])), "stall": int(float(vals.get("Stall Cycles", 0))),
                "wall_s": wall, "head": head})
print(json.dumps(out))
'''

ARRAYS = [4, 8, 16, 32]
GEMMS = [(1, 1, 1), (4, 4, 4), (16, 16, 16), (35, 97, 3), (64, 64, 64), (100, 30, 70), (7, 128, 33),
         (128, 7, 200), (256, 64, 32), (33, 65, 129)]
QUICK_GEMMS = [(4, 4, 4), (35, 97, 3), (64, 64, 64), (128, 7, 200)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scalesim-python", default="/tmp/scalesim-venv/bin/python")
    ap.add_argument("--quick", action="store_true", help="fewer GEMMs and arrays")
    args = ap.parse_args()
    py = Path(args.scalesim_python)
    if not py.exists() or subprocess.run([str(py), "-c", "import scalesim"], capture_output=True).returncode:
        print(f"SCALE-Sim is not importable by {py}; install it into a separate venv:\n"
              "  python3 -m venv /tmp/scalesim-venv && /tmp/scalesim-venv/bin/pip install scalesim \"numpy<2\"")
        return 2
    ver = subprocess.run([str(py), "-m", "pip", "show", "scalesim"], capture_output=True, text=True).stdout
    ver = next((ln.split(":", 1)[1].strip() for ln in ver.splitlines() if ln.startswith("Version")), "?")
    from accelgen.ppa.mapping import accelgen_cycles, scalesim_cycles

    arrays = ARRAYS[:2] if args.quick else ARRAYS
    gemms = QUICK_GEMMS if args.quick else GEMMS
    cases = [{"rows": a, "cols": a, "dataflow": df, "M": m, "N": n, "K": k}
             for a in arrays for df in ("os", "ws", "is") for m, n, k in gemms]
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([str(py), "-c", _RUNNER, json.dumps(cases), tmp], capture_output=True, text=True)
    if proc.returncode:
        print(proc.stderr[-3000:])
        return 1
    peer = json.loads(proc.stdout.strip().splitlines()[-1])
    t0 = time.perf_counter()
    reps = 200
    for _ in range(reps):
        ours = [scalesim_cycles(c["rows"], c["cols"], c["M"], c["N"], c["K"], c["dataflow"])["cycles"] for c in cases]
    t_ours = (time.perf_counter() - t0) / reps
    native = [accelgen_cycles(c["rows"], c["cols"], c["M"], c["N"], c["K"], c["dataflow"])["cycles"] for c in cases]
    print(f"SCALE-Sim {ver} vs accelgen --convention scalesim ({len(cases)} GEMMs)")
    print(f"{'array':>7} {'df':>3} {'M,N,K':>14} {'scalesim':>10} {'stall':>6} {'accelgen(ss)':>12} "
          f"{'accelgen(rtl)':>13}  match")
    mism = []
    for c, p, o, nat in zip(cases, peer, ours, native):
        ok = int(o) == p["total"]
        if not ok:
            mism.append((c, p["total"], int(o)))
        print(f"{c['rows']:>3}x{c['cols']:<3} {c['dataflow']:>3} {c['M']:>4},{c['N']:>4},{c['K']:>4} {p['total']:>10} "
              f"{p['stall']:>6} {int(o):>12} {int(nat):>13}  {'yes' if ok else 'NO'}")
    t_peer = sum(p["wall_s"] for p in peer)
    print(f"\nmismatches: {len(mism)} of {len(cases)}")
    for c, p, o in mism:
        print(f"  {c}: scalesim {p}, accelgen {o}")
    print(f"wall time: SCALE-Sim {t_peer:.2f} s (simulation calls only), accelgen {t_ours * 1e3:.3f} ms "
          f"-> {t_peer / t_ours:.3g}x faster")
    return 0 if not mism else 1


if __name__ == "__main__":
    sys.exit(main())
