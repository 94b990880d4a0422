"""The TensorDash hardware scheduler (Mahmoud et al., MICRO 2020): named connectivity patterns, the
hierarchy of levels in which lanes decide, and the combinational scheduler that picks one movement per
lane and ``AS``, the number of staging rows fully drained. The PE and tile that use it, and the
behaviour of the whole, are described in :mod:`accelgen.rtl.tensordash`.
"""

from __future__ import annotations

from collections.abc import Sequence
from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import bits_for

from ..params.tensordash import TensorDashSchedParams
from ._generator import FromParams

__all__ = [
    "TENSORDASH_PATTERNS",
    "TensorDashSchedParams",
    "TensorDashScheduler",
    "tensordash_levels",
    "tensordash_options",
]


#: named connectivity patterns: ``(step, lane offset)`` options in priority order
TENSORDASH_PATTERNS: dict[str, tuple[tuple[int, int], ...]] = {
    "default": ((0, 0), (1, 0), (2, 0), (3, 0), (1, 1), (1, -1), (2, 2), (3, 3)),
    "lookahead": ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0)),
}


def tensordash_options(pattern: str | Sequence[tuple[int, int]], lanes: int, depth: int) -> tuple[tuple[int, int], ...]:
    """The options a generator builds (truncated to the depth, offsets mod ``lanes``, duplicates dropped)."""
    if isinstance(pattern, str):
        raw = TENSORDASH_PATTERNS[pattern]
    else:
        try:
            raw = [(int(s), int(o)) for s, o in pattern]
        except (TypeError, ValueError):
            raise TypeError(f"options={pattern!r} is not a sequence of (step, lane_offset) integer pairs") from None
    opts: list[tuple[int, int]] = []
    for step, offset in raw:
        if step < 0:
            raise ValueError(f"options: step {step} of option {(step, offset)!r} is negative; allowed: 0..{depth - 1}")
        key = (step, offset % lanes)
        if step < depth and key not in opts:
            opts.append(key)
    if not opts or opts[0] != (0, 0) or sum(1 for s, _ in opts if s == 0) != 1:
        raise ValueError(f"options={list(raw)!r}: the first option must be (0, 0) and no other option may have "
                         "step 0 (only a lane's own dense slot may reach the current row)")
    return tuple(opts)


def tensordash_levels(options: Sequence[tuple[int, int]], lanes: int) -> tuple[tuple[int, ...], ...]:
    """Scheduling levels: minimum, lexicographically first colouring of the lane conflict graph."""
    cand = [frozenset((s, (lane + o) % lanes) for s, o in options) for lane in range(lanes)]
    clash = [[bool(cand[i] & cand[j]) and i != j for j in range(lanes)] for i in range(lanes)]
    for n_levels in range(1, lanes + 1):
        level = [0] * lanes
        # iterative backtracking; a lane may open at most one level beyond those used before it
        lane, trial = 0, [0] * lanes
        while 0 <= lane < lanes:
            top = max(level[:lane], default=-1)
            placed = False
            while trial[lane] < min(n_levels, top + 2):
                c = trial[lane]
                trial[lane] += 1
                if not any(clash[lane][j] and level[j] == c for j in range(lane)):
                    level[lane] = c
                    placed = True
                    break
            if placed:
                lane += 1
                if lane < lanes:
                    trial[lane] = 0
            else:
                lane -= 1
        if lane == lanes:
            return tuple(tuple(i for i in range(lanes) if level[i] == c) for c in range(max(level) + 1))
    raise AssertionError("unreachable")


def with_options(params, options) -> tuple:
    """``(params, options, levels)`` of a TensorDash generator: the options ``options`` (an explicit list, Python
    only) or else the parameter set's ``pattern`` builds, and their scheduling levels."""
    if isinstance(options, str):
        raise TypeError(f"options={options!r} is not a sequence of (step, lane_offset) integer pairs "
                        "(a named pattern goes in pattern=)")
    opts = tensordash_options(params.pattern if options is None else options, params.lanes, params.depth)
    return params, opts, tensordash_levels(opts, params.lanes)


class TensorDashScheduler(FromParams, wiring.Component):
    """Combinational TensorDash scheduler: one movement per lane, and ``AS``.

    Parameters: :class:`~accelgen.params.tensordash.TensorDashSchedParams` (a parameter set, or its fields as
    keywords; ``pattern`` as in the module docstring), and from Python ``options=``: an explicit option list
    of ``(step, offset)`` pairs replacing the pattern.

    Ports
    -----
    z : In(L).array(D)
        ``z[s]`` bit ``l`` is 1 when the pair in buffer row ``s``, lane ``l`` is
        ineffectual (``Z = ZA | ZB``) or already used.
    sel : Out(bits_for(len(options))).array(L)
        Per lane: 0 = nothing to multiply, ``k + 1`` = option ``k`` of :attr:`options`.
    as_rows : Out(bits_for(D))
        ``AS``: the number of leading rows with no effectual pair left after this
        schedule, 1..D (row 0 always drains).

    Latency
    -------
    Combinational (0 cycles); one schedule per cycle.
    """

    params_model = TensorDashSchedParams

    def __init__(self, params: TensorDashSchedParams | None = None, /, *,
                 options: Sequence[tuple[int, int]] | None = None, **kwargs):
        self.params, self.options, self.levels = with_options(self.validated(params, kwargs), options)
        lanes, depth = self.params.lanes, self.params.depth
        self.sel_width = bits_for(len(self.options))
        super().__init__({
            "z": In(lanes).array(depth),
            "sel": Out(self.sel_width).array(lanes),
            "as_rows": Out(bits_for(depth)),
        })

    def elaborate(self, platform):
        m = Module()
        lanes, depth = self.params.lanes, self.params.depth
        live = [[~self.z[s][l] for l in range(lanes)] for s in range(depth)]
        for n, group in enumerate(self.levels):
            picked = [[Const(0) for _ in range(lanes)] for _ in range(depth)]
            for lane in group:
                earlier = Const(0)
                choice = Const(0, self.sel_width)
                for k, (step, offset) in reversed(list(enumerate(self.options))):
                    choice = Mux(live[step][(lane + offset) % lanes], k + 1, choice)
                for k, (step, offset) in enumerate(self.options):
                    col = (lane + offset) % lanes
                    win = Signal(name=f"l{n}_lane{lane}_opt{k}")
                    m.d.comb += win.eq(live[step][col] & ~earlier)
                    earlier = earlier | live[step][col]
                    picked[step][col] = picked[step][col] | win
                m.d.comb += self.sel[lane].eq(choice)
            after = []
            for s in range(depth):
                row = Signal(lanes, name=f"live_l{n}_r{s}")
                m.d.comb += row.eq(Cat(live[s]) & ~Cat(picked[s]))
                after.append([row[l] for l in range(lanes)])
            live = after
        as_rows = Const(depth, bits_for(depth))
        for s in reversed(range(depth)):
            as_rows = Mux(Cat(live[s]).any(), s, as_rows)
        m.d.comb += self.as_rows.eq(as_rows)
        return m
