"""Host side of Benes co-simulation: routed requests, words and expected deliveries as a cycle table."""

from __future__ import annotations

import numpy as np

from ..golden.benes import benes_reference, deliver, random_multicast
from .benes_router import ctrl_words, route
from .vectors import CycleTable


def _directed_permutations(n: int) -> dict[str, np.ndarray]:
    k = n.bit_length() - 1
    idx = np.arange(n)
    bitrev = np.array([int(format(i, f"0{k}b")[::-1], 2) for i in idx])
    return {"identity": idx, "reversal": idx[::-1].copy(), "bit_reversal": bitrev,
            "rotate_by_one": np.roll(idx, 1), "perfect_shuffle": np.concatenate([idx[0::2], idx[1::2]])}


def benes_stimulus(params, vectors: int, seed: int) -> dict:
    """Rows of ``(words, settings, expected)`` for one cosim run, one row per cycle.

    Sections, in order: directed permutations (identity, reversal, bit reversal,
    rotation, perfect shuffle); ``vectors`` random permutations, each routed in
    one pass; ``max(4, vectors // 16)`` random multicasts (a quarter of the
    inputs feed half of the outputs; a few outputs don't care), each routed in
    the passes the router reports, the same input words held over all passes;
    ``max(4, vectors // 16)`` random raw switch settings including the broadcast
    settings, whose expected outputs come from the naive network model.
    ``expected[d]`` is ``None`` where output ``d`` is not checked in that row.
    """
    n, width = params.n, params.width
    rng = np.random.default_rng(seed)
    mask = (1 << width) - 1
    rows: list[tuple[list[int], np.ndarray, list]] = []
    sections: dict[str, int] = {}
    passes_hist: dict[int, int] = {}

    def words():
        return [int(w) & mask for w in rng.integers(0, 1 << min(width, 63), n, dtype=np.uint64)]

    def add_request(name, sources):
        r = route(sources)
        w = words()
        for settings, sub in zip(r.settings, r.delivers):
            rows.append((w, settings, deliver(sub, w)))
        sections[name] = sections.get(name, 0) + 1
        return r

    for name, perm in _directed_permutations(n).items():
        add_request("directed", perm)
    for _ in range(vectors):
        r = add_request("permutations", rng.permutation(n))
        assert r.passes == 1
    for _ in range(max(4, vectors // 16)):
        r = add_request("multicasts", random_multicast(n, rng))
        passes_hist[r.passes] = passes_hist.get(r.passes, 0) + 1
    for _ in range(max(4, vectors // 16)):
        settings = rng.integers(0, 4, size=(params.stages, n // 2)).astype(np.uint8)
        w = words()
        rows.append((w, settings, benes_reference(settings, w)))
        sections["raw_settings"] = sections.get("raw_settings", 0) + 1
    return {"rows": rows, "sections": sections, "multicast_passes": passes_hist}


def benes_table(params, vectors: int = 2048, seed: int = 1) -> CycleTable:
    """The cycle table for one Benes cosim run: a new request (or pass) every cycle."""
    stim = benes_stimulus(params, vectors, seed)
    rows = stim["rows"]
    lat = params.latency
    total = len(rows) + lat
    n_words = params.stages * params.ctrl_words_per_stage
    inputs = {f"data_in__{i}": np.zeros(total, dtype=np.uint64) for i in range(params.n)}
    inputs |= {f"ctrl__{c}": np.zeros(total, dtype=np.uint64) for c in range(n_words)}
    expect = {f"data_out__{d}": np.zeros(total, dtype=np.uint64) for d in range(params.n)}
    check = {name: np.zeros(total, dtype=bool) for name in expect}
    for t, (w, settings, exp) in enumerate(rows):
        for i, v in enumerate(w):
            inputs[f"data_in__{i}"][t] = v
        for c, v in enumerate(ctrl_words(settings)):
            inputs[f"ctrl__{c}"][t] = v
        for d, v in enumerate(exp):
            if v is not None:
                expect[f"data_out__{d}"][t + lat] = v
                check[f"data_out__{d}"][t + lat] = True
    return CycleTable(inputs=inputs, expect=expect, check=check,
                      info={"vectors": len(rows), "sections": stim["sections"],
                            "multicast_passes": stim["multicast_passes"], "latency": lat})
