"""Grouping design points by the inputs a model depends on, for the batch estimator (:mod:`accelgen.ppa.batch`).

Each input is factorized once (pandas' hash factorization; a broadcast constant is one value without a pass over
the points), a joint key is the inputs' codes in mixed radix, and a model is evaluated once per distinct key that
occurs and gathered back to the points with one integer index (:func:`gather`). Exact on the values given: no
rounding of float keys.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Callable

import numpy as np
import pandas as pd

from .process import TechNode, technology


def is_constant(a: np.ndarray) -> bool:
    """A 0-d array or a broadcast scalar (every stride 0)."""
    return a.ndim == 0 or all(st == 0 for st in a.strides)


def gather(values, codes: np.ndarray | None, shape) -> np.ndarray:
    """``values`` (one per code) at each point; a single value broadcast when ``codes`` is None."""
    if codes is None:
        return np.broadcast_to(np.asarray(values).reshape(()), shape)
    return np.asarray(values)[codes].reshape(shape)


class Factors:
    """The points' inputs, each factorized once and kept, so that every model that depends on one reuses it."""

    def __init__(self, shape):
        self.shape = tuple(shape)
        self._factors: dict[int, tuple] = {}

    def _factor(self, a: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
        """``(codes, values)`` of one input; codes None for a constant."""
        if id(a) not in self._factors:
            full = np.broadcast_to(a, self.shape)
            if is_constant(full):
                entry = (None, np.array([full.ravel()[0]]))
            else:
                codes, values = pd.factorize(full.ravel())
                entry = (codes, np.asarray(values))
            self._factors[id(a)] = (*entry, a)   # the array is kept, so that its id stays its own
        codes, values, _ = self._factors[id(a)]
        return codes, values

    def codes(self, *arrays: np.ndarray) -> tuple[np.ndarray | None, list]:
        """Group the points by the joint values of ``arrays``: flat codes (None when every input is constant) and
        each input's value per code (a scalar for a constant)."""
        factors = [self._factor(a) for a in arrays]
        sizes = [len(v) for _, v in factors]
        joint = None
        for (c, _), n in zip(factors, sizes):
            if c is not None:
                joint = c.astype(np.int64) if joint is None else joint * n + c
        if joint is None:
            return None, [v[0] for _, v in factors]
        total = int(np.prod(sizes, dtype=np.float64))
        if total <= 1 << 24:    # a lookup table over every combination: one bincount, no second hash pass
            present = np.flatnonzero(np.bincount(joint, minlength=total))
            lookup = np.empty(total, dtype=np.int64)
            lookup[present] = np.arange(present.size)
            codes = lookup[joint]
        else:
            codes, present = pd.factorize(joint)
        at = np.unravel_index(np.asarray(present), sizes)
        return codes, [v[i] if c is not None else v[0] for (c, v), i in zip(factors, at)]


class Keys(Factors):
    """The points' nodes and clocks beside their other inputs: a model evaluated once per distinct tuple of the
    inputs it depends on and gathered back to the points, and each point's node figures (:attr:`tech`)."""

    def __init__(self, node_nm: np.ndarray, clock_mhz: np.ndarray):
        super().__init__(node_nm.shape)
        self.node_nm, self.clock_mhz = node_nm, clock_mhz
        self.techs = [technology(float(n)) for n in self._factor(node_nm)[1]]
        self.tech = TechColumns(self.techs, self._factor(node_nm)[0], self.shape)

    def tech_at(self, node_nm) -> "TechColumns":
        """The node figures of ``node_nm``, distinct values of this grouping's ``node_nm`` (from :meth:`codes`):
        columns as long as ``node_nm``, or scalars for one node."""
        codes, values = self._factor(self.node_nm)
        if codes is None or np.ndim(node_nm) == 0:
            return TechColumns([technology(float(node_nm))], None, ())
        at = pd.Index(values).get_indexer(np.asarray(node_nm))
        return TechColumns(self.techs, at, at.shape)

    def _gather(self, table: np.ndarray, codes: np.ndarray | None) -> tuple[np.ndarray, ...]:
        return tuple(gather(table[:, i], codes, self.shape) for i in range(table.shape[1]))

    def per_distinct(self, fn: Callable, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
        """``fn(*values)`` once per distinct tuple of ``arrays`` that occurs, gathered to the points."""
        codes, values = self.codes(*arrays)
        k = 1 if codes is None else int(codes.max()) + 1
        cols = [np.broadcast_to(np.asarray(v), (k,)) for v in values]
        return self._gather(np.array([fn(*(c[i] for c in cols)) for i in range(k)], dtype=float), codes)


class TechColumns:
    """The points' :class:`~accelgen.ppa.process.TechNode`: each field and wire figure an array of each point's
    node's value (a scalar when every point is at one node), looked up once per node and gathered to the points the
    first time it is read. The analytical components take it where they take a node's ``TechNode`` (their
    arithmetic is numpy's), so one function costs one node or many points."""

    def __init__(self, techs: list[TechNode], codes: np.ndarray | None, shape):
        """``techs``: the distinct nodes; ``codes``: each point's (None: one node)."""
        self._techs, self._codes, self._shape = techs, codes, shape
        self._columns: dict[str, np.ndarray] = {}

    def _column(self, name: str, value: Callable[[TechNode], float]):
        if name not in self._columns:
            per_node = np.array([value(t) for t in self._techs], dtype=float)
            self._columns[name] = per_node[0] if self._codes is None else gather(per_node, self._codes, self._shape)
        return self._columns[name]

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in _TECH_FIELDS:
            raise AttributeError(name)
        return self._column(name, lambda t: getattr(t, name))

    def wire_pitch_um(self, kind: str = "semi_global"):
        return self._column(f"pitch:{kind}", lambda t: t.wire_pitch_um(kind))

    def repeated_wire_delay_ps_per_mm(self, kind: str = "semi_global"):
        return self._column(f"delay:{kind}", lambda t: t.repeated_wire_delay_ps_per_mm(kind))

    def wire_energy_pj_per_bit_mm(self, activity: float = 0.5):
        return self._column(f"energy:{activity!r}", lambda t: t.wire_energy_pj_per_bit_mm(activity))


_TECH_FIELDS = {f.name for f in fields(TechNode)} | {"feature_um", "r0c0_ps"}
