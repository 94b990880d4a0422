"""The linear reduction's sweep files load (no sweep is run): :func:`sweep_files.check_sweep_file`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from sweep_files import check_sweep_file


@pytest.mark.parametrize("name,dtype", [("linear_reduction", "int"), ("linear_reduction-fp32", "fp32")])
def test_sweep_file_loads(name, dtype):
    check_sweep_file(name, "linear_reduction", dtype)
