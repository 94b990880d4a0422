"""The generated fp32 adder and multiplier (:mod:`accelgen.rtl.fp`: the accelerator's accumulate adders and its
activation stage's scale multipliers) mapped by the synthesis flow, against the cell counts the estimator's
analytical units price them with (:func:`accelgen.ppa.units.cells.fp_adder`, :func:`~accelgen.ppa.units.cells.fp_multiplier`).

    python bench/fp_units_vs_cells.py [--clock-mhz 250]

Prints each unit's cell area from the flow (NanGate45, timing-driven at the clock) and from the cell counts.
A minute or two.
"""

from __future__ import annotations

import argparse

from amaranth.back import verilog

from accelgen.fit.mapping import map_netlist, timing_of
from accelgen.ppa.units.cells import fp_adder, fp_multiplier
from accelgen.rtl.fp import FPAdder, FPMultiplier

#: fp32: exponent bits, significand bits with the hidden bit
FP32 = (8, 24)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clock-mhz", type=float, default=250.0)
    args = ap.parse_args()
    print(f"{'unit':<8} {'flow um2':>9} {'cells um2':>10} {'cells/flow':>10} {'flow delay ns':>14}")
    for name, component, cells in (("fp_add", FPAdder(False), fp_adder(*FP32)),
                                   ("fp_mul", FPMultiplier("fp32", False), fp_multiplier(*FP32))):
        flow = timing_of(map_netlist(verilog.convert(component, name=name), name, clock_mhz=args.clock_mhz))
        model = cells.cell_area_um2_45()
        print(f"{name:<8} {flow.area_um2:>9.0f} {model:>10.0f} {model / flow.area_um2:>10.2f} {flow.delay_ns:>14.2f}",
              flush=True)


if __name__ == "__main__":
    main()
