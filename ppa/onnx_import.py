"""``accelgen workload import MODEL.onnx``: an ONNX model's Conv / Gemm / MatMul nodes as a workload.

Uses the ``onnx`` package and its shape inference (``onnx.shape_inference``).
The first dimension of the graph's first input is the batch: it is symbolic or
taken as such, and layers are written per sample (``batch: 1``; ``accelgen perf
--batch`` scales them). Conv: ``N C H W`` input, weights ``K x C/g x R x S``,
``strides``, ``pads`` (``[top, left, bottom, right]``), ``group``. Gemm
(``transA``/``transB``) and MatMul: ``A[..., M, K] @ B[..., K, N]``; a B that is
an initializer is a weight (``weights: true``), otherwise both operands are
activations (attention) and the leading non-batch dimensions become ``count``.
Other operators are counted and skipped (reported by the CLI).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..errors import ConfigError


def _dims(vi) -> list:
    t = vi.type.tensor_type
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in t.shape.dim]


def import_onnx(path: str | Path, *, a_width: int = 8, b_width: int = 8, name: str | None = None) -> tuple[dict,
                                                                                                          dict]:
    """``(workload dict, {skipped op type: count})`` for the ONNX model at ``path``."""
    import onnx  # noqa: PLC0415
    from onnx import numpy_helper, shape_inference  # noqa: PLC0415, F401

    path = Path(path)
    try:
        model = onnx.load(str(path))
    except Exception as exc:  # onnx raises DecodeError / OSError / ValueError
        raise ConfigError([("MODEL", f"{str(path)!r} is not a readable ONNX model ({type(exc).__name__})")]) from None
    try:
        model = shape_inference.infer_shapes(model)
    except Exception as exc:
        raise ConfigError([("MODEL", f"ONNX shape inference failed: {exc}".splitlines()[0])]) from None
    g = model.graph
    shapes = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        shapes[vi.name] = _dims(vi)
    inits = {t.name: list(t.dims) for t in g.initializer}
    shapes.update(inits)
    graph_inputs = [i for i in g.input if i.name not in inits]
    batch_dim = _dims(graph_inputs[0])[0] if graph_inputs and _dims(graph_inputs[0]) else None
    layers, skipped = [], Counter()
    used = Counter()

    def uniq(base):
        base = base or "layer"
        used[base] += 1
        return base if used[base] == 1 else f"{base}_{used[base]}"

    def known(shape, what, node):
        if shape is None or any(not isinstance(d, int) or d < 1 for d in shape[1:]):
            raise ConfigError([(f"node {node.name or node.op_type}", f"{what} has unknown shape {shape}; export the "
                                                                      "model with static shapes")])
        return shape

    for node in g.node:
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        if node.op_type == "Conv":
            x = known(shapes.get(node.input[0]), "input", node)
            w = known(shapes.get(node.input[1]), "weight", node)
            if len(x) != 4:
                skipped[f"Conv{len(x) - 2}d"] += 1
                continue
            K, cg, R, S = w
            grp = int(attrs.get("group", 1))
            pads = list(attrs.get("pads", [0, 0, 0, 0]))
            strides = list(attrs.get("strides", [1, 1]))
            if attrs.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
                oh = shapes.get(node.output[0])
                sh, sw = strides
                th = max(0, (oh[2] - 1) * sh + R - x[2]) if oh and isinstance(oh[2], int) else 0
                tw = max(0, (oh[3] - 1) * sw + S - x[3]) if oh and isinstance(oh[3], int) else 0
                pads = [th // 2, tw // 2, th - th // 2, tw - tw // 2]
            lay = {"name": uniq(node.name or node.output[0]), "type": "conv", "C": int(x[1]), "H": int(x[2]),
                   "W": int(x[3]), "K": int(K), "R": int(R), "S": int(S)}
            if strides != [1, 1]:
                lay["stride"] = strides if strides[0] != strides[1] else int(strides[0])
            if any(pads):
                lay["padding"] = pads if len(set(pads)) > 1 else int(pads[0])
            if grp != 1:
                lay["groups"] = grp
            layers.append(lay)
        elif node.op_type in ("Gemm", "MatMul"):
            a = known(shapes.get(node.input[0]), "A", node)
            b = shapes.get(node.input[1])
            b = known(b, "B", node) if node.input[1] not in inits else b
            def is_batch(d):
                return not isinstance(d, int) or (batch_dim is not None and d == batch_dim)

            if node.op_type == "Gemm":
                M, K = (a[1], a[0]) if attrs.get("transA", 0) else (a[0], a[1])
                N = b[0] if attrs.get("transB", 0) else b[1]
                lead = []
            else:
                M, K, N = a[-2], a[-1], b[-1]
                lead = list(a[:-2])
            count, batched = 1, True
            if lead:
                batched = is_batch(lead[0])
                for d in (lead[1:] if batched else lead):
                    count *= int(d)
            elif is_batch(M):
                M = 1
            else:
                batched = False
            if not all(isinstance(v, int) and v >= 1 for v in (M, K, N)):
                raise ConfigError([(f"node {node.name or node.op_type}", f"GEMM shape M={M}, N={N}, K={K} is not "
                                                                          "static")])
            lay = {"name": uniq(node.name or node.output[0]), "type": "gemm", "M": int(M), "N": int(N), "K": int(K)}
            if count != 1:
                lay["count"] = count
            if not batched:
                lay["batched"] = False
            if node.input[1] not in inits:
                lay["weights"] = False
            layers.append(lay)
        else:
            skipped[node.op_type] += 1
    if not layers:
        raise ConfigError([("MODEL", f"{str(path)!r} has no Conv, Gemm or MatMul node")])
    wl = {"name": name or (g.name or path.stem), "source": f"imported from {path.name} (ONNX opset "
          f"{model.opset_import[0].version if model.opset_import else '?'}) by accelgen workload import",
          "batch": 1, "a_width": a_width, "b_width": b_width, "layers": layers}
    return wl, dict(skipped)
