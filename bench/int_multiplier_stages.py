"""Slowest stage of the pipelined integer multiplier (rtl/intarith.py) in the mapped flow, per register placement.

    python bench/int_multiplier_stages.py [--width 16] [--clock-mhz 1000] [--csa 8 4 0.5]

The multiplier (signed x signed, ``width`` bits) sits between input and output registers, so every path of the
mapped design is a stage; it is mapped to the default library by ABC at ``--clock-mhz`` and statically timed, as
the sweeps do. ``--csa`` lists carry-save level weights to compare, in bits of the carry chain
(``intarith.STEP_DEPTH["csa"]`` with ``"carry": 1``; 0.5 is the earlier placement by generic gate depth, 8 the
shipped one). Prints the delay (ns) and cell area (um^2) at 0-3 stages for each weight. At 1 GHz ABC stops
improving a stage once it meets the period; a faster ``--clock-mhz`` shows what each placement can reach.
"""

from __future__ import annotations

import argparse

from amaranth import Module, signed
from amaranth.back import verilog
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from accelgen.fit.mapping import map_and_time
from accelgen.rtl import intarith


class Registered(wiring.Component):
    """A ``width`` x ``width`` signed multiplier of ``stages`` stages between input and output registers."""

    def __init__(self, width: int, stages: int):
        self.width, self.stages = width, stages
        super().__init__({"a": In(signed(width)), "b": In(signed(width)), "p": Out(signed(2 * width))})

    def elaborate(self, platform):
        m = Module()
        m.submodules.mul = mul = intarith.PipelinedMultiplier(signed(self.width), signed(self.width),
                                                              stages=self.stages)
        m.d.sync += [mul.a.eq(self.a), mul.b.eq(self.b), self.p.eq(mul.product)]
        return m


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--clock-mhz", type=float, default=1000.0)
    ap.add_argument("--csa", type=float, nargs="+", default=[8.0, 4.0, 0.5])
    args = ap.parse_args()
    shipped = dict(intarith.STEP_DEPTH)
    print(f"{args.width}x{args.width}-bit signed multiplier, mapped at {args.clock_mhz:g} MHz: delay ns / area um^2")
    print(f"{'level weight':>14}" + "".join(f"{f'stages {s}':>18}" for s in range(intarith.MAX_STAGES + 1)))
    try:
        for csa in args.csa:
            intarith.STEP_DEPTH.update(csa=csa, carry=1)
            cells = []
            for stages in range(intarith.MAX_STAGES + 1):
                text = verilog.convert(Registered(args.width, stages), name="top", emit_src=False)
                t = map_and_time(text, "top", clock_mhz=args.clock_mhz)
                cells.append(f"{t.delay_ns:.3f} / {t.area_um2:.0f}")
            print(f"{csa:>14g}" + "".join(f"{c:>18}" for c in cells), flush=True)
    finally:
        intarith.STEP_DEPTH.update(shipped)


if __name__ == "__main__":
    main()
