"""Co-simulate one emitted design of a block family with that family's stimulus and checks."""

from __future__ import annotations

from ..family import BlockFamily
from ..gen.emit import Emitted
from .native import run_native
from .run import CosimResult, run_cosim


def cosim_emitted(fam: BlockFamily, params, emitted: Emitted, *, sim: str = "verilator", vectors: int | None = None,
                  seed: int = 1, options: dict | None = None, made=None, testbench: str = "cocotb",
                  **kw) -> CosimResult:
    """Co-simulate an emitted design of family ``fam`` with its family's stimulus and checks.

    ``vectors`` defaults to the family's default (0 = directed stimulus only); ``options`` are
    the family's cosim options (e.g. ``{"gemm": [(4, 4, 4)]}``); ``made`` is the result of
    ``fam.cycle_table`` when the caller has already built it; ``testbench="native"`` runs the
    compiled Verilator testbench (:func:`accelgen.cosim.native.run_native`, same checks) instead of
    cocotb; ``kw`` goes to :func:`run_cosim`.
    """
    if made is None:
        made = fam.cycle_table(params, fam.default_vectors if vectors is None else vectors, seed,
                               **(options or {}))
    table, context = made if isinstance(made, tuple) else (made, None)
    host_check = None
    if fam.verify is not None:
        def host_check(recorded):
            return fam.verify(params, table, context, recorded)
    if testbench == "native":
        if sim != "verilator":
            raise ValueError(f"testbench='native' needs sim='verilator', not {sim!r}")
        return run_native(emitted.verilog_path, emitted.manifest, table, seed=seed,
                          record=tuple(table.info.get("record", ())), host_check=host_check, **kw)
    if testbench != "cocotb":
        raise ValueError(f"testbench={testbench!r} is not allowed; allowed: cocotb, native")
    return run_cosim(emitted.verilog_path, emitted.manifest, table, sim=sim, seed=seed,
                     record=tuple(table.info.get("record", ())), host_check=host_check, **kw)
