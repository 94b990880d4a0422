"""Glitch energy: a timed simulation of a mapped netlist against the zero-delay toggle count.

The sweeps count toggles zero-delay (:class:`~accelgen.fit.activity.GateSim`): each net changes at most once per
cycle. In silicon a gate whose inputs arrive at different times can switch several times before it settles
(glitches), which is why zero-delay estimates of deep arithmetic are low. :class:`TimedSim` simulates the same
mapped netlist with each cell's delay from the library at its real load (:func:`cell_delays`), on a time grid of
``step_ps``, bit-parallel over the same 64 stimulus lanes:

* inertial delay (Verilog's gate-delay semantics): when a cell's function of its current inputs changes, the
  output takes the new value ``d`` later unless the function changes again before (a pulse shorter than the
  cell's delay does not pass);
* a rising and a falling output each take their own delay (a cell's arcs differ by the output edge: measured
  against Icarus with the full Liberty arcs, one delay per output, the mean of both edges, overstated the fp16
  MAC's glitch ratio by about 10% and the int8 MAC's by 4%; bench/RESULTS.md, session 31);
* each cycle starts from the settled values of the last; inputs and flip-flop outputs change at ``t = 0``;
  the cycle ends when no cell has a change pending; its settled values must equal the zero-delay simulation's
  (checked every cycle). Not modelled: a delay per input pin, clock-to-Q and input arrival skew (sources switch
  together), slew propagation; each within 1.5% of the glitch ratio on the models measured (the same bench).

:func:`glitch_ratio` runs both simulations on one design and returns the switching energy of each, weighted per
net by :func:`accelgen.fit.power.net_energy`; the clock network has no glitches and is left out of the ratio.
"""

from __future__ import annotations

import numpy as np

from ..cosim.stimulus import Activity
from .activity import ONES, GateSim
from .cell_library import TimingLibrary
from .netlist import module_of

#: the time grid of the timed simulation (ps): about a tenth of a NanGate45 X1 gate delay. A coarser grid rounds
#: delays that differ into equal ones and lets more pulses through: with rise and fall delays, the fp16 MAC of
#: bench/energy_points.py measures 4.63 at 5 ps, 4.54 at 2.5 ps and 4.46 at 1 ps (Icarus with the full Liberty arcs:
#: 4.43), the int8 MAC 1.84 / 1.81 / 1.79 (1.82); 2.5 ps is within 2% of 1 ps at 40% of its cost
#: (bench/RESULTS.md, session 32)
STEP_PS = 2.5
#: the delay model of :func:`cell_delays`, recorded with every glitch measurement and in the datasets' ``glitch_delays``
#: column: ``rise_fall`` (a delay per output edge); measurements before it are ``mean_of_edges`` (one delay per
#: output, the mean of its arcs' rise and fall delays)
DELAY_MODEL = "rise_fall"
#: a cycle that has not settled after this many steps holds a loop that oscillates
MAX_STEPS = 20000


def cell_delays(netlist: dict, top: str, tlib: TimingLibrary, load_ff: np.ndarray) -> dict[int, tuple[float, float]]:
    """The (rise, fall) delay (ps) of the cell driving each net: for each edge of the output, the mean of its arcs'
    delays into that output at the library's nominal input slew and the net's load."""
    mod = module_of(netlist, top)
    out = {}
    for inst in mod.get("cells", {}).values():
        cell = tlib.cells.get(inst["type"].lstrip("\\"))
        if cell is None:
            continue
        for pin, bits in inst.get("connections", {}).items():
            if pin not in cell.outputs or not isinstance(bits[0], int):
                continue
            edges = []
            for edge in (0, 1):
                values = [arc.delay[edge].at(tlib.nominal_slew_ps, float(load_ff[bits[0]]))
                          for arc in cell.arcs.get(pin, ()) if arc.delay[edge] is not None]
                edges.append(sum(values) / len(values) if values else None)
            rise, fall = edges
            out[bits[0]] = (rise if rise is not None else fall or 0.0, fall if fall is not None else rise or 0.0)
    return out


def _edges(delay) -> tuple[float, float]:
    """A net's (rise, fall) delay from :func:`cell_delays` or one delay for both edges."""
    return (float(delay), float(delay)) if np.isscalar(delay) else (float(delay[0]), float(delay[1]))


class TimedSim:
    """Event-accurate simulation, on a time grid, of a :class:`GateSim` netlist with per-net driving-cell delays
    (ps: a (rise, fall) pair, or one delay for both edges) and inertial delay: a cell output follows a change of its
    function's value only if the value persists for the delay of that edge (a shorter pulse is swallowed), as
    Verilog's gate delays with a rise and a fall delay do.

    Bit-parallel over the lanes: each cell keeps its pending value and a bit-sliced countdown (one word per bit of
    the delay in steps) per lane."""

    def __init__(self, sim: GateSim, delay_ps: dict, step_ps: float = STEP_PS):
        self.sim, self.step_ps = sim, step_ps
        #: called as ``on_flips(cycle, step, flips)`` at every time step where cell outputs toggle (``flips``:
        #: one bit-sliced word per cell of :attr:`out`); None: nothing is observed (bench/glitch_pulse_widths.py)
        self.on_flips = None
        kinds: dict[str, list[int]] = {}
        for g, (kind, _, _) in enumerate(sim.gates):
            kinds.setdefault(kind, []).append(g)
        self.out = np.array([out for _, _, out in sim.gates], dtype=np.int64)
        edges = [_edges(delay_ps.get(out, 0.0)) for _, _, out in sim.gates]
        self.steps = np.array([[max(1, int(round(d / step_ps))) for d in pair] for pair in edges],
                              dtype=np.int64).reshape(-1, 2)
        self.groups = []
        for kind, idx in kinds.items():
            ins = np.array([sim.gates[g][1] for g in idx], dtype=np.int64).T
            self.groups.append((sim.functions[kind], list(ins), np.array(idx, dtype=np.int64)))
        self.bits = max(1, int(self.steps.max(initial=1)).bit_length())
        # the delays' bit planes, per output edge: all-ones words where bit j of a cell's delay (in steps) is set
        self.rise_planes, self.fall_planes = (
            [np.where((self.steps[:, edge] >> j) & 1, ONES, np.uint64(0)) for j in range(self.bits)]
            for edge in (0, 1))

    def _cycle(self, val: np.ndarray, lane_mask, w: np.ndarray, cycle: int = 0) -> float:
        """Advance ``val`` (the last settled values with the sources already changed) until every cell has settled;
        return the weighted toggles on the way."""
        n = len(self.out)
        cand = np.empty(n, dtype=np.uint64)
        pend = val[self.out].copy()
        planes = [np.zeros(n, dtype=np.uint64) for _ in range(self.bits)]
        energy, zero = 0.0, np.uint64(0)
        for step in range(MAX_STEPS):
            for fn, ins, idx in self.groups:
                cand[idx] = fn([val[i] for i in ins]) & lane_mask
            change = cand ^ pend
            pend = cand.copy()
            keep = ~change
            rising = change & pend       # a new value restarts the countdown at the delay of its edge
            falling = change & ~pend
            for j in range(self.bits):
                planes[j] = (planes[j] & keep) | (self.rise_planes[j] & rising) | (self.fall_planes[j] & falling)
            busy = planes[0].copy()
            for p in planes[1:]:
                busy |= p
            if not busy.any():
                return energy
            one = planes[0] & ~np.bitwise_or.reduce(planes[1:], initial=zero) if self.bits > 1 else planes[0]
            borrow = busy                # count down by one where the countdown runs
            for j in range(self.bits):
                planes[j], borrow = planes[j] ^ borrow, borrow & ~planes[j]
            old = val[self.out]
            new = (old & ~one) | (pend & one)
            flips = old ^ new
            if flips.any():
                energy += float(np.bitwise_count(flips).astype(np.int64) @ w[self.out])
                val[self.out] = new
                if self.on_flips is not None:
                    self.on_flips(cycle, step, flips)
        raise ValueError(f"the timed simulation has not settled after {MAX_STEPS} steps of {self.step_ps} ps")

    def run(self, stimuli: list[Activity], weights: np.ndarray) -> dict:
        """Switching energy per counted cycle of ``weights`` (a value per toggle of each net, e.g. its energy in fJ):
        ``zero_delay`` and ``timed`` (inertial delays), and their ratio."""
        sim = self.sim
        inputs = sim.input_words(stimuli)
        cycles, warm, lanes = stimuli[0].cycles, stimuli[0].warmup, len(stimuli)
        lane_mask = ONES if lanes == 64 else np.uint64((1 << lanes) - 1)
        w = np.pad(np.asarray(weights, dtype=float), (0, max(0, sim.n_nets - len(weights))))[:sim.n_nets]
        val = np.zeros(sim.n_nets, dtype=np.uint64)
        val[1] = lane_mask
        sim.evaluate(val, lane_mask)
        state = np.zeros(len(sim.q_idx), dtype=np.uint64)
        zero_delay = timed = 0.0
        for step in range(cycles + 1):
            start = val.copy()
            for name, words in inputs.items():
                for j, b in enumerate(sim.ports[name][1]):
                    if b >= 2:
                        start[b] = words[step, j]
            q = state[sim.q_ff]
            start[sim.q_idx] = np.where(sim.q_inv, ~q & lane_mask, q)
            settled = start.copy()
            sim.evaluate(settled, lane_mask)
            if step - 1 >= max(warm, 1):
                sources = float(np.bitwise_count(start ^ val).astype(np.int64) @ w)
                wave = start.copy()
                timed += sources + self._cycle(wave, lane_mask, w, step)
                if not np.array_equal(wave, settled):
                    raise AssertionError("the timed simulation settled to other values than the zero-delay one")
                zero_delay += float(np.bitwise_count(settled ^ val).astype(np.int64) @ w)
            val = settled
            state = val[sim.d_idx].copy()
        counted = (cycles - max(warm, 1)) * lanes
        out = {"zero_delay": zero_delay / counted, "timed": timed / counted, "cycles": cycles - max(warm, 1),
               "lanes": lanes, "step_ps": self.step_ps}
        return out | {"ratio": out["timed"] / out["zero_delay"] if zero_delay else 1.0}
