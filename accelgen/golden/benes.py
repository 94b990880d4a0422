"""Golden models of the Benes distribution network: naive Python, independent of the RTL and router."""

from __future__ import annotations

import numpy as np


def deliver(sources, words) -> list:
    """What a distribution network must deliver: output ``d`` gets ``words[sources[d]]``
    (``None`` where ``sources[d] == -1``, i.e. don't care)."""
    return [None if int(s) < 0 else words[int(s)] for s in sources]


def _switch(code: int, a, b):
    """2x2 switch: bit 0 set -> output 0 takes the lower input; bit 1 set -> output 1 takes the upper input."""
    return (b if code & 1 else a), (a if code & 2 else b)


def benes_reference(settings, words) -> list:
    """Outputs of the recursive Benes network (``n`` ports, ``2 log2 n - 1`` stages) with switch ``settings``.

    ``settings[s][i]`` is the 2-bit code of switch ``i`` in stage ``s``, numbered as
    documented in :mod:`accelgen.rtl.benes`. Plain recursion, one switch at a time.
    """
    words = list(words)
    n = len(words)
    k = n.bit_length() - 1
    if n < 2 or 1 << k != n:
        raise ValueError(f"n={n} is not a power of two >= 2")

    def net(w, depth, index):
        m = len(w)
        if m == 2:
            return list(_switch(int(settings[depth][index]), w[0], w[1]))
        half = m // 2
        first, last = depth, 2 * k - 2 - depth
        upper_in, lower_in = [], []
        for i in range(half):
            o0, o1 = _switch(int(settings[first][index * half + i]), w[2 * i], w[2 * i + 1])
            upper_in.append(o0)
            lower_in.append(o1)
        up = net(upper_in, depth + 1, 2 * index)
        lo = net(lower_in, depth + 1, 2 * index + 1)
        out = []
        for j in range(half):
            out.extend(_switch(int(settings[last][index * half + j]), up[j], lo[j]))
        return out

    return net(words, 0, 0)


def random_permutation(n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.permutation(n)


def random_multicast(n: int, rng: np.random.Generator, dont_care: float = 0.05) -> np.ndarray:
    """A random multicast request: each output names a source; a quarter of the inputs are "hot"
    and feed about half of the outputs between them; a few outputs are don't care (-1)."""
    sources = rng.permutation(n)
    hot = rng.choice(n, size=max(1, n // 4), replace=False)
    pick = rng.random(n) < 0.5
    sources[pick] = rng.choice(hot, size=int(pick.sum()))
    sources[rng.random(n) < dont_care] = -1
    return sources
