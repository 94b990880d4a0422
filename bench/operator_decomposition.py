"""What each operator's energy ratio to Horowitz's table is made of (issue 49: "the note shows, per operator, what
the remaining factor is made of").

    python bench/operator_decomposition.py

Reads accelgen's operator figures (ppa/data/references/accelgen_operators.json, bench/operator_ladder.py, uniform
and ``--profile dnn``) and the Horowitz rows of ppa/data/references/components.yaml, carries accelgen's energies
from the library's 1.1 V to the table's 0.9 V by (0.9 / 1.1)^2 (dynamic energy goes with V^2), as the ladder does, and
splits the ladder's first ratio (energy with glitches on uniform operands over the table's) into a product of factors:

* stimulus: zero-delay energy on uniform operands over that on real tensors' (``dnn``);
* glitches: the timed simulation's ratio on ``dnn`` operands (timed / zero-delay switching);
* area: accelgen's mapped area over the table's (mapped for 1 GHz with sizing and buffering; switched capacitance
  grows with it);
* per area: what is left, zero-delay energy per um^2 on ``dnn`` operands at 0.9 V over the table's energy per um^2
  (the library and process against Horowitz's, at equal area and supply).

The product of the four is the ratio.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
REFS = ROOT / "ppa" / "data" / "references"
#: the ladder's operator rows and accelgen's operator key for each
ROWS = {"int8 add": "int8_add", "int32 add": "int32_add", "int8 multiply": "int8_mul", "int32 multiply": "int32_mul",
        "fp16 multiply": "fp16_mul", "bf16 multiply": "bf16_mul", "fp32 multiply": "fp32_mul", "fp32 add": "fp32_add"}


def main() -> None:
    ops = json.loads((REFS / "accelgen_operators.json").read_text())
    refs = yaml.safe_load((REFS / "components.yaml").read_text())["references"]
    table = {}
    for r in refs:
        if r["source"] == "horowitz2014" and r["rung"] in ROWS:
            table.setdefault(r["rung"], {})[r["quantity"]] = r["value"]
            table[r["rung"]]["vdd_v"] = r.get("vdd_v") or table[r["rung"]].get("vdd_v")
    print("| operator | published pJ / um^2 (0.9 V) | accelgen pJ at 0.9 V (uniform, glitches) | ratio | stimulus "
          "| glitches (dnn) | area | per area | zero-delay dnn ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for rung, key in ROWS.items():
        op, pub = ops["operators"][key], table[rung]
        dnn = op.get("by_profile", {}).get("dnn")
        if dnn is None or "energy_pj" not in pub or "area_um2" not in pub:
            continue
        supply = (ops["vdd_v"] / pub["vdd_v"]) ** 2
        ratio = op["energy_pj"] / supply / pub["energy_pj"]
        stimulus = op["energy_zero_delay_pj"] / dnn["energy_zero_delay_pj"]
        glitches = dnn["energy_pj"] / dnn["energy_zero_delay_pj"]
        area = op["area_um2"] / pub["area_um2"]
        zd_dnn_ratio = dnn["energy_zero_delay_pj"] / supply / pub["energy_pj"]
        per_area = zd_dnn_ratio / area
        # the uniform run's glitch ratio differs from dnn's: fold the difference into the stimulus factor so the
        # product is the ladder's ratio exactly
        stimulus *= (op["energy_pj"] / op["energy_zero_delay_pj"]) / glitches
        assert abs(stimulus * glitches * area * per_area - ratio) < 1e-9 * ratio
        print(f"| {rung} | {pub['energy_pj']:g} / {pub['area_um2']:g} | {op['energy_pj'] / supply:.3g} | {ratio:.2f}x "
              f"| {stimulus:.2f} | {glitches:.2f} | {area:.2f} | {per_area:.2f} | {zd_dnn_ratio:.2f}x |")


if __name__ == "__main__":
    main()
