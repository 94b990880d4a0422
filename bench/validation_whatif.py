"""How far the unsourced or unconfirmed choices behind `accelgen validate-chips` move its errors (issue 21).

    python bench/validation_whatif.py [SCENARIO ...]

Each scenario changes one thing that no source read here settles, re-runs every shipped chip's validation and
prints the area and power errors beside the shipped ones. Nothing here changes the estimator or a description:
the scenarios are what-ifs, for deciding which source to look for next.

* ``library-28nm``: the 28 nm node as TSMC's 28HPC+ standard-cell library names it (``tcbn28hpcplusbwp30p140``
  under a ``9-track`` directory: a 140 nm poly pitch and 9 tracks, where the node table has the process's 117 nm
  CPP from WikiChip and an assumed 10 tracks). Which 28 nm library TPU v1 and SIGMA used is not published.
* ``diannao-sb-16``: DianNao's synapse buffer as 16 banks of 2 KB with 32 B ports, one per NFU row (its bank
  count is not in the abstract; the description has one 32 KB memory with a 512 B port).
* ``v4i-mxu-1-2``: TPU v4i's MXUs registered at one multiplier and two adder stages (``pipeline: {mul_stages: 1,
  add_stages: 2}``), where the grouped column's timed simulation measured half the energy of the unpipelined one
  (session 25). The estimator gives a unit the least pipelining that meets its clock (its design rule): none at v4i's
  1050 MHz; whether the MXU is pipelined is not published.

Session 25's ``ports-128B`` (every port wider than 128 B as fixed 128 B slices) is gone: the SRAM model builds
such ports of calibrated macros itself since session 26, their number chosen by its organization objective.

The node-table scenario edits the loaded table in this process only (``accelgen.technology.nodes``' cached loader) and
scales the fitted models with it.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import warnings

import yaml

import accelgen.fit.model as fit_model
from accelgen import shipped
from accelgen.technology import constants, nodes
from accelgen.ppa.arch import parse_arch
from accelgen.ppa.chips import summary, validate_chip


def _chips() -> dict[str, dict]:
    return {name: yaml.safe_load(shipped.path("chips", name).read_text()) for name in shipped.names("chips")}


def _rows(descriptions: dict[str, dict]) -> dict[str, dict]:
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, d in descriptions.items():
            if "area" in d.get("published", {}) and "power" in d.get("published", {}):
                out[name] = validate_chip(parse_arch(copy.deepcopy(d)))
    return out


@contextlib.contextmanager
def _node_table(edit):
    """The node table with ``edit(raw)`` applied, for the estimates made inside (models scaled by it too)."""
    raw_loader, tech_factor = nodes._raw, fit_model.tech_factor

    def edited():
        raw = copy.deepcopy(raw_loader())
        edit(raw)
        return raw

    def live(tech, node_nm, quantity):
        return tech_factor({**tech, "scaling": nodes.model_scaling(float(tech.get("node_nm", 45)))}, node_nm, quantity)

    def clear():
        for cached in (nodes.node_table, nodes.sources, constants._table):
            cached.cache_clear()

    nodes._raw, fit_model.tech_factor = edited, live
    clear()
    try:
        yield
    finally:
        nodes._raw, fit_model.tech_factor = raw_loader, tech_factor
        clear()


def _library_28nm(raw: dict) -> None:
    entry = raw["nodes"][28]
    entry["cpp_nm"] = {"value": 140, "kind": "published", "source": "tsmclib"}
    entry["track_height"] = {"value": 9, "kind": "published", "source": "tsmclib"}


def _diannao_sb(descriptions: dict[str, dict]) -> dict[str, dict]:
    out = copy.deepcopy(descriptions)
    mems = out["diannao"]["core"]["memories"]
    i = next(k for k, m in enumerate(mems) if m["name"] == "sb")
    mems[i] = {"name": "sb", "capacity_bytes": 2048, "block_bytes": 32, "banks": 1, "count": 16}
    return out


def _v4i_pipelined(descriptions: dict[str, dict]) -> dict[str, dict]:
    out = copy.deepcopy(descriptions)
    for tu in out["tpu_v4i"]["core"]["tensor_units"]:
        tu["pipeline"] = {"mul_stages": 1, "add_stages": 2}
    return out


def run(name: str, chips: dict[str, dict]) -> dict[str, dict]:
    if name == "library-28nm":
        with _node_table(_library_28nm):
            return _rows(chips)
    if name == "v4i-mxu-1-2":
        return _rows(_v4i_pipelined(chips))
    return _rows(_diannao_sb(chips))


SCENARIOS = ("library-28nm", "diannao-sb-16", "v4i-mxu-1-2")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenarios", nargs="*", help=f"any of {', '.join(SCENARIOS)} (default: all)")
    args = ap.parse_args(argv)
    unknown = [n for n in args.scenarios if n not in SCENARIOS]
    if unknown:
        ap.error(f"scenario: {unknown[0]!r} is not allowed; allowed: {', '.join(SCENARIOS)}")
    chips = _chips()
    base = _rows(chips)
    for name in args.scenarios or SCENARIOS:
        rows = run(name, chips)
        print(f"\n{name}: area / power error, shipped -> scenario")
        for chip, r in rows.items():
            b = base[chip]
            print(f"  {chip:15s} area {b['area']['error_pct']:+5.0f} -> {r['area']['error_pct']:+5.0f}%   "
                  f"power {b['power']['error_pct']:+5.0f} -> {r['power']['error_pct']:+5.0f}%")
        s0, s1 = summary(list(base.values())), summary(list(rows.values()))
        means = [f"{q} {s0[q]['mean_abs_error_pct']:.1f} -> {s1[q]['mean_abs_error_pct']:.1f}%"
                 for q in ("area", "power")]
        print(f"  mean |error|: {', '.join(means)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
