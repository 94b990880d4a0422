"""The estimator's choice of pipelining: for each compute unit, the least register stages that meet the clock.

Every generated block with arithmetic takes ``mul_stages`` (registers inside its multipliers) and
``add_stages`` (inside its adders), 0..3 each, and its fitted model takes them as inputs: the
model's ``delay_ns`` is the slowest stage of the pipelined netlist as synthesized, and its area
and energy include the pipeline registers (:mod:`accelgen.fit`). For a unit whose description
says ``pipeline: auto`` (the default) the estimator evaluates every stage combination the model
was fitted on and takes the *least pipelining* whose delay fits the clock period: the fewest
stages in total, then the smallest area, then the shortest delay. Explicit stages
(``pipeline: {mul_stages: 2, add_stages: 1}``) are taken as given. A unit that no combination
brings within the period keeps its fastest one and is reported as not meeting the clock, with
its best delay and the stages of that path.

``clock_mhz: auto`` asks for the fastest clock: every auto unit at its fastest combination sets
the achievable clock (with the components that are not pipelined this way: register files,
routers, the scalar core), and then each unit takes the least pipelining that still meets it.
NeuroMeter searches the clock too (Tang et al., HPCA 2021, abstract and sect. II: it "automatically searches for
the optimal clock rate" from a TOPS target, timing each component with an Elmore delay model and reporting the
cycle time per component, the slowest being the critical path).

The stages cost latency as well as area and energy: :func:`added_latency` gives the cycles they
add to one result of each family (the formulas of the generators' ``latency``), and the
performance models (:mod:`accelgen.ppa.mapping`) take the chosen stages.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field

import numpy as np

from ..params import SCHEMAS

STAGE_FIELDS = ("mul_stages", "add_stages")


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
    note: str = ""
    fastest: dict = field(default_factory=dict)   # {"mul_stages", "add_stages", "delay_ns"}: the fastest option
    #: the netlist costed: "speed" (mapped at the sweeps' 1 GHz) or "relaxed" (area recovered at the clock's slack,
    #: :mod:`accelgen.ppa.relaxed`), and the relaxed / 1 GHz ratio of each target it was costed with
    mapping: str = "speed"
    mapping_ratio: dict = field(default_factory=dict)

    @property
    def stages(self) -> dict:
        return {"mul_stages": self.mul_stages, "add_stages": self.add_stages}

    def to_dict(self) -> dict:
        return asdict(self)


def added_latency(family: str, params: dict, mul_stages: int, add_stages: int) -> int:
    """Cycles ``mul_stages`` / ``add_stages`` add to one result of ``family``: what its parameter schema
    declares (:meth:`accelgen.params.base.BlockParams.stage_latency`, the stage part of the generator's latency);
    0 for a family without a schema."""
    schema = SCHEMAS.get(family)
    return schema.stage_latency(params, mul_stages, add_stages) if schema is not None else 0


def stage_options(model) -> list[tuple[int, int]]:
    """The ``(mul_stages, add_stages)`` combinations ``model`` was fitted on (``[(0, 0)]`` without stage inputs)."""
    ranges = []
    for name in STAGE_FIELDS:
        info = model.inputs.get(name)
        lo, hi = (info.get("range") or [0, 0]) if info else (0, 0)
        ranges.append(range(int(lo), int(hi) + 1))
    return [(m, a) for m in ranges[0] for a in ranges[1]]


def _predict(model, target: str, inputs: dict, node_nm: float) -> np.ndarray:
    t = model[target]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # out-of-range inputs are reported once, by the final evaluation
        return np.asarray(t.predict(node_nm=node_nm, **{k: v for k, v in inputs.items() if k in t.inputs}),
                          dtype=float)


def evaluate_options(model, unit: Unit, node_nm: float, density: float) -> dict[str, np.ndarray]:
    """Delay, area and energy of every stage option of ``unit`` (arrays aligned with ``options``)."""
    options = stage_options(model)
    m = np.array([o[0] for o in options])
    a = np.array([o[1] for o in options])
    inputs = _inputs(model, unit, density, mul_stages=m, add_stages=a)
    out = {"options": options, "mul_stages": m, "add_stages": a}
    for target in ("delay_ns", "area_um2", "energy_pj"):
        out[target] = (np.broadcast_to(_predict(model, target, inputs, node_nm), m.shape) if target in model
                       else np.zeros(m.shape))
    return out


def _given(unit: Unit) -> dict | None:
    if unit.pipeline == "auto" or unit.pipeline is None:
        return None
    return {k: getattr(unit.pipeline, k, 0) for k in STAGE_FIELDS}


def _inputs(model, unit: Unit, density: float, **stages) -> dict:
    """The model inputs of ``unit`` at ``stages``, those the model takes."""
    return {k: v for k, v in {**unit.params, **stages, "dtype": unit.dtype, "density": density}.items()
            if k in model.inputs}


def _single(model, unit: Unit, node_nm: float, density: float, stages: dict) -> dict:
    inputs = _inputs(model, unit, density, **stages)
    return {t: float(_predict(model, t, inputs, node_nm)) if t in model else 0.0
            for t in ("delay_ns", "area_um2", "energy_pj")}


def choose(model, unit: Unit, node_nm: float, density: float, period_ns: float | None) -> Choice:
    """The pipelining of ``unit`` for a clock period (None: the fastest option); see the module docstring."""
    ev = evaluate_options(model, unit, node_nm, density)
    options = ev["options"]
    base = (ev["mul_stages"] == 0) & (ev["add_stages"] == 0)
    base_area = float(ev["area_um2"][base][0]) if base.any() else float(ev["area_um2"].min())
    base_energy = float(ev["energy_pj"][base][0]) if base.any() else float(ev["energy_pj"].min())
    quickest = int(np.argmin(ev["delay_ns"]))
    fastest = {"mul_stages": options[quickest][0], "add_stages": options[quickest][1],
               "delay_ns": float(ev["delay_ns"][quickest])}
    stage_inputs = [f for f in STAGE_FIELDS if f in model.inputs]
    given = _given(unit)
    note = ""
    if given is not None:
        mode = "given"
        m, a = given["mul_stages"], given["add_stages"]
        vals = _single(model, unit, node_nm, density, given)
        ignored = [f"{f}={given[f]}" for f in STAGE_FIELDS if given[f] and f not in model.inputs]
        if ignored:
            note = f"model {model.name} takes no {', '.join(ignored)}: costed unpipelined"
    elif not stage_inputs or len(options) == 1:
        mode, (m, a) = "fixed", options[0]
        vals = {t: float(ev[t][0]) for t in ("delay_ns", "area_um2", "energy_pj")}
        note = f"model {model.name} was fitted without pipelining options"
    else:
        mode = "auto"
        total = ev["mul_stages"] + ev["add_stages"]
        if period_ns is None:
            pick = quickest
        else:
            fits = np.flatnonzero(ev["delay_ns"] <= period_ns * (1 + 1e-9))
            if fits.size:
                pick = min(fits, key=lambda i: (total[i], ev["area_um2"][i], ev["delay_ns"][i]))
            else:
                pick = quickest
        m, a = options[pick]
        vals = {t: float(ev[t][pick]) for t in ("delay_ns", "area_um2", "energy_pj")}
    meets = None if period_ns is None else bool(vals["delay_ns"] <= period_ns * (1 + 1e-9))
    if meets is False:
        best = f"{fastest['delay_ns']:.3f} ns ({1e3 / fastest['delay_ns']:.0f} MHz) at mul_stages=" \
               f"{fastest['mul_stages']}, add_stages={fastest['add_stages']}"
        note = (f"{unit.path} ({model.name}) cannot meet {1e3 / period_ns:.0f} MHz at any supported pipelining: "
                f"its slowest stage is {best}" if mode == "auto" else
                f"{unit.path} ({model.name}) does not meet {1e3 / period_ns:.0f} MHz at the {mode} stages "
                f"(delay {vals['delay_ns']:.3f} ns; fastest option {best})") + (f"; {note}" if note else "")
    return Choice(component=unit.path, model=model.name, mode=mode, mul_stages=int(m), add_stages=int(a),
                  delay_ns=vals["delay_ns"], meets_clock=meets,
                  latency_cycles=added_latency(unit.family, unit.params, int(m), int(a)),
                  area_um2_cost=vals["area_um2"] - base_area, energy_pj_cost=vals["energy_pj"] - base_energy,
                  options=len(options), note=note, fastest=fastest)
