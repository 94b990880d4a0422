"""The default technology scaled to 180 nm against a real 180 nm library nobody here wrote (issue 20 item 5).

    python bench/osu018_compare.py [--lib PATH] [--clock-mhz 200]

Obtains Debian's ``qflow-tech-osu018`` package without installing qflow (``apt-get download`` and
``dpkg -x`` into the accelgen cache) unless ``--lib`` names ``osu018_stdcells.lib``. Each design is
mapped by the timing-driven flow (:func:`accelgen.flow.time_design`: ABC ``map -D``, buffering and
sizing at the target clock, then :mod:`accelgen.fit.sta`) twice: to the default NanGate45 library, whose
area and delay are then scaled to 180 nm by :func:`accelgen.nodes.scaling` (process data), and to
osu018. Prints mapped cell area and critical-path delay of both and their ratio. Only area and delay:
energy needs the sweep's activity simulation on the mapped netlist (not built yet).
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

from accelgen.flow import time_design
from accelgen.nodes import scaling
from accelgen.registry import family
from accelgen.util import cache_dir

DESIGNS = [
    ("mac", {"a_width": 8, "b_width": 8, "acc_width": 24, "input_reg": True}),
    ("mac", {"a_width": 16, "b_width": 16, "acc_width": 40, "input_reg": True}),
    ("mac", {"a_width": 4, "b_width": 4, "acc_width": 12, "input_reg": True}),
    ("systolic", {"rows": 4, "cols": 4}),
    ("fan", {"n": 16}),
    ("tensordash_pe", {}),
]


def osu018_lib() -> Path:
    """``osu018_stdcells.lib`` from Debian's qflow-tech-osu018, downloaded once into the cache."""
    base = cache_dir("osu018")
    found = list(base.rglob("osu018_stdcells.lib"))
    if found:
        return found[0]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["apt-get", "download", "qflow-tech-osu018"], cwd=tmp, check=True, capture_output=True)
        deb = next(Path(tmp).glob("qflow-tech-osu018_*.deb"))
        subprocess.run(["dpkg", "-x", str(deb), str(base)], check=True)
    return next(base.rglob("osu018_stdcells.lib"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", type=Path, default=None, help="osu018_stdcells.lib (default: apt-get download)")
    ap.add_argument("--clock-mhz", type=float, default=200.0, help="target clock of both mappings (MHz at 180 nm)")
    args = ap.parse_args()
    lib = args.lib or osu018_lib()
    s = scaling(180)
    # the default library is mapped for the same clock in its own node's time: the 180 nm period / delay factor
    ref_clock = args.clock_mhz * s.delay
    print(f"osu018: {lib}\ndefault technology scaled to 180 nm: logic area x{s.logic_area:.2f}, delay x{s.delay:.2f}"
          f" (accelgen.nodes); mapped for {args.clock_mhz:g} MHz at 180 nm ({ref_clock:.0f} MHz at 45 nm)\n")
    head = f"{'design':<44} {'area um^2 ref->180':>18} {'osu018':>10} {'ratio':>6} {'delay ns ref->180':>18} " \
           f"{'osu018':>8} {'ratio':>6}"
    print(head)
    for name, kw in DESIGNS:
        fam = family(name)
        params = fam.validate(kw)
        ref = time_design(fam, params, clock_mhz=ref_clock)
        osu = time_design(fam, params, clock_mhz=args.clock_mhz, liberty=lib)
        area, delay = ref.area_um2 * s.logic_area, ref.delay_ns * s.delay
        label = f"{name} " + " ".join(f"{k}={v}" for k, v in kw.items())
        print(f"{label:<44} {area:>18.0f} {osu.area_um2:>10.0f} {osu.area_um2 / area:>6.2f} {delay:>18.2f} "
              f"{osu.delay_ns:>8.2f} {osu.delay_ns / delay:>6.2f}")


if __name__ == "__main__":
    main()
