"""Vectorless switching activity of a mapped netlist, as Design Compiler and OpenSTA compute it without a
simulation dump: sources at a default rate, their activity carried through the combinational logic.

Sources, as DC's defaults for an unannotated design (``power_default_toggle_rate`` 0.1 of the clock,
``power_default_static_probability`` 0.5, applied to primary inputs (PWR-414) and to sequential cell outputs
(PWR-415); OpenSTA's ``set_power_activity -input`` does the same for inputs): every input port bit but the clock, and
every flip-flop output (an inverted output at ``1 - P``), take a static probability ``P`` (``static_prob``, the
fraction of time at 1) and a density ``D`` (``toggle_rate``, toggles per clock cycle); a ``held`` port is a constant;
constants are constants. The clock's energy is the clock network's, charged once per cycle
(:func:`accelgen.fit.power.clock_network`), as in the simulated path.

Two propagations (``Sources.propagation``), both zero-delay (no glitches):

* ``"simulation"`` (the default; :func:`simulate_sources`): DC's, whose report says "Propagating switching activity
  (low effort zero delay simulation)" (PWR-6): the sources are independent random streams at ``P`` and ``D``, and the
  logic is evaluated from them cycle by cycle (bit-parallel, :meth:`GateSim.evaluate`), so reconvergent paths keep
  their correlation.
* ``"density"`` (:func:`propagate`): Najm's transition density (F. N. Najm, "Transition density: a new measure of
  activity in digital circuits", IEEE Trans. CAD 12(2), 1993, sect. III), the probabilistic propagation OpenSTA
  uses: the cells in topological order, inputs taken as independent, ``P(y) = sum over input minterms m of f(m) *
  prod_i P(x_i = m_i)`` and ``D(y) = sum_i P(dy/dx_i) * D(x_i)``, ``dy/dx_i = f|x_i=1 XOR f|x_i=0`` the Boolean
  difference, from the cell's truth table (enumerated once per cell type from the Liberty function the gate
  simulator evaluates; a 64-bit word holds every minterm of a cell of up to 6 inputs). Exact on a tree; on
  reconvergent XOR logic (multipliers, adders) independence over-counts: a 9x9 MAC's switching energy comes out
  3.4x the simulated propagation's.

Either gives toggles per cycle of every net, weighed with the same per-net energies
(:func:`accelgen.fit.power.net_energy`) as :meth:`GateSim.run` weighs simulated toggles; :func:`measure_vectorless`
returns a record of :func:`accelgen.fit.measure.measure`'s shape (one activity entry, ``"vectorless"``, no glitch run).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigError
from ..util import cache_dir, canonical_json, module_digest, sha256_hex, write_atomic
from .activity import LANES, ONES, GateSim
from .measure import Design, map_design, measurement_key
from .netlist import module_of

#: DC's defaults for unannotated primary inputs and sequential outputs (``power_default_toggle_rate``: toggles per
#: period of the related clock; ``power_default_static_probability``), the semantics of a report without SAIF
DC_TOGGLE_RATE = 0.1
DC_STATIC_PROBABILITY = 0.5
#: a net that changes at most at each edge of a clock toggles at most twice per cycle: the upper bound of a rate
MAX_TOGGLE_RATE = 2.0
#: the clock input's own density (two edges per cycle); its nets' energy is the clock network's, not counted here
CLOCK_DENSITY = 2.0
#: the propagations :class:`Sources` may ask for
PROPAGATIONS = ("simulation", "density")
#: cycles of :func:`simulate_sources` (x 64 lanes: 25,600 samples of each net, a rate of 0.1 to about +-2%)
SOURCE_CYCLES = 400
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
    #: how the sources' activity reaches the logic: "simulation" (:func:`simulate_sources`, DC's low-effort zero-delay
    #: simulation) or "density" (:func:`propagate`, Najm's transition density with independent inputs, OpenSTA's)
    propagation: str = "simulation"

    def __post_init__(self):
        check_sources(self.toggle_rate, self.static_prob)
        for p, d in self.ports.values():
            check_sources(d, p)
        if self.propagation not in PROPAGATIONS:
            raise ConfigError([("--propagation", (f"{self.propagation!r} is not allowed; expected one of "
                                                 f"{', '.join(PROPAGATIONS)}"))])

    def describe(self) -> str:
        held = "".join(f", {k}={v} held" for k, v in sorted(self.held.items()))
        held += "".join(f", {k} at {d:g}/{p:g}" for k, (p, d) in sorted(self.ports.items()))
        how = ("a zero-delay simulation of independent random sources, DC's low effort" if self.propagation ==
               "simulation" else "transition densities with independent inputs (Najm), OpenSTA's")
        return (f"vectorless: every input bit and flip-flop output at toggle rate {self.toggle_rate:g} per cycle and "
                f"static probability {self.static_prob:g}{held}, propagated through the logic by {how} (no "
                "glitches); the clock at one cycle per cycle")

    def to_dict(self) -> dict:
        return {"toggle_rate": self.toggle_rate, "static_prob": self.static_prob, "held": dict(sorted(self.held.items())),
                "ports": {k: list(v) for k, v in sorted(self.ports.items())}, "propagation": self.propagation}


def check_sources(toggle_rate, static_prob) -> None:
    """One-line errors for a rate outside 0..:data:`MAX_TOGGLE_RATE` or a probability outside 0..1."""
    problems = []
    if isinstance(toggle_rate, bool) or not isinstance(toggle_rate, (int, float)) \
            or not 0 <= toggle_rate <= MAX_TOGGLE_RATE:
        problems.append(("--toggle-rate", (f"{toggle_rate!r} is not allowed; expected toggles per clock cycle in "
                                          f"0..{MAX_TOGGLE_RATE:g}")))
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


def simulate_sources(sim: GateSim, sources: Sources, weights: dict[str, np.ndarray], *, cycles: int = SOURCE_CYCLES,
                     seed: int = 1) -> dict:
    """:func:`source_densities` weighed as :func:`activity_of` weighs :func:`propagate`'s densities."""
    dens = source_densities(sim, sources, cycles=cycles, seed=seed)
    out = {"toggles_per_cycle": {k: float(dens[idx].sum()) for k, idx in sim.kind_masks.items()}}
    for name, w in weights.items():
        out[name] = float(dens @ np.pad(np.asarray(w, dtype=float), (0, max(0, sim.n_nets - len(w))))[:sim.n_nets])
    return out


def source_densities(sim: GateSim, sources: Sources, *, cycles: int = SOURCE_CYCLES, seed: int = 1) -> np.ndarray:
    """The same sources, propagated by a zero-delay simulation instead of probabilities (DC's "low effort zero delay
    simulation", PWR-6): each source bit (input bit, flip-flop state) is an independent two-state Markov stream in
    each of 64 lanes, at static probability ``P`` and ``D`` toggles per cycle (1 -> 0 with probability ``D / 2P``,
    0 -> 1 with ``D / 2(1 - P)``, capped at 1), and the logic is evaluated from them every cycle (the flip-flops do
    not load their D inputs: their outputs are sources). Unlike :func:`propagate`, it keeps the correlation of
    reconvergent paths (an XOR of two paths from one source). Returns the toggles per cycle of every net."""
    rng = np.random.default_rng(seed)
    inputs = [(b, name, j) for name, (direction, bits) in sim.ports.items() if direction == "input" and name != "clk"
              for j, b in enumerate(bits) if b >= 2]
    prob = np.array([float((int(sources.held[n]) >> j) & 1) if n in sources.held else
                     sources.ports.get(n, (sources.static_prob, sources.toggle_rate))[0] for _, n, j in inputs]
                    + [sources.static_prob] * len(sim.d_idx))
    dens = np.array([0.0 if n in sources.held else sources.ports.get(n, (sources.static_prob,
                                                                         sources.toggle_rate))[1] for _, n, j in inputs]
                    + [sources.toggle_rate] * len(sim.d_idx))
    fall = np.minimum(1.0, np.divide(dens, 2 * prob, out=np.zeros_like(dens), where=prob > 0))[:, None]
    rise = np.minimum(1.0, np.divide(dens, 2 * (1 - prob), out=np.zeros_like(dens), where=prob < 1))[:, None]
    in_nets = np.array([b for b, _, _ in inputs], dtype=np.int64)
    state = rng.random((len(prob), LANES)) < prob[:, None]
    flips_sum, prev = np.zeros(sim.n_nets), None
    val = np.zeros(sim.n_nets, dtype=np.uint64)
    val[1] = ONES
    for _ in range(cycles + 1):
        words = np.packbits(state, axis=1, bitorder="little").view(np.uint64)[:, 0]
        val[in_nets] = words[:len(in_nets)]
        q = words[len(in_nets):][sim.q_ff]
        val[sim.q_idx] = np.where(sim.q_inv, ~q, q)
        sim.evaluate(val, ONES)
        if prev is not None:
            flips_sum += np.bitwise_count(val ^ prev)
        prev = val.copy()
        u = rng.random(state.shape)
        state = np.where(state, u >= fall, u < rise)
    return flips_sum / (cycles * LANES)


def wire_energy_fj(netlist: dict, top: str, plib, size: int) -> np.ndarray:
    """The wire's share of each net's energy per toggle, ``1/2 C_wire V^2`` with the library's wire load for the
    net's fanout, counted as :func:`accelgen.fit.power.net_energy` counts it (a report made with a zero wire load
    model, as FEATHER's DC run, has none of it)."""
    fanout = np.zeros(size, dtype=np.int64)
    for inst in module_of(netlist, top).get("cells", {}).values():
        cell = plib.cells.get(inst["type"].lstrip("\\"))
        if cell is None:
            continue
        for pin, bits in inst.get("connections", {}).items():
            if pin in cell.inputs and isinstance(bits[0], int) and not (cell.ff and pin == cell.ff[0]):
                fanout[bits[0]] += 1
    return np.array([0.5 * plib.wire_cap(int(f)) * plib.vdd_v ** 2 if f else 0.0 for f in fanout])


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
    m = map_design(design)
    top, mapped, plib, energy, sim = design.top, m.mapped, m.plib, m.energy, m.sim
    unknown = sorted((set(sources.held) | set(sources.ports)) - {k for k, (d, _) in sim.ports.items() if d == "input"})
    if unknown:
        raise ConfigError([("--hold", f"{unknown[0]!r} is not an input port of {top}")])
    weights = {"switching_fj": energy.per_toggle_fj, "internal_fj": energy.internal_fj,
               "wire_fj": wire_energy_fj(mapped.netlist, top, plib, len(energy.per_toggle_fj))}
    act = activity_of(sim, sources, weights) if sources.propagation == "density" else \
        simulate_sources(sim, sources, weights)
    record = {"mapped": m.record(), "clock": m.clock,
              "activity": {"vectorless": {**act, "ops_per_cycle": 1.0, "per": "cycle", "sources": sources.to_dict()}},
              "glitch": None}
    write_atomic(path, json.dumps(record))
    return record
