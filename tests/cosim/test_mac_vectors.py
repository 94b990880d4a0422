"""A MAC run is as long as it was asked for (issue 51): ``accelgen build examples/quickstart.yaml`` asked for 4,096
vectors of an int8 MAC with a 32-bit accumulator and ran 267,358, the directed overflow runs being 263k cycles."""

from accelgen.cosim.mac import OVERFLOW_CYCLE_LIMIT, mac_coverage, mac_table
from accelgen.rtl import MACParams


def test_a_wide_accumulator_keeps_the_run_to_the_vectors_asked_for_and_says_why_overflow_is_not_hit():
    params = MACParams(a_width=8, b_width=8, acc_width=32, signed=True)
    table = mac_table(params, vectors=4096, seed=1)
    sections = table.info["sections"]
    assert sections["random"] == 4096
    assert table.info["vectors"] - 4096 == sections["corners"] + sections["en_clear"] < 200
    assert "overflow" not in sections and sections["overflow_skipped_needs_cycles"] > OVERFLOW_CYCLE_LIMIT
    cov = mac_coverage(params, table, None)
    assert "accumulator overflow" not in cov.bins and "accumulator overflow" not in cov.missed
    assert "132,106 cycles" in cov.unreachable["accumulator overflow"]


def test_an_accumulator_that_wraps_within_the_limit_is_still_overflowed():
    params = MACParams(a_width=8, b_width=8, acc_width=20, signed=True)
    table = mac_table(params, vectors=100, seed=1)
    assert table.info["sections"]["overflow"] > 0
    assert mac_coverage(params, table, None).hits["accumulator overflow"] > 0
