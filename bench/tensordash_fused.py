"""TensorDash's dense baseline with the lane tree and with the fused summation stage (``summation``), mapped.

    python bench/tensordash_fused.py [--clock-mhz 1000] [--stages M,A ...]

Maps, with ``accelgen synth ... --json`` (accelgen's default library, NanGate45-like, 45 nm, timing-driven at the
sweep specs' 1 GHz: fit/sweeps/tensordash_tile-dense_fp16.yaml), the fp16 dense baseline of TensorDash Table IV
(Mahmoud et al., MICRO 2020: 4x4 PEs of 4 fp16 MACs per Tensorcore; here one tile of 4 PE rows x 4 lanes, depth 1,
and one PE) with ``summation`` tree and fused, and prints area, cells, flip-flops, critical path and area per MAC.
The paper's figure for comparison is per MAC of its compute cores (68.74 mm^2 / 16,384 MACs at 65 nm: Table IV);
node scaling is the estimator's (``accelgen validate-components``), not this script's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

CASES = [  # (label, family, options, MACs)
    ("tile 4x4 (rows 4, lanes 4)", "tensordash_tile", ["--rows", "4"], 16),
    ("PE (lanes 4)", "tensordash_pe", [], 4),
]


def synth(family: str, options: list[str], summation: str, clock_mhz: float, stages: tuple[int, int]) -> dict:
    cmd = ["accelgen", "synth", family, "--dtype", "fp16", "--depth", "1", "--lanes", "4", *options,
           "--summation", summation, "--mul-stages", str(stages[0]), "--add-stages", str(stages[1]),
           "--clock-mhz", str(clock_mhz), "--json"]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    report = json.loads(out)
    report["wall_s"] = time.perf_counter() - t0
    return report


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clock-mhz", type=float, default=1000.0)
    ap.add_argument("--stages", nargs="*", default=["0,0"], help="mul_stages,add_stages pairs")
    args = ap.parse_args(argv)
    print(f"{'design':28s} {'stages':>6s} {'summation':>9s} {'area um2':>10s} {'cells':>7s} {'FFs':>5s} "
          f"{'delay ns':>8s} {'um2/MAC':>8s} {'wall s':>6s}")
    for stage_text in args.stages:
        stages = tuple(int(x) for x in stage_text.split(","))
        for label, family, options, macs in CASES:
            rows = {}
            for summation in ("tree", "fused"):
                r = synth(family, options, summation, args.clock_mhz, stages)
                t = r["timing"]
                rows[summation] = t["area_um2"]
                print(f"{label:28s} {stage_text:>6s} {summation:>9s} {t['area_um2']:10.1f} {t['cells']:7d} "
                      f"{r['flip_flops']:5d} {t['delay_ns']:8.3f} {t['area_um2'] / macs:8.1f} {r['wall_s']:6.0f}",
                      flush=True)
            print(f"{'':28s} {'':>6s} {'fused/tree':>9s} {rows['fused'] / rows['tree']:10.3f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
