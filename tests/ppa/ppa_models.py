"""Small fitted models built in-test (format accelgen-fitted-model/1) for estimator plumbing tests.

These are *test fixtures*: coefficients chosen to be of a physically plausible
size (a 8x8-bit MAC ~ 300 um^2 at 45 nm), not fitted results.
"""

from __future__ import annotations

import json
from pathlib import Path

TECH = {"name": "test", "node_nm": 45,
        "scaling": {str(n): {"area": (n / 45) ** 2, "energy": n / 45, "leakage": n / 45, "delay": n / 45}
                    for n in (7, 16, 22, 28, 32, 45, 65, 90)}}


def _target(unit, features, coef, inputs):
    return {"unit": unit, "per": "op", "features": features, "coef": coef, "link": "identity", "inputs": inputs,
            "heldout": {"n": 4, "mape_pct": 2.0, "max_err_pct": 4.0}}


def _model(family, inputs, size_expr, delay_expr, energy_expr=None):
    names = list(inputs)
    return {"format": "accelgen-fitted-model/1", "family": family, "inputs": inputs, "tech": TECH,
            "targets": {
                "area_um2": _target("um^2", [size_expr, "1"], [5.0, 20.0], names),
                "energy_pj": _target("pJ", [energy_expr or size_expr, "1"], [0.005, 0.01], names),
                # without glitches: less switching of the same form
                "energy_zero_delay_pj": _target("pJ", [energy_expr or size_expr, "1"], [0.002, 0.01], names),
                "leakage_uw": _target("uW", [size_expr], [0.02], names),
                "delay_ns": _target("ns", [delay_expr, "1"], [0.05, 0.3], names)},
            "training": {"n_points": 10}, "versions": {}}


def _i(lo, hi, d):
    return {"kind": "int", "default": d, "range": [lo, hi]}


W = {"a_width": _i(2, 16, 8), "b_width": _i(2, 16, 8), "acc_width": _i(4, 48, 32)}
MODELS = {
    "mac": _model("mac", dict(W), "a_width*b_width + acc_width", "log2(a_width*b_width)"),
    "systolic": _model("systolic", {"rows": _i(1, 256, 8), "cols": _i(1, 256, 8),
                                    "dataflow": {"kind": "choice", "default": "ws", "values": ["os", "ws"]},
                                    **W, "density": {"kind": "float", "default": 1.0, "range": [0, 1]}},
                       "rows*cols*(a_width*b_width + acc_width)", "log2(a_width*b_width)",
                       "a_width*b_width + acc_width"),
    "fan": _model("fan", {"n": _i(2, 512, 8), "width": _i(4, 48, 32)}, "n*width*log2(n)", "log2(n)"),
    "dot_product": _model("dot_product", {"n": _i(2, 256, 16), "a_width": _i(2, 16, 8), "b_width": _i(2, 16, 8)},
                          "n*(a_width*b_width + a_width + b_width)", "log2(n) + log2(a_width*b_width)"),
    "flexdpe": _model("flexdpe", {"k": _i(2, 256, 8), "width": _i(4, 48, 16)},
                      "k*(width*width/4 + width*log2(k))", "log2(k)"),
    "tensordash_pe": _model("tensordash_pe", {"lanes": _i(2, 16, 4), "depth": _i(2, 5, 4), **W},
                            "lanes*(a_width*b_width + depth*(a_width+b_width))", "lanes"),
    "tensordash_tile": _model("tensordash_tile", {"lanes": _i(2, 16, 4), "depth": _i(2, 5, 4), "rows": _i(1, 16, 4),
                                                  **W},
                              "rows*lanes*(a_width*b_width + depth*(a_width+b_width))", "lanes"),
}


def write_models(directory: Path) -> dict[str, str]:
    """Write every fixture model into ``directory``; return ``{family: path}``."""
    directory.mkdir(parents=True, exist_ok=True)
    out = {}
    for fam, data in MODELS.items():
        p = directory / f"{fam}.json"
        p.write_text(json.dumps(data))
        out[fam] = str(p)
    return out
