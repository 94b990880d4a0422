"""A layer's run on the accelerator of an architecture file: emitted (cached by the file's content), simulated with
cocotb against the golden model, and its measured cycles set against ``accelgen perf``'s prediction for the same
file and layer."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..cosim.accel_host import plan_gemm
from ..cosim.accel_run import run_program
from ..errors import ConfigError
from ..golden.accel import gemm
from ..params.accel import AccelParams
from ..ppa.arch import Arch, load_arch
from ..ppa.perf import evaluate
from ..util import cache_dir, sha256_hex
from .arch import accel_params, emit_accel, resolve_arch, resolve_model
from .layers import AccelLayer, activation_settings, gemm_layer, onnx_conv_layers

__all__ = ["LayerRun", "cosim_accelerator", "predicted_cycles", "run_layer"]


@dataclass
class LayerRun:
    """A layer's run on the emitted accelerator against its golden model and its predicted cycles."""

    layer: str
    shape: tuple
    passed: bool
    mismatches: int
    cycles: int | None
    predicted_cycles: float
    folds: int
    commands: int
    error: str | None = None
    log: str | None = None

    @property
    def cycle_error(self) -> float | None:
        """Measured against predicted: ``(measured - predicted) / measured``."""
        return None if self.cycles is None else (self.cycles - self.predicted_cycles) / self.cycles

    def to_dict(self) -> dict:
        return {"layer": self.layer, "M_N_K": list(self.shape), "passed": self.passed, "mismatches": self.mismatches,
                "cycles": self.cycles, "predicted_cycles": round(self.predicted_cycles, 1),
                "cycle_error": self.cycle_error, "folds": self.folds, "commands": self.commands, "error": self.error,
                "log": self.log}


def predicted_cycles(arch: Arch, params: AccelParams, layer: AccelLayer) -> float:
    """``accelgen perf``'s time for the layer on ``arch`` (batch 1, operands of the accelerator's width), in clock
    cycles."""
    widths = {"a_width": params.operand_bits, "b_width": params.operand_bits}
    report = evaluate(arch, {"name": layer.name, "layers": [layer.workload_layer | widths]}, batch=1)
    return report.layers[0]["time_s"] * report.clock_mhz * 1e6


def design_dir(arch_path: str | Path) -> Path:
    """Where the accelerator of a description is emitted for simulation (by the description's content)."""
    return cache_dir("accel") / sha256_hex(Path(arch_path).read_text())[:16]


def run_layer(arch_path: str | Path, layer: AccelLayer, *, sim: str = "verilator", seed: int = 1,
              keep: bool = False, opt: str | None = None) -> LayerRun:
    """Emit the accelerator of ``arch_path`` (cached by content), run ``layer`` on it and compare the results with the
    golden model and the measured cycles with ``accelgen perf``'s prediction."""
    arch_path = resolve_arch(arch_path)
    arch = load_arch(arch_path)
    params = accel_params(arch, str(arch_path))
    out = design_dir(arch_path)
    verilog = out / f"{arch.name}.v"
    if not verilog.exists():
        emit_accel(arch_path, out)
    settings = activation_settings(params, layer.A, layer.B)
    program = plan_gemm(params, layer.A, layer.B, **settings)
    expected = gemm(layer.A, layer.B, params, **settings)
    run = run_program(verilog, arch.name, params, program, expected, sim=sim, seed=seed, keep=keep, opt=opt)
    M, K = layer.A.shape
    return LayerRun(layer.name, (M, layer.B.shape[1], K), run.passed, run.mismatches, run.cycles,
                    predicted_cycles(arch, params, layer), program.folds, len(program.commands), run.error, run.log)


def cosim_accelerator(arch_path: str | Path, *, gemms: list[tuple[int, int, int]] = (), onnx: str | Path | None = None,
                      layers: list[str] | None = None, seed: int = 1, sim: str = "verilator", keep: bool = False,
                      opt: str | None = None, progress=None) -> list[LayerRun]:
    """Run the GEMMs of the given shapes and the convolutions of an ONNX model (those named, or all) on the
    accelerator of ``arch_path`` (files, or a shipped accelerator and model by name: ``int8_ws16``, ``tiny_cnn``);
    ``progress(run)`` after each."""
    arch_path = resolve_arch(arch_path)
    onnx = None if onnx is None else resolve_model(onnx)
    arch = load_arch(arch_path)
    params = accel_params(arch, str(arch_path))
    todo = [gemm_layer(params, M, N, K, seed) for M, N, K in gemms]
    if onnx is not None:
        todo += onnx_conv_layers(params, onnx, layers, seed)
    elif layers:
        raise ConfigError([("--layer", "names a layer of an ONNX model; give the model with --onnx")])
    if not todo:
        raise ConfigError([("--gemm", "no layer to run; give --gemm M,N,K or --onnx MODEL")])
    runs = []
    for layer in todo:
        runs.append(run_layer(arch_path, layer, sim=sim, seed=seed, keep=keep, opt=opt))
        if progress:
            progress(runs[-1])
    return runs
