"""The estimator's choice of pipelining: for each compute unit, the stages a designer would take at the clock.

Every generated block with arithmetic takes ``mul_stages`` (registers inside its multipliers) and
``add_stages`` (inside its adders), 0..3 each, and its fitted model takes them as inputs: the
model's ``delay_ns`` is the slowest stage of the pipelined netlist as synthesized, and its area
and energy are those of the whole netlist, the pipeline registers and their clock network included
(:mod:`accelgen.fit.power` charges every flip-flop's clock pin and the clock tree each cycle), with
the glitches its timed simulation sees: registers stop glitches from propagating, so the energy
per operation often *falls* with the stages (TPU v4i's grouped bf16 array at 1050 MHz: 3.2 pJ per
MAC unpipelined, glitch ratio 5.7, 1.5 pJ at three stages of each, glitch ratio 2.1).

For a unit whose description says ``pipeline: auto`` (the default) the estimator evaluates every
stage combination the model was fitted on and, among those whose delay fits the clock period,
takes the one with the **least energy per operation**; energies within :data:`TIE_TOLERANCE` of
the least are a tie, broken by the least area (again within the tolerance), then by the fewest
stages in total. The energy compared is the one the estimator costs at full activity: the timed
energy (glitches included, whatever ``activity.switching`` asks the estimate to cost: glitches are
what the stages change), per operation in steady state
(:func:`accelgen.ppa.components.steady_state_energy`), of the netlist mapped for the clock where
its slack allows (:mod:`accelgen.ppa.relaxed`), as is the area. A unit that no combination brings
within the period keeps its fastest one and is reported as not meeting the clock, with its best
delay and the stages of that path. Explicit stages (``pipeline: {mul_stages: 2, add_stages: 1}``)
are taken as given. :func:`option_table` and :func:`pick` are the rule, over one unit
(:func:`choose`) or many design points at once (:func:`choose_many`, the batch estimator's).

``clock_mhz: auto`` asks for the fastest clock: every auto unit at its fastest combination sets
the achievable clock (with the components that are not pipelined this way: register files,
routers, the scalar core), and then each unit takes its choice at that clock.
NeuroMeter searches the clock too (Tang et al., HPCA 2021, sect. I and II-A: it "automatically searches for
the optimal clock rate" from a TOPS target, timing each component with an Elmore delay model and reporting the
cycle time per component, the slowest being the critical path).

The stages cost latency as well: :func:`added_latency` gives the cycles they add to one result of
each family (the formulas of the generators' ``latency``), and the performance models
(:mod:`accelgen.ppa.mapping`) take the chosen stages.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field

import numpy as np

from ..params import SCHEMAS
from . import relaxed
from .components import steady_state_energy

STAGE_FIELDS = ("mul_stages", "add_stages")
#: Energies per operation within this fraction of the least are a tie (broken by area, areas within it by fewer
#: stages). Half the smallest held-out energy error of the shipped models with stage inputs (1.0% MAPE,
#: fit/models/adder_tree.json; area: 1.0%, tensordash_tile-fp16 1.1%): no fitted model resolves a smaller
#: difference (tests/ppa/test_pipelining.py holds it below every shipped model's).
TIE_TOLERANCE = 0.005
#: a delay meets the period within this relative rounding (float equality of a delay fitted to the period)
_MEETS = 1e-9


@dataclass(frozen=True)
class Unit:
    """A compute unit of a core whose cost comes from a fitted model."""

    path: str          # field path in the description: "core.tensor_units[0]"
    name: str          # component name in the breakdown: "tensor_unit0"
    family: str
    params: dict       # the model's inputs other than the stages and the density
    dtype: str
    pipeline: object   # "auto" or the given stages (a pydantic Stages / AddStages)
    count: int = 1                   # instances
    actions_per_cycle: float = 1.0   # model operations per instance per cycle at full activity
    ops_per_cycle: float = 0.0       # arithmetic ops (MAC = 2) per instance per cycle
    activity_key: str = "tensor"
    edge_bits: int = 0               # its widest data edge, for the core's data bus
    functional_units: int = 1        # what it counts for the vector register file's default ports
    extra: dict = field(default_factory=dict)   # breakdown params that are not model inputs
    variant: str = ""                # hardware variant of the family with its own model (model_name)


@dataclass
class Choice:
    """The pipelining of one unit and what it costs (``to_dict`` is the JSON of ``Estimate.pipelining``)."""

    component: str
    model: str
    mode: str                      # "auto", "given", or "fixed" (the model takes no stages)
    mul_stages: int = 0
    add_stages: int = 0
    delay_ns: float = 0.0
    meets_clock: bool | None = None
    latency_cycles: int = 0        # cycles the stages add to one result of the unit
    area_um2_cost: float = 0.0     # one instance, against the same unit unpipelined (synthesized cell area)
    energy_pj_cost: float = 0.0    # per operation, against the unpipelined unit
    options: int = 1               # stage combinations evaluated
    note: str = ""                 # why these stages (auto: the rule that chose them), or what is wrong
    fastest: dict = field(default_factory=dict)   # {"mul_stages", "add_stages", "delay_ns"}: the fastest option
    #: the netlist costed: "speed" (mapped at the sweeps' 1 GHz) or "relaxed" (area recovered at the clock's slack,
    #: :mod:`accelgen.ppa.relaxed`), and the relaxed / 1 GHz ratio of each target it was costed with
    mapping: str = "speed"
    mapping_ratio: dict = field(default_factory=dict)
    #: every option evaluated: its stages, ``delay_ns`` (1 GHz netlist), ``meets_clock``, and the ``energy_pj`` (per
    #: operation) and ``area_um2`` (one instance, cell area) compared (:func:`option_table`), ``latency_cycles``
    candidates: list = field(default_factory=list)

    @property
    def stages(self) -> dict:
        return {"mul_stages": self.mul_stages, "add_stages": self.add_stages}

    def to_dict(self) -> dict:
        return asdict(self)


def added_latency(family: str, params: dict, mul_stages: int, add_stages: int, dtype: str = "int") -> int:
    """Cycles ``mul_stages`` / ``add_stages`` add to one result of ``family``: what its parameter schema
    declares (:meth:`accelgen.params.base.BlockParams.stage_latency`, the stage part of the generator's latency);
    0 for a family without a schema. ``dtype`` is passed with ``params`` (a TensorDash PE's fused fp sum has no
    lane-tree term; ``summation`` too, when ``params`` has it)."""
    schema = SCHEMAS.get(family)
    return schema.stage_latency({"dtype": dtype, **params}, mul_stages, add_stages) if schema is not None else 0


def stage_options(model) -> list[tuple[int, int]]:
    """The ``(mul_stages, add_stages)`` combinations ``model`` was fitted on (``[(0, 0)]`` without stage inputs)."""
    ranges = []
    for name in STAGE_FIELDS:
        info = model.inputs.get(name)
        lo, hi = (info.get("range") or [0, 0]) if info else (0, 0)
        ranges.append(range(int(lo), int(hi) + 1))
    return [(m, a) for m in ranges[0] for a in ranges[1]]


def option_table(model, inputs: dict, node_nm, period_ns=None) -> dict:
    """Every stage option of ``model`` at ``inputs`` (its other inputs: scalars, or arrays of ``k`` design points,
    as ``node_nm`` and ``period_ns``): arrays of shape ``(options, k)`` of each fitted target (``delay_ns``,
    ``area_um2``, ``energy_pj``, ... as fitted: the 1 GHz netlist), ``ratio`` (each target's relaxed / 1 GHz ratio
    at the period, :func:`accelgen.ppa.relaxed.for_clocks`; 1 without a period), ``energy_steady`` (the timed
    energy per operation in steady state, 1 GHz netlist), ``energy_cmp`` and ``area_cmp`` (that energy and the area
    scaled by ``ratio``: what :func:`pick` compares), and
    ``options``, ``mul_stages``, ``add_stages``, ``stages`` (their sum) of shape ``(options, 1)``."""
    options = stage_options(model)
    n = len(options)
    k = max([np.size(v) for v in (*inputs.values(), node_nm, period_ns) if np.ndim(v) > 0] or [1])
    m = np.array([o[0] for o in options])
    a = np.array([o[1] for o in options])

    def flat(v):   # option-major: element o * k + j is option o at point j
        return np.tile(np.ravel(v), n) if np.ndim(v) > 0 else v

    flat_inputs = {name: flat(v) for name, v in inputs.items()
                   if name in model.inputs and name not in STAGE_FIELDS}
    flat_inputs.update({f: np.repeat(s, k) for f, s in zip(STAGE_FIELDS, (m, a)) if f in model.inputs})
    node = flat(node_nm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # out-of-range inputs are reported once, by the costing evaluation
        raw = {name: np.asarray(t.predict(node_nm=node, **{i: v for i, v in flat_inputs.items() if i in t.inputs}),
                                dtype=float) for name, t in model.targets.items()}
        steady = steady_state_energy(model, flat_inputs, node, "energy_pj")
    shape = (n, k)
    table = {name: np.broadcast_to(v, (n * k,)).reshape(shape) for name, v in raw.items()}
    for name in ("delay_ns", "area_um2", "energy_pj"):
        table.setdefault(name, np.zeros(shape))
    energy = table["energy_pj"] if steady is None else np.broadcast_to(steady[0], (n * k,)).reshape(shape)
    if period_ns is None:
        ratio = dict.fromkeys(relaxed.TARGETS, 1.0)
    else:
        period = np.broadcast_to(flat(period_ns), (n * k,)).reshape(shape)
        ratio = relaxed.for_clocks(model, table["delay_ns"], period)
    table.update(ratio=ratio, energy_steady=energy, energy_cmp=energy * ratio["energy_pj"],
                 area_cmp=table["area_um2"] * ratio["area_um2"], options=options, mul_stages=m[:, None],
                 add_stages=a[:, None], stages=(m + a)[:, None])
    return table


def pick(table: dict, period_ns=None) -> tuple[np.ndarray, np.ndarray]:
    """The chosen option of each design point of an :func:`option_table` (module docstring): among the options
    whose delay meets ``period_ns``, the least ``energy_cmp``, ties within :data:`TIE_TOLERANCE` broken by the least
    ``area_cmp`` (within it too), then by the fewest stages; the fastest option where none meets the period, or
    without a period. Returns ``(index, meets)``, arrays of shape ``(k,)``: the option's row and whether any option
    meets the period (all False without one)."""
    delay = table["delay_ns"]
    quickest = np.argmin(delay, axis=0)
    if period_ns is None:
        return quickest, np.zeros(delay.shape[1], dtype=bool)
    fits = delay <= np.asarray(period_ns, dtype=float).reshape(1, -1) * (1 + _MEETS)
    tied = fits
    for target in ("energy_cmp", "area_cmp"):
        v = table[target]
        least = np.min(np.where(tied, v, np.inf), axis=0, keepdims=True)
        tied = tied & (v <= least + TIE_TOLERANCE * np.abs(least))
    stages = np.broadcast_to(table["stages"], delay.shape)
    # np.lexsort: the last key is the primary one; options outside the tie sort last
    order = np.lexsort((table["area_cmp"], table["energy_cmp"], stages, ~tied), axis=0)
    meets = fits.any(axis=0)
    return np.where(meets, order[0], quickest), meets


def choose_many(model, inputs: dict, node_nm, period_ns) -> dict[str, np.ndarray]:
    """:func:`pick` for ``k`` design points at once (the batch estimator's units, all ``pipeline: auto``): per point
    the chosen option's fitted targets of its netlist as mapped for ``period_ns`` (the 1 GHz values scaled by
    ``ratio``; ``energy_pj`` in steady state, as :func:`accelgen.ppa.components.with_energy`), its
    ``mul_stages`` and ``add_stages``, and ``meets_clock``; arrays of shape ``(k,)``."""
    table = option_table(model, inputs, node_nm, period_ns)
    idx, meets = pick(table, period_ns)
    cols = np.arange(idx.size)
    out = {name: table[name][idx, cols] for name in model.targets}
    out["energy_pj"] = table["energy_steady"][idx, cols]
    ratio = table["ratio"]
    out = {name: v * (ratio[name][idx, cols] if np.ndim(ratio.get(name, 1.0)) == 2 else ratio.get(name, 1.0))
           for name, v in out.items()}
    return out | {"mul_stages": table["mul_stages"][idx, 0], "add_stages": table["add_stages"][idx, 0],
                  "meets_clock": meets}


def _given(unit: Unit) -> dict | None:
    if unit.pipeline == "auto" or unit.pipeline is None:
        return None
    return {k: getattr(unit.pipeline, k, 0) for k in STAGE_FIELDS}


def _inputs(model, unit: Unit, density: float) -> dict:
    """The model inputs of ``unit`` other than the stages, those the model takes."""
    return {k: v for k, v in {**unit.params, "dtype": unit.dtype, "density": density}.items() if k in model.inputs}


def _candidates(table: dict, unit: Unit, period_ns: float | None) -> list[dict]:
    rows = []
    for i, (m, a) in enumerate(table["options"]):
        d = float(table["delay_ns"][i, 0])
        rows.append({"mul_stages": m, "add_stages": a, "delay_ns": d,
                     "meets_clock": None if period_ns is None else bool(d <= period_ns * (1 + _MEETS)),
                     "energy_pj": float(table["energy_cmp"][i, 0]), "area_um2": float(table["area_cmp"][i, 0]),
                     "latency_cycles": added_latency(unit.family, unit.params, m, a, unit.dtype)})
    return rows


def _why(table: dict, pick_row: int, fits: list[int]) -> str:
    """The auto rule's reason for ``pick_row`` among the options ``fits`` that meet the clock, in words."""
    e = table["energy_cmp"][:, 0]
    why = (f"least energy/op among {len(fits)} settings meeting the clock ({e[pick_row]:.3g} pJ/op, glitches "
           f"included")
    lowest = min(fits, key=lambda r: e[r])
    if lowest != pick_row:
        why += (f"; within {TIE_TOLERANCE:.1%} of mul_stages={table['options'][lowest][0]}, add_stages="
                f"{table['options'][lowest][1]}'s {e[lowest]:.3g}, taken for its area or fewer stages")
    return why + ")"


def choose(model, unit: Unit, node_nm: float, density: float, period_ns: float | None) -> Choice:
    """The pipelining of ``unit`` for a clock period (None: the fastest option); see the module docstring."""
    table = option_table(model, _inputs(model, unit, density), node_nm, period_ns)
    options = table["options"]
    base = options.index((0, 0)) if (0, 0) in options else int(np.argmin(table["area_um2"][:, 0]))
    quickest = int(np.argmin(table["delay_ns"][:, 0]))
    fastest = {"mul_stages": options[quickest][0], "add_stages": options[quickest][1],
               "delay_ns": float(table["delay_ns"][quickest, 0])}
    stage_inputs = [f for f in STAGE_FIELDS if f in model.inputs]
    given = _given(unit)
    note = ""
    if given is not None:
        mode, (m, a) = "given", (given["mul_stages"], given["add_stages"])
        vals = _single(model, unit, node_nm, density, given)
        ignored = [f"{f}={given[f]}" for f in STAGE_FIELDS if given[f] and f not in model.inputs]
        if ignored:
            note = f"model {model.name} takes no {', '.join(ignored)}: costed unpipelined"
    elif not stage_inputs or len(options) == 1:
        mode, (m, a) = "fixed", options[0]
        vals = {t: float(table[t][0, 0]) for t in ("delay_ns", "area_um2", "energy_pj")}
        note = f"model {model.name} was fitted without pipelining options"
    else:
        mode = "auto"
        idx, any_meets = pick(table, period_ns)
        row = int(idx[0])
        m, a = options[row]
        vals = {t: float(table[t][row, 0]) for t in ("delay_ns", "area_um2", "energy_pj")}
        if any_meets[0]:
            note = _why(table, row, [int(r) for r in np.flatnonzero(table["delay_ns"][:, 0]
                                                                    <= period_ns * (1 + _MEETS))])
    meets = None if period_ns is None else bool(vals["delay_ns"] <= period_ns * (1 + _MEETS))
    if meets is False:
        best = f"{fastest['delay_ns']:.3f} ns ({1e3 / fastest['delay_ns']:.0f} MHz) at mul_stages=" \
               f"{fastest['mul_stages']}, add_stages={fastest['add_stages']}"
        note = (f"{unit.path} ({model.name}) cannot meet {1e3 / period_ns:.0f} MHz at any supported pipelining: "
                f"its slowest stage is {best}" if mode == "auto" else
                f"{unit.path} ({model.name}) does not meet {1e3 / period_ns:.0f} MHz at the {mode} stages "
                f"(delay {vals['delay_ns']:.3f} ns; fastest option {best})") + (f"; {note}" if note else "")
    return Choice(component=unit.path, model=model.name, mode=mode, mul_stages=int(m), add_stages=int(a),
                  delay_ns=vals["delay_ns"], meets_clock=meets,
                  latency_cycles=added_latency(unit.family, unit.params, int(m), int(a), unit.dtype),
                  area_um2_cost=vals["area_um2"] - float(table["area_um2"][base, 0]),
                  energy_pj_cost=vals["energy_pj"] - float(table["energy_pj"][base, 0]),
                  options=len(options), note=note, fastest=fastest,
                  candidates=_candidates(table, unit, period_ns) if len(options) > 1 else [])


def _single(model, unit: Unit, node_nm: float, density: float, stages: dict) -> dict:
    """Delay, area and energy (1 GHz netlist, as fitted) of ``unit`` at the given ``stages``."""
    inputs = {**_inputs(model, unit, density), **{k: v for k, v in stages.items() if k in model.inputs}}
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # out-of-range inputs are reported once, by the costing evaluation
        for t in ("delay_ns", "area_um2", "energy_pj"):
            out[t] = float(np.asarray(model[t].predict(node_nm=node_nm, **{k: v for k, v in inputs.items()
                                                                          if k in model[t].inputs}))) \
                if t in model else 0.0
    return out
