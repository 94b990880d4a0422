"""Glitch energy: a timed simulation of a mapped netlist against the zero-delay toggle count.

The sweeps count toggles zero-delay (:class:`~accelgen.fit.activity.GateSim`): each net changes at most once per
cycle. In silicon a gate whose inputs arrive at different times can switch several times before it settles
(glitches), which is why zero-delay estimates of deep arithmetic are low. :class:`TimedSim` simulates the same
mapped netlist with each cell's delay from the library at its real load (:func:`cell_delays`), on a time grid of
``step_ps``, bit-parallel over the same 64 stimulus lanes:

* inertial delay (Verilog's gate-delay semantics): when a cell's function of its current inputs changes, the
  output takes the new value ``d`` later unless the function changes again before (a pulse shorter than the
  cell's delay does not pass);
* each cycle starts from the settled values of the last; inputs and flip-flop outputs change at ``t = 0``;
  the cycle ends when no cell has a change pending; its settled values must equal the zero-delay simulation's
  (checked every cycle). Not modelled: clock-to-Q and input arrival skew (sources switch together), slew.

:func:`glitch_ratio` runs both simulations on one design and returns the switching energy of each, weighted per
net by :func:`accelgen.fit.power.net_energy`; the clock network has no glitches and is left out of the ratio.
"""

from __future__ import annotations

import numpy as np

from ..cosim.stimulus import Activity
from .activity import ONES, GateSim
from .cell_library import TimingLibrary
from .netlist import module_of

#: the time grid of the timed simulation (ps): about a tenth of a NanGate45 X1 gate delay
STEP_PS = 5.0
#: a cycle that has not settled after this many steps holds a loop that oscillates
MAX_STEPS = 20000


def cell_delays(netlist: dict, top: str, tlib: TimingLibrary, load_ff: np.ndarray) -> dict[int, float]:
    """The delay (ps) of the cell driving each net: the mean of its arcs' rise and fall delays into that output at
    the library's nominal input slew and the net's load."""
    mod = module_of(netlist, top)
    out = {}
    for inst in mod.get("cells", {}).values():
        cell = tlib.cells.get(inst["type"].lstrip("\\"))
        if cell is None:
            continue
        for pin, bits in inst.get("connections", {}).items():
            if pin not in cell.outputs or not isinstance(bits[0], int):
                continue
            values = [t.at(tlib.nominal_slew_ps, float(load_ff[bits[0]]))
                      for arc in cell.arcs.get(pin, ()) for t in arc.delay if t is not None]
            out[bits[0]] = sum(values) / len(values) if values else 0.0
    return out


class TimedSim:
    """Event-accurate simulation, on a time grid, of a :class:`GateSim` netlist with per-net driving-cell delays
    (ps) and inertial delay: a cell output follows a change of its function's value only if the value persists for
    the cell's delay (a pulse shorter than the delay is swallowed), as Verilog's gate delays do.

    Bit-parallel over the lanes: each cell keeps its pending value and a bit-sliced countdown (one word per bit of
    the delay in steps) per lane."""

    def __init__(self, sim: GateSim, delay_ps: dict[int, float], step_ps: float = STEP_PS):
        self.sim, self.step_ps = sim, step_ps
        #: called as ``on_flips(cycle, step, flips)`` at every time step where cell outputs toggle (``flips``:
        #: one bit-sliced word per cell of :attr:`out`); None: nothing is observed (bench/glitch_pulse_widths.py)
        self.on_flips = None
        kinds: dict[str, list[int]] = {}
        for g, (kind, _, _) in enumerate(sim.gates):
            kinds.setdefault(kind, []).append(g)
        self.out = np.array([out for _, _, out in sim.gates], dtype=np.int64)
        self.steps = np.array([max(1, int(round(delay_ps.get(out, 0.0) / step_ps))) for _, _, out in sim.gates],
                              dtype=np.int64)
        self.groups = []
        for kind, idx in kinds.items():
            ins = np.array([sim.gates[g][1] for g in idx], dtype=np.int64).T
            self.groups.append((sim.functions[kind], list(ins), np.array(idx, dtype=np.int64)))
        self.bits = max(1, int(self.steps.max(initial=1)).bit_length())
        # the delay's bit planes: all-ones words where bit j of a cell's delay (in steps) is set
        self.delay_planes = [np.where((self.steps >> j) & 1, ONES, np.uint64(0)) for j in range(self.bits)]

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
            for j in range(self.bits):   # a new value restarts the countdown at the cell's delay
                planes[j] = (planes[j] & keep) | (self.delay_planes[j] & change)
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
