"""Benes network routing (host side, numpy only — no Amaranth, so ``ppa`` may use it).

Topology (the standard recursive Benes, the same one :class:`accelgen.rtl.Benes`
builds): a network of ``n = 2**k`` ports has ``2k - 1`` stages of ``n/2`` 2x2
switches. A sub-network of size ``m > 2`` whose wires are ``w[0..m-1]`` has a
first stage of ``m/2`` switches (switch ``i`` takes ``w[2i], w[2i+1]``, sends its
output 0 to input ``i`` of the *upper* half-size sub-network and its output 1
to input ``i`` of the *lower* one) and a last stage (switch ``j`` takes output
``j`` of the upper and of the lower sub-network and drives outputs ``2j, 2j+1``).
A sub-network of size 2 is one switch. Switches are numbered within a stage
top to bottom: a sub-network at recursion depth ``d`` with index ``q`` (upper
before lower, recursively) owns switches ``q*m/2 .. (q+1)*m/2 - 1`` of stages
``d`` and ``2k-2-d``.

Switch settings (2 bits; bit 0 drives output 0's mux, bit 1 output 1's)::

    PASS = 0         out0 = in0, out1 = in1
    BCAST_LOWER = 1  out0 = in1, out1 = in1
    BCAST_UPPER = 2  out0 = in0, out1 = in0
    CROSS = 3        out0 = in1, out1 = in0

Routing requests are given as ``sources``: ``sources[d]`` is the input port that
output ``d`` must receive, or ``-1`` when output ``d`` is don't-care. A
permutation (every source at most once) is routed in **one pass** with the
looping algorithm. A multicast (a source named by several outputs) is delivered
in **several passes**: pass ``p`` carries the ``p``-th destination of every
source, so each pass is a partial permutation and the number of passes is the
largest fan-out — the minimum for any schedule whose passes are permutations.
(The broadcast settings are available to callers that set switches directly;
the router does not need them.) Every pass is verified by simulating its
switch settings before :func:`route` returns; a failed check raises
``RuntimeError`` instead of returning a wrong route.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PASS", "BCAST_LOWER", "BCAST_UPPER", "CROSS", "BenesRoute", "route", "route_permutation",
           "simulate", "stages", "ctrl_words", "CTRL_WORD_SWITCHES"]

PASS, BCAST_LOWER, BCAST_UPPER, CROSS = 0, 1, 2, 3

#: switches per control word of the RTL's ``ctrl`` port array (2 bits each: 64-bit words)
CTRL_WORD_SWITCHES = 32


def _log2(n: int) -> int:
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"n={n!r} is not an integer")
    if n < 2 or n & (n - 1):
        raise ValueError(f"n={n!r} is not allowed; expected a power of two >= 2")
    return int(n).bit_length() - 1


def stages(n: int) -> int:
    """Number of switch stages of an ``n``-port Benes network: ``2 log2 n - 1``."""
    return 2 * _log2(n) - 1


@dataclass
class BenesRoute:
    """A verified route: one switch-settings array per pass.

    ``settings[p]`` has shape ``(stages, n/2)`` (``uint8`` codes PASS..CROSS);
    ``delivers[p][d]`` is the input that output ``d`` receives in pass ``p``
    and that the request asked for (``-1``: output ``d`` is not delivered in
    that pass — its word is don't-care).
    """

    n: int
    sources: np.ndarray
    settings: list[np.ndarray]
    delivers: list[np.ndarray]

    @property
    def passes(self) -> int:
        return len(self.settings)


# --------------------------------------------------------------------------- simulation

def _apply_switches(codes: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    o0 = np.where(codes & 1, b, a)
    o1 = np.where(codes & 2, a, b)
    return o0, o1


def simulate(settings: np.ndarray, words: np.ndarray) -> np.ndarray:
    """Words at the outputs of the network with ``settings`` (shape ``(stages, n/2)``) for input ``words``."""
    words = np.asarray(words)
    n = len(words)
    k = _log2(n)
    settings = np.asarray(settings)
    if settings.shape != (2 * k - 1, n // 2):
        raise ValueError(f"settings shape {settings.shape} does not fit n={n}; expected {(2 * k - 1, n // 2)}")
    # Forward through the first k-1 stages: rows are sub-networks, columns their wires.
    cur = words.reshape(1, n)
    for d in range(k - 1):
        q, m = cur.shape
        codes = settings[d].reshape(q, m // 2)
        o0, o1 = _apply_switches(codes, cur[:, 0::2], cur[:, 1::2])
        cur = np.stack([o0, o1], axis=1).reshape(2 * q, m // 2)  # upper half then lower half per sub-network
    # middle stage: sub-networks of size 2
    o0, o1 = _apply_switches(settings[k - 1].reshape(-1, 1), cur[:, 0:1], cur[:, 1:2])
    cur = np.concatenate([o0, o1], axis=1)
    for d in range(k - 2, -1, -1):
        q2, half = cur.shape  # 2q sub-networks of size half
        up, lo = cur[0::2], cur[1::2]
        codes = settings[2 * k - 2 - d].reshape(q2 // 2, half)
        o0, o1 = _apply_switches(codes, up, lo)
        cur = np.stack([o0, o1], axis=2).reshape(q2 // 2, 2 * half)
    return cur.reshape(n)


# --------------------------------------------------------------------------- looping algorithm

def _route_full(perm: list[int], settings: np.ndarray, depth: int, index: int, k: int) -> None:
    """Route the full permutation ``perm`` (output -> input) of a sub-network (depth, index)."""
    m = len(perm)
    last = 2 * k - 2 - depth
    if m == 2:
        settings[depth, index] = PASS if perm[0] == 0 else CROSS
        return
    half = m // 2
    inv = [0] * m
    for o, i in enumerate(perm):
        inv[i] = o
    side = [-1] * m  # per output: 0 upper, 1 lower sub-network
    for start in range(0, m, 2):
        if side[start] >= 0:
            continue
        o = start
        while side[o] < 0:
            side[o] = 0
            o2 = o ^ 1                  # the other output of the same last-stage switch goes lower
            side[o2] = 1
            i_partner = perm[o2] ^ 1    # the other input of that input's first-stage switch goes upper
            o = inv[i_partner]
    base = index * half
    up = [0] * half
    lo = [0] * half
    first = settings[depth]
    lastrow = settings[last]
    for o in range(m):
        i = perm[o]
        if side[o] == 0:
            up[o >> 1] = i >> 1
            first[base + (i >> 1)] = PASS if (i & 1) == 0 else CROSS
            lastrow[base + (o >> 1)] = PASS if (o & 1) == 0 else CROSS
        else:
            lo[o >> 1] = i >> 1
    _route_full(up, settings, depth + 1, 2 * index, k)
    _route_full(lo, settings, depth + 1, 2 * index + 1, k)


def _check_sources(sources, n: int | None) -> np.ndarray:
    src = np.asarray(sources)
    if src.ndim != 1 or not np.issubdtype(src.dtype, np.integer):
        raise TypeError(f"sources must be a 1-D sequence of integers, got {src.dtype} with shape {src.shape}")
    n = len(src) if n is None else n
    _log2(n)
    if len(src) != n:
        raise ValueError(f"sources has {len(src)} entries; expected n={n}")
    bad = src[(src < -1) | (src >= n)]
    if len(bad):
        raise ValueError(f"sources entry {int(bad[0])} is not allowed; expected -1 (don't care) or an input 0..{n - 1}")
    return src.astype(np.int64)


def route_permutation(sources) -> np.ndarray:
    """Switch settings that deliver a partial permutation in one pass (looping algorithm).

    ``sources[d]`` is the input for output ``d`` or ``-1``; every input may appear
    once. Returns verified settings of shape ``(stages, n/2)``.
    """
    src = _check_sources(sources, None)
    used = src[src >= 0]
    if len(np.unique(used)) != len(used):
        vals, counts = np.unique(used, return_counts=True)
        raise ValueError(f"input {int(vals[counts > 1][0])} is requested by several outputs; "
                         "a multicast needs route(), which uses several passes")
    settings = _route_one(src)
    return settings


def _route_one(src: np.ndarray) -> np.ndarray:
    n = len(src)
    k = _log2(n)
    free = iter(sorted(set(range(n)) - set(int(s) for s in src if s >= 0)))
    perm = [int(s) if s >= 0 else next(free) for s in src]
    settings = np.zeros((2 * k - 1, n // 2), dtype=np.uint8)
    _route_full(perm, settings, 0, 0, k)
    got = simulate(settings, np.arange(n))
    want = src >= 0
    if not np.array_equal(got[want], src[want]):
        raise RuntimeError(f"internal error: Benes route for n={n} failed its own check; sources={src.tolist()}")
    return settings


def route(sources, n: int | None = None) -> BenesRoute:
    """Route a permutation (one pass) or multicast (``max fan-out`` passes); every pass is verified."""
    src = _check_sources(sources, n)
    n = len(src)
    rank = np.zeros(n, dtype=np.int64)  # p-th destination of its source
    seen: dict[int, int] = {}
    for d, s in enumerate(src.tolist()):
        if s >= 0:
            rank[d] = seen.get(s, 0)
            seen[s] = rank[d] + 1
    passes = max(seen.values(), default=1)
    settings, delivers = [], []
    for p in range(passes):
        sub = np.where((src >= 0) & (rank == p), src, -1)
        settings.append(_route_one(sub))
        delivers.append(sub)
    covered = np.full(n, -1)
    for sub in delivers:
        covered = np.where(sub >= 0, sub, covered)
    if not np.array_equal(covered, src):
        raise RuntimeError("internal error: the passes do not deliver every requested word")
    return BenesRoute(n=n, sources=src, settings=settings, delivers=delivers)


def ctrl_words(settings: np.ndarray) -> list[int]:
    """The values of the RTL's ``ctrl`` port array for one pass.

    Stage ``s`` uses words ``s*W .. s*W + W - 1`` with ``W = ceil(n/2 / 32)``; bits
    ``2i+1:2i`` of word ``s*W + c`` hold the setting of switch ``32c + i`` of stage ``s``.
    """
    settings = np.asarray(settings)
    words = []
    for row in settings:
        for c in range(0, len(row), CTRL_WORD_SWITCHES):
            w = 0
            for i, code in enumerate(row[c:c + CTRL_WORD_SWITCHES].tolist()):
                w |= int(code) << (2 * i)
            words.append(w)
    return words
