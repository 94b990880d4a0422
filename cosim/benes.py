"""The Benes network's host side: routed requests, words and expected deliveries as a cycle table; coverage.

No activity stimulus (``BlockFamily.no_activity``): a sweep drives the cosim stimulus and reports energy per
cycle.
"""

from __future__ import annotations

import numpy as np

from ..golden.benes import benes_reference, deliver, random_multicast
from .benes_router import CTRL_WORD_SWITCHES, ctrl_words, route
from .coverage import Coverage
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


# --------------------------------------------------------------------------- coverage

def _decode_settings(params, table: CycleTable, t: int) -> np.ndarray:
    per_stage = params.ctrl_words_per_stage
    half = params.n // 2
    settings = np.zeros((params.stages, half), dtype=np.uint8)
    for s in range(params.stages):
        for c in range(per_stage):
            word = int(table.inputs[f"ctrl__{s * per_stage + c}"][t])
            for i in range(min(CTRL_WORD_SWITCHES, half - c * CTRL_WORD_SWITCHES)):
                settings[s, c * CTRL_WORD_SWITCHES + i] = word >> (2 * i) & 3
    return settings


def benes_coverage(params, table: CycleTable, context) -> Coverage:
    """Per pass, the permutation class (identity, reversal, bit reversal, rotation, perfect shuffle, other full
    permutation, partial permutation with don't-cares), broadcast fan-out classes of raw switch settings, and
    multicast requests by number of passes."""
    cov = Coverage()
    n = params.n
    k = n.bit_length() - 1
    idx = np.arange(n)
    named = {"identity": idx, "reversal": idx[::-1],
             "bit reversal": np.array([int(format(i, f"0{k}b")[::-1], 2) for i in idx]),
             "rotation": np.roll(idx, 1), "perfect shuffle": np.concatenate([idx[0::2], idx[1::2]])}
    cov.declare(*(f"permutation: {name}" for name in named), "permutation: other",
                "partial permutation (don't-care outputs)", "broadcast fan-out 2", "multicast: 2 passes")
    if n >= 4:
        cov.declare("broadcast fan-out 3-4", "multicast: 3+ passes")
    if n >= 8:
        cov.declare("broadcast fan-out 5+")
    lat = params.latency
    rows = int(table.info.get("vectors", table.cycles))
    for t in range(rows):
        src = np.array(benes_reference(_decode_settings(params, table, t), list(range(n))))
        checked = np.array([bool(table.check[f"data_out__{d}"][t + lat]) for d in range(n)])
        used = src[checked]
        if len(set(used.tolist())) == len(used):
            if checked.all():
                name = next((nm for nm, p in named.items() if np.array_equal(src, p)), "other")
                cov.hit(f"permutation: {name}")
            else:
                cov.hit("partial permutation (don't-care outputs)")
        else:
            fan = int(np.bincount(used).max())
            cov.hit("broadcast fan-out 2" if fan == 2 else "broadcast fan-out 3-4" if fan <= 4
                    else "broadcast fan-out 5+")
    for passes, count in table.info.get("multicast_passes", {}).items():
        passes = int(passes)
        cov.hit("multicast: 1 pass" if passes == 1 else "multicast: 2 passes" if passes == 2
                else "multicast: 3+ passes", count)
    return cov
