"""The chip's component tree assembled from its parts, written once for both estimators.

:func:`accelgen.ppa.estimate.estimate` builds it for one description (floats at its leaves) and
:func:`accelgen.ppa.batch.evaluate_batch` for many design points at once (numpy arrays at its leaves, one value per
point): the core of its execution units, its memories and its other blocks joined by the data bus, the chip of its
cores, NoC and I/O, the white space, the supply's factors and the totals. A :class:`~.components.Component` sums
its children whatever its leaves hold.
"""

from __future__ import annotations

import math

import numpy as np

from .components import Component, wire

#: Share of a die that its floorplan leaves to white space (channels, power grid, clock spines, decap and fill
#: between the placed blocks): the 21% of TPU v1's die that no labelled category covers (Jouppi et al., ISCA 2017,
#: Fig. 2 caption: data buffers 37%, compute 30%, I/O 10%, control 2%: 79% labelled). NeuroMeter (Tang et al.,
#: HPCA 2021, sect. II-C) uses the same percentage as white space for TPU-v1 ("the unknown components in TPU-v1
#: occupy ~21% of the chip area") and for TPU-v2 (~21% as well).
#: ``white_space_fraction: die`` applies it; it is the only white-space rule of the shipped chips.
DIE_WHITE_SPACE = 0.21
#: a core's central data bus is as wide as its widest unit edge, at most this many bits
MAX_BUS_BITS = 8192


def _scalar(*values) -> bool:
    return all(np.ndim(v) == 0 for v in values)


def assemble_core(execution_units: Component, memories: Component | None, others: list[Component], *, wire_tech,
                  widest_bits, bus_bits: int | None, clock_mhz) -> Component:
    """A core: its execution units, its memories and its other blocks (scalar core, die blocks), and the central
    data bus joining the memories and the execution units, as wide as the widest unit edge (at most
    :data:`MAX_BUS_BITS`) or ``bus_bits``, as long as the side of what it joins (``wire_tech``: the node's wires,
    or each point's)."""
    core = Component("core", "core")
    core.add(execution_units)
    if memories is not None:
        core.add(memories)
    core.add(*others)
    joined_mm2 = (execution_units.area_um2 + (memories.area_um2 if memories is not None else 0.0)) * 1e-6
    if _scalar(widest_bits, joined_mm2):
        bits, length_mm = bus_bits or min(widest_bits, MAX_BUS_BITS), math.sqrt(joined_mm2)
    else:
        bits, length_mm = bus_bits or np.minimum(widest_bits, MAX_BUS_BITS), np.sqrt(joined_mm2)
    core.add(wire("data_bus", wire_tech, bits=bits, length_mm=length_mm, clock_mhz=clock_mhz, activity_key="memory"))
    return core


def core_side_mm(core: Component):
    """The side of one of the chip's ``core.count`` cores (the NoC's links are as long)."""
    per_core_mm2 = core.area_um2 / core.count * 1e-6
    return np.sqrt(per_core_mm2) if np.ndim(per_core_mm2) else math.sqrt(per_core_mm2)


def assemble_chip(name: str, core: Component, cores, net: Component, io: Component) -> Component:
    """A chip of ``cores`` copies of ``core``, its NoC and its I/O (each left out when it has no parts)."""
    chip = Component(name, "chip")
    core.count = cores
    chip.add(core)
    if net.children:
        chip.add(net)
    if io.children:
        chip.add(io)
    return chip


def add_white_space(chip: Component, fraction) -> None:
    """Add the white space that makes ``fraction`` of the die (a number, or per point; none when 0)."""
    if np.ndim(fraction) or fraction:
        chip.add(Component("white_space", "white_space", area_um2_each=chip.area_um2 * fraction / (1 - fraction),
                           params={"fraction": fraction} if np.ndim(fraction) == 0 else {}))


def supply_factors(vdd_v, vnom_v):
    """Dynamic (``(V/Vnom)^2``) and leakage (``V/Vnom``) power factors of the supply ``vdd_v``."""
    ratio = vdd_v / vnom_v
    return ratio ** 2, ratio


def totals(chip: Component, clock_mhz, v_dyn=1.0, v_leak=1.0) -> dict:
    """The chip's area, TDP (full activity) and peak TOPS at ``clock_mhz`` and the supply's factors."""
    return {"area_mm2": chip.area_um2 * 1e-6,
            "tdp_w": (chip.dynamic_mw(clock_mhz) * v_dyn + chip.leakage_mw * v_leak) * 1e-3,
            "peak_tops": chip.ops_per_cycle * clock_mhz * 1e-6}
