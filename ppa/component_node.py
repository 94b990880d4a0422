"""The node of the component tree (:class:`Component`) both estimators sum: floats at its leaves for one chip
(:func:`accelgen.ppa.estimate.estimate`), numpy arrays of design points for many (:mod:`accelgen.ppa.batch`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Component:
    """A node of the architecture tree (units in names; totals include children)."""

    name: str
    kind: str
    count: int = 1                       # identical instances represented by this node
    area_um2_each: float = 0.0           # own area of one instance (excluding children)
    leakage_mw_each: float = 0.0
    energy_pj: dict = field(default_factory=dict)          # action -> pJ, one instance
    actions_per_cycle: dict = field(default_factory=dict)  # action -> per instance per cycle at full activity
    delay_ns: float = 0.0                # own critical delay (0: not timing relevant)
    ops_per_cycle_each: float = 0.0      # arithmetic ops (MAC = 2) per instance per cycle
    activity_key: str = ""               # which activity factor applies to its dynamic power
    params: dict = field(default_factory=dict)
    trace: dict = field(default_factory=dict)
    children: list = field(default_factory=list)

    def add(self, *children: "Component") -> "Component":
        self.children.extend(children)
        return self

    # totals (this node x count, children included)
    @property
    def area_um2(self) -> float:
        return _times(self.count, _plus(self.area_um2_each, _sum(c.area_um2 for c in self.children)))

    @property
    def leakage_mw(self) -> float:
        return _times(self.count, _plus(self.leakage_mw_each, _sum(c.leakage_mw for c in self.children)))

    def dynamic_mw(self, clock_mhz: float, activity: dict | None = None) -> float:
        act = 1.0
        if activity is not None:
            act = activity.get(self.activity_key, activity.get("default", 1.0)) if self.activity_key else \
                activity.get("default", 1.0)
        own = _sum(e * self.actions_per_cycle.get(a, 0.0) for a, e in self.energy_pj.items())
        own = _times(act, own * clock_mhz * 1e-3) if self.energy_pj else 0.0
        return _times(self.count, _plus(own, _sum(c.dynamic_mw(clock_mhz, activity) for c in self.children)))

    @property
    def ops_per_cycle(self) -> float:
        return _times(self.count, _plus(self.ops_per_cycle_each, _sum(c.ops_per_cycle for c in self.children)))

    def walk(self, path: str = ""):
        here = f"{path}/{self.name}" if path else self.name
        yield here, self
        for c in self.children:
            yield from c.walk(here)


# Sums and products of a node's totals, in the order ``count * (own + ((c1 + c2) + ...))``, leaving out the terms
# that change no value (adding a zero, multiplying by one): with numpy arrays of design points at the leaves (the
# batch estimator) each of them is a pass over every point and a fresh array.

def _sum(parts):
    total = 0.0
    for i, p in enumerate(parts):
        total = p if i == 0 else total + p
    return total


def _plus(own, rest):
    if np.ndim(rest) == 0 and rest == 0:
        return own
    return rest if np.ndim(own) == 0 and own == 0 else own + rest


def _times(count, total):
    return total if np.ndim(count) == 0 and count == 1 else count * total
