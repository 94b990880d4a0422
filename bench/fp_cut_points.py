"""Slowest stage of a floating-point unit (rtl/fp.py) in the mapped flow, for every set of its internal cut points.

    python bench/fp_cut_points.py bf16|fp16|fp32|add [--clock-mhz 2000] [--max-cuts 3] [-j 2]

``bf16``/``fp16``/``fp32`` is the multiplier of that dtype, ``add`` the fp32 adder. The unit sits between input and
output registers (the context its shipped cut sets, ``fp.MUL_CUTS`` / ``fp.ADD_CUTS``, were chosen for) with the
pipeline registers at one set of its internal cut points, from none to ``--max-cuts``; each design is mapped to the
default library by ABC at ``--clock-mhz`` and statically timed, as the sweeps do. The default 2 GHz is above every
design's reach, so ABC maps each for speed and the delays rank the sets (at 1 GHz ABC stops improving a stage once
it meets the period). Prints one line per set: cuts, slowest stage (ns), cell area (um^2), and ``shipped`` beside
the set the generator uses for that many stages; then, per number of cuts, the shipped set and the fastest.

The shipped sets were chosen by Yosys' generic gate depth, where every adder is a ripple chain; the mapped flow
builds fast adders, so its ranking can differ (as it did for the integer multiplier, bench/int_multiplier_stages.py).
"""

from __future__ import annotations

import argparse
import itertools
from multiprocessing import Pool

from amaranth import Module
from amaranth.back import verilog
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from accelgen.fit.mapping import map_and_time
from accelgen.rtl import fp

MUL_POINTS = ("partial", "product", "lz", "exponent", "normalized", "rounded")
ADD_POINTS = ("ordered", "aligned", "summed", "lz", "exponent", "normalized", "rounded")


class Registered(wiring.Component):
    """One fp unit with the cut points ``cuts``, between input and output registers."""

    def __init__(self, unit: str, cuts: tuple[str, ...]):
        self.unit, self.cuts = unit, cuts
        width = 32 if unit == "add" else fp.fp_width(unit)
        super().__init__({"a": In(width), "b": In(width), "y": Out(32)})

    def elaborate(self, platform):
        m = Module()
        u = fp.FPAdder() if self.unit == "add" else fp.FPMultiplier(self.unit)
        u.cuts = self.cuts   # the combinational unit, its registers placed here instead of by the stage tables
        m.submodules.unit = u
        m.d.sync += [u.a.eq(self.a), u.b.eq(self.b), self.y.eq(u.sum if self.unit == "add" else u.product)]
        return m


def _map(job):
    unit, cuts, clock_mhz = job
    t = map_and_time(verilog.convert(Registered(unit, cuts), name="top", emit_src=False), "top", clock_mhz=clock_mhz)
    return cuts, t.delay_ns, t.area_um2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("unit", choices=("bf16", "fp16", "fp32", "add"))
    ap.add_argument("--clock-mhz", type=float, default=2000.0)
    ap.add_argument("--max-cuts", type=int, default=3)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()
    points = ADD_POINTS if args.unit == "add" else MUL_POINTS
    table = fp.ADD_CUTS if args.unit == "add" else fp.MUL_CUTS[args.unit]
    # the shipped sets inside the unit (fp16's third register is its operand register: not one of these)
    shipped = {k: tuple(v) for k, v in table.items() if all(c in points for c in v)}
    jobs = [(args.unit, cuts, args.clock_mhz) for k in range(args.max_cuts + 1)
            for cuts in itertools.combinations(points, k)]
    results: dict[int, list] = {}
    print(f"{args.unit}: mapped at {args.clock_mhz:g} MHz; cuts, slowest stage ns, cell area um^2")
    with Pool(args.jobs) as pool:
        for cuts, delay, area in pool.imap(_map, jobs):
            mark = "  shipped" if shipped.get(len(cuts)) == cuts else ""
            print(f"{len(cuts)}  {','.join(cuts) or '-':34s} {delay:6.3f} {area:7.0f}{mark}", flush=True)
            results.setdefault(len(cuts), []).append((delay, area, cuts))
    print("cuts  shipped (ns)                          fastest (ns)")
    for k, rows in sorted(results.items()):
        ship = next((f"{','.join(c) or '-'} {d:.3f}" for d, _, c in rows if c == shipped.get(k)), "-")
        d, _, c = min(rows)
        print(f"{k:4d}  {ship:36s}  {','.join(c) or '-'} {d:.3f}")


if __name__ == "__main__":
    main()
