"""Vectorless (probabilistic) switching activity of a mapped netlist, as Design Compiler and OpenSTA compute it
without a simulation dump.

Method: Najm's transition density (F. N. Najm, "Transition density: a new measure of activity in digital circuits",
IEEE Trans. CAD 12(2), 1993, sect. III): every source net gets a static probability ``P`` (the fraction of time it
is 1) and a transition density ``D`` (toggles per clock cycle here); the combinational cells are visited in
topological order and, with their inputs taken as independent,

* ``P(y) = sum over input minterms m of f(m) * prod_i P(x_i = m_i)``;
* ``D(y) = sum_i P(dy/dx_i) * D(x_i)``, where ``dy/dx_i = f|x_i=1 XOR f|x_i=0`` is the Boolean difference (the
  probability that a toggle of ``x_i`` reaches ``y``).

Both come from the cell's truth table, enumerated once per cell type from the same Liberty function the gate
simulator evaluates (:class:`accelgen.fit.activity.GateSim`: cells have at most 5 inputs, a 64-bit word holds every
minterm). The propagation is zero-delay: no glitches (Najm's density counts them only with a delay model).

Sources, as DC's defaults for an unannotated design (``power_default_toggle_rate`` 0.1 of the clock,
``power_default_static_probability`` 0.5, applied to primary inputs (PWR-414) and to sequential cell outputs
(PWR-415); OpenSTA's ``set_power_activity -input`` does the same for inputs): every input port bit but the clock, and
every flip-flop output (an inverted output at ``1 - P``), take ``static_prob`` and ``toggle_rate``; a port of
``held`` is a constant (``D = 0``); constants are constants. The clock's own energy is the clock network's, charged
once per cycle (:func:`accelgen.fit.power.clock_network`), as in the simulated path.

The densities are per-net toggle counts per cycle, so :func:`measure_vectorless` weighs them with the same per-net
energies (:func:`accelgen.fit.power.net_energy`) as :meth:`GateSim.run` weighs simulated toggles, and returns a
record of :func:`accelgen.fit.measure.measure`'s shape (one activity entry, ``"vectorless"``; no glitch run).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigError
from ..util import cache_dir, canonical_json, module_digest, sha256_hex, write_atomic
from .activity import GateSim
from .liberty_read import read_power_library
from .mapping import OUTPUT_LOAD_FF, map_netlist, timing_of
from .measure import Design, measurement_key
from .power import clock_network, net_energy

#: DC's defaults for unannotated primary inputs and sequential outputs (``power_default_toggle_rate``: toggles per
#: period of the related clock; ``power_default_static_probability``), the semantics of a report without SAIF
DC_TOGGLE_RATE = 0.1
DC_STATIC_PROBABILITY = 0.5
#: a net that changes at most at each edge of a clock toggles at most twice per cycle: the upper bound of a rate
MAX_TOGGLE_RATE = 2.0
#: the clock input's own density (two edges per cycle); its nets' energy is the clock network's, not counted here
CLOCK_DENSITY = 2.0
#: cells with more inputs than this have a truth table wider than one 64-bit word (the library's have at most 5)
MAX_CELL_INPUTS = 6


@dataclass(frozen=True)
class Sources:
    """The activity of the sources: each input bit and flip-flop output at ``static_prob`` / ``toggle_rate``
    (toggles per cycle), the ports of ``held`` at a constant value."""

    toggle_rate: float = DC_TOGGLE_RATE
    static_prob: float = DC_STATIC_PROBABILITY
    held: dict[str, int] = field(default_factory=dict)
    #: ports of their own activity: name -> (static probability, toggle rate) of each of its bits
    ports: dict[str, tuple[float, float]] = field(default_factory=dict)

    def __post_init__(self):
        check_sources(self.toggle_rate, self.static_prob)
        for p, d in self.ports.values():
            check_sources(d, p)

    def describe(self) -> str:
        held = "".join(f", {k}={v} held" for k, v in sorted(self.held.items()))
        held += "".join(f", {k} at {d:g}/{p:g}" for k, (p, d) in sorted(self.ports.items()))
        return (f"vectorless: every input bit and flip-flop output at toggle rate {self.toggle_rate:g} per cycle and "
                f"static probability {self.static_prob:g}{held}, propagated through the logic (transition density, "
                "zero-delay: no glitches); the clock at one cycle per cycle")

    def to_dict(self) -> dict:
        return {"toggle_rate": self.toggle_rate, "static_prob": self.static_prob, "held": dict(sorted(self.held.items())),
                "ports": {k: list(v) for k, v in sorted(self.ports.items())}}


def check_sources(toggle_rate, static_prob) -> None:
    """One-line errors for a rate outside 0..:data:`MAX_TOGGLE_RATE` or a probability outside 0..1."""
    problems = []
    if isinstance(toggle_rate, bool) or not isinstance(toggle_rate, (int, float)) \
            or not 0 <= toggle_rate <= MAX_TOGGLE_RATE:
        problems.append(("--toggle-rate", f"{toggle_rate!r} is not allowed; expected toggles per clock cycle in "
                                          f"0..{MAX_TOGGLE_RATE:g}"))
    if isinstance(static_prob, bool) or not isinstance(static_prob, (int, float)) or not 0 <= static_prob <= 1:
        problems.append(("--static-prob", f"{static_prob!r} is not allowed; expected a probability in 0..1"))
    if problems:
        raise ConfigError(problems)


def truth_table(fn, n_inputs: int) -> np.ndarray:
    """The 0/1 outputs of a gate function (of a list of uint64 words, as :class:`GateSim` compiles them) for its
    ``2**n_inputs`` input minterms: input ``i`` of minterm ``m`` is bit ``i`` of ``m``."""
    if n_inputs > MAX_CELL_INPUTS:
        raise ValueError(f"a cell of {n_inputs} inputs; the truth-table propagation takes at most {MAX_CELL_INPUTS}")
    minterms = np.arange(1 << n_inputs, dtype=np.uint64)
    words = [np.bitwise_or.reduce(((minterms >> np.uint64(i)) & np.uint64(1)) << minterms) for i in range(n_inputs)]
    out = np.uint64(fn([np.uint64(w) for w in words]))
    return ((out >> minterms) & np.uint64(1)).astype(float)


def _gate_step(table: np.ndarray, ins: list[np.ndarray], prob: np.ndarray, dens: np.ndarray):
    """``(P, D)`` of the outputs of a group of gates of one truth table; ``ins[i]``: the nets at input ``i``."""
    k = len(ins)
    minterms = np.arange(1 << k)
    weight = np.ones((1 << k, len(ins[0]) if k else 1))
    for i, nets in enumerate(ins):
        bit = ((minterms >> i) & 1)[:, None].astype(bool)
        weight *= np.where(bit, prob[nets][None, :], 1.0 - prob[nets][None, :])
    p_out = table @ weight
    d_out = np.zeros_like(p_out)
    for i, nets in enumerate(ins):
        difference = np.abs(table - table[minterms ^ (1 << i)])     # 1 where toggling input i toggles the output
        d_out += (difference @ weight) * dens[nets]
    return p_out, d_out


def propagate(sim: GateSim, sources: Sources) -> tuple[np.ndarray, np.ndarray]:
    """Static probability and transition density (toggles per cycle) of every net of ``sim``'s netlist (indexed
    by net bit, virtual next-state nets included), from ``sources`` (module docstring)."""
    n = sim.n_nets
    prob, dens = np.zeros(n), np.zeros(n)
    prob[1] = 1.0                                   # net 0 is constant 0, net 1 constant 1
    for name, (direction, bits) in sim.ports.items():
        if direction != "input":
            continue
        for j, b in enumerate(bits):
            if b < 2:
                continue
            if name == "clk":
                prob[b], dens[b] = 0.5, CLOCK_DENSITY
            elif name in sources.held:
                prob[b], dens[b] = float((int(sources.held[name]) >> j) & 1), 0.0
            elif name in sources.ports:
                prob[b], dens[b] = sources.ports[name]
            else:
                prob[b], dens[b] = sources.static_prob, sources.toggle_rate
    prob[sim.q_idx] = np.where(sim.q_inv, 1.0 - sources.static_prob, sources.static_prob)
    dens[sim.q_idx] = sources.toggle_rate
    tables: dict[tuple[int, int], np.ndarray] = {}

    def table_of(fn, k):
        key = (id(fn), k)
        if key not in tables:
            tables[key] = truth_table(fn, k)
        return tables[key]

    for fn, ins, out, _ in sim.schedule:
        if fn is not None:
            prob[out], dens[out] = _gate_step(table_of(fn, len(ins)), ins, prob, dens)
            continue
        # a structural loop (GateSim settles it by iteration): its gates in turn until the figures stop moving
        for _ in range(len(ins) + 2):
            before = (prob.copy(), dens.copy())
            for gate_fn, gate_ins, gate_out in ins:
                p, d = _gate_step(table_of(gate_fn, len(gate_ins)), [np.array([x]) for x in gate_ins], prob, dens)
                prob[gate_out], dens[gate_out] = p[0], d[0]
            if np.allclose(before[0], prob) and np.allclose(before[1], dens):
                break
    return prob, dens


def activity_of(sim: GateSim, sources: Sources, weights: dict[str, np.ndarray]) -> dict:
    """The propagated toggles per cycle by driving cell type and the ``weights`` (per-net values of one toggle,
    e.g. its energy in fJ) summed over the nets: the shape of :meth:`GateSim.run`'s result."""
    _, dens = propagate(sim, sources)
    out = {"toggles_per_cycle": {k: float(dens[idx].sum()) for k, idx in sim.kind_masks.items()}}
    for name, w in weights.items():
        vec = np.pad(np.asarray(w, dtype=float), (0, max(0, sim.n_nets - len(w))))[:sim.n_nets]
        out[name] = float(dens @ vec)
    return out


def vectorless_key(design: Design, sources: Sources) -> str:
    """The content key of a vectorless measurement: the design's (without stimuli), the sources and this code."""
    return sha256_hex(canonical_json({"design": measurement_key(design), "sources": sources.to_dict(),
                                      "code": module_digest(sys.modules[__name__])}))[:32]


def measure_vectorless(design: Design, sources: Sources) -> dict:
    """Map, time and propagate ``design`` (its stimuli are not used): a record of the shape of
    :func:`accelgen.fit.measure.measure`'s, with one activity entry ``"vectorless"`` and no glitch run; cached
    under ``cache_dir("external")`` by :func:`vectorless_key`."""
    path = cache_dir("external") / f"vectorless-{vectorless_key(design, sources)}.json"
    if path.exists():
        return json.loads(path.read_text())
    top = design.top
    mapped = map_netlist(design.verilog, top, cells=design.cells, clock_mhz=design.clock_mhz, liberty=design.liberty)
    timing = timing_of(mapped)
    plib = read_power_library(mapped.library_path)
    energy = net_energy(mapped.netlist, top, plib, output_load_ff=OUTPUT_LOAD_FF)
    clock = clock_network(plib, energy.flip_flops, energy.clock_pin_ff, energy.clock_internal_fj, energy.area_um2)
    sim = GateSim(mapped.netlist, top, library=plib)
    unknown = sorted((set(sources.held) | set(sources.ports)) - {k for k, (d, _) in sim.ports.items() if d == "input"})
    if unknown:
        raise ConfigError([("--hold", f"{unknown[0]!r} is not an input port of {top}")])
    act = activity_of(sim, sources, {"switching_fj": energy.per_toggle_fj, "internal_fj": energy.internal_fj})
    record = {"mapped": {"library": mapped.library_name, "clock_mhz": mapped.clock_mhz,
                         "abc_script": mapped.abc_script, "area_um2": energy.area_um2, "leakage_nw": energy.leakage_nw,
                         "cells": timing.cells, "cells_by_type": energy.cells_by_type,
                         "flip_flops": energy.flip_flops, "delay_ns": timing.delay_ns, "logic_ns": timing.logic_ns,
                         "critical_path": {k: timing.critical_path[k] for k in ("start", "end", "cells")}},
              "clock": clock,
              "activity": {"vectorless": {**act, "ops_per_cycle": 1.0, "per": "cycle", "sources": sources.to_dict()}},
              "glitch": None}
    write_atomic(path, json.dumps(record))
    return record
