"""Technology descriptions: generic cells and toggles -> area, energy, leakage, delay.

The shipped description is ``fit/tech/generic45.yaml`` (NanGate 45 nm, every number
with its source in the file). :func:`costs` turns one measured design point
(cells by type, toggles per cycle by driving cell, flip-flops, logic depth) into

* ``area_um2``   = sum(count * area) over cells,
* ``leakage_uw`` = sum(count * leakage),
* ``energy_pj``  = (sum(toggles_per_cycle[kind] * energy[kind]) + flip_flops *
  clock_energy) / ops_per_cycle   (per operation),
* ``delay_ns``   = clk_to_q + setup + logic_depth * mean_gate_delay.

This is the generic flow's costing (``accelgen synth``'s generic statistics). The fitted models come from
the mapped flow instead: cells of a Liberty library, static timing and library energy
(:mod:`accelgen.fit.mapped`, :mod:`accelgen.fit.power`).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

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
