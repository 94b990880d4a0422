"""Technology descriptions: generic cells and toggles -> area, energy, leakage, delay.

The shipped description is ``fit/tech/generic45.yaml`` (NanGate 45 nm, every number
with its source in the file). :func:`costs` turns one measured design point
(cells by type, toggles per cycle by driving cell, flip-flops, logic depth) into

* ``area_um2``   = sum(count * area) over cells,
* ``leakage_uw`` = sum(count * leakage),
* ``energy_pj``  = (sum(toggles_per_cycle[kind] * energy[kind]) + flip_flops *
  clock_energy) / ops_per_cycle   (per operation),
* ``delay_ns``   = clk_to_q + setup + logic_depth * mean_gate_delay.

A Liberty file (:func:`liberty_tech`) gives the same description for the cells
ABC mapped to: area and ``cell_leakage_power`` per cell, the mean of the
``cell_rise``/``cell_fall`` table values (or ``intrinsic_rise``/``intrinsic_fall``) as the cell delay, and a switching
energy per toggle of ``0.5 * V^2 * (1 + fanout) * mean input capacitance``.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import numpy as np
import yaml

from ..errors import ConfigError

DEFAULT_TECH = "generic45"


def load_tech(name_or_path: str | Path = DEFAULT_TECH) -> dict:
    """A technology description: a shipped name (``generic45``) or a YAML file path."""
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml") and p.exists():
        text = p.read_text()
    else:
        res = resources.files("accelgen.fit") / "tech" / f"{name_or_path}.yaml"
        if not res.is_file():
            raise ConfigError([("tech", f"{str(name_or_path)!r} is neither a shipped technology "
                                        f"({DEFAULT_TECH}) nor a YAML file")])
        text = res.read_text()
    tech = yaml.safe_load(text)
    tech["scaling"] = {str(k): v for k, v in tech.get("scaling", {}).items()}
    return tech


def costs(tech: dict, cells_by_type: dict[str, int], flip_flops: int, logic_depth: int,
          toggles_per_cycle: dict[str, float] | None = None, ops_per_cycle: float | None = None) -> dict:
    """Area, leakage, delay (and energy per operation if toggles are given) of one design point."""
    cells = tech["cells"]
    missing = [t for t in cells_by_type if t not in cells]
    if missing:
        raise ConfigError([("cells", f"cell type {missing[0]!r} has no entry in technology {tech.get('name')!r}")])
    out = {
        "area_um2": float(sum(n * cells[t]["area_um2"] for t, n in cells_by_type.items())),
        "leakage_uw": float(sum(n * cells[t]["leakage_nw"] for t, n in cells_by_type.items())) / 1000.0,
        "delay_ns": (tech["clk_to_q_ps"] * (flip_flops > 0) + tech["setup_ps"] * (flip_flops > 0)
                     + logic_depth * tech["mean_gate_delay_ps"]) / 1000.0,
    }
    if toggles_per_cycle is not None and ops_per_cycle:
        fj = 0.0
        for kind, tog in toggles_per_cycle.items():
            per = cells.get(kind, {}).get("energy_fj", tech.get("toggle_energy_fj"))
            fj += tog * (tech["port_energy_fj"] if kind == "port" else per)
        fj += flip_flops * tech["clock_energy_fj"]
        out["energy_pj"] = fj / 1000.0 / ops_per_cycle
    return out


# --------------------------------------------------------------------------- Liberty

_CELL = re.compile(r"\bcell\s*\(\s*\"?([\w$]+)\"?\s*\)\s*\{")


def _block_end(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    raise ConfigError([("liberty", "unbalanced braces")])


def parse_liberty(path: str | Path) -> dict:
    """Cells of a Liberty file: ``{name: {area_um2, leakage_nw, delay_ps, input_cap_ff, is_ff}}``
    plus library ``vdd_v`` and units (leakage in nW, time in ps, capacitance in fF)."""
    try:
        text = re.sub(r"/\*.*?\*/", "", Path(path).read_text(), flags=re.S)
    except OSError as exc:
        raise ConfigError([("liberty", f"{str(path)!r} cannot be read: {exc.strerror}")]) from None

    def unit(attr, default, scale):
        m = re.search(rf"{attr}\s*:\s*\"?1?(\w+)\"?", text)
        return scale.get(m.group(1).lstrip("1"), 1.0) if m else default

    leak_scale = unit("leakage_power_unit", 1.0, {"nW": 1.0, "uW": 1e3, "mW": 1e6, "pW": 1e-3})
    time_scale = unit("time_unit", 1000.0, {"ns": 1000.0, "ps": 1.0, "us": 1e6})
    m = re.search(r"capacitive_load_unit\s*\(\s*([\d.]+)\s*,\s*(\w+)\s*\)", text)
    cap_scale = float(m.group(1)) * {"ff": 1.0, "pf": 1e3}.get(m.group(2).lower(), 1.0) if m else 1.0
    m = re.search(r"nom_voltage\s*:\s*([\d.]+)", text)
    vdd = float(m.group(1)) if m else 1.0
    cells = {}
    for cm in _CELL.finditer(text):
        body = text[cm.end():_block_end(text, cm.end() - 1)]
        area = re.search(r"\barea\s*:\s*([\d.eE+-]+)", body)
        leak = re.search(r"cell_leakage_power\s*:\s*([\d.eE+-]+)", body)
        caps = [float(x) for x in re.findall(r"\bcapacitance\s*:\s*([\d.eE+-]+)", body)]
        delays = [float(v) for grp in re.findall(r"cell_(?:rise|fall)\s*\([^)]*\)\s*\{(.*?)\}", body, re.S)
                  for v in re.findall(r"[\d.]+(?:[eE][+-]?\d+)?", " ".join(re.findall(r"values\s*\((.*?)\)", grp,
                                                                                          re.S)))]
        delays += [float(v) for v in re.findall(r"intrinsic_(?:rise|fall)\s*:\s*([\d.eE+-]+)", body)]
        cells[cm.group(1)] = {
            "area_um2": float(area.group(1)) if area else 0.0,
            "leakage_nw": float(leak.group(1)) * leak_scale if leak else 0.0,
            "input_cap_ff": (float(np.mean(caps)) * cap_scale) if caps else 0.0,
            "delay_ps": (float(np.mean(delays)) * time_scale) if delays else 0.0,
            "is_ff": bool(re.search(r"\bff\s*\(", body)),
        }
    if not cells:
        raise ConfigError([("liberty", f"{str(path)!r} defines no cells")])
    return {"vdd_v": vdd, "cells": cells}


def liberty_tech(path: str | Path, fanout: float = 2.0) -> dict:
    """A technology description (same keys as the YAML) built from a Liberty file."""
    lib = parse_liberty(path)
    cells, vdd = lib["cells"], lib["vdd_v"]
    cin = float(np.mean([c["input_cap_ff"] for c in cells.values() if c["input_cap_ff"] > 0] or [1.0]))
    comb = [c["delay_ps"] for c in cells.values() if not c["is_ff"] and c["delay_ps"] > 0]
    ffs = [c for c in cells.values() if c["is_ff"]]
    e_toggle = 0.5 * vdd ** 2 * (1 + fanout) * cin
    return {
        "name": f"liberty:{Path(path).name}",
        "node_nm": None,
        "vdd_v": vdd,
        "cells": {name: {"area_um2": c["area_um2"], "leakage_nw": c["leakage_nw"], "energy_fj": e_toggle,
                         "delay_ps": c["delay_ps"]} for name, c in cells.items()},
        "toggle_energy_fj": e_toggle,  # generic-netlist toggles of any cell kind
        "port_energy_fj": 0.5 * vdd ** 2 * fanout * cin,
        "clock_energy_fj": 2 * 0.5 * vdd ** 2 * cin,
        "clk_to_q_ps": float(np.mean([c["delay_ps"] for c in ffs])) if ffs else 0.0,
        "setup_ps": 0.0,
        "mean_gate_delay_ps": float(np.mean(comb)) if comb else 0.0,
        "scaling": {},
    }
