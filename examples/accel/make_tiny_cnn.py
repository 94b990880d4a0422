"""Writes tiny_cnn.onnx: a small image classifier whose two convolutions the accelerator examples run in cosim
(`accelgen cosim --arch examples/accel/int8_ws16.yaml --onnx examples/accel/tiny_cnn.onnx`).

conv1: 3 -> 16 channels, 3x3, padding 1, on a 32x32 image; ReLU; conv2: 16 -> 32 channels, 3x3, stride 2, padding 1;
ReLU; global average pool; a 32 -> 10 classifier. Weights: He-normal draws of a fixed seed (the model is a fixture
with realistic weight statistics, not a trained network). ``python examples/accel/make_tiny_cnn.py`` writes the
shipped copy; ``python examples/refresh_copies.py`` then copies it into examples/accel.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

#: the shipped model (package data, by name `tiny_cnn`); `python examples/refresh_copies.py` copies it here
OUT = Path(__file__).resolve().parents[2] / "accelgen/system/accelerators/tiny_cnn.onnx"


def he(rng, shape, fan_in):
    return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


def main() -> None:
    rng = np.random.default_rng(2026)
    inits = [numpy_helper.from_array(he(rng, (16, 3, 3, 3), 27), "conv1_w"),
             numpy_helper.from_array(he(rng, (32, 16, 3, 3), 144), "conv2_w"),
             numpy_helper.from_array(he(rng, (32, 10), 32), "fc_w")]
    nodes = [
        helper.make_node("Conv", ["image", "conv1_w"], ["c1"], name="conv1", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "conv2_w"], ["c2"], name="conv2", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["pooled"], name="pool"),
        helper.make_node("Flatten", ["pooled"], ["flat"], name="flatten"),
        helper.make_node("MatMul", ["flat", "fc_w"], ["logits"], name="fc"),
    ]
    graph = helper.make_graph(nodes, "tiny_cnn", [helper.make_tensor_value_info("image", TensorProto.FLOAT,
                                                                                 [1, 3, 32, 32])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="accelgen")
    model.ir_version = 8
    onnx.checker.check_model(model)
    OUT.write_bytes(model.SerializeToString(deterministic=True))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
