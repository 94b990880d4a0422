"""Golden model of the TensorDash scheduler (Mahmoud et al., MICRO 2020, sect. III-A): the connectivity
patterns, the levels in which lanes decide, and one scheduling decision. The PE and tile that use it are
modelled in :mod:`accelgen.golden.tensordash`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["TD_PATTERNS", "pattern_options", "schedule_levels", "schedule_step"]

#: named connectivity patterns, options ``(time step ahead, lane offset)`` in priority order
TD_PATTERNS: dict[str, tuple[tuple[int, int], ...]] = {
    # the dense slot, three lookahead options and four lookaside options (TensorDash)
    "default": ((0, 0), (1, 0), (2, 0), (3, 0), (1, 1), (1, -1), (2, 2), (3, 3)),
    # lookahead only (every buffer row of the own lane); lanes never compete
    "lookahead": ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0)),
}


def pattern_options(pattern, lanes: int, depth: int) -> tuple[tuple[int, int], ...]:
    """The options a lane really has, in priority order.

    ``pattern`` is a name of :data:`TD_PATTERNS` or a sequence of ``(step, offset)``
    pairs. Options reaching beyond buffer row ``depth - 1`` are dropped; offsets
    are reduced modulo ``lanes``; an option that names the same slot as an
    earlier one is dropped (it could never be chosen). The first option must be
    ``(0, 0)`` and no other option may have step 0, so that the current row
    always drains.
    """
    if isinstance(pattern, str):
        if pattern not in TD_PATTERNS:
            raise ValueError(f"pattern={pattern!r} is not known; allowed: {', '.join(map(repr, TD_PATTERNS))}")
        raw = TD_PATTERNS[pattern]
    else:
        raw = tuple(tuple(int(v) for v in opt) for opt in pattern)
    out: list[tuple[int, int]] = []
    for step, offset in raw:
        if step < 0:
            raise ValueError(f"pattern option {(step, offset)!r} has a negative step; allowed: steps >= 0")
        if step >= depth:
            continue
        opt = (step, offset % lanes)
        if opt not in out:
            out.append(opt)
    if not out or out[0] != (0, 0) or any(s == 0 for s, _ in out[1:]):
        raise ValueError(f"pattern {pattern!r}: the first option must be (0, 0) and the only one with step 0")
    return tuple(out)


def _slots(lane: int, options, lanes: int) -> set[tuple[int, int]]:
    return {(s, (lane + o) % lanes) for s, o in options}


def schedule_levels(options, lanes: int) -> tuple[tuple[int, ...], ...]:
    """Lanes grouped into levels: a minimum colouring of the candidate-overlap graph.

    Two lanes conflict when their candidate slot sets intersect. The grouping
    uses the fewest levels possible; among those, each lane (in order 0..L-1)
    goes to the lowest level it can (the lexicographically first colouring,
    found by backtracking). Levels decide in increasing order; inside a level
    the candidate sets are disjoint, so the lanes can decide at the same time.
    """
    slot_sets = [_slots(i, options, lanes) for i in range(lanes)]
    conflicts = [[j for j in range(lanes) if j != i and slot_sets[i] & slot_sets[j]] for i in range(lanes)]

    def colour(k: int) -> list[int] | None:
        colours = [-1] * lanes

        def place(lane: int, top: int) -> bool:
            # ``top``: highest level used so far; a lane opens at most one new level
            # (the lexicographically first colouring has this form)
            if lane == lanes:
                return True
            used = {colours[j] for j in conflicts[lane]}
            for c in range(min(k, top + 2)):
                if c not in used:
                    colours[lane] = c
                    if place(lane + 1, max(top, c)):
                        return True
            colours[lane] = -1
            return False

        return colours if place(0, -1) else None

    for k in range(1, lanes + 1):
        found = colour(k)
        if found is not None:
            return tuple(tuple(i for i in range(lanes) if found[i] == c) for c in range(k))
    raise AssertionError("unreachable: L colours always suffice")


def schedule_step(live, options, levels) -> tuple[np.ndarray, np.ndarray, int]:
    """One scheduler decision.

    ``live`` is a ``(D, L)`` boolean array of effectual, not yet used pairs
    (``~Z``). Returns ``(sel, live_after, as_rows)``: ``sel[l]`` is 0 when lane
    ``l`` has nothing to multiply, else ``k + 1`` for option ``k``; ``live_after``
    has the chosen pairs removed; ``as_rows`` is the number of leading rows of
    ``live_after`` that are empty (``D`` if all are).
    """
    live = np.array(live, dtype=bool)
    depth, lanes = live.shape
    sel = np.zeros(lanes, dtype=np.int64)
    for group in levels:
        for lane in group:
            for k, (step, offset) in enumerate(options):
                col = (lane + offset) % lanes
                if live[step, col]:
                    live[step, col] = False
                    sel[lane] = k + 1
                    break
    as_rows = depth
    for row in range(depth):
        if live[row].any():
            as_rows = row
            break
    return sel, live, as_rows
