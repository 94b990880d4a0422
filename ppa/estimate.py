"""Chip-level estimate: the architecture tree, timing, peak TOPS, area, TDP, runtime power, breakdown.

``estimate(arch)`` (an :class:`~accelgen.ppa.arch.Arch`, a dict or a YAML path)
builds the tree chip -> cores -> core -> units from the description, with the
dependent resources filled in, evaluates every component at the technology
node, finds the achievable clock (the slowest timed path, :func:`accelgen.ppa.timing.timing_paths`: every
compute unit at its fastest pipelining, every memory's macro cycle time, the register files and the wire
one cycle of a compute unit drives) and the clock (given, ``auto`` = the
achievable one, or the one that meets ``target_tops``), gives each compute unit
its pipelining for that clock (:mod:`accelgen.ppa.pipelining`: the least energy per operation among the stages
that meet it;
``Estimate.pipelining`` lists the stages, their latency and their cost), and
returns an :class:`Estimate`.

Power: TDP = dynamic power at full activity (every component's energy per
action x actions per cycle x clock) + leakage; runtime power uses the
description's ``activity`` factors. Supply voltage other than the node's
nominal scales dynamic energy by (V/Vnom)^2 and leakage by V/Vnom.
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import ConfigError
from .arch import Arch, Chip, Core, RegisterFile, load_arch, parse_arch
from .components import Component, FittedCompute
from . import relaxed
from .pipelining import Choice, Unit, choose
from .process import STD_CELL_UTILIZATION, TechNode, technology
from .sram import check_die_area, die_area_problem
from .timing import PATH_WORDS, TIMING_ROWS, timing
from .tree import DIE_WHITE_SPACE, add_white_space, assemble_chip, assemble_core, core_side_mm, supply_factors
from .units import core_units, die_block_units
from .units.io import DramPhy, PCIe
from .units.memory import MemoryUnit
from .units.noc import NetworkOnChip, noc_rows
from .units.params import ScalarCore
from .units.scalar import ScalarUnit
from .units.vector import VectorRegisterFile


def fitted_component(fc: FittedCompute, family: str, params: dict, tech: TechNode, path: str, *, name: str,
                     count: int, actions_per_cycle: float, ops_per_cycle: float, activity_key: str, density: float,
                     traces: list, dtype: str = "int", variant: str = "", mapping_ratio: dict | None = None
                     ) -> Component:
    """A compute unit costed by its fitted model at ``params`` and ``density`` (its trace appended to ``traces``),
    scaled by ``mapping_ratio`` when it is mapped for its clock (:mod:`.relaxed`), its cell area placed."""
    vals, trace = fc.predict(family, {**params, "density": density}, tech.node_nm, path, dtype=dtype,
                             variant=variant)
    trace["component"] = path
    traces.append(trace)
    if mapping_ratio:   # the relaxed netlist (:mod:`.relaxed`): each target scaled by its measured ratio
        vals = relaxed.apply(vals, mapping_ratio, fc.energy_target(fc.model(family, path, dtype, variant), path))
        params = {**params, "mapping": "relaxed"}
    return fitted_leaf(name, family, vals, count=count, actions_per_cycle=actions_per_cycle,
                       ops_per_cycle=ops_per_cycle, activity_key=activity_key, params={**params, "dtype": dtype},
                       trace={"model": trace["model"], "model_file": trace["model_file"]})


def fitted_leaf(name: str, family: str, vals: dict, *, count, actions_per_cycle, ops_per_cycle, activity_key: str,
                params: dict | None = None, trace: dict | None = None) -> Component:
    """A compute unit's component from its fitted values (floats, or arrays of design points), its synthesized cell
    area placed (standard-cell utilization, the same for every chip)."""
    return Component(name, family, count=count, area_um2_each=vals.get("area_um2", 0.0) / STD_CELL_UTILIZATION,
                     leakage_mw_each=vals.get("leakage_uw", 0.0) * 1e-3,
                     energy_pj={"op": vals.get("energy_pj", 0.0)}, actions_per_cycle={"op": actions_per_cycle},
                     delay_ns=vals.get("delay_ns", 0.0), ops_per_cycle_each=ops_per_cycle,
                     activity_key=activity_key, params=params or {}, trace=trace or {})


def compute_units(core: Core, base: str = "core") -> list[Unit]:
    """The core's compute units costed by fitted models, in breakdown order (the vector unit last): each unit
    object's fitted-model spec (:func:`accelgen.ppa.units.core_units`)."""
    return [u.spec() for u in core_units(core, base)]


def memory_component(m, tech: TechNode, path: str, clock_mhz: float | None) -> Component:
    """One memory of a core (:class:`accelgen.ppa.units.memory.MemoryUnit`)."""
    return MemoryUnit(m, tech=tech, path=path, clock_mhz=clock_mhz).component


def vector_regfile(core: Core, lanes: int, functional_units: int, tech: TechNode) -> Component:
    """The vector unit's register file (:class:`accelgen.ppa.units.vector.VectorRegisterFile`)."""
    return VectorRegisterFile(core.vector_regfile or RegisterFile(), tech=tech, lanes=lanes,
                              lane_width=core.vector_unit.width, functional_units=functional_units).component


def build_core(core: Core, tech: TechNode, fc: FittedCompute, density: float, clock_mhz: float | None,
               traces: list, base: str = "core", stages: dict | None = None,
               mapping: dict | None = None) -> Component:
    """The core's component tree; ``stages`` maps a unit's path to its ``{"mul_stages", "add_stages"}``
    (:mod:`accelgen.ppa.pipelining`; a unit left out is unpipelined), ``mapping`` a relaxed unit's path to its
    ratios (:mod:`accelgen.ppa.relaxed`; a unit left out is costed as mapped at 1 GHz)."""
    eu = Component("execution_units", "group")
    widest = 1
    n_fu = 0
    stages = stages or {}
    for u in compute_units(core, base):
        comp = fitted_component(fc, u.family, {**u.params, **stages.get(u.path, {})}, tech, u.path, name=u.name,
                                count=u.count, actions_per_cycle=u.actions_per_cycle, ops_per_cycle=u.ops_per_cycle,
                                activity_key=u.activity_key, density=density, traces=traces, dtype=u.dtype,
                                variant=u.variant, mapping_ratio=(mapping or {}).get(u.path))
        comp.params.update(u.extra)
        eu.add(comp)
        widest = max(widest, u.edge_bits)
        n_fu += u.functional_units
    if core.vector_unit:
        lanes = eu.params["vector_lanes"] = eu.children[-1].count   # the vector unit is the last compute unit
        eu.add(vector_regfile(core, lanes, n_fu, tech))
    mem = None
    if core.memories:
        mem = Component("memories", "group")
        for i, m in enumerate(core.memories):
            mem.add(memory_component(m, tech, f"{base}.memories[{i}]", clock_mhz))
    others = [ScalarUnit(ScalarCore(), tech=tech).component] if core.scalar_unit else []
    # die blocks listed in core.units: beside the units, off the data bus
    others += [u.component for u in die_block_units(core, tech, clock_mhz, base)]
    return assemble_core(eu, mem, others, wire_tech=tech, widest_bits=widest, bus_bits=core.bus_bits,
                         clock_mhz=clock_mhz)


@dataclass
class Estimate:
    """The estimate of one accelerator; the description is kept beside the results (``inputs``)."""

    name: str
    node_nm: float
    vdd_v: float
    clock_mhz: float
    achievable_clock_mhz: float
    critical_component: str
    #: what limits the clock on the critical component's path (:data:`PATH_WORDS`)
    critical_path: str
    meets_timing: bool
    peak_tops: float
    area_mm2: float
    tdp_w: float
    leakage_w: float
    runtime_power_w: float | None
    breakdown: dict
    #: each compute unit's stages and what they cost (:class:`accelgen.ppa.pipelining.Choice`)
    pipelining: list = field(default_factory=list)
    compute_models: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    inputs: dict = field(default_factory=dict)
    #: the slowest timed paths at the fastest pipelining, slowest first (:func:`timing_paths`)
    timing_paths: list = field(default_factory=list)

    def to_dict(self) -> dict:
        d = asdict(self)
        lead = ["area_mm2", "tdp_w", "clock_mhz", "peak_tops", "breakdown"]
        return {k: d[k] for k in lead} | {k: v for k, v in d.items() if k not in lead}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, default=float)


def _tree_dict(node: Component, clock_mhz: float, v_dyn: float, v_leak: float, activity: dict | None) -> dict:
    dyn = node.dynamic_mw(clock_mhz) * v_dyn
    leak = node.leakage_mw * v_leak
    out = {"name": node.name, "kind": node.kind, "count": node.count, "area_mm2": node.area_um2 * 1e-6,
           "tdp_w": (dyn + leak) * 1e-3, "dynamic_w": dyn * 1e-3, "leakage_w": leak * 1e-3}
    if activity is not None:
        out["runtime_w"] = (node.dynamic_mw(clock_mhz, activity) * v_dyn + leak) * 1e-3
    if node.activity_key:
        out["activity_key"] = node.activity_key
    if node.delay_ns:
        out["delay_ns"] = node.delay_ns
        if node.kind == "memory":
            out["latency_cycles"] = math.ceil(node.params.get("access_time_ns", node.delay_ns) * clock_mhz / 1e3)
    if node.params:
        out["params"] = node.params
    if node.trace:
        out["trace"] = node.trace
    if node.children:
        out["children"] = [_tree_dict(c, clock_mhz, v_dyn, v_leak, activity) for c in node.children]
    return out


def noc_ty(arch: Arch) -> int:
    """The NoC's second dimension: the mesh's ``ty``; a ring or bus spans the cores (``cores / tx`` per row)."""
    nc = arch.chip.noc
    return noc_rows(nc.topology, nc.tx, nc.ty, arch.cores)


def _build_chip(arch: Arch, tech: TechNode, fc: FittedCompute, clock_mhz: float | None, traces: list,
                choices: dict[str, Choice] | None = None) -> Component:
    choices = choices or {}
    core = build_core(arch.core, tech, fc, arch.density, clock_mhz, traces,
                      stages={p: c.stages for p, c in choices.items()},
                      mapping={p: c.mapping_ratio for p, c in choices.items() if c.mapping == "relaxed"})
    core.count = arch.cores
    net = NetworkOnChip(arch.chip.noc, tech=tech, ty=noc_ty(arch), clock_mhz=clock_mhz,
                        link_mm=core_side_mm(core)).component
    return assemble_chip(arch.name, core, arch.cores, net, io_group(arch.chip, tech, clock_mhz))


def io_group(chip: Chip, tech: TechNode, clock_mhz: float | None) -> Component:
    """The chip's off-chip memory PHY and host interface, each moving its full bandwidth at full activity."""
    io = Component("io", "group")
    if chip.offchip:
        io.add(DramPhy(chip.offchip, tech=tech, clock_mhz=clock_mhz).component)
    if chip.host:
        io.add(PCIe(chip.host, tech=tech, clock_mhz=clock_mhz).component)
    return io


def choose_netlist(model, unit: Unit, node_nm: float, density: float, period_ns: float | None) -> Choice:
    """``unit``'s pipelining for ``period_ns`` (None: its fastest, :func:`.pipelining.choose`) and its netlist: the
    mapping for the clock where its slack allows (:mod:`.relaxed`; ``mapping_ratio`` then scales its fitted values,
    :func:`.relaxed.apply`)."""
    c = choose(model, unit, node_nm, density, period_ns)
    ratio = relaxed.for_clock(model, c.delay_ns, period_ns)
    if ratio is not None:   # mapped at the clock: it meets the period its 1 GHz netlist meets
        c.mapping, c.mapping_ratio = "relaxed", {**ratio, "delay_ns": min(ratio["delay_ns"], period_ns / c.delay_ns)}
        c.delay_ns *= c.mapping_ratio["delay_ns"]
    return c


def _pipelining(arch: Arch, tech: TechNode, fc: FittedCompute, period_ns: float | None) -> dict[str, Choice]:
    """Each compute unit's pipelining and netlist for ``period_ns`` (None: its fastest), by path."""
    return {u.path: choose_netlist(fc.model(u.family, u.path, u.dtype, u.variant), u, tech.node_nm, arch.density,
                                   period_ns)
            for u in compute_units(arch.core)}


def check_die(chip: Component, arch: Arch, area_mm2: float) -> None:
    """Refuse a memory instance or a chip larger than one die can hold (:func:`accelgen.ppa.sram.check_die_area`)."""
    mems = [n for _, n in chip.walk() if n.kind == "memory"]
    for i, (m, node) in enumerate(zip(arch.core.memories, mems)):
        check_die_area(node.area_um2_each * 1e-6, f"core.memories[{i}].capacity_bytes", m.capacity_bytes,
                       f"memory {m.name!r} ({node.params.get('banks', 1)} bank(s))")
    why = die_area_problem(area_mm2, f"chip {arch.name!r} ({arch.cores} core(s))")
    if why is not None:
        # the whole description is the problem, not one field: no path, the limit and what shrinks the chip
        raise ConfigError([("", f"{why}; allowed: a chip within the limit (fewer cores, smaller units or memories)")])


def estimate(arch, *, model_paths: dict[str, str] | None = None, check_reticle: bool = True) -> Estimate:
    """Estimate ``arch`` (an :class:`Arch`, a dict, or a path to a YAML description). A memory or a chip larger than
    one die can hold is refused (:func:`check_die`) unless ``check_reticle`` is False (sizing a design by
    bisection, which asks for the area of candidates it will not build)."""
    if isinstance(arch, (str, Path)):
        arch = load_arch(arch)
    elif isinstance(arch, dict):
        arch = parse_arch(arch)
    tech = technology(arch.node_nm)
    fc = FittedCompute({**arch.models, **(model_paths or {})}, switching=arch.switching, profile=arch.profile)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traces: list = []
        # every unit at its fastest pipelining: the fastest clock the chip reaches, and the ops per cycle
        fastest = _pipelining(arch, tech, fc, None)
        probe = _build_chip(arch, tech, fc, None, traces, fastest)
        fmax, critical, paths = timing(probe, tech)
        ops = probe.ops_per_cycle
        if arch.clock_mhz == "auto":
            if not math.isfinite(fmax):
                raise ConfigError([("clock_mhz", "'auto' needs a component with a delay; none of this "
                                                 "description's components limits the clock")])
            clock = fmax
        elif arch.clock_mhz is not None:
            clock = arch.clock_mhz
        else:
            if ops <= 0:
                raise ConfigError([("target_tops", "the description has no unit that counts operations "
                                                   "(tensor units, Flex-DPEs, TensorDash PEs or a vector unit)")])
            clock = arch.target_tops * 1e6 / ops
            if clock > fmax:
                raise ConfigError([("target_tops", f"{arch.target_tops:g} TOPS needs {clock:.0f} MHz but "
                                                   f"{critical} limits the clock to {fmax:.0f} MHz at any "
                                                   f"pipelining (peak at that clock: {ops * fmax * 1e-6:.3g} TOPS)")])
        chosen = _pipelining(arch, tech, fc, 1e3 / clock)
        traces = []
        chip = _build_chip(arch, tech, fc, clock, traces, chosen)
        f_chosen, critical_chosen, paths_chosen = timing(chip, tech)
    msgs = list(dict.fromkeys(str(w.message) for w in caught))   # each chip build warns again
    msgs += [c.note for c in chosen.values() if c.meets_clock is False]
    meets = clock <= f_chosen * (1 + 1e-9)
    if not meets:
        slow = [t for t in paths_chosen if t["delay_ns"] * clock > 1e3 * (1 + 1e-9)]
        msgs.append(f"clock_mhz {clock:g} exceeds the achievable {f_chosen:.0f} MHz ({critical_chosen}, "
                    f"{PATH_WORDS[paths_chosen[0]['kind']]} {paths_chosen[0]['delay_ns']:.3f} ns); "
                    f"{len(slow)} path(s) slower than the clock"
                    + ("; a memory's macro cycle shortens with more banks (smaller macros)"
                       if any(t["kind"] == "memory_cycle" for t in slow) else ""))
    for m in msgs:
        warnings.warn(m, UserWarning, stacklevel=2)
    add_white_space(chip, DIE_WHITE_SPACE if arch.chip.white_space_fraction == "die"
                    else arch.chip.white_space_fraction)
    vdd = arch.vdd_v or tech.vdd_v
    v_dyn, v_leak = supply_factors(vdd, tech.vdd_v)
    act = arch.activity.factors() if arch.activity else None
    tree = _tree_dict(chip, clock, v_dyn, v_leak, act)
    if check_reticle:
        check_die(chip, arch, tree["area_mm2"])
    if arch.chip.die_budget_mm2 and tree["area_mm2"] > arch.chip.die_budget_mm2:
        raise ConfigError([("chip.die_budget_mm2", f"the design needs {tree['area_mm2']:.1f} mm^2, more than the "
                                                   f"budget of {arch.chip.die_budget_mm2:g} mm^2")])
    return Estimate(name=arch.name, node_nm=arch.node_nm, vdd_v=vdd, clock_mhz=clock,
                    achievable_clock_mhz=fmax, critical_component=critical,
                    critical_path=PATH_WORDS[paths[0]["kind"]] if paths else "", timing_paths=paths[:TIMING_ROWS],
                    meets_timing=meets,
                    peak_tops=chip.ops_per_cycle * clock * 1e-6, area_mm2=tree["area_mm2"], tdp_w=tree["tdp_w"],
                    leakage_w=tree["leakage_w"], runtime_power_w=tree.get("runtime_w"), breakdown=tree,
                    pipelining=[c.to_dict() for c in chosen.values()],
                    compute_models=traces, warnings=msgs, inputs=arch.model_dump(mode="json"))


def walk(tree: dict, mult: float = 1.0, path: str = ""):
    """``(path relative to the root, node, multiplier)`` below ``tree``: a node's figures times the multiplier are
    its total on the chip (the counts of its ancestors; its own count is already in its figures)."""
    for c in tree.get("children", []):
        p = f"{path}/{c['name']}" if path else c["name"]
        yield p, c, mult
        yield from walk(c, mult * c.get("count", 1), p)


def dynamic_w_by_activity(tree: dict) -> dict[str, float]:
    """Full-activity dynamic power of the chip's leaf components, summed by their activity key."""
    out: dict[str, float] = {}
    for _, node, m in walk(tree):
        k = node.get("activity_key")
        if k and not node.get("children"):
            out[k] = out.get(k, 0.0) + node["dynamic_w"] * m
    return out


def flatten(tree: dict, depth: int = 0):
    """Rows ``(depth, node)`` of a breakdown tree, depth-first (for tables)."""
    yield depth, tree
    for c in tree.get("children", []):
        yield from flatten(c, depth + 1)
