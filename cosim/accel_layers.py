"""Layers for the accelerator: a GEMM of given shape or the convolutions of an ONNX model, with operands in the
accelerator's type, their golden results, the workload layer ``accelgen perf`` predicts them from, and the run that
compares the two.

Operands: integers uniform over the operand range (seeded); floating point, standard normal values rounded to the
operand format. An ONNX convolution takes the model's weights (integers: scaled to the operand range, symmetric per
tensor, rounded to nearest) and a seeded input. Activation settings: ReLU, and for integers a scale of 3 with the
shift that brings the largest sum into the operand range; for floating point a scale of 0.5.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from ..gen.accel import accel_params, emit_accel
from ..golden.accel import gemm
from ..golden.fp import from_float32
from ..params.accel import AccelParams
from ..ppa.arch import Arch, load_arch
from ..ppa.onnx_import import import_onnx
from ..ppa.perf import evaluate
from ..util import cache_dir, sha256_hex
from .accel_host import conv_im2col, plan_gemm
from .accel_run import run_program

__all__ = ["AccelLayer", "LayerRun", "cosim_accelerator", "gemm_layer", "onnx_conv_layers", "run_layer"]

INT_SCALE = 3
FP_SCALE = 0.5


@dataclass
class AccelLayer:
    """A layer as a GEMM ``A[M, K] @ B[K, N]`` in the accelerator's operand type, with the workload layer (the
    ``accelgen perf`` description of the same layer) it is predicted from."""

    name: str
    A: np.ndarray
    B: np.ndarray
    workload_layer: dict


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


def _operands(params: AccelParams, rng, shape) -> np.ndarray:
    a = params.array
    if a.dtype == "int":
        lo, hi = (-(1 << (a.a_width - 1)), 1 << (a.a_width - 1)) if a.signed else (0, 1 << a.a_width)
        return rng.integers(lo, hi, shape)
    return from_float32(rng.standard_normal(shape).astype(np.float32), a.dtype).astype(np.int64)


def gemm_layer(params: AccelParams, M: int, N: int, K: int, seed: int = 1) -> AccelLayer:
    """A GEMM of random operands (see the module docstring)."""
    rng = np.random.default_rng(seed)
    return AccelLayer(f"gemm_{M}x{N}x{K}", _operands(params, rng, (M, K)), _operands(params, rng, (K, N)),
                      {"name": f"gemm_{M}x{N}x{K}", "type": "gemm", "M": M, "N": N, "K": K})


def _quantized(params: AccelParams, w: np.ndarray) -> np.ndarray:
    a = params.array
    if a.dtype != "int":
        return from_float32(w.astype(np.float32), a.dtype).astype(np.int64)
    top = (1 << (a.b_width - 1)) - 1 if a.signed else (1 << a.b_width) - 1
    peak = float(np.max(np.abs(w))) or 1.0
    return np.rint(w / peak * top).astype(np.int64)


def onnx_conv_layers(params: AccelParams, path: str | Path, names: list[str] | None = None,
                     seed: int = 1) -> list[AccelLayer]:
    """The convolutions of the ONNX model at ``path`` (those named, or all), each with the model's weights and a seeded
    input of the imported shape; one group, batch 1."""
    import onnx  # noqa: PLC0415  (a heavy import; the library imports it where the importer does)
    from onnx import numpy_helper  # noqa: PLC0415

    workload, _ = import_onnx(path)
    convs = [layer for layer in workload["layers"] if layer["type"] == "conv"]
    if names:
        known = {layer["name"] for layer in convs}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ConfigError([("--layer", f"{unknown[0]!r} is not a convolution of {path}; allowed: "
                                           f"{', '.join(sorted(known))}")])
        convs = [layer for layer in convs if layer["name"] in names]
    model = onnx.load(str(path))
    weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    by_name = {}
    for node in model.graph.node:
        if node.op_type == "Conv":
            by_name[node.name or node.output[0]] = weights.get(node.input[1])
    rng = np.random.default_rng(seed)
    out = []
    for layer in convs:
        if layer.get("groups", 1) != 1:
            raise ConfigError([("--layer", f"{layer['name']!r} is a grouped convolution; allowed: one group")])
        w = by_name.get(layer["name"])
        if w is None:
            raise ConfigError([("--onnx", f"{layer['name']!r} has no weight initializer in {path}")])
        x = _operands(params, rng, (layer["C"], layer["H"], layer["W"]))
        stride = layer.get("stride", 1)
        pads = layer.get("padding", 0)
        stride = [stride, stride] if isinstance(stride, int) else stride
        pads = [pads] * 4 if isinstance(pads, int) else pads if len(pads) == 4 else [pads[0], pads[1]] * 2
        A, B, _ = conv_im2col(x, _quantized(params, w), stride, pads)
        out.append(AccelLayer(layer["name"], A, B, layer))
    return out


def activation_settings(params: AccelParams, A: np.ndarray, B: np.ndarray) -> dict:
    """ReLU with the scale (and, for integers, the shift) of the module docstring."""
    a = params.array
    if a.dtype != "int":
        return {"relu": True, "shift": 0, "scale": int(np.float32(FP_SCALE).view(np.uint32))}
    peak = int(np.max(np.abs(A.astype(object) @ B.astype(object)), initial=1)) * INT_SCALE
    return {"relu": True, "shift": max(0, peak.bit_length() - (a.a_width - 1)), "scale": INT_SCALE}


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
    accelerator of ``arch_path``; ``progress(run)`` after each."""
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
