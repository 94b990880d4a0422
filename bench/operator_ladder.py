"""accelgen's own figures for the operator rungs of ``accelgen validate-components`` (issue 49).

    python bench/operator_ladder.py [--cycles 400] [--out ppa/data/references/accelgen_operators.json]

Each operator is the smallest design accelgen generates that is that operator alone, combinational, with its
operands on primary inputs and its result on primary outputs: no operand or result registers and no clock, the
scope of the published operator tables (Horowitz, ISSCC 2014, Fig. 1.1.9, "the arithmetic only"). The primary inputs
all change at the start of a cycle, as registered operands would with equal clock-to-Q, and each output carries the
flow's output load (``accelgen.fit.mapping.OUTPUT_LOAD_FF``, about a register's D pin and its wire). The register
rung is a 32-bit register alone (D on primary inputs, Q on outputs), reported per bit, its clock network included.

Every design goes through accelgen's own mapped flow (:func:`accelgen.fit.measure.measure`, as a sweep point): mapped
by ABC to the default library (NanGate45 cells, typical corner, 1.1 V) at 1 GHz, statically timed, simulated
zero-delay on ``--cycles`` cycles of uniformly random operands (every bit of every operand is a fair coin each
cycle: full activity, the sweeps' density 1), and in the inertial-delay timed simulation on the first
``GLITCH_CYCLES`` of them. Reported per operation: ``area_um2`` (cells plus clock buffers), ``delay_ns``,
``energy_zero_delay_pj`` (every net at most one toggle per cycle), ``glitch_ratio`` (timed / zero-delay switching
energy on the same cycles) and ``energy_pj`` = zero-delay switching x glitch ratio + clock, as
:func:`accelgen.fit.sweep.dataset_rows` computes a sweep point's. Integer operands are unsigned (EvoApprox8b's
reference circuits are unsigned; uniform random bits toggle alike either way). The fp multipliers return the fp32
product (``rtl/fp.py``: exact for fp16 and bf16), and accelgen's only fp adder is fp32 (``FPAdder``).

The figures go to ``--out`` with the commit and the command; ``accelgen validate-components`` reads them (the command
stays fast: it never runs the flow).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from amaranth import Module
from amaranth.back import verilog
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from accelgen.cosim.stimulus import Activity, operand_fp_bits, operand_ints
from accelgen.fit.mapping import DEFAULT_CLOCK_MHZ, OUTPUT_LOAD_FF
from accelgen.fit.measure import GLITCH_CYCLES, Design, measure, versions
from accelgen.operand_profiles import describe
from accelgen.rtl import fp, intarith

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "ppa" / "data" / "references" / "accelgen_operators.json"
#: the supply of the default library (fit/tech/nangate45_cells.yaml ``vdd_v``: the library's nom_voltage)
LIBRARY_VDD_V = 1.1


class Register(wiring.Component):
    """A ``width``-bit register: ``q`` is ``d`` one clock edge later (free-running, no reset, no enable)."""

    def __init__(self, width: int):
        self.width = width
        super().__init__({"d": In(width), "q": Out(width)})

    def elaborate(self, platform):
        m = Module()
        m.d.sync += self.q.eq(self.d)
        return m


#: key -> (what it is, the component, operand widths by port, operations per cycle)
OPERATORS = {
    "int8_add": ("8-bit unsigned integer adder (9-bit sum)", lambda: intarith.PipelinedAdder(8), {"a": 8, "b": 8}),
    "int16_add": ("16-bit unsigned integer adder", lambda: intarith.PipelinedAdder(16), {"a": 16, "b": 16}),
    "int32_add": ("32-bit unsigned integer adder", lambda: intarith.PipelinedAdder(32), {"a": 32, "b": 32}),
    "int8_mul": ("8x8-bit unsigned integer multiplier (16-bit product)",
                 lambda: intarith.PipelinedMultiplier(8, 8), {"a": 8, "b": 8}),
    "int16_mul": ("16x16-bit unsigned integer multiplier", lambda: intarith.PipelinedMultiplier(16, 16),
                  {"a": 16, "b": 16}),
    "int32_mul": ("32x32-bit unsigned integer multiplier", lambda: intarith.PipelinedMultiplier(32, 32),
                  {"a": 32, "b": 32}),
    "fp16_mul": ("fp16 multiplier, fp32 product (IEEE, subnormals)", lambda: fp.FPMultiplier("fp16"),
                 {"a": 16, "b": 16}),
    "bf16_mul": ("bf16 multiplier, fp32 product (IEEE, subnormals)", lambda: fp.FPMultiplier("bf16"),
                 {"a": 16, "b": 16}),
    "fp32_mul": ("fp32 multiplier (IEEE, subnormals)", lambda: fp.FPMultiplier("fp32"), {"a": 32, "b": 32}),
    "fp32_add": ("fp32 adder (IEEE, subnormals)", lambda: fp.FPAdder(), {"a": 32, "b": 32}),
    "register_bit": ("32-bit register (DFF per bit), per bit", lambda: Register(32), {"d": 32}),
}
#: what a stimulus profile's entry of an operator keeps (area and delay do not depend on the stimulus)
PROFILE_FIELDS = ("energy_zero_delay_pj", "energy_pj", "clock_energy_pj", "glitch_ratio", "glitch_cycles")
#: operations per cycle of each design: the register rung is reported per bit
OPS_PER_CYCLE = {"register_bit": 32}


#: the role (accelgen.operand_profiles.ROLES) of each port's operand under the ``dnn`` profile: a multiplier's
#: operands are an activation and a weight; an adder's and a register's are given the same roles, for want of a
#: sample of partial sums
ROLES = {"a": "activation", "b": "weight", "d": "activation"}


def stimulus(key: str, widths: dict[str, int], cycles: int, seed: int, profile: str = "uniform") -> Activity:
    """Every port's operands drawn by ``profile`` at density 1: ``uniform`` makes each bit a fair coin every cycle
    (the bit patterns of an fp operator's operands included); ``dnn`` draws real tensors' values
    (accelgen.operand_profiles; integer operands unsigned, as the operators are)."""
    rng = np.random.default_rng(seed)
    fp_dtype = key.split("_")[0] if key.startswith(("fp", "bf")) else None
    ins = {}
    for port, w in widths.items():
        if profile == "uniform":
            values = rng.integers(0, 1 << w, cycles, dtype=np.uint64)
        elif fp_dtype:
            values = operand_fp_bits(rng, cycles, fp_dtype, 1.0, profile, ROLES[port])
        else:
            values = operand_ints(rng, cycles, w, False, 1.0, profile, ROLES[port])
        ins[port] = np.array([int(v) for v in values], dtype=object)
    return Activity(ins, ops=float(cycles), per="operation")


def measure_operator(key: str, cycles: int, seed: int, profile: str = "uniform") -> dict:
    what, build, widths = OPERATORS[key]
    text = verilog.convert(build(), name="top", emit_src=False)
    design = Design(verilog=text, top="top", cells=(), stimuli={"1.0": [stimulus(key, widths, cycles, seed, profile)]},
                    clock_mhz=DEFAULT_CLOCK_MHZ, glitch=True)
    t0 = time.time()
    rec = measure(design)
    m, clk, act, glitch = rec["mapped"], rec["clock"], rec["activity"]["1.0"], rec["glitch"]
    per_cycle = OPS_PER_CYCLE.get(key, 1) * act["ops_per_cycle"]
    ratio = glitch["ratio"]
    return {"what": what, "ports": widths, "cells": m["cells"], "flip_flops": m["flip_flops"],
            "area_um2": round((m["area_um2"] + clk["area_um2"]) / OPS_PER_CYCLE.get(key, 1), 3),
            "delay_ns": round(m["delay_ns"], 4),
            "energy_zero_delay_pj": round((act["switching_fj"] + clk["energy_fj"]) / 1000.0 / per_cycle, 5),
            "energy_pj": round((act["switching_fj"] * ratio + clk["energy_fj"]) / 1000.0 / per_cycle, 5),
            "clock_energy_pj": round(clk["energy_fj"] / 1000.0 / per_cycle, 5),
            "glitch_ratio": round(ratio, 4), "glitch_cycles": glitch["cycles"],
            "seconds": round(time.time() - t0, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=int, default=400, help="zero-delay cycles per operator")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", nargs="+", choices=sorted(OPERATORS), help="measure only these (the rest is kept)")
    ap.add_argument("--profile", choices=["uniform", "dnn"], default="uniform",
                    help="operand stimulus profile (accelgen.operand_profiles); uniform fills the operator's figures, "
                         "another profile its by_profile entry")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    old = json.loads(args.out.read_text()) if args.out.exists() else {}
    results = dict(old.get("operators", {}))
    for key in args.only or OPERATORS:
        r = measure_operator(key, args.cycles, args.seed, args.profile)
        by_profile = results.get(key, {}).get("by_profile", {})
        if args.profile == "uniform":
            results[key] = r | {"by_profile": by_profile}
        else:
            by_profile[args.profile] = {k: r[k] for k in PROFILE_FIELDS} | {"command": " ".join(
                ["python bench/operator_ladder.py", *sys.argv[1:]])}
            results[key] = results.get(key, r) | {"by_profile": by_profile}
        print(f"{key:14s} area {r['area_um2']:9.1f} um^2  delay {r['delay_ns']:.3f} ns  "
              f"E0 {r['energy_zero_delay_pj']:.4f} pJ  glitch x{r['glitch_ratio']:.2f}  E {r['energy_pj']:.4f} pJ  "
              f"({r['seconds']} s)", flush=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    doc = {"source": "bench/operator_ladder.py (accelgen's mapped flow, accelgen.fit.measure.measure)",
           "commit": commit if args.profile == "uniform" else old.get("commit", commit),
           "command": "python " + " ".join(["bench/operator_ladder.py", *sys.argv[1:]]) if args.profile == "uniform"
           else old.get("command", "python bench/operator_ladder.py"),
           "library": "nangate45-typical (generated), fit/tech/nangate45_cells.yaml", "vdd_v": LIBRARY_VDD_V,
           "node_nm": 45, "clock_mhz": DEFAULT_CLOCK_MHZ, "output_load_ff": OUTPUT_LOAD_FF,
           "cycles": args.cycles, "glitch_cycles": GLITCH_CYCLES, "seed": args.seed, "versions": versions(),
           "scope": "the operator alone, combinational: operands on primary inputs switching at the cycle start, "
                    "result on primary outputs with the flow's output load; no registers, no clock (the register "
                    "rung: a 32-bit register per bit, clock network included)",
           "activity": "uniformly random operands, every bit a fair coin every cycle (density 1); each operator's "
                       "by_profile holds its energies under another stimulus profile (accelgen.operand_profiles)",
           "profiles": {p: describe(p) for p in ["uniform", *sorted({q for r in results.values()
                                                                       for q in r.get("by_profile", {})})]},
           "operators": {k: results[k] for k in OPERATORS if k in results}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
