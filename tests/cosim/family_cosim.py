"""Co-simulating one design of a family on Verilator with its own cycle table (the FAN tests' harness)."""

from __future__ import annotations

from accelgen.cosim import run_cosim
from accelgen.gen import render, write
from accelgen.registry import FAMILIES


def cosim_family(tmp_path, family, params, vectors, seed=1, table=None):
    """Emit ``family`` with ``params`` under the family's own name (as regressions, the flow and the CLI
    name it: equal parameters, one build) and run ``table`` (default: the family's cycle table) on it.
    Returns ``(validated params, table, result)``."""
    fam = FAMILIES[family]
    p = fam.validate(params)
    e = write(render(fam, p, fam.default_name(p)), tmp_path)
    table = table if table is not None else fam.cycle_table(p, vectors, seed)
    result = run_cosim(e.verilog_path, e.manifest, table, sim="verilator", seed=seed, waves_on_failure=False)
    return p, table, result
