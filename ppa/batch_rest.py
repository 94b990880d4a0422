"""The parts of a chip-level design point beside its tensor units and its memory, as leaves of many points at once.

:func:`accelgen.ppa.batch.evaluate_batch` assembles the estimator's component tree (:mod:`accelgen.ppa.tree`) with
numpy arrays at its leaves; this module gives the leaves of the rest of the base description: per core the vector
unit and its register file and the scalar core; per chip the NoC and the off-chip and host interfaces. Each is the
estimator's own unit (:mod:`accelgen.ppa.units`). The analytical ones (the scalar core, the interfaces, the NoC's
routers and links, flits widened for each point's clock) are evaluated on the points' arrays, with each point's
node figures (:class:`accelgen.ppa.batch_keys.TechColumns`). Two are built once per distinct value of what they
depend on (:class:`accelgen.ppa.batch_keys.Keys`) and gathered, like the tensor units and the SRAM: the vector
lanes, a fitted model whose pipelining and mapping are chosen for each node and clock (a search over netlists,
:func:`accelgen.ppa.estimate.choose_netlist`), and the register file, the SRAM model's flip-flop array
(:func:`accelgen.ppa.sram.dff_array`, whose word count sets a mux tree's depth), on the lanes, the units and the
node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .arch import Arch, Chip, Core, NoC
from .batch_keys import Keys, gather, is_constant
from .components import ROUTER_PORTS, Component, FittedCompute, noc_flit_bits, noc_tree, router_figures
from .estimate import choose_netlist, compute_units, fitted_component, io_group, vector_regfile
from .process import technology
from .units.noc import noc_rows
from .units.params import ScalarCore
from .units.scalar import ScalarUnit

#: the clock (MHz) the vector lanes and register file are evaluated at; their dynamic power, per cycle, is every
#: clock's
_REF_MHZ = 1000.0


@dataclass(frozen=True)
class Rest:
    """The parts of a base description every point shares: its core beside the tensor units and the memory (the
    vector unit, its register file, the scalar core, the bus width), its NoC's topology and flits, its I/O, its
    supply and the operand density its units are costed at."""

    core: Optional[Core] = None     # None: a core of the tensor units and the memory alone
    noc: NoC = NoC()
    chip: Chip = Chip()
    vdd_v: Optional[float] = None
    density: float = 1.0

    @classmethod
    def of(cls, arch: Arch) -> "Rest":
        return cls(core=arch.core, noc=arch.chip.noc, chip=arch.chip, vdd_v=arch.vdd_v, density=arch.density)


def _per_ghz(comp: Component) -> tuple[float, float, float]:
    """Area, leakage and full-activity dynamic power per GHz (pJ per cycle) of a component tree."""
    return comp.area_um2, comp.leakage_mw, comp.dynamic_mw(_REF_MHZ)


def _leaf(name: str, kind: str, figures: tuple, *, count=1, ops_per_cycle: float = 0.0,
          activity_key: str = "") -> Component:
    """A leaf of the points' tree from ``(area_um2, leakage_mw, pJ per cycle)`` arrays of one instance."""
    area, leak, pj_per_cycle = figures
    return Component(name, kind, count=count, area_um2_each=area, leakage_mw_each=leak,
                     energy_pj={"cycle": pj_per_cycle}, actions_per_cycle={"cycle": 1.0},
                     ops_per_cycle_each=ops_per_cycle, activity_key=activity_key)


def vector_leaves(rest: Rest, fc: FittedCompute, keys: Keys, *, cols, units) -> list[Component]:
    """Per core: the vector unit's lanes and their register file (beside the tensor units in the execution units)."""
    core = rest.core
    if core is None or not core.vector_unit:
        return []
    unit = next(u for u in compute_units(core) if u.name == "vector_unit")
    # the points' own array when the lanes follow the columns: factorized once for every component
    lanes = cols if not core.vector_unit.lanes else np.full(keys.shape, float(core.vector_unit.lanes))

    def one_lane(node_nm, clock_mhz):
        # the lanes' pipelining and mapping follow the clock, as the estimator chooses them
        c = choose_netlist(fc.model(unit.family, unit.path, unit.dtype, unit.variant), unit, float(node_nm),
                           rest.density, 1e3 / float(clock_mhz))
        comp = fitted_component(fc, unit.family, {**unit.params, **c.stages}, technology(float(node_nm)),
                                unit.path, name=unit.name, count=1, actions_per_cycle=unit.actions_per_cycle,
                                ops_per_cycle=unit.ops_per_cycle, activity_key=unit.activity_key,
                                density=rest.density, traces=[], dtype=unit.dtype, variant=unit.variant,
                                mapping_ratio=c.mapping_ratio if c.mapping == "relaxed" else None)
        return _per_ghz(comp)

    lane = keys.per_distinct(one_lane, keys.node_nm, keys.clock_mhz)
    # the register file's default ports count the core's functional units: each tensor unit and the vector unit
    rf = keys.per_distinct(lambda ln, u, nd: _per_ghz(vector_regfile(core, int(ln), int(u) + 1,
                                                                      technology(float(nd)))),
                           lanes, units, keys.node_nm)
    return [_leaf("vector_unit", "mac", lane, count=lanes, ops_per_cycle=unit.ops_per_cycle, activity_key="vector"),
            _leaf("vector_regfile", "regfile", rf, activity_key="vector")]


def scalar_leaves(rest: Rest, keys: Keys) -> list[Component]:
    """Per core: the scalar core, if the base has one (the estimator's unit, on each point's node)."""
    if rest.core is None or not rest.core.scalar_unit:
        return []
    return [ScalarUnit(ScalarCore(), tech=keys.tech).component]


def io_leaves(rest: Rest, keys: Keys) -> Component:
    """Per chip: the off-chip and host interfaces (the estimator's, on each point's node and at its clock)."""
    return io_group(rest.chip, keys.tech, keys.clock_mhz)


def noc_leaves(rest: Rest, keys: Keys, *, tx, ty, cores, link_mm, topology=None) -> Component:
    """Per chip: the NoC's routers and links (:func:`accelgen.ppa.components.noc_tree`). ``topology``: each
    point's (default: the base's), as the DSE's Tx/Ty aliases choose a ring or a mesh; each topology's routers and
    links count on its own points only. The grid, the flits and the routers depend on the points' grid, clock and
    node alone: they are evaluated once per distinct (tx, ty, cores, clock, node) and gathered; the links are as long
    as each point's core side."""
    topology = np.broadcast_to(np.asarray(rest.noc.topology if topology is None else topology), keys.shape)
    if is_constant(topology):
        kinds, on_kind = [str(topology.ravel()[0])], {}
    else:   # each kind's points, from the topologies' codes (one pass over the points' strings)
        t_codes, (t_values,) = keys.codes(topology)
        t_values = [str(v) for v in np.atleast_1d(t_values)]
        kinds = [k for k in ROUTER_PORTS if k in t_values]
        on_kind = {k: (t_codes == t_values.index(k)).reshape(keys.shape) for k in kinds}
    codes, (d_tx, d_ty, d_cores, d_clock, d_node) = keys.codes(tx, ty, cores, keys.clock_mhz, keys.node_nm)
    distinct = (1,) if codes is None else (int(codes.max()) + 1,)
    d_tech = keys.tech_at(d_node)

    def to_points(value):
        return gather(np.broadcast_to(np.asarray(value, dtype=float), distinct), codes, keys.shape)

    net = Component("noc", "noc")
    for kind in kinds:
        d_rows = noc_rows(kind, d_tx, d_ty, d_cores)
        d_flit = noc_flit_bits(kind, d_tx, d_rows, rest.noc.flit_bits, rest.noc.bisection_gbps, d_clock)
        router = tuple(to_points(f) for f in router_figures(d_tech, ROUTER_PORTS[kind], d_flit))
        flit = to_points(d_flit)
        part = noc_tree(topology=kind, tx=tx, ty=to_points(d_rows), flit_bits=flit, link_mm=link_mm,
                        wire_tech=keys.tech, router=router)
        if len(kinds) > 1:
            for c in part.children:
                c.count = np.where(on_kind[kind], c.count, 0)
        net.add(*part.children)
    return net
