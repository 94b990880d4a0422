"""Resume state: every finished test by resume key, saved at once (``<out>/state.json``).

A killed regression restarted with the same arguments reuses what passed (same design hash,
simulator, seed, mode, vectors, options and testbench: :attr:`TestSpec.key`) and runs the rest.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from ...util import write_atomic
from .results import TestResult

STATE_FORMAT = "accelgen-regress-state/1"


class RegressState:
    """Finished tests by resume key, saved atomically after every test."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.tests: dict[str, dict] = {}
        if self.path.exists():
            try:
                data = json.loads(self.path.read_text())
            except (OSError, json.JSONDecodeError):
                data = {}
            if data.get("format") == STATE_FORMAT:
                self.tests = dict(data.get("tests", {}))
        self._lock = threading.Lock()

    def get(self, key: str) -> TestResult | None:
        rec = self.tests.get(key)
        return TestResult.from_dict(rec) if rec else None

    def record(self, result: TestResult) -> None:
        with self._lock:
            self.tests[result.key] = result.to_dict()
            write_atomic(self.path, json.dumps({"format": STATE_FORMAT, "tests": self.tests}, indent=1) + "\n")
