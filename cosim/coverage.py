"""Functional coverage: the bins a cosim run could hit and how often it hit each, and the helpers collectors share.

A family's collector (``BlockFamily.coverage``) sits beside its host in the family's module
(``cosim/<family>.py``, e.g. :func:`accelgen.cosim.mac.mac_coverage`, whose docstring lists its bins). It
looks at one run's cycle table (and the family's host context, e.g. the GEMMs of a systolic run) and
returns a :class:`Coverage`: the bins this run *could* hit for its parameters (``bins``) and how often it
hit each (``hits``). A regression merges the coverage of its tests per family with :meth:`Coverage.merge`
and reports, per family, the fraction of bins hit and the bins never hit. A floating-point run also
collects the fp bins of :mod:`accelgen.cosim.fp_coverage`, less those the family's structure cannot reach
(``BlockFamily.fp_unreachable``, beside the collector).

numpy only; no Amaranth or cocotb import.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: the operand-sparsity bins of streamed operands (:func:`sparsity_bin`)
SPARSITY_BINS = ("0%", "<25%", "25-50%", "50-75%", "75-95%", ">=95%")


@dataclass
class Coverage:
    """Bins a run could hit and the hits per bin (``hits`` keys are a subset of ``bins``); ``unreachable``: bins
    these parameters cannot reach, with the reason (not bins: never counted as missed)."""

    bins: set[str] = field(default_factory=set)
    hits: dict[str, int] = field(default_factory=dict)
    unreachable: dict[str, str] = field(default_factory=dict)

    def hit(self, name: str, count: int = 1) -> None:
        self.bins.add(name)
        if count:
            self.hits[name] = self.hits.get(name, 0) + int(count)

    def declare(self, *names: str) -> None:
        self.bins.update(names)

    @property
    def covered(self) -> int:
        return sum(1 for b in self.bins if self.hits.get(b, 0) > 0)

    @property
    def fraction(self) -> float:
        return self.covered / len(self.bins) if self.bins else 1.0

    @property
    def missed(self) -> list[str]:
        return sorted(b for b in self.bins if not self.hits.get(b))

    def merge(self, other: "Coverage") -> "Coverage":
        """Both runs' bins and hits; a bin unreachable in one run but a bin of the other is a bin."""
        out = Coverage(set(self.bins) | set(other.bins), dict(self.hits))
        for k, v in other.hits.items():
            out.hits[k] = out.hits.get(k, 0) + v
        out.unreachable = {k: v for k, v in {**other.unreachable, **self.unreachable}.items() if k not in out.bins}
        return out

    def to_dict(self) -> dict:
        d = {"bins": sorted(self.bins), "hits": dict(sorted(self.hits.items()))}
        if self.unreachable:
            d["unreachable"] = dict(sorted(self.unreachable.items()))
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Coverage":
        return cls(set(d.get("bins", ())), {k: int(v) for k, v in d.get("hits", {}).items()},
                   dict(d.get("unreachable", {})))


def signed_values(bits: np.ndarray, width: int, signed: bool) -> np.ndarray:
    """The values of ``width``-bit operand bit patterns (two's complement when ``signed``)."""
    v = bits.astype(np.int64) if width < 64 else bits.view(np.int64)
    if signed and width < 64:
        v = np.where(v >> (width - 1) & 1, v - (1 << width), v)
    return v


def sparsity_bin(frac: float) -> str:
    """The :data:`SPARSITY_BINS` bin of a fraction of zero (or ineffectual) operands."""
    if frac == 0:
        return "0%"
    edges = [(0.25, "<25%"), (0.5, "25-50%"), (0.75, "50-75%"), (0.95, "75-95%")]
    return next((name for hi, name in edges if frac < hi), ">=95%")


def shape_class(value: int, size: int) -> str:
    """A GEMM dimension against the array's: ``smaller``, ``equal`` or ``larger``."""
    return "smaller" if value < size else "equal" if value == size else "larger"
