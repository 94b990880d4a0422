"""Layers for the accelerator: a GEMM of given shape or the convolutions of an ONNX model, with operands in the
accelerator's type and the workload layer ``accelgen perf`` predicts them from.

Operands: integers uniform over the operand range (seeded); floating point, standard normal values rounded to the
operand format. An ONNX convolution takes the model's weights (integers: scaled to the operand range, symmetric per
tensor, rounded to nearest) and a seeded input. Activation settings: ReLU, and for integers a scale of 3 with the
shift that brings the largest sum into the operand range; for floating point a scale of 0.5.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..cosim.accel_host import conv_im2col
from ..errors import ConfigError
from ..golden.fp import from_float32
from ..params.accel import AccelParams
from ..ppa.onnx_import import import_onnx
from .arch import resolve_model

__all__ = ["AccelLayer", "activation_settings", "gemm_layer", "onnx_conv_layers"]

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
    """The convolutions of the ONNX model at ``path`` (or shipped by that name: ``tiny_cnn``; those named, or all),
    each with the model's weights and a seeded input of the imported shape; one group, batch 1."""
    import onnx
    from onnx import numpy_helper

    path = resolve_model(path)
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
