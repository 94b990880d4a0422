"""The ART's sweep files load (no sweep is run): every point validates, the held-out points are unseen,
the fp32 variant pins its dtype, and every feature form compiles to a number over the family's parameters."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from accelgen.rtl import ARTParams

sys.path.insert(0, str(Path(__file__).parent))
from sweep_files import check_sweep_file


@pytest.mark.parametrize("name,dtype", [("art", "int"), ("art-fp32", "fp32")])
def test_art_sweep_file_loads(name, dtype):
    spec, _ = check_sweep_file(name, "art", dtype)
    for name_, target in spec.targets.items():
        # the additive forms count the linked switches' second adders; the delay is a step (fp32: at n = 8) and a
        # log-link energy scales n switches by factors, so they need not
        if name_ != "delay_ns" and target.get("link", "identity") == "identity":
            assert any("n-2*log2(n)" in f for f in target["features"]), name_


def test_linked_switch_count_is_n_minus_two_log2_n():
    """The sweeps' 3-input-adder count: switches with a forwarding link."""
    for n in (2, 4, 8, 16, 64, 512):
        p = ARTParams(n=n)
        linked = sum(p.linked(h, j) for h in range(1, p.log2n + 1) for j in range(n >> h))
        assert linked == n - 2 * p.log2n
