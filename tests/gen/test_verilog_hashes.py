"""Emission is byte-identical to the record taken before the restructuring (issue 17)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from verilog_hashes import RECORD, cases, digest  # noqa: E402

_RECORD = json.loads(RECORD.read_text())


@pytest.mark.parametrize("case", sorted(_RECORD))
def test_emitted_verilog_unchanged(case):
    entry = _RECORD[case]
    assert digest(entry["family"], entry["params"], entry["name"]) == \
        {"verilog": entry["verilog"], "manifest": entry["manifest"]}


def test_every_case_is_recorded():
    """A new family or example block gets its hashes recorded (``python tests/gen/verilog_hashes.py`` rewrites the
    whole record: add the new cases only, so that no earlier hash changes unnoticed)."""
    assert sorted(set(cases()) - set(_RECORD)) == []
