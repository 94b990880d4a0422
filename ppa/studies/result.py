"""A study's outcome (:class:`StudyResult`) and its registry entry (:class:`Study`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class StudyResult:
    """What a study found: ``rows`` (one dict per row), ``columns`` (``(key, header)`` pairs to print),
    ``tables`` (further named row lists, e.g. per GEMM), ``notes`` (lines: the paper's figures beside
    accelgen's, and why they differ) and ``files`` (the plots and tables written)."""

    study: str
    title: str
    rows: list[dict]
    columns: list[tuple[str, str]]
    tables: dict[str, list[dict]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"study": self.study, "rows": [_clean(r) for r in self.rows],
                **{name: [_clean(r) for r in rows] for name, rows in self.tables.items()},
                "notes": self.notes, "files": [str(f) for f in self.files]}


def _clean(row: dict) -> dict:
    """JSON-safe values: NaN and infinities become None, numpy scalars Python numbers."""
    out = {}
    for k, v in row.items():
        if hasattr(v, "item") and not isinstance(v, (list, dict, str)):
            v = v.item()
        if isinstance(v, float) and not math.isfinite(v):
            v = None
        out[k] = v
    return out


@dataclass(frozen=True)
class Study:
    name: str
    summary: str
    run: Callable[[Path], StudyResult]

