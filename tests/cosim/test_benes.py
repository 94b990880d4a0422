"""Benes network: the emitted Verilog on Verilator, driven with the router's settings.

Each table carries thousands of random permutations (one pass each), random
multicasts (in the passes the router reports, the input words held), directed
permutations and random raw settings including the broadcast ones (expected
outputs from the naive network model). A new request or pass every cycle.
n = 32, 64 (and, unregistered, n = 8 and 16: issue 48) are marked slow (run them with ``-m slow``).
"""

import pytest

from accelgen.cosim import run_cosim
from accelgen.registry import FAMILIES
from accelgen.gen import render, write

pytestmark = pytest.mark.cosim


def _cosim(tmp_path, params, vectors, seed=1):
    fam = FAMILIES["benes"]
    p = fam.validate(params)
    name = "benes_" + "_".join(f"{k}{v}" for k, v in params.items())
    e = write(render(fam, p, name), tmp_path)
    table = fam.cycle_table(p, vectors, seed)
    result = run_cosim(e.verilog_path, e.manifest, table, sim="verilator", seed=seed, waves_on_failure=False)
    return p, e, table, result


# issue 48: n = 8 and 16 are slow; the same unregistered network as n = 4, and test_benes_pipelined runs both sizes
@pytest.mark.parametrize("n,pipeline_every", [(4, 0),
                                               pytest.param(8, 0, marks=pytest.mark.slow),
                                               pytest.param(16, 0, marks=pytest.mark.slow),
                                               pytest.param(32, 0, marks=pytest.mark.slow),
                                               pytest.param(64, 0, marks=pytest.mark.slow)])
def test_benes_thousands_of_permutations_and_multicasts(tmp_path, n, pipeline_every):
    p, e, table, result = _cosim(tmp_path, dict(n=n, width=16, pipeline_every=pipeline_every), 2000, seed=n)
    assert result.passed, result.summary() + f" {result.error} {result.first_mismatches[:3]}"
    assert result.checks == table.checks
    assert table.info["sections"]["permutations"] == 2000
    assert table.info["sections"]["multicasts"] == 125
    assert max(table.info["multicast_passes"]) > 1


def test_benes_two_ports(tmp_path):
    p, e, table, result = _cosim(tmp_path, dict(n=2, width=8, pipeline_every=0), 200)
    assert e.manifest["clock"] is None
    assert result.passed and result.checks == table.checks


@pytest.mark.parametrize("n,pipeline_every,latency", [(8, 1, 5), (16, 2, 3), pytest.param(2, 1, 1, marks=pytest.mark.slow),
                                                          pytest.param(32, 3, 3, marks=pytest.mark.slow)])
def test_benes_pipelined(tmp_path, n, pipeline_every, latency):
    p, e, table, result = _cosim(tmp_path, dict(n=n, width=12, pipeline_every=pipeline_every), 1000, seed=3)
    assert e.manifest["latency"] == latency and e.manifest["clock"] == "clk"
    assert result.passed, result.first_mismatches[:3]
    assert result.checks == table.checks and result.cycles == table.info["vectors"] + latency
