"""SHA-256 of the emitted Verilog and manifest of every family at its default parameters, of
every block of ``examples/*.yaml`` and of the floating-point variants.

Recorded once before a restructuring (``python tests/gen/verilog_hashes.py`` writes
``tests/data/verilog_hashes.json``); ``test_verilog_hashes.py`` checks that emission is still
byte-identical. Re-recorded for issue 18 with every Verilog hash unchanged: manifests gained
``registered_modules`` and the systolic parameters ``emit_tile``; the tiled cases were added.
Re-recorded for issue 19 with every Verilog hash unchanged: manifests gained the parameters
``mul_stages``/``add_stages`` (and the systolic ``weight_load`` options) at their defaults.
Re-recorded when the Flex-DPE gained ``add_stages`` (pipelined FAN adders), every Verilog hash
unchanged: only the flexdpe manifests (and the flexdpe example cases' params) list ``add_stages: 0``.
The cases of families that came later (``dot_product``, ``linear_reduction``, ``art``) were added
to the record as they are, every earlier hash unchanged; ``test_verilog_hashes.py`` fails on a case
that is not recorded. Re-recorded when the systolic array gained ``flush_subnormals``, every Verilog hash
unchanged: only the systolic manifests list ``flush_subnormals: false``. The manifest's ``versions``
(accelgen, Amaranth, Yosys) are left out of its hash so that a dependency upgrade is not mistaken for a
change of the generators. Re-recorded when the systolic array gained ``sum_group``, every Verilog hash unchanged:
only the systolic manifests (and the systolic example cases' params) list ``sum_group: 1``; the grouped cases
were added. Re-recorded for issue 51 with every Verilog hash changed on purpose: accelgen's own Yosys script
(``accelgen.gen.verilog_script``) writes plain module names, explicit operand widths, the top module first, and
manifests name the lint waiver file (``lint_waivers``); re-recorded again the same day when the processes came
back as SystemVerilog ``always_comb``/``always_ff`` blocks (no dummy registers, and the if/case structure that
line coverage reports on). Re-recorded for the TensorDash PE's ``summation`` (the lane tree by default, what the
shipped models measured; ``fused`` an option): the tensordash_pe / tensordash_tile cases only; every Verilog hash
unchanged and every manifest lists the parameter.
"""

from __future__ import annotations

import json
import sys
import typing
from pathlib import Path

from accelgen.registry import FAMILIES
from accelgen.gen import load_build_config, render
from accelgen.util import sha256_hex

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "tests" / "data" / "verilog_hashes.json"


def cases() -> dict[str, tuple[str, dict, str]]:
    """``{case id: (family, params, module name)}``."""
    out: dict[str, tuple[str, dict, str]] = {}
    for name, fam in FAMILIES.items():
        out[f"default/{name}"] = (name, {}, name)
        field = fam.params_model.model_fields.get("dtype")
        if field is not None:
            for dtype in typing.get_args(field.annotation):
                if dtype != "int":
                    out[f"fp/{name}-{dtype}"] = (name, {"dtype": dtype}, f"{name}_{dtype}")
    # systolic arrays emitted as tiles (issue 18): full and remainder tiles, both dataflows
    for dataflow in ("ws", "os"):
        out[f"tiled/systolic-{dataflow}-5x7-t2"] = (
            "systolic", {"rows": 5, "cols": 7, "dataflow": dataflow, "emit_tile": 2}, f"sa_tiled_{dataflow}")
    # groups of PE rows summed by one multi-operand fp32 adder (sum_group), in PEs and in tiles
    for rows, tile, load in ((8, 16, "double"), (8, 2, "shift")):
        out[f"grouped/systolic-bf16-ws-{rows}x4-g4-t{tile}-{load}"] = (
            "systolic", {"rows": rows, "cols": 4, "dtype": "bf16", "sum_group": 4, "emit_tile": tile,
                         "weight_load": load}, f"sa_g4_t{tile}")
    for path in sorted((ROOT / "examples").glob("*.yaml")):
        for block in load_build_config(path, FAMILIES).blocks:
            out[f"examples/{path.stem}/{block.name}"] = (block.family.name, block.params.model_dump(), block.name)
    return out


def digest(family: str, params: dict, name: str) -> dict[str, str]:
    fam = FAMILIES[family]
    emitted = render(fam, fam.validate(params), name)
    manifest = {k: v for k, v in emitted.manifest.items() if k != "versions"}
    return {"verilog": sha256_hex(emitted.verilog),
            "manifest": sha256_hex(json.dumps(manifest, indent=2, sort_keys=True))}


def main() -> None:
    record = {}
    for case, (family, params, name) in cases().items():
        record[case] = {"family": family, "params": params, "name": name, **digest(family, params, name)}
        print(case, record[case]["verilog"][:12], file=sys.stderr)
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
