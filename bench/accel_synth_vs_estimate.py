"""The generated accelerator synthesized block by block against `accelgen estimate` / `accelgen perf` of the same
architecture file (issue 52): tensor unit (gate-level on the layer's stream), memories (SRAM-model macros, the
layer's accesses), DMA and control (the shell, vectorless activity). Prints a table per description and layer.

    python bench/accel_synth_vs_estimate.py [examples/accel/int8_ws16.yaml ...] [--layers gemm,conv1,conv2]

Each layer also runs in cosim (for its measured cycles and its program). Minutes per layer (the gate simulation of
the array over the whole layer); results are cached by the flow.
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from pathlib import Path

from accelgen.cosim.accel_host import plan_gemm
from accelgen.ppa.arch import load_arch
from accelgen.registry import family
from accelgen.system.arch import accel_params
from accelgen.system.layers import activation_settings, gemm_layer, onnx_conv_layers
from accelgen.system.run import run_layer
from accelgen.system.synth import block_figures

ROOT = Path(__file__).resolve().parents[1]
print = functools.partial(print, flush=True)   # noqa: A001  (progress in a log file as it happens)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archs", nargs="*", default=[str(ROOT / "examples/accel/int8_ws16.yaml"),
                                                 str(ROOT / "examples/accel/bf16_ws8.yaml")])
    ap.add_argument("--layers", default="gemm,conv1,conv2")
    ap.add_argument("--json", type=Path, help="write every figure here too")
    args = ap.parse_args()
    wanted = args.layers.split(",")
    rows = []
    for arch_path in args.archs:
        arch = load_arch(arch_path)
        params = accel_params(arch, arch_path)
        convs = [n for n in wanted if n.startswith("conv")]
        layers = ([gemm_layer(params, 37, 29, 45)] if "gemm" in wanted else []) + (onnx_conv_layers(
            params, ROOT / "examples/accel/tiny_cnn.onnx", convs) if convs else [])
        for layer in layers:
            t0 = time.time()
            run = run_layer(arch_path, layer)
            program = plan_gemm(params, layer.A, layer.B, **activation_settings(params, layer.A, layer.B))
            figures = block_figures(family("systolic"), arch, params, layer, program, run.cycles)
            print(f"\n{arch.name} {layer.name} {run.shape}: cosim {'bit-exact' if run.passed else 'FAILED'}, "
                  f"{run.cycles} cycles ({time.time() - t0:.0f} s)")
            print(f"  {'block':<16} {'synth um2':>11} {'est um2':>11} {'area':>7} {'synth pJ':>11} {'est pJ':>11} "
                  f"{'energy':>7}  note")
            for f in figures:
                ae = "-" if f.area_error is None else f"{f.area_error:+.1%}"
                ee = "-" if f.energy_error is None else f"{f.energy_error:+.1%}"
                print(f"  {f.block:<16} {f.synth_area_um2:>11.0f} {f.estimate_area_um2:>11.0f} {ae:>7} "
                      f"{f.synth_energy_pj:>11.0f} {f.estimate_energy_pj:>11.0f} {ee:>7}  {f.note}")
                rows.append({"arch": arch.name, "layer": layer.name, "cycles": run.cycles, **f.to_dict()})
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
