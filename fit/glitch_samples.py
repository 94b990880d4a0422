"""Which sweep points get a timed (glitch) simulation, and which glitch ratio every other point takes.

A timed simulation costs far more than the zero-delay one, so a sweep runs it on a few training points
(``glitch_samples`` spread over the pipelining settings, plus ``glitch_extra``) and every point takes the ratio of
the samples nearest to it (:func:`glitch_ratios`). ``spec`` below is a :class:`accelgen.fit.sweep.SweepSpec`.
"""

from __future__ import annotations

import re

from ..util import canonical_json

#: the parameters that set how much logic lies between registers (pipeline stages and registers): glitching grows
#: with that depth, so a point takes the glitch ratio of the samples nearest in these (:func:`glitch_ratios`)
PIPELINING = re.compile(r"_stages$|_reg$|pipeline")
#: parameters that change the datapath's logic itself between the same registers (a flushing fp unit has no
#: subnormal shifter; a systolic column of ``sum_group`` rows adds with one multi-operand adder): a point takes a
#: sample that shares them when one is measured (``glitch_extra``)
_DATAPATH = ("flush_subnormals", "sum_group")


def glitch_ratios(points: list[dict], samples: list[tuple[dict, float]]) -> list[float]:
    """The glitch ratio (timed over zero-delay switching energy) of each point: the mean of the sampled points nearest
    to it in the pipelining parameters (stages, registers; all parameters if the family has none), normalized to
    their range over ``points``, and among those the ones of its datapath options (:data:`_DATAPATH`); 1 without
    samples. Glitching depends on how deep the logic between registers is (measured on bf16 systolic arrays: 4.8-5.7
    unpipelined, 1.8-2.1 at 3+3 stages), so one mean per model would be wrong by that much, and nearness in the other
    parameters (the array shape) would assign it unevenly. A flushing bf16 PE without pipelining measures 4.5 against
    the IEEE PE's 4.9."""
    if not samples:
        return [1.0] * len(points)
    keys = sorted({k for p in points for k in p})
    keys = [k for k in keys if PIPELINING.search(k)] or [k for k in keys if k not in _DATAPATH]
    datapath = [k for k in _DATAPATH if any(k in p for p in points)]
    span = {}
    for k in keys:
        values = [p.get(k) for p in points]
        if all(isinstance(v, (int, float)) for v in values):
            span[k] = (max(values) - min(values)) or None

    def distance(a: dict, b: dict) -> tuple[float, int]:
        """Nearness in the registers first; among equally near samples, those of the same datapath."""
        total = 0.0
        for k in keys:
            x, y = a.get(k), b.get(k)
            if k in span:
                total += ((float(x) - float(y)) / span[k]) ** 2 if span[k] else 0.0
            else:
                total += float(x != y)
        return round(total, 9), sum(a.get(k) != b.get(k) for k in datapath)

    out = []
    for p in points:
        d = [distance(p, s) for s, _ in samples]
        near = [r for (_, r), x in zip(samples, d, strict=False) if x == min(d)]
        out.append(sum(near) / len(near))
    return out


def glitch_points(spec) -> set[str]:
    """The training points (canonical JSON of their parameters) that get a timed simulation: ``glitch_samples`` of
    them, and the sweep's ``glitch_extra`` points. Glitching follows the pipelining (:func:`glitch_ratios`), so when
    the training points have several pipelining settings (stage counts, registers), the samples are spread over those
    settings, ordered by their total depth of registers (first and last included), each at the first point in grid
    order that has it; otherwise they are evenly spaced through the grid. ``glitch_extra`` names points whose logic
    differs between the same registers (:data:`_DATAPATH`), so that such points find a sample of their own kind."""
    train = [p for split, p in spec.points() if split == "train"]
    extra = {canonical_json(p) for p in train if any(listed_as(p, e, spec) for e in spec.glitch_extra)}
    return _spread_samples(spec, train) | extra


def listed_as(params: dict, listed: dict, spec) -> bool:
    """Whether the point ``params`` is the one a grid block lists as ``listed`` (derived parameters aside)."""
    return all(params.get(k, object()) == v for k, v in listed.items()) and \
        set(params) - set(listed) <= set(spec.derived)


def _spread_samples(spec, train: list[dict]) -> set[str]:
    n = min(spec.glitch_samples, len(train))
    if n == 0:
        return set()
    full = [spec.block.validate(p).model_dump() for p in train]
    keys = sorted(k for k in full[0] if PIPELINING.search(k))
    settings: dict[tuple, int] = {}
    for i, p in enumerate(full):
        settings.setdefault(tuple(p[k] for k in keys), i)
    if len(settings) > 1:
        order = sorted(settings, key=lambda t: (sum(float(v) for v in t if isinstance(v, (int, float))), t))
        n = min(n, len(order))
        picks = [order[round(i * (len(order) - 1) / (n - 1))] for i in range(n)] if n > 1 else order[:1]
        return {canonical_json(train[settings[t]]) for t in picks}
    if n == 1:
        return {canonical_json(train[0])}
    return {canonical_json(train[round(i * (len(train) - 1) / (n - 1))]) for i in range(n)}
