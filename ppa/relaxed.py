"""Mapping for the chip's clock: the area-recovered netlist of a unit whose clock leaves it slack.

Every sweep maps its points at 1 GHz in NanGate45 (``clock_mhz`` of ``fit/sweeps/*.yaml``), where ABC sizes the
paths for speed (``map -D``, ``upsize``/``dnsize`` at the period). A chip whose period leaves a unit slack is built
from the netlist mapped at its own clock, in which ABC recovers area: fewer, smaller cells, less leakage, less
switched capacitance, and a longer delay. Most shipped chips run at 150-280 MHz in NanGate45 terms (their period in
FO4 of their node); DianNao and ShiDianNao at 860-890 MHz.

``bench/relaxed_mapping.py`` maps representative points of each model (the shipped chips' configurations among
them) at 1 GHz and at 200 MHz through the sweep flow, and one of them also at 800, 500, 333 and 250 MHz. Per model
it stores (``ppa/data/relaxed_mapping.json``, data in ``ppa/data/relaxed_mapping.csv``; the measurements in
bench/RESULTS.md):

* ``ratio``: the geometric-mean ratio, 200 MHz over 1 GHz, of area, leakage, zero-delay energy, energy and delay
  (the full recovery: the integer units measured stop changing by 700 MHz, the fp32 MAC by 200 MHz);
* ``curve``: how much of that recovery the curve point reaches at each target, against its slack ``s`` = period
  / delay of its 1 GHz netlist.

A unit with slack ``s`` >= 1 at the chip's clock (its period over the fitted delay of its 1 GHz netlist at the
chip's node: ``s`` does not depend on the node) is costed with ``1 - f(s) (1 - ratio)`` of each fitted target,
``f`` interpolated in the curve (0 below its first point, 1 past its last), and its delay at most the period (it is
mapped to meet it). A unit without slack keeps its 1 GHz netlist: a relaxed mapping of a unit that cannot meet the
clock anyway recovers area (an fp32 MAC does) but lengthens a path that is already too long. A model without
measured ratios, or one a user fitted (``models: FILE``, mapped at whatever clock its sweep gave), keeps its
figures. A model fitted on a stimulus profile (``systolic-dnn``: the same hardware as ``systolic``, other operands)
takes its base model's ratios: the recovery is the netlist's (smaller cells, less capacitance), measured on the
base model's stimulus.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

import numpy as np

from ..fit.model import shipped_source
from ..operand_profiles import PROFILES

#: the file of measured ratios (the estimator's data)
FILE = "relaxed_mapping.json"
#: the targets a ratio is given for (the fitted models' targets). Not ``clock_energy_pj``: the measurements do not
#: separate the clock, and it keeps ratio 1 (:meth:`accelgen.ppa.perf_layers.PerfContext.action_energies_pj`: area
#: recovery does not touch the flip-flops, whose clock pins are most of the clock network)
TARGETS = ("area_um2", "leakage_uw", "energy_zero_delay_pj", "energy_pj", "delay_ns")


@cache
def _table() -> dict:
    path = resources.files("accelgen.ppa") / "data" / FILE
    return json.loads(path.read_text())["models"] if path.is_file() else {}


def measured(model: str) -> dict | None:
    """The measured entry of ``model`` (a model name such as ``systolic-bf16``, or its base model's for a model
    fitted on a stimulus profile: module docstring): ``ratio``, ``curve``, or None."""
    table = _table()
    return table.get(model, table.get(profile_base(model)))


def profile_base(model: str) -> str:
    """The model a stimulus-profile variant refits on other operands (``mac-dnn`` -> ``mac``, ``systolic-bf16_dnn``
    -> ``systolic-bf16``: :func:`accelgen.ppa.components.model_name` puts the profile last); other names unchanged."""
    for profile in PROFILES:
        for sep in ("-", "_"):
            if model.endswith(sep + profile):
                return model[: -len(profile) - 1]
    return model


def at_slack(model: str, slack: float) -> dict | None:
    """The relaxed / 1 GHz ratio of each target of a unit of ``model`` with ``slack`` (period / delay of its 1 GHz
    netlist), or None when the model has no measurement or the unit no slack (or none of its area recovery)."""
    got = at_slacks(model, np.asarray([slack], dtype=float))
    if got is None or not got[1][0]:
        return None
    return {t: float(v[0]) for t, v in got[0].items()}


def at_slacks(model: str, slack: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray] | None:
    """:func:`at_slack` over an array of slacks: the ratio of each target (1 where a unit keeps its 1 GHz netlist)
    and whether each is relaxed; None when the model has no measurement."""
    m = measured(model)
    if m is None:
        return None
    curve = m["curve"]
    share = {t: np.clip(np.interp(slack, curve["slack"], curve["recovery"][t], left=0.0, right=1.0), 0.0, 1.0)
             for t in TARGETS}
    relaxed = (slack >= 1.0) & (share["area_um2"] > 0)
    return {t: np.where(relaxed, 1.0 + share[t] * (float(m["ratio"][t]) - 1.0), 1.0) for t in TARGETS}, relaxed


def for_clock(model, delay_ns: float, period_ns: float | None) -> dict | None:
    """The ratios (:func:`at_slack`) a unit costed by ``model`` (a loaded fitted model) with ``delay_ns`` (its 1 GHz
    netlist at the chip's node) gets at ``period_ns`` (None: the fastest clock, no slack). Only the shipped models:
    the ratios were measured on their flow (NanGate45, 1 GHz)."""
    if period_ns is None or delay_ns <= 0 or model.source != shipped_source(model.name):
        return None
    return at_slack(model.name, period_ns / delay_ns)


def for_clocks(model, delay_ns: np.ndarray, period_ns: np.ndarray) -> dict:
    """:func:`for_clock` over arrays of delays and periods: each target's ratio, 1 where a unit keeps its 1 GHz
    netlist (a user's model, one without measurements, no slack)."""
    ones = {t: 1.0 for t in TARGETS}
    if model.source != shipped_source(model.name):
        return ones
    with np.errstate(divide="ignore", invalid="ignore"):
        slack = np.where(delay_ns > 0, period_ns / delay_ns, 0.0)
    got = at_slacks(model.name, slack)
    return ones if got is None else got[0]


def apply(vals: dict, ratio: dict, energy_target: str = "energy_pj") -> dict:
    """A unit's fitted values (``{target: value}``, ``energy_pj`` being its ``energy_target``) scaled to its relaxed
    netlist by ``ratio``."""
    return {k: v * ratio.get(energy_target if k == "energy_pj" else k, 1.0) for k, v in vals.items()}
