"""The timed paths of a chip's component tree and the clock they allow (:func:`accelgen.ppa.estimate.estimate`'s
achievable clock): compute units at their pipelining, register files, memories' macro cycles and the wire one cycle
of a compute unit drives. The data bus and the NoC's links are pipelined to the clock and are not timed paths."""

from __future__ import annotations

import math

from .components import Component
from .process import TechNode

#: the words for each kind of timed path (:func:`timing_paths`)
PATH_WORDS = {"logic": "logic delay", "register_file": "register-file access", "memory_cycle": "memory macro cycle",
              "wire": "wire across the unit"}
#: timed paths kept in an estimate (slowest first)
TIMING_ROWS = 8


#: families whose operands and partial sums move one PE per cycle, by the parameters that count the PEs along a
#: side: the longest wire one of their cycles drives is one PE's side, not the array's (Kung, "Why systolic
#: architectures?", IEEE Computer 15(1), 1982: data flows between neighbouring cells only)
NEIGHBOUR_FAMILIES = {"systolic": ("rows", "cols")}


def wire_mm(node: Component) -> float:
    """The longest wire one cycle of a compute unit drives: across one instance of it (a Flex-DPE's distribution
    network and reduction tree, a reduction tree, a dot product span the unit), or one PE's side in an array whose
    data moves between neighbours only (:data:`NEIGHBOUR_FAMILIES`); the instance placed square."""
    side_mm = math.sqrt(max(node.area_um2_each, 0.0)) * 1e-3
    dims = NEIGHBOUR_FAMILIES.get(node.kind)
    if dims:
        side_mm /= max(int(node.params.get(d, 1)) for d in dims)
    return side_mm


def timing_paths(chip: Component, tech: TechNode) -> list[dict]:
    """Every timed path of ``chip``, slowest first: ``{"path", "kind", "delay_ns"}``.

    * ``logic``: a compute unit at its pipelining (its fitted delay), a router, the scalar core;
    * ``register_file``: a register file's access (a flip-flop array, :func:`accelgen.ppa.sram.dff_array`);
    * ``memory_cycle``: a memory's macro cycle time (an SRAM bank is its macro, :mod:`accelgen.ppa.sram`; a
      flip-flop memory's access): a memory is clocked at the chip's clock, one access per port per cycle, so the
      clock period is at least the macro's cycle time. Its access time may span several cycles (pipelined, its
      ``latency_cycles``); its cycle time may not;
    * ``wire``: the longest wire one cycle of a compute unit drives (:func:`wire_mm`), an optimally repeated
      semi-global wire (:meth:`accelgen.technology.TechNode.repeated_wire_delay_ps_per_mm`, Bakoglu 1990).
    The data bus and the NoC's links are not timed paths: they get pipeline flip-flops to fit a cycle
    (:func:`accelgen.ppa.components.wire_figures`)."""
    per_mm_ns = tech.repeated_wire_delay_ps_per_mm("semi_global") * 1e-3
    out = []
    for path, node in chip.walk():
        if node.kind == "wire" or node.children:
            continue
        if node.kind == "memory":
            if node.params.get("cycle_time_ns"):
                out.append({"path": path, "kind": "memory_cycle", "delay_ns": float(node.params["cycle_time_ns"])})
            continue
        if node.delay_ns:
            out.append({"path": path, "kind": "register_file" if node.kind == "regfile" else "logic",
                        "delay_ns": float(node.delay_ns)})
        if node.ops_per_cycle_each and node.area_um2_each:
            mm = wire_mm(node)
            out.append({"path": path, "kind": "wire", "delay_ns": mm * per_mm_ns, "length_mm": mm})
    return sorted(out, key=lambda t: -t["delay_ns"])


def timing(chip: Component, tech: TechNode) -> tuple[float, str, list[dict]]:
    """The clock ``chip``'s slowest timed path allows (MHz), that path and every path (:func:`timing_paths`)."""
    paths = timing_paths(chip, tech)
    if not paths or paths[0]["delay_ns"] <= 0:
        return float("inf"), "", paths
    return 1e3 / paths[0]["delay_ns"], paths[0]["path"], paths
