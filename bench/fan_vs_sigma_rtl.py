"""accelgen's FAN and linear chain against SIGMA's public FAN RTL: adders, registers, muxes and comparators per
level, and what they cost in accelgen's flow (issue 50 item 4: why FAN is about 2x the linear chain at 512 inputs
where SIGMA reports +10%).

SIGMA (Qin et al., HPCA 2020, sect. IV-A2, the text around Fig. 6b) reports that a 512-input fp32 FAN has 10%
more area and 31% more power than a linear reduction, and MAERI's ART 92% and 86% more. Its FAN RTL is public
(georgia-tech-synergy-lab/SIGMA, gen_vmod/fan_gen.py generating vmod/fan_network.v); its linear reduction is not.

* **SIGMA's FAN**: counted per level from its generator as read (:func:`sigma_levels`; nothing of it is copied):
  ``n / 2^(L+1)`` adder switches per level L, each with its fp32 adder's output register, a forwarding register
  pair and a "virtual neuron" output pair (edge switches one forwarding register); an output buffer of
  ``n x 33`` bits at *every* level (the finished sums travel down all levels); forwarding flip-flops from level
  ``i`` to the levels above ``i + 1``; an ``L``-to-1 mux per operand from level 2 on. No comparator: the adders'
  commands come from a separate controller (vmod/fan_ctrl.v). The closed form equals the flip-flops Yosys finds
  in the generated RTL at n = 8, 16, 32 (bench/data/fan_vs_sigma_rtl.json; ``--verify``).
* **accelgen's FAN and chain**: their emitted Verilog (``accelgen gen``), registers summed per module and
  instance (:func:`register_bits`), grouped by what they hold; equal to Yosys's count (the JSON) at 8, 16, 512.
* **Cost**: the mapped 45 nm netlists of the fitted datasets (fit/data/fan-fp32.csv, linear_reduction-fp32.csv,
  art-fp32.csv, add_stages 0, one vector per cycle, all inputs non-zero): area split into flip-flop cells
  (DFF_X1 count x 4.522 um^2) and the rest per adder; zero-delay energy per vector split into the clock network
  and the rest. :func:`projected_area` carries the split to n with the register counts.

Run: ``.venv/bin/python bench/fan_vs_sigma_rtl.py [--n 32 512] [--verify]`` (about 40 s at n = 512: emitting the
FAN's Verilog).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = json.loads((ROOT / "bench" / "data" / "fan_vs_sigma_rtl.json").read_text())
W = 32                                   # fp32 words
DFF_UM2 = DATA["cells"]["dff_x1_um2"]    # NanGate45 DFF_X1 (fit/tech/nangate45_cells.yaml)


def log2(n: int) -> int:
    return n.bit_length() - 1


# --------------------------------------------------------------------------- SIGMA's FAN, as its generator builds it

def _forwarding_links(n: int) -> dict[int, int]:
    """fp32 forwarding flip-flops by source level: fan_gen.py registers the links from level ``i`` to every
    level ``d`` in ``i + 2 .. k - 1`` (get_num_fwd_links: ``n / 2^(i+1) - 2`` links, less those already
    registered for the levels below ``d``)."""
    k, out = log2(n), Counter()
    for i in range(k - 2):
        for dest in range(i + 2, k):
            out[i] += (n >> (i + 1)) - 2 - sum(n >> (s + 2 + i) for s in range(dest - i - 2))
    return out


def sigma_levels(n: int) -> tuple[list[dict], dict]:
    """Per level: adder switches (edge ones have one forwarding output), flip-flop bits (the switches' adder
    output, forwarding and virtual-neuron registers; the output buffer; forwarding flip-flops from this level),
    operand candidates per side, 32-bit 2:1 mux words and comparators; and the network-wide registers."""
    k, fwd, rows = log2(n), _forwarding_links(n), []
    for L in range(k):
        ids = [2 ** (L + 1) * s + 2 ** L - 1 for s in range(n >> (L + 1))]
        edge = sum(1 for j in ids if n - 1 - j < 2 ** (L + 1) or j < 2 ** (L + 1))
        regular = len(ids) - edge
        # adder_switch.v: adder32 output (32), r_adder (2 x 32), r_vn (2 x 32), r_vn_valid (2), r_add_en (1);
        # edge_adder_switch.v: r_adder 32 wide, plus r_valid (1)
        switch = regular * (W + 2 * W + 2 * W + 3) + edge * (W + W + 2 * W + 3 + 1)
        cand = L if L >= 2 else 1
        # reduction_mux (L:1 per operand), the forwarding output mux (r_add_en), the output-buffer slot muxes
        muxes = len(ids) * 2 * (cand - 1) + 2 * regular + edge + 2 * len(ids)
        rows.append({"level": L, "adders": len(ids), "ff_adder_cells": switch, "ff_output_buffer": n * (W + 1),
                     "ff_forwarding": W * fwd[L], "candidates": cand, "mux_words": muxes, "comparators": 0})
    shared = {"ff_valid_pipeline": k + 1, "ff_final_sum": W + 2}
    return rows, shared


def sigma_ff_bits(n: int) -> int:
    rows, shared = sigma_levels(n)
    return sum(r["ff_adder_cells"] + r["ff_output_buffer"] + r["ff_forwarding"] for r in rows) + sum(shared.values())


# --------------------------------------------------------------------------- accelgen's RTL, counted in its Verilog

_MODULE = re.compile(r"^module (\S+)\(.*?^endmodule", re.DOTALL | re.MULTILINE)
_DECL = re.compile(r"^\s*reg (?:signed )?(?:\[(\d+):(\d+)\] )?(\S+?)(?: = [^;]*)?;$", re.MULTILINE)
_NBA = re.compile(r"^\s+(\S+) <= ", re.MULTILINE)
_INST = re.compile(r"^  (\S+) (\S+) \($", re.MULTILINE)


def emit(block: str, n: int, out: Path) -> str:
    subprocess.run([sys.executable, "-m", "accelgen", "gen", block, "--n", str(n), "--dtype", "fp32", "--width", "32",
                    "-o", str(out)], check=True, capture_output=True)
    return (out / f"{block}.v").read_text()


def register_bits(verilog: str, top: str) -> Counter:
    """Flip-flop bits of ``top`` with its submodules, keyed ``(module, register)``: every register assigned in an
    ``always_ff`` (Amaranth's Verilog writes ``<=`` only there), times the module's instances."""
    own, children = {}, {}
    for m in _MODULE.finditer(verilog):
        name, text = m.group(1), m.group(0)
        width = {d[2]: (int(d[0]) - int(d[1]) + 1 if d[0] else 1) for d in _DECL.findall(text)}
        own[name] = Counter({(name, r): width[r] for r in set(_NBA.findall(text))})
        children[name] = Counter(t for t, _ in _INST.findall(text))

    def total(mod: str) -> Counter:
        out = Counter(own[mod])
        for child, count in children[mod].items():
            if child in own:
                for key, bits in total(child).items():
                    out[key] += bits * count
        return out
    return total(top)


def fan_level(j: int) -> int:
    level = 0
    while j >> level & 1:
        level += 1
    return level


def accelgen_fan_levels(bits: Counter, n: int) -> tuple[list[dict], dict]:
    """accelgen's FAN per level: adders, the registers of its cells (``fan__node<L>``), the delay lines of their
    outputs (forwarding to upper levels and alignment to the output stage), mux words and comparators; and the
    registers not owned by a level (input stage, boundary flags, the vecIDs and last input carried to the output)."""
    k = log2(n)
    rows = [{"level": L, "adders": n >> (L + 1), "ff_adder_cells": 0, "ff_forwarding": 0,
             "candidates": max(L, 1), "mux_words": (n >> (L + 1)) * (2 if L == 0 else 2 * (L - 1) + 1),
             "comparators": 0} for L in range(k)]
    shared = Counter()
    for (mod, reg), b in bits.items():
        if mod.startswith("fan__node"):
            rows[int(mod.removeprefix("fan__node").split("__")[0])]["ff_adder_cells"] += b
        elif (m := re.fullmatch(r"(y|yv|sv|yr|yrv)(\d+)_d\d+", reg)) and int(m.group(2)) < n - 1:
            rows[fan_level(int(m.group(2)))]["ff_forwarding"] += b
        elif reg.startswith("eq_s"):
            shared["ff_boundary_flags"] += b
        elif re.fullmatch(r"(x|v|id)\d+", reg):
            shared["ff_input_stage"] += b
        else:
            shared["ff_ids_and_last_input_to_output"] += b
    shared["vecid_comparators"] = n - 1
    return rows, dict(shared)


# --------------------------------------------------------------------------- the flow's cost, from the fitted datasets

def flow_split(family: str, n: int) -> dict:
    """The mapped 45 nm netlist of ``family`` at ``n`` inputs, add_stages 0, density 1 (fit/data/<family>.csv)."""
    with open(ROOT / "fit" / "data" / f"{family}.csv") as f:
        row = next(r for r in csv.DictReader(f) if int(r["n"]) == n and r["add_stages"] == "0"
                   and float(r["density"]) == 1.0)
    area, ffs = float(row["area_um2"]), int(row["flip_flops"])
    return {"area_um2": area, "flip_flops": ffs, "ff_area_um2": ffs * DFF_UM2,
            "logic_um2_per_adder": (area - ffs * DFF_UM2) / (n - 1),
            "energy_zd_pj": float(row["energy_zero_delay_pj"]), "clock_pj": float(row["clock_energy_pj"])}


def projected_area(logic_per_adder: float, ff_bits: int, n: int) -> float:
    """Area at ``n``: ``n - 1`` adders with their logic, and ``ff_bits`` flip-flop cells."""
    return (n - 1) * logic_per_adder + ff_bits * DFF_UM2


# --------------------------------------------------------------------------- report

def _table(rows: list[dict], keys: list[str]) -> None:
    print("  " + " | ".join(f"{k:>14}" for k in keys))
    for r in rows:
        print("  " + " | ".join(f"{r.get(k, ''):>14.4g}" if isinstance(r.get(k), float) else f"{r.get(k, ''):>14}"
                                for k in keys))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[32, 512], help="FAN sizes to count per level")
    ap.add_argument("--verify", action="store_true", help="also check the counts against Yosys's (the JSON)")
    args = ap.parse_args(argv)
    bad = [n for n in args.n if n < 8 or n > 512 or n & (n - 1)]
    if bad:
        print(f"fan_vs_sigma_rtl: --n {bad[0]} is not allowed; expected a power of two in 8..512", file=sys.stderr)
        return 2
    keys = ["level", "adders", "ff_adder_cells", "ff_output_buffer", "ff_forwarding", "candidates", "mux_words",
            "comparators"]
    totals = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sorted(set(args.n) | ({8, 16} if args.verify else set())):
            fan_bits = register_bits(emit("fan", n, Path(tmp) / f"fan{n}"), "fan")
            lin_bits = register_bits(emit("linear_reduction", n, Path(tmp) / f"lin{n}"), "linear_reduction")
            acc_rows, acc_shared = accelgen_fan_levels(fan_bits, n)
            sig_rows, sig_shared = sigma_levels(n)
            tot = {"n": n, "accelgen_fan_ff": sum(fan_bits.values()), "sigma_fan_ff": sigma_ff_bits(n),
                   "accelgen_linear_ff": sum(lin_bits.values())}
            tot |= {k.replace("_ff", "_ff_per_input"): v / n for k, v in list(tot.items())[1:]}
            totals.append(tot)
            if n not in args.n:
                continue
            print(f"\nn = {n}: SIGMA's FAN (its generator, per level)")
            _table(sig_rows, keys)
            print(f"  network-wide: {sig_shared}; its controller (fan_ctrl.v) holds the vecID comparators "
                  f"({DATA['sigma_rtl']['ctrl_vecid_comparators']['32']} and "
                  f"{DATA['sigma_rtl']['ctrl_ff_bits']['32']} flip-flop bits at n = 32), not counted here")
            print(f"n = {n}: accelgen's FAN (its Verilog, per level; no output buffer: finished sums wait in the "
                  f"delay lines, counted under ff_forwarding)")
            _table(acc_rows, keys)
            print(f"  not owned by a level: {acc_shared}")
            print(f"n = {n}: accelgen's linear chain: {n - 1} adders, {sum(lin_bits.values())} flip-flop bits "
                  f"({sum(lin_bits.values()) // n} per input: partial sum, valid, vecID), no mux, {n - 1} vecID "
                  f"comparators")
    print("\nflip-flop bits (all levels, all kinds)")
    _table(totals, list(totals[0]))
    if args.verify:
        for t in totals:
            n = str(t["n"])
            for key, ref in (("sigma_fan_ff", DATA["sigma_rtl"]["ff_bits"].get(n)),
                             ("accelgen_fan_ff", DATA["accelgen_rtl"]["ff_bits"]["fan"].get(n)),
                             ("accelgen_linear_ff", DATA["accelgen_rtl"]["ff_bits"]["linear_reduction"].get(n))):
                if ref is not None:
                    print(f"  verify n={n} {key}: counted {t[key]}, Yosys {ref}: {'ok' if t[key] == ref else 'DIFFERS'}")

    # what the registers cost: the measured split at 256 (the largest fitted size), carried to 512 by the counts
    fan, lin, art = (flow_split(f, 256) for f in ("fan-fp32", "linear_reduction-fp32", "art-fp32"))
    print("\nmapped 45 nm netlists at n = 256, add_stages 0 (fit/data): area and zero-delay energy per vector")
    for name, s in (("fan", fan), ("linear", lin), ("art", art)):
        print(f"  {name:>6}: {s['area_um2'] / 1e6:.3f} mm^2 = {s['ff_area_um2'] / 1e6:.3f} flip-flops "
              f"({s['flip_flops']} x {DFF_UM2}) + {s['logic_um2_per_adder']:.0f} um^2 per adder x 255; "
              f"{s['energy_zd_pj']:.0f} pJ/vector of which clock {s['clock_pj']:.0f}")
    print(f"  FAN / linear at 256: area {fan['area_um2'] / lin['area_um2']:.2f} = 1 + flip-flops "
          f"{(fan['ff_area_um2'] - lin['ff_area_um2']) / lin['area_um2']:+.2f} + logic per adder "
          f"{255 * (fan['logic_um2_per_adder'] - lin['logic_um2_per_adder']) / lin['area_um2']:+.2f} (muxes, "
          f"comparators, the flip-flops' reset gates); energy {fan['energy_zd_pj'] / lin['energy_zd_pj']:.2f} "
          f"(clock {(fan['clock_pj'] - lin['clock_pj']) / lin['energy_zd_pj']:+.2f}); ART / FAN area "
          f"{art['area_um2'] / fan['area_um2']:.2f}, ART / linear {art['area_um2'] / lin['area_um2']:.2f}")
    n = 512
    t = next((t for t in totals if t["n"] == n), None)
    if t:
        lin512 = projected_area(lin["logic_um2_per_adder"], t["accelgen_linear_ff"], n)
        fan512 = projected_area(fan["logic_um2_per_adder"], t["accelgen_fan_ff"], n)
        sig512 = projected_area(fan["logic_um2_per_adder"], t["sigma_fan_ff"], n)
        target = DATA["paper"]["fan_over_linear_area"]
        need = (fan512 / target - (n - 1) * lin["logic_um2_per_adder"]) / DFF_UM2
        print(f"\nat n = {n}, with the per-adder logic of 256 and the counted flip-flops: FAN / linear area "
              f"{fan512 / lin512:.2f} (accelgen's FAN), {sig512 / lin512:.2f} (SIGMA's FAN registers on accelgen's "
              f"cells); SIGMA's {target} would need a linear baseline of {need / n:.0f} flip-flop bits per input "
              f"(accelgen's chain: {t['accelgen_linear_ff'] // n}; SIGMA's FAN: {t['sigma_fan_ff'] / n:.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
