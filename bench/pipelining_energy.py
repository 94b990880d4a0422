"""What the pipelining rule costs: each shipped chip with its units at the least pipelining that meets the clock
(DESIGN's rule, what `accelgen estimate` does) against the same chip with each unit at the stages of least energy
per operation among those that meet the clock.

    python bench/pipelining_energy.py [CHIP ...]

Both are the fitted models' own figures (energy with the timed simulation's glitches, the clock network and the
pipeline registers); the second chip is the first with every auto-pipelined unit's ``pipeline:`` given
explicitly. Prints per unit the two choices and their energy per operation, then per chip the TDP and area of
both beside the published figure. Information for the least-stages rule's decision (docs/architecture.md); it
changes nothing in the estimator.
"""

from __future__ import annotations

import re
import sys
import warnings

import numpy as np

from accelgen import shipped
from accelgen.ppa import estimate
from accelgen.ppa.arch import load_arch
from accelgen.ppa.components import FittedCompute
from accelgen.ppa.estimate import compute_units
from accelgen.ppa.pipelining import evaluate_options
from accelgen.ppa.process import technology

_INDEXED = re.compile(r"^(\w+)\[(\d+)\]$")


def with_stages(arch, stages: dict[str, tuple[int, int]]):
    """``arch`` with the given ``(mul_stages, add_stages)`` per unit path (``core.tensor_units[0]``)."""
    data = arch.model_dump(mode="json", exclude_none=True)
    for path, (m, a) in stages.items():
        node = data
        for part in path.split(".")[:-1]:
            node = node[part]
        last = path.split(".")[-1]
        hit = _INDEXED.match(last)
        unit = node[hit.group(1)][int(hit.group(2))] if hit else node[last]
        unit["pipeline"] = {"mul_stages": m, "add_stages": a}
    return type(arch).model_validate(data)


def least_energy(arch, est) -> dict[str, dict]:
    """Per auto-pipelined unit: the estimate's stages and the stages of least energy that meet the clock."""
    tech, fc = technology(arch.node_nm), FittedCompute(arch.models)
    period = 1e3 / est.clock_mhz
    chosen = {c["component"]: c for c in est.pipelining if c["mode"] == "auto"}
    out = {}
    for unit in compute_units(arch.core):
        if unit.path not in chosen:
            continue
        model = fc.model(unit.family, unit.path, unit.dtype, unit.variant)
        ev = evaluate_options(model, unit, tech.node_nm, arch.density)
        fits = np.flatnonzero(ev["delay_ns"] <= period * (1 + 1e-9))
        if not fits.size:
            continue
        best = int(fits[np.argmin(ev["energy_pj"][fits])])
        least = ev["options"].index((chosen[unit.path]["mul_stages"], chosen[unit.path]["add_stages"]))
        out[unit.path] = {"least": ev["options"][least], "least_pj": float(ev["energy_pj"][least]),
                          "min_energy": ev["options"][best], "min_energy_pj": float(ev["energy_pj"][best])}
    return out


def main(names: list[str]) -> int:
    names = names or shipped.names("chips")
    rows = []
    for name in names:
        arch = load_arch(shipped.path("chips", name))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = estimate(arch)
            units = least_energy(arch, est)
            alt = estimate(with_stages(arch, {p: u["min_energy"] for p, u in units.items()})) if units else est
        for path, u in units.items():
            print(f"{name:15s} {path:22s} least {u['least']} {u['least_pj']:8.2f} pJ/op   "
                  f"least energy {u['min_energy']} {u['min_energy_pj']:8.2f} pJ/op")
        pub = arch.published.power.w if arch.published and arch.published.power else float("nan")
        kind = arch.published.power.kind if arch.published and arch.published.power else "-"
        rows.append((name, est.tdp_w, alt.tdp_w, est.area_mm2, alt.area_mm2, pub, kind))
    print()
    print(f"{'chip':15s} {'TDP least':>10s} {'TDP min-E':>10s} {'area least':>11s} {'area min-E':>11s}  published")
    for name, t0, t1, a0, a1, pub, kind in rows:
        print(f"{name:15s} {t0:9.3g}W {t1:9.3g}W {a0:9.1f}mm2 {a1:9.1f}mm2  {pub:g} W ({kind})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
