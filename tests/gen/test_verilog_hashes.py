"""Emission is byte-identical to the record taken before the restructuring (issue 17)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from verilog_hashes import RECORD, digest  # noqa: E402

_RECORD = json.loads(RECORD.read_text())


@pytest.mark.parametrize("case", sorted(_RECORD))
def test_emitted_verilog_unchanged(case):
    entry = _RECORD[case]
    assert digest(entry["family"], entry["params"], entry["name"]) == \
        {"verilog": entry["verilog"], "manifest": entry["manifest"]}
