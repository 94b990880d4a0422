"""Golden model of MAERI's augmented reduction tree (ART): which adder switch reduces which part of
every vecID cluster, the association order of every sum, its output slot and its latency.

Naive and independent of the RTL (:class:`~accelgen.rtl.art.ART`): it moves *pieces* (a run of
inputs of one cluster, with its association tree) up the tree, level by level, as the ART's switches
do. The rules (the RTL's docstring gives their sources, MAERI's paper and its public Bluespec):

* Level ``h`` (1..log2 n) has ``m = n / 2**h`` adder switches; switch ``j`` reads the pieces of its
  children, row slots ``2j`` and ``2j+1`` of level ``h-1`` (level 0: the inputs). Switches ``j`` and
  ``j+1`` of one level with ``j`` odd are adjacent but have different parents: a *forwarding link*
  joins them (levels with ``m >= 4``; the outermost switches ``0`` and ``m-1`` have none). Over the
  link each switch of the pair also reads the neighbour's child next to it (odd ``j`` reads slot
  ``2j+2``, even ``j+1`` reads slot ``2j+1``): a linked switch is a 3-input adder.
* Orientation: an odd switch (a right child, and the root) sends its piece up towards its parent on
  its left; an even switch (a left child) up towards its parent on its right. In a switch's own
  terms its children are ``far`` (odd: left child; even: right child) and ``near`` (next to the
  link), and ``fwd`` is the neighbour's child over the link, ``fwd2`` the piece beyond it.
  A piece is *open* on a side when its cluster continues there (in the adjacent piece of the row).
* Joins: ``j1`` (far|near), ``j2`` (near|fwd) and ``j3`` (fwd|fwd2) say whether those adjacent pieces
  belong to one cluster. The switch's sum is ``s = (far + near if j1 else near)``, then ``s + fwd``
  if it takes ``fwd``: odd switches when ``j2 and not j3``, even ones when ``j1 and j2 and not j3``
  (a cluster spanning just ``near`` and ``fwd`` is taken by the odd switch of the pair).
  ``j1 and j2 and j3`` (one cluster through all four pieces): each switch adds its own two children
  only and marks its piece open towards the other (the pair's boundary is joined further up).
* Outputs: each switch sends one piece up and *emits* at most one complete cluster (into its own
  output slot). With ``j1`` the piece ``s`` goes up when it is open (far side, or the split above),
  else it is emitted. Without ``j1``: if ``near`` went to the neighbour (odd: ``j2 and j3``; even:
  ``j2``), ``far`` alone goes up when open on its far side, else it is emitted; otherwise ``s``
  (``near``, or ``near + fwd``: complete) is emitted and ``far`` goes up (open, or complete and
  riding up to a switch with a free output). The root has no parent: its upward piece is emitted in
  slot ``n - 1``.

Every cluster is emitted exactly once, complete (checked here for every layout the tests give, and
exhaustively for ``n <= 16`` in the tests). Slots: switch ``j`` of level ``h`` emits into slot
``j * 2**h + 2**(h-1) - 1`` (the in-order index of the tree node: the input left of its middle),
the root's upward piece into slot ``n - 1``.

Association order (fp32: every ``+`` one IEEE binary32 addition, round to nearest even,
:func:`accelgen.golden.fp.fp_add`): a switch adds its own children first (``far + near``), then the
forwarded piece (``(far + near) + fwd``, or ``near + fwd``); the 3-input adder is these two 2-input
adders in series. Each piece keeps its association tree as nested pairs ``(left, right)`` of input
indices in input order; one fp32 addition is commutative, so the tree fixes every result. Invalid
inputs enter as 0 (fp32 +0.0) and do not split clusters; a piece that is not added is passed
bit-exactly.

Cycle model: one input register stage, then per level ``add_stages`` registers inside the switch's
adder(s) and its output register; emitted clusters wait in registers for the last level, so every
cluster of a vector leaves ``1 + log2 n * (1 + add_stages)`` cycles after the vector entered.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..params.art import ARTParams
from .fp import fp_add

__all__ = ["ArtCluster", "art_latency", "art_plan", "art_slot", "art_sums", "evaluate", "piece_width_growth"]


def _log2(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 2 or n & (n - 1):
        raise ValueError(f"n={n!r} is not allowed; allowed: a power of two >= 2")
    return n.bit_length() - 1


def art_latency(n: int, add_stages: int = 0) -> int:
    """``1 + log2 n * (1 + add_stages)``: input registers, then per level the adder's ``add_stages``
    registers (a 3-input adder's two adders share them) and the level's output register
    (:attr:`accelgen.params.art.ARTParams.latency`)."""
    _log2(n)
    return ARTParams.model_construct(n=n, add_stages=add_stages).latency


def art_slot(n: int, level: int, j: int) -> int:
    """Output slot of switch ``j`` at ``level`` (1..log2 n): its in-order index ``j * 2**level + 2**(level-1) - 1``."""
    return j * 2 ** level + 2 ** (level - 1) - 1


def piece_width_growth(n: int, level: int) -> int:
    """Bits a piece at ``level`` may need beyond the input width: ``min(level + 1, log2 n)`` (``level >= 1``).
    A piece reaches beyond its switch's subtree by what it took over links, but stays shorter than
    ``2**(level+1)`` inputs (:func:`art_plan` checks this for every layout it reduces)."""
    return 0 if level == 0 else min(level + 1, _log2(n))


@dataclass
class _Piece:
    start: int
    end: int
    open_left: bool
    open_right: bool
    tree: object

    def join(self, right: _Piece) -> _Piece:
        assert self.end + 1 == right.start, (self, right)
        return _Piece(self.start, right.end, self.open_left, right.open_right, (self.tree, right.tree))


@dataclass
class ArtPlan:
    """How the ART reduces one vecID layout: ``slots[slot] = (start, end, tree)`` of the cluster emitted
    there, and ``ops`` counts the switch operations by kind (for coverage)."""

    slots: dict = field(default_factory=dict)
    ops: dict = field(default_factory=dict)


def _open_far(p, odd: bool) -> bool:
    """Piece ``p`` is open on the switch's far side (odd switch: left; even: right)."""
    return p is not None and (p.open_left if odd else p.open_right)


def _joined(p, q, odd: bool) -> bool:
    """``p`` and its neighbour ``q`` towards the link belong to one cluster (their flags must agree)."""
    flag = p is not None and (p.open_right if odd else p.open_left)
    if flag != (q is not None and (q.open_left if odd else q.open_right)):
        raise AssertionError(f"ART model: inconsistent pieces {p} {q}")
    return flag


def _cat(a: _Piece, b: _Piece) -> _Piece:
    """``a`` and ``b`` joined, in input order."""
    return a.join(b) if a.start < b.start else b.join(a)


def art_plan(vec_ids) -> ArtPlan:
    """Reduce the layout ``vec_ids`` (one id per input, ``n`` a power of two) with the ART's rules."""
    ids = [int(i) for i in vec_ids]
    n = len(ids)
    k = _log2(n)
    eq = [ids[i] == ids[i + 1] for i in range(n - 1)]
    row = [_Piece(i, i, i > 0 and eq[i - 1], i < n - 1 and eq[i], i) for i in range(n)]
    plan = ArtPlan()

    def count(kind):
        plan.ops[kind] = plan.ops.get(kind, 0) + 1

    def emit(slot, piece):
        if piece is None:
            return
        if piece.open_left or piece.open_right or slot in plan.slots:
            raise AssertionError(f"ART model: slot {slot} gets {piece}")
        plan.slots[slot] = (piece.start, piece.end, piece.tree)

    for level in range(1, k + 1):
        m = n >> level
        out = []
        for j in range(m):
            odd = j % 2 == 1 or level == k
            linked = m >= 4 and 0 < j < m - 1
            if odd:   # far = left child, near = right child, fwd = the right neighbour's left child
                far, near = row[2 * j], row[2 * j + 1]
                fwd, fwd2 = (row[2 * j + 2], row[2 * j + 3]) if linked else (None, None)
            else:     # far = right child, near = left child, fwd = the left neighbour's right child
                far, near = row[2 * j + 1], row[2 * j]
                fwd, fwd2 = (row[2 * j - 1], row[2 * j - 2]) if linked else (None, None)

            j1, j2, j3 = _joined(far, near, odd), _joined(near, fwd, odd), _joined(fwd, fwd2, odd)
            take_fwd = j2 and not j3 and (odd or j1)
            s = _cat(far, near) if j1 else near
            if take_fwd:
                s = _cat(s, fwd)
                count("add3" if j1 else "add2 over link")
            elif j1:
                count("add2")
            up = em = None
            if j1:
                split = j2 and j3
                if split:
                    count("split at link")
                    s = _Piece(s.start, s.end, s.open_left or not odd, s.open_right or odd, s.tree)
                if _open_far(far, odd) or split:
                    up = s
                else:
                    em = s
            elif j2 and (j3 or not odd):   # near went over the link to the neighbour
                if _open_far(far, odd):
                    up = far
                else:
                    em = far
            else:
                em, up = s, far
                if up is not None and not (up.open_left or up.open_right) and level < k:
                    count("ride up")
            emit(art_slot(n, level, j), em)
            if level == k:
                emit(n - 1, up)
                up = None
            if up is not None and up.end - up.start + 1 >= 2 ** (level + 1):
                raise AssertionError(f"ART model: piece {up} too long for level {level}")
            out.append(up)
        row = out
    return plan


def evaluate(tree, x, dtype: str = "int"):
    """The value of an association ``tree`` over the (masked) inputs ``x``: exact integer sum, or fp32
    bits with one :func:`~accelgen.golden.fp.fp_add` per pair."""
    if isinstance(tree, int):
        return x[tree]
    a, b = evaluate(tree[0], x, dtype), evaluate(tree[1], x, dtype)
    if dtype == "int":
        return a + b
    return int(fp_add(np.uint32(a), np.uint32(b)))


@dataclass(frozen=True)
class ArtCluster:
    """A reduced cluster: inputs ``start..end`` share ``vec_id``; ``total`` (int, or fp32 bits) leaves in
    output ``slot``; ``valid``: it has a valid input; ``tree``: its association order."""

    start: int
    end: int
    vec_id: int
    total: int
    valid: bool
    slot: int
    tree: object


def art_sums(values, vec_ids, valid, dtype: str = "int") -> list[ArtCluster]:
    """Every cluster of one vector as the ART reduces it, in input order. Invalid inputs count as 0
    (fp32 +0.0); ``dtype="fp32"``: ``values`` are fp32 bit patterns summed in the ART's order."""
    if dtype not in ("int", "fp32"):
        raise ValueError(f"dtype={dtype!r} is not allowed; allowed: 'int', 'fp32'")
    mask = 0xFFFF_FFFF if dtype == "fp32" else None
    x = [(int(a) & mask if mask else int(a)) if v else 0 for a, v in zip(values, valid)]
    plan = art_plan(vec_ids)
    out = [ArtCluster(s, e, int(vec_ids[s]), evaluate(tree, x, dtype), any(bool(valid[i]) for i in range(s, e + 1)),
                      slot, tree) for slot, (s, e, tree) in plan.slots.items()]
    return sorted(out, key=lambda c: c.start)
