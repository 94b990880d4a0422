"""What a chip-level design point has beside its tensor units and its memory, for many points at once.

:func:`accelgen.ppa.batch.evaluate_batch` costs the tensor units and the SRAM of each core; this module costs the
rest of the chip the estimator builds (:func:`accelgen.ppa.estimate.estimate`): per core the vector unit and its
register file, the scalar core and the data bus that joins the units and the memory; per chip the NoC and the
off-chip and host interfaces. Each is the estimator's own component, evaluated once per distinct value of what it
depends on (:class:`accelgen.ppa.batch_keys.Keys`): the vector lanes on the node and the clock (their pipelining
and mapping), the register file on the lanes, the units and the node, the I/O and the scalar core on the node, the
router on the node and the flit width. Only the wires, whose lengths follow each point's area, are costed point by
point (vectorized, :func:`accelgen.ppa.components.wire_figures`, with the node's figures gathered per point).

Each function returns ``(area_um2, leakage_mw, dynamic_mw)`` arrays, dynamic power at full activity at the point's
clock; :func:`accelgen.ppa.batch.evaluate_batch` adds them up as the estimator's tree does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .arch import Arch, Chip, Core, NoC
from .components import (ROUTER_PORTS, WIRE_TRANSFERS_PER_CYCLE, FittedCompute, noc_flit_bits, noc_links,
                         router_area_um2, router_pj_per_bit, scalar_core, wire_figures)
from .batch_keys import Keys, is_constant
from .estimate import MAX_BUS_BITS, choose_netlist, compute_units, fitted_component, io_group, vector_regfile
from .process import technology

#: the clock (MHz) a component is evaluated at when its dynamic power is scaled to each point's clock afterwards
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


class _NodeColumns:
    """The wire figures of :class:`~accelgen.ppa.process.TechNode` with each point's node, for
    :func:`~accelgen.ppa.components.wire_figures` over points of several nodes at once."""

    def __init__(self, keys: Keys, kind: str):
        self.kind = kind
        (self._delay, self._pitch, self._energy, self.logic_area_factor) = keys.per_node(
            lambda t: (t.repeated_wire_delay_ps_per_mm(kind), t.wire_pitch_um(kind), t.wire_energy_pj_per_bit_mm(1.0),
                       t.logic_area_factor))

    def repeated_wire_delay_ps_per_mm(self, kind):
        return self._delay

    def wire_pitch_um(self, kind):
        return self._pitch

    def wire_energy_pj_per_bit_mm(self, activity):
        return self._energy


def _totals_per_ghz(comp) -> tuple[float, float, float]:
    """Area, leakage and full-activity dynamic power per GHz of a component tree."""
    return comp.area_um2, comp.leakage_mw, comp.dynamic_mw(_REF_MHZ)


def core_rest(rest: Rest, fc: FittedCompute, keys: Keys, *, cols, units) -> tuple[tuple, tuple]:
    """Per core: the vector unit with its register file (execution units, which the data bus joins) and the scalar
    core, each ``(area_um2, leakage_mw, dynamic_mw)``."""
    zero = (0.0, 0.0, 0.0)
    core = rest.core
    if core is None:
        return zero, zero
    f_ghz = keys.clock_mhz * 1e-3
    units_part, scalar = zero, zero
    if core.vector_unit:
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
            return _totals_per_ghz(comp)

        lane = keys.per_distinct(one_lane, keys.node_nm, keys.clock_mhz)
        # the register file's default ports count the core's functional units: each tensor unit and the vector unit
        rf = keys.per_distinct(lambda ln, u, nd: _totals_per_ghz(vector_regfile(core, int(ln), int(u) + 1,
                                                                                technology(float(nd)))),
                               lanes, units, keys.node_nm)
        units_part = (lanes * lane[0] + rf[0], lanes * lane[1] + rf[1], (lanes * lane[2] + rf[2]) * f_ghz)
    if core.scalar_unit:
        area, leak, dyn = keys.per_node(lambda t: _totals_per_ghz(scalar_core(t)))
        scalar = (area, leak, dyn * f_ghz)
    return units_part, scalar


def data_bus(rest: Rest, keys: Keys, *, edge_bits, joined_um2) -> tuple:
    """Per core: the bus joining the units and the memories, as wide as the widest unit edge (at most
    :data:`MAX_BUS_BITS`) or the description's ``bus_bits``, as long as the side of what it joins."""
    bits = np.minimum(edge_bits, MAX_BUS_BITS)
    if rest.core is not None and rest.core.bus_bits:
        bits = float(rest.core.bus_bits)
    f = wire_figures(_NodeColumns(keys, "semi_global"), bits=bits, length_mm=np.sqrt(joined_um2 * 1e-6),
                     clock_mhz=keys.clock_mhz, kind="semi_global")
    return f["area_um2"], 0.0, f["energy_pj"] * WIRE_TRANSFERS_PER_CYCLE * keys.clock_mhz * 1e-3


def noc_and_io(rest: Rest, keys: Keys, *, tx, ty, cores, core_um2, topology=None) -> tuple:
    """Per chip: the NoC (routers, and links as long as a core's side) and the off-chip and host interfaces.
    ``topology``: each point's (default: the base's), as the DSE's Tx/Ty aliases choose a ring or a mesh."""
    # the interfaces move their bandwidth whatever the clock: evaluated at one clock, their power is every clock's
    area, leak, dyn = keys.per_node(lambda t: _totals_per_ghz(io_group(rest.chip, t, _REF_MHZ)))
    topology = np.broadcast_to(np.asarray(rest.noc.topology if topology is None else topology), keys.shape)
    if is_constant(topology):
        noc = _noc(rest.noc, str(topology.ravel()[0]), keys, tx=tx, ty=ty, cores=cores, core_um2=core_um2)
    else:   # each topology's points on their own (the DSE's aliases: rings up to 4 cores, meshes beyond)
        noc = tuple(np.zeros(keys.shape) for _ in range(3))
        for kind in ROUTER_PORTS:
            at = topology == kind
            if np.any(at):
                part = _noc(rest.noc, kind, Keys(keys.node_nm[at], keys.clock_mhz[at]), tx=tx[at], ty=ty[at],
                            cores=cores[at], core_um2=core_um2[at])
                for total, p in zip(noc, part):
                    total[at] = p
    return area + noc[0], leak + noc[1], dyn + noc[2]


def _noc(nc: NoC, topology: str, keys: Keys, *, tx, ty, cores, core_um2) -> tuple:
    """The routers and links of every point as a NoC of ``topology`` (none where it has one core and no bus)."""
    ty = ty if topology == "mesh" else np.maximum(cores // tx, 1)
    n = tx * ty
    has = (n > 1) | (topology == "bus")
    if not np.any(has):
        return 0.0, 0.0, 0.0
    (flit,) = keys.per_distinct(lambda x, y, clk: (noc_flit_bits(topology, int(x), int(y), nc.flit_bits,
                                                                 nc.bisection_gbps, float(clk)),),
                                tx, ty, keys.clock_mhz)

    def router(node_nm, flit_bits):
        tech = technology(float(node_nm))
        each = router_area_um2(tech, ROUTER_PORTS[topology], int(flit_bits))
        return each, each * tech.logic_leak_uw_per_um2 * 1e-3, router_pj_per_bit(tech) * flit_bits

    r_area, r_leak, r_pj = keys.per_distinct(router, keys.node_nm, flit)
    link = wire_figures(_NodeColumns(keys, "global"), bits=flit,
                        length_mm=np.sqrt(core_um2 * 1e-6) * (n if topology == "bus" else 1), kind="global")
    links = noc_links(topology, tx, ty)
    noc = (n * r_area + links * link["area_um2"], n * r_leak,
           (n * r_pj + links * link["energy_pj"] * WIRE_TRANSFERS_PER_CYCLE) * keys.clock_mhz * 1e-3)
    if not np.all(has):
        noc = tuple(np.where(has, part, 0.0) for part in noc)
    return noc
