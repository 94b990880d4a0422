"""Energy per MAC of the shipped fitted models beside published per-operation energies (issue 21's power gap).

    python bench/energy_per_mac.py

The chips whose power the estimator overestimates most (SIGMA's systolic baseline, SIGMA, ShiDianNao, TPU v3
and v4i) spend it in their MAC arrays. This prints, at the reference node (NanGate45, 1.1 V, 45 nm), what the
fitted models give per MAC: for an integer 8-bit and a bf16 MAC, alone and as a PE of a systolic array, unpipelined
and pipelined, with uniformly random operands (density 1) and half of them zero, and the bf16 ones also flushing
subnormals (DAZ + FTZ, the TPUs' arithmetic); the glitch ratio each model's dataset measured (timed / zero-delay
switching energy); and two published references:

* Horowitz, "Computing's energy problem (and what we can do about it)", ISSCC 2014, Fig. 1.1.9 (45 nm, 0.9 V):
  8-bit multiply 0.2 pJ, 32-bit add 0.1 pJ, 16-bit fp multiply 1.1 pJ, 32-bit fp add 0.9 pJ; the arithmetic
  only (no operand or accumulator registers, no clock), scaled here to 1.1 V by (1.1 / 0.9)^2;
* per-MAC power of published arrays, scaled to 45 nm and 1.1 V with the node table's energy factor:
  SIGMA's TPU-like 128x128 bf16 array, 12.25 W post-layout at 28 nm and 500 MHz (Qin et al., HPCA 2020, Fig. 8;
  activity not stated); TPU v1's whole-chip 75 W TDP over its 65,536 MACs at 700 MHz (Jouppi et al., ISCA 2017,
  Table 2; an upper bound of the MXU's share); DianNao's whole 485 mW (post-layout, 65 nm) over its 256 16-bit
  MACs at 0.98 GHz (Chen et al., ASPLOS 2014, abstract; the clock as recalled).
"""

from __future__ import annotations

import warnings

import pandas as pd

from accelgen.fit.api import read_dataset, shipped_dataset
from accelgen.fit.model import load_model
from accelgen.technology import scaling

V_SCALE = (1.1 / 0.9) ** 2
HOROWITZ = {"int8 MAC (8b mult + 32b add)": 0.2 + 0.1, "bf16 MAC (fp16 mult + fp32 add)": 1.1 + 0.9}

CASES = [  # (label, model, inputs)
    ("int8 MAC cell, 24-bit acc, (0,0)", "mac", {"a_width": 8, "b_width": 8, "acc_width": 24, "input_reg": True}),
    ("int8 MAC cell, 24-bit acc, (3,3)", "mac", {"a_width": 8, "b_width": 8, "acc_width": 24, "input_reg": True,
                                                 "mul_stages": 3, "add_stages": 3}),
    ("int8 systolic PE 32x32, 32-bit acc, (0,0)", "systolic", {"rows": 32, "cols": 32, "a_width": 8, "b_width": 8,
                                                               "acc_width": 32}),
    ("int16 dot product of 16, (0,0), per MAC", "dot_product", {"n": 16, "a_width": 16, "b_width": 16}),
    ("int16 dot product of 16, (3,3), per MAC", "dot_product", {"n": 16, "a_width": 16, "b_width": 16,
                                                                 "mul_stages": 3, "add_stages": 3}),
    ("bf16 MAC cell, (0,0)", "mac-bf16", {}),
    ("bf16 MAC cell, (3,3)", "mac-bf16", {"mul_stages": 3, "add_stages": 3}),
    ("bf16 systolic PE 8x8, (0,0)", "systolic-bf16", {"rows": 8, "cols": 8}),
    ("bf16 systolic PE 8x8, (0,1)", "systolic-bf16", {"rows": 8, "cols": 8, "add_stages": 1}),
    ("bf16 systolic PE 8x8, (3,3)", "systolic-bf16", {"rows": 8, "cols": 8, "mul_stages": 3, "add_stages": 3}),
    # DAZ + FTZ, the TPUs' arithmetic (rtl/fp.py: the exact bf16 product, rounding without a subnormal shifter)
    ("bf16 MAC cell, flushing, (0,0)", "mac-bf16", {"flush_subnormals": True}),
    ("bf16 systolic PE 8x8, flushing, double, (0,0)", "systolic-bf16", {"rows": 8, "cols": 8, "weight_load": "double",
                                                                        "flush_subnormals": True}),
]


def predicted(model: str, inputs: dict, density: float) -> float:
    m = load_model(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = {k: v for k, v in {**inputs, "density": density}.items() if k in m.inputs}
        per_dot = m.name == "dot_product"   # its energy is per dot product of n MACs
        return float(m.predict(node_nm=45, **args)["energy_pj"]) / (inputs["n"] if per_dot else 1)


def glitch(model: str, inputs: dict) -> float:
    df = read_dataset(shipped_dataset(model))
    sel = pd.Series(True, index=df.index)
    for k in ("mul_stages", "add_stages", "flush_subnormals"):
        sel &= df[k].fillna(0).astype(int) == int(inputs.get(k, 0)) if k in df else sel
    return float(df.loc[sel, "glitch_ratio"].median()) if sel.any() else float("nan")


def main() -> None:
    print("fitted models at 45 nm, 1.1 V (pJ per MAC):")
    print(f"  {'case':44s} {'density 1':>10s} {'density .5':>10s} {'glitch':>7s}")
    for label, model, inputs in CASES:
        print(f"  {label:44s} {predicted(model, inputs, 1.0):10.2f} {predicted(model, inputs, 0.5):10.2f} "
              f"{glitch(model, inputs):7.2f}")
    print("published, at 45 nm and 1.1 V (pJ per MAC):")
    for label, pj in HOROWITZ.items():
        print(f"  {'Horowitz ISSCC 2014: ' + label:56s} {pj * V_SCALE:6.2f}  (arithmetic only)")
    e28 = scaling(28).energy   # 45 nm -> 28 nm: CPP x Vdd^2 (accelgen.technology)
    sigma = 12.25 / (16384 * 500e6) * 1e12
    tpu = 75.0 / (65536 * 700e6) * 1e12
    print(f"  {'SIGMA systolic baseline, 12.25 W at 28 nm, 500 MHz':56s} {sigma / e28:6.2f}  ({sigma:.2f} pJ at 28 nm)")
    print(f"  {'TPU v1, whole-chip 75 W TDP over 65,536 MACs at 700 MHz':56s} {tpu / e28:6.2f}  ({tpu:.2f} pJ at 28 nm)")
    e65 = scaling(65).energy
    diannao = 0.485 / (256 * 980e6) * 1e12
    print(f"  {'DianNao, whole accelerator 485 mW over 256 MACs at 980 MHz':56s} {diannao / e65:6.2f}  "
          f"({diannao:.2f} pJ at 65 nm)")


if __name__ == "__main__":
    main()
