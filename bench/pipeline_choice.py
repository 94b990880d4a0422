"""What ``pipeline: auto`` chooses on every shipped chip, against the rule it replaced (issue 50, item 5).

``auto`` takes, among the stage pairs whose fitted delay meets the clock, the one with the least energy per
operation (ties within 0.5%: least area, then fewest stages; :mod:`accelgen.ppa.pipelining`). The former rule took
the fewest stages meeting the clock (then the least area). For every unit of every shipped chip this prints the
stages each rule takes, their energy per operation (timed, glitches included, steady state, mapped for the clock:
the ``energy_pj`` of the estimate's candidates table) and the chip's TDP and area under each. The former rule's chip
is the same description with those stages given explicitly (``pipeline: {mul_stages, add_stages}``), so both
columns come from the same code and models.

    python bench/pipeline_choice.py [CHIP ...] [--json]
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
import warnings
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from accelgen import shipped
from accelgen.ppa import estimate


def fewest_stages(candidates: list[dict]) -> dict | None:
    """The former rule's pick: the fewest stages meeting the clock, then the least area, then the shortest delay
    (None when no option meets the clock: both rules keep the fastest)."""
    fits = [r for r in candidates if r["meets_clock"]]
    return min(fits, key=lambda r: (r["mul_stages"] + r["add_stages"], r["area_um2"], r["delay_ns"])) if fits else None


def with_stages(description: dict, path: str, row: dict, adders_only: bool) -> dict:
    """``description`` with the unit at ``path`` (``core.tensor_units[0]``) given ``row``'s stages."""
    d = copy.deepcopy(description)
    node = d
    for name, index in re.findall(r"(\w+)(?:\[(\d+)\])?", path):
        node = node[name] if index == "" else node[name][int(index)]
    node["pipeline"] = ({} if adders_only else {"mul_stages": row["mul_stages"]}) | {"add_stages": row["add_stages"]}
    return d


def chip_rows(name: str) -> list[dict]:
    """One row per compute unit of chip ``name``: both rules' stages and energy, and the chip under each."""
    description = yaml.safe_load(shipped.path("chips", name).read_text())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        now = _estimate(description)
        former = copy.deepcopy(description)
        picks = {}
        for c in now.pipelining:
            if c["mode"] != "auto":
                continue
            old = fewest_stages(c["candidates"])
            if old is not None:
                picks[c["component"]] = old
                former = with_stages(former, c["component"], old,
                                     adders_only=all(r["mul_stages"] == 0 for r in c["candidates"]))
        before = _estimate(former) if picks else now
    rows = []
    for c in now.pipelining:
        new = next((r for r in c["candidates"] if (r["mul_stages"], r["add_stages"]) ==
                    (c["mul_stages"], c["add_stages"])), None)
        old = picks.get(c["component"], new)
        rows.append({"chip": name, "unit": c["component"], "model": c["model"], "clock_mhz": now.clock_mhz,
                     "mode": c["mode"], "meets_clock": c["meets_clock"],
                     "meeting": sum(bool(r["meets_clock"]) for r in c["candidates"]),
                     "before": _stages(old, c), "after": _stages(new, c),
                     "energy_pj_before": old["energy_pj"] if old else None,
                     "energy_pj_after": new["energy_pj"] if new else None,
                     "latency_before": old["latency_cycles"] if old else c["latency_cycles"],
                     "latency_after": c["latency_cycles"],
                     "tdp_w_before": before.tdp_w, "tdp_w_after": now.tdp_w,
                     "area_mm2_before": before.area_mm2, "area_mm2_after": now.area_mm2})
    return rows


def _estimate(description: dict):
    """The estimate, a chip beyond the reticle included (the comparison is of its units; the die check is another
    matter, where the estimator has it)."""
    try:
        return estimate(description, check_reticle=False)
    except TypeError:   # an estimator without the die check
        return estimate(description)


def _fmt(v) -> str:
    return "-" if v is None else f"{v:.4g}" if isinstance(v, float) else str(v)


def _stages(row: dict | None, choice: dict) -> str:
    r = row or choice
    return f"{r['mul_stages']},{r['add_stages']}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("chips", nargs="*", help="shipped chip names (default: all)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args(argv)
    rows = [r for n in (args.chips or shipped.names("chips")) for r in chip_rows(n)]
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    head = ("chip", "unit", "model", "MHz", "m,a before", "m,a after", "meet", "pJ/op before", "pJ/op after",
            "+cyc before", "+cyc after", "TDP W before", "TDP W after", "mm^2 before", "mm^2 after")
    table = [head] + [tuple(_fmt(r[k]) for k in ("chip", "unit", "model", "clock_mhz", "before", "after", "meeting",
                                                  "energy_pj_before", "energy_pj_after", "latency_before",
                                                  "latency_after", "tdp_w_before", "tdp_w_after", "area_mm2_before",
                                                  "area_mm2_after")) for r in rows]
    widths = [max(len(t[i]) for t in table) for i in range(len(head))]
    for t in table:
        print("  ".join(v.ljust(w) for v, w in zip(t, widths)))


if __name__ == "__main__":
    main()
