"""Switching activity of a synthesized design under operand streams of chosen density.

Method
------
The design is synthesized with the same Yosys flow as :mod:`accelgen.fit.generic_gates`
(generic gates, ``dffunmap`` so every flip-flop is a plain ``$_DFF_P_``), then
flattened and written as a JSON netlist. :class:`GateSim` simulates that
gate-level netlist cycle by cycle in numpy, **bit-parallel**: every net is a
``uint64`` word whose 64 bits are 64 independent stimulus streams (different
seeds), and the combinational gates are evaluated level by level, one numpy
operation per (level, cell type). A toggle is a change of a net's settled value
from one cycle to the next (zero-delay model: glitches are not counted, so
deep arithmetic is somewhat underestimated; this is documented with the
technology description). Toggles are attributed to the cell that drives the
net (``$_XOR_``, ``$_DFF_P_``, ...; top-level inputs count as ``port``), so the
technology description can weight them by the driving cell's switching energy.

Compared with Verilator toggle coverage on the RTL this counts the nets that
really exist after synthesis (multiplier partial products, carry chains), and
needs no C++ build per design point.

Stimulus
--------
A family may define ``activity_table(params, density, cycles, seed)`` on its
:class:`~accelgen.family.BlockFamily`, returning an :class:`~accelgen.cosim.stimulus.Activity`:
per-cycle input values with operands zero with probability ``1 - density``
and otherwise uniform over their range, and the number of operations the
cycles perform (the ``per`` of the energy model). Families without one are
driven by their cosim stimulus (``cycle_table``) and have energy per cycle.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np

from ..cosim.stimulus import Activity
from .generic_gates import netlist_script
from .yosys import run_yosys

LANES = 64
#: a word with every lane set
ONES = np.uint64(0xFFFF_FFFF_FFFF_FFFF)


def _bit(b) -> int:
    if isinstance(b, str):
        return 1 if b == "1" else 0  # "0", "x", "z" -> 0
    return int(b)


_COMB = {
    "$_BUF_": 1, "$_NOT_": 1, "$_AND_": 2, "$_NAND_": 2, "$_OR_": 2, "$_NOR_": 2, "$_XOR_": 2, "$_XNOR_": 2,
    "$_ANDNOT_": 2, "$_ORNOT_": 2, "$_MUX_": 3, "$_NMUX_": 3, "$_AOI3_": 3, "$_OAI3_": 3, "$_AOI4_": 4,
    "$_OAI4_": 4,
}
_PINS = {1: ("A",), 2: ("A", "B"), 3: ("A", "B", "S"), 4: ("A", "B", "C", "D")}


def _components(fanin: list[list[int]]) -> list[list[int]]:
    """Strongly connected components of the gate graph (``fanin[g]``: the gates driving gate ``g``), each
    after every component that drives it (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in range(len(fanin)):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            g, k = work.pop()
            if k == 0:
                index[g] = low[g] = counter
                counter += 1
                stack.append(g)
                on_stack.add(g)
            elif k <= len(fanin[g]):
                low[g] = min(low[g], low[fanin[g][k - 1]])
            while k < len(fanin[g]) and fanin[g][k] in index:
                d = fanin[g][k]
                if d in on_stack:
                    low[g] = min(low[g], index[d])
                k += 1
            if k < len(fanin[g]):
                work.append((g, k + 1))
                work.append((fanin[g][k], 0))
                continue
            if low[g] == index[g]:
                comp = []
                while True:
                    x = stack.pop()
                    on_stack.discard(x)
                    comp.append(x)
                    if x == g:
                        break
                out.append(comp)
    return out


def _settle(loop: list, val: np.ndarray, lane_mask) -> None:
    """Evaluate the gates of a structural loop in turn until no net changes (zero-delay); one that keeps
    changing is a real combinational loop (an oscillator or a latch), which the simulator cannot model."""
    for _ in range(len(loop) + 2):
        changed = False
        for fn, ins, out in loop:
            new = fn([val[i] for i in ins]) & lane_mask
            if new != val[out]:
                val[out] = new
                changed = True
        if not changed:
            return
    raise ValueError(f"combinational loop of {len(loop)} gates does not settle")


def compile_function(tree, pins):
    """A Liberty function tree (:func:`accelgen.fit.cells.parse_function`) of ``pins`` as a function of the
    list of their uint64 words (one array per pin, as the schedule passes them)."""
    index = {p: i for i, p in enumerate(pins)}

    def build(t):
        op = t[0]
        if op == "var":
            i = index[t[1]]
            return lambda v: v[i]
        if op == "const":
            word = ONES if t[1] else np.uint64(0)
            return lambda v: word
        if op == "not":
            f = build(t[1])
            return lambda v: ~f(v)
        a, b = build(t[1]), build(t[2])
        if op == "and":
            return lambda v: a(v) & b(v)
        if op == "or":
            return lambda v: a(v) | b(v)
        return lambda v: a(v) ^ b(v)

    return build(tree)


#: each generic gate as a function of its input words, bound once (a chain of comparisons on the type name, run
#: for every gate group of every cycle, was 7.0 of the 24 s of a 1,500-cycle bf16 MAC simulation)
_GENERIC_FNS = {
    "$_BUF_": lambda v: v[0], "$_NOT_": lambda v: ~v[0],
    "$_AND_": lambda v: v[0] & v[1], "$_NAND_": lambda v: ~(v[0] & v[1]),
    "$_OR_": lambda v: v[0] | v[1], "$_NOR_": lambda v: ~(v[0] | v[1]),
    "$_XOR_": lambda v: v[0] ^ v[1], "$_XNOR_": lambda v: ~(v[0] ^ v[1]),
    "$_ANDNOT_": lambda v: v[0] & ~v[1], "$_ORNOT_": lambda v: v[0] | ~v[1],
    "$_MUX_": lambda v: (v[0] & ~v[2]) | (v[1] & v[2]), "$_NMUX_": lambda v: ~((v[0] & ~v[2]) | (v[1] & v[2])),
    "$_AOI3_": lambda v: ~((v[0] & v[1]) | v[2]), "$_OAI3_": lambda v: ~((v[0] | v[1]) & v[2]),
    "$_AOI4_": lambda v: ~((v[0] & v[1]) | (v[2] & v[3])), "$_OAI4_": lambda v: ~((v[0] | v[1]) & (v[2] | v[3])),
}
#: the generic gates whose output has no bit that all of their inputs lack: words of fewer than 64 lanes stay
#: within their lanes without masking
_LANE_PRESERVING = {"$_BUF_", "$_AND_", "$_OR_", "$_XOR_", "$_ANDNOT_", "$_MUX_"}


def _generic_fn(kind):
    if kind not in _GENERIC_FNS:
        raise ValueError(f"cell type {kind!r} is not supported by the gate simulator")
    return _GENERIC_FNS[kind]


def _tree_vars(tree) -> list[str]:
    if tree[0] == "var":
        return [tree[1]]
    return [x for t in tree[1:] if isinstance(t, tuple) for x in _tree_vars(t)]


class GateSim:
    """Bit-parallel zero-delay simulator of a flattened netlist (JSON): Yosys' generic gates, or the cells of a
    library (``library``: an object whose ``cells`` map cell types to objects with ``inputs`` (pin names),
    ``outputs`` (pin -> Liberty function tree) and ``ff`` (None, or ``(clock pin, next state, clear, preset,
    state variable, inverted state variable)`` trees and names), e.g. :class:`accelgen.fit.cell_library.PowerLibrary`).
    Nets are Yosys' bit numbers; toggles are attributed to the driving cell type."""

    def __init__(self, netlist: dict, top: str, library=None):
        mod = netlist["modules"][top]
        self.ports = {name: (p["direction"], [_bit(b) for b in p["bits"]]) for name, p in mod["ports"].items()}
        n = 2
        for p in mod["ports"].values():
            n = max(n, *[_bit(b) + 1 for b in p["bits"]])
        cells = [(c["type"].lstrip("\\") if c["type"].startswith("\\") else c["type"], c["connections"])
                 for c in mod["cells"].values() if c["type"] != "$scopeinfo"]
        for _, conn in cells:
            for bits in conn.values():
                n = max(n, *[_bit(b) + 1 for b in bits])
        lib_cells = library.cells if library is not None else {}
        gates, dffs, self.functions, counts = [], [], {}, Counter()
        for t, conn in cells:
            counts[t] += 1
            if t == "$_DFF_P_":
                dffs.append((_bit(conn["D"][0]), [(_bit(conn["Q"][0]), False)]))
            elif t in _COMB:
                pins = _PINS[_COMB[t]] if t not in ("$_AOI3_", "$_OAI3_") else ("A", "B", "C")
                self.functions.setdefault(t, _generic_fn(t))
                gates.append((t, [_bit(conn[p][0]) for p in pins], _bit(conn["Y"][0])))
            elif t in lib_cells:
                n = self._add_library_cell(t, lib_cells[t], conn, gates, dffs, n)
            else:
                raise ValueError(f"{top}: cell type {t!r} is not supported by the gate simulator")
        self.n_nets = n
        self.cell_counts = counts
        self.d_idx = np.array([d for d, _ in dffs], dtype=np.int64)
        outs = [(q, i, inv) for i, (_, qs) in enumerate(dffs) for q, inv in qs]
        self.q_idx = np.array([q for q, _, _ in outs], dtype=np.int64)
        self.q_ff = np.array([i for _, i, _ in outs], dtype=np.int64)
        self.q_inv = np.array([inv for *_, inv in outs], dtype=bool)
        self.gates = gates          # (kind, input nets, output net), for timed simulation (fit/glitch.py)
        self._levelize(gates, dffs, cells, lib_cells)

    def _add_library_cell(self, t, cell, conn, gates, dffs, n) -> int:
        """Append the gates (and flip-flop) of one library cell; return the net count (virtual nets added)."""
        pins = list(cell.inputs)
        net = {p: _bit(conn[p][0]) if p in conn else 0 for p in pins}
        if cell.ff:
            clock, nxt, clear, preset, state, state_n = cell.ff
            tree = nxt
            if clear is not None:
                tree = ("and", tree, ("not", clear))
            if preset is not None:
                tree = ("or", tree, preset)
            if tree[0] == "var":
                d = net[tree[1]]
            else:   # the next state through a virtual net (not counted as a toggle: it is inside the cell)
                used = sorted(set(_tree_vars(tree)))
                kind = f"{t}:next"
                self.functions.setdefault(kind, compile_function(tree, used))
                d, n = n, n + 1
                gates.append((kind, [net[p] for p in used], d))
            qs = []
            for pin, f in cell.outputs.items():
                if pin not in conn:
                    continue
                if f == ("var", state) or f == ("not", ("var", state_n)):
                    qs.append((_bit(conn[pin][0]), False))
                elif f == ("var", state_n) or f == ("not", ("var", state)):
                    qs.append((_bit(conn[pin][0]), True))
                else:
                    raise ValueError(f"flip-flop {t}: output {pin} function {f} is not its state or its inverse")
            dffs.append((d, qs))
            return n
        for pin, f in cell.outputs.items():
            if pin not in conn:
                continue
            kind = t if len(cell.outputs) == 1 else f"{t}:{pin}"
            self.functions.setdefault(kind, compile_function(f, pins))
            gates.append((kind, [net[p] for p in pins], _bit(conn[pin][0])))
        return n

    def _levelize(self, gates, dffs, cells, lib_cells):
        n = self.n_nets
        # levelize: sources are constants, input ports, flip-flop outputs
        driver = {}
        for i, (_, ins, out) in enumerate(gates):
            driver[out] = i
        fanin = [[driver[x] for x in ins if x in driver] for _, ins, _ in gates]
        level, self.loops = {}, []
        groups: dict[tuple[int, str], list[int]] = {}
        loop_steps: dict[int, list] = {}
        for comp in _components(fanin):
            members = set(comp)
            lv = 1 + max((level[d] for g in comp for d in fanin[g] if d not in members), default=0)
            for g in comp:
                level[g] = lv
            if len(comp) == 1 and comp[0] not in fanin[comp[0]]:
                groups.setdefault((lv, gates[comp[0]][0]), []).append(comp[0])
            else:
                # a structural loop (ABC can leave one across the parts it maps separately: a path that
                # no input value sensitizes); it is evaluated gate by gate until it settles
                loop_steps.setdefault(lv, []).append([(self.functions[gates[g][0]], *gates[g][1:]) for g in comp])
                self.loops.append(len(comp))
        steps = []   # (level, then the gate groups by type, then the loops of that level)
        for (lv, t), idx in groups.items():
            ins = np.array([gates[i][1] for i in idx], dtype=np.int64).T
            out = np.array([gates[i][2] for i in idx], dtype=np.int64)
            steps.append(((lv, 0, t, 0), (self.functions[t], list(ins), out, t in _LANE_PRESERVING)))
        for lv, loops in loop_steps.items():
            steps += [((lv, 1, "", i), (None, loop, None, False)) for i, loop in enumerate(loops)]
        self.schedule = [step for _, step in sorted(steps, key=lambda e: e[0])]
        self.depth = max(level.values(), default=0)
        # who drives each net, for attributing toggles (a multi-output cell's outputs count as the cell)
        kind = np.full(n, "", dtype=object)
        for t, _, out in gates:
            kind[out] = "" if t.endswith(":next") else t.split(":")[0]
        ff_types = [t for t, conn in cells if t == "$_DFF_P_" or (t in lib_cells and lib_cells[t].ff)]
        q_types = [ff_types[i] for i in self.q_ff]
        kind[self.q_idx] = np.array(q_types, dtype=object) if q_types else kind[self.q_idx]
        for name, (direction, bits) in self.ports.items():
            if direction == "input":
                for b in bits:
                    if b >= 2:
                        kind[b] = "port"
        kind[:2] = ""
        self.net_kind = kind
        self.kinds = sorted(set(k for k in kind if k))
        self.kind_masks = {k: np.flatnonzero(kind == k) for k in self.kinds}

    @classmethod
    def from_file(cls, path: Path, top: str) -> "GateSim":
        return cls(json.loads(Path(path).read_text()), top)

    @classmethod
    def from_verilog(cls, verilog: str, top: str, workdir: Path, *, cells=(), registered=()) -> "GateSim":
        """Synthesize ``verilog`` in ``workdir`` with the generic-gate flow
        (:func:`~accelgen.fit.generic_gates.netlist_script`) and simulate the flat gate netlist it writes."""
        workdir = Path(workdir)
        (workdir / "design.v").write_text(verilog)
        (workdir / "flow.ys").write_text(netlist_script(top, cells, registered))
        proc = run_yosys(["-q", "-s", "flow.ys"], workdir)
        if proc.returncode != 0:
            raise RuntimeError(f"yosys failed on {top}: " + " | ".join((proc.stdout + proc.stderr).splitlines()[-5:]))
        return cls.from_file(workdir / "net.json", top)

    def _port_words(self, name: str, values: np.ndarray) -> np.ndarray:
        """(cycles, lanes) integer values -> (cycles, width) uint64 words, one bit per lane."""
        _, bits = self.ports[name]
        width = len(bits)
        vals = np.asarray(values, dtype=object) if np.asarray(values).dtype == object else np.asarray(values)
        if vals.dtype == object and width > 63:
            # a port wider than a machine word (a 128-bit bus): each bit from the Python integers, lane l at bit l
            bits = np.array([[[(int(x) >> j) & 1 for j in range(width)] for x in row] for row in vals], dtype=np.uint64)
            return np.bitwise_or.reduce(bits << np.arange(bits.shape[1], dtype=np.uint64)[None, :, None], axis=1)
        vals = np.asarray([[int(x) & ((1 << width) - 1) for x in row] for row in vals], dtype=np.uint64) \
            if vals.dtype == object else (vals.astype(np.int64).astype(np.uint64) & np.uint64((1 << width) - 1)
                                          if width < 64 else vals.astype(np.int64).astype(np.uint64))
        lanes = vals.shape[1]
        shifts = np.arange(lanes, dtype=np.uint64)
        words = np.zeros((vals.shape[0], width), dtype=np.uint64)
        for j in range(width):
            bit = (vals >> np.uint64(j)) & np.uint64(1)
            words[:, j] = np.bitwise_or.reduce(bit << shifts, axis=1)
        return words

    def evaluate(self, val: np.ndarray, lane_mask) -> None:
        """Settle the combinational logic of ``val`` (net words, sources set) in place, zero-delay."""
        full = lane_mask == ONES
        for fn, ins, out, preserving in self.schedule:
            if fn is None:
                _settle(ins, val, lane_mask)
            elif full or preserving:
                val[out] = fn([val[i] for i in ins])
            else:
                val[out] = fn([val[i] for i in ins]) & lane_mask

    def input_words(self, stimuli: list[Activity]) -> dict[str, np.ndarray]:
        """Each input port's (1 + cycles, width) words of up to 64 stimuli: a reset cycle (``rst`` = 1, other
        inputs 0, as the cosim testbench does) then the stimulus."""
        if not 1 <= len(stimuli) <= LANES:
            raise ValueError(f"stimuli: {len(stimuli)} streams; allowed 1..{LANES}")
        cycles = stimuli[0].cycles
        inputs = {}
        for name, (direction, bits) in self.ports.items():
            if direction != "input" or name == "clk":
                continue
            cols = []
            for s in stimuli:
                col = np.asarray(s.inputs[name]) if name in s.inputs else np.zeros(cycles, dtype=np.int64)
                if len(col) != cycles:
                    raise ValueError(f"stimulus {name}: {len(col)} cycles, expected {cycles}")
                pre = 1 if name == "rst" and name not in s.inputs else 0
                cols.append(np.concatenate([np.array([pre], dtype=col.dtype), col]))
            inputs[name] = self._port_words(name, np.stack(cols, axis=1))
        return inputs

    def run(self, stimuli: list[Activity], record: tuple[str, ...] = (),
            weights: dict[str, np.ndarray] | None = None) -> dict:
        """Simulate up to 64 stimuli in parallel lanes; return mean toggles per counted cycle by driver kind.

        Returns ``{"cycles": counted cycles per lane, "lanes": n, "toggles_per_cycle": {kind: mean},
        "ops_per_cycle": mean operations per counted cycle}``; with ``record``, also
        ``"recorded": {port: (cycles, lanes) uint64 settled values}``; with ``weights`` (name -> a value per
        toggle of each net, indexed by net bit, e.g. its energy), ``"weighted_per_cycle": {name: mean sum}``.
        """
        inputs = self.input_words(stimuli)
        cycles = stimuli[0].cycles
        warm = stimuli[0].warmup
        lanes = len(stimuli)
        lane_mask = ONES if lanes == 64 else np.uint64((1 << lanes) - 1)
        val = np.zeros(self.n_nets, dtype=np.uint64)
        val[1] = lane_mask
        state = np.zeros(len(self.q_idx), dtype=np.uint64)
        prev = None
        counts = {k: 0 for k in self.kinds}
        w = {k: np.pad(np.asarray(v, dtype=float), (0, max(0, self.n_nets - len(v))))[:self.n_nets]
             for k, v in (weights or {}).items()}
        weighted = {k: 0.0 for k in w}
        recorded = {p: np.zeros((cycles, lanes), dtype=np.uint64) for p in record}
        lane_bits = np.arange(lanes, dtype=np.uint64)
        for step in range(cycles + 1):
            t = step - 1  # step 0 is the reset cycle
            for name, words in inputs.items():
                bits = self.ports[name][1]
                for j, b in enumerate(bits):
                    if b >= 2:
                        val[b] = words[step, j]
            q = state[self.q_ff]
            val[self.q_idx] = np.where(self.q_inv, ~q & lane_mask, q)
            self.evaluate(val, lane_mask)
            if t < 0:
                state = val[self.d_idx].copy()
                continue
            for p, arr in recorded.items():
                for j, b in enumerate(self.ports[p][1]):
                    arr[t] |= ((val[b] >> lane_bits) & np.uint64(1)) << np.uint64(j)
            if prev is not None and t >= warm:
                flips = np.bitwise_count(val ^ prev)
                for k, idx in self.kind_masks.items():
                    counts[k] += int(flips[idx].sum())
                for k, vec in w.items():
                    weighted[k] += float(flips @ vec)
            prev = val.copy()
            state = val[self.d_idx].copy()
        counted = (cycles - max(warm, 1)) * lanes
        ops = sum(s.ops for s in stimuli) / lanes
        return {"cycles": cycles - max(warm, 1), "lanes": lanes,
                "toggles_per_cycle": {k: c / counted for k, c in counts.items()},
                "ops_per_cycle": ops / (cycles - max(warm, 1)),
                "cell_counts": dict(self.cell_counts), "recorded": recorded,
                "weighted_per_cycle": {k: v / counted for k, v in weighted.items()}}
