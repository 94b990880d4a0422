"""The main job: generate, co-simulate and synthesize every block of a build config."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..cosim.run import CosimResult, run_cosim
from ..fit.synth import SynthStats, synthesize
from ..util import ensure_output_dir, write_atomic
from .blocks import BlockFamily
from .config import BlockConfig, BuildConfig
from .emit import Emitted, emit


@dataclass
class BlockReport:
    name: str
    block: str
    params: dict
    verilog: str
    manifest: str
    cosim: CosimResult | None = None
    synth: SynthStats | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors and (self.cosim is None or self.cosim.passed)

    def to_dict(self) -> dict:
        return {"name": self.name, "block": self.block, "params": self.params, "verilog": self.verilog,
                "manifest": self.manifest, "ok": self.ok, "errors": self.errors,
                "cosim": self.cosim.to_dict() if self.cosim else None,
                "synth": self.synth.to_dict() if self.synth else None}


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
        from ..cosim.native import run_native
        return run_native(emitted.verilog_path, emitted.manifest, table, seed=seed,
                          record=tuple(table.info.get("record", ())), host_check=host_check, **kw)
    if testbench != "cocotb":
        raise ValueError(f"testbench={testbench!r} is not allowed; allowed: cocotb, native")
    return run_cosim(emitted.verilog_path, emitted.manifest, table, sim=sim, seed=seed,
                     record=tuple(table.info.get("record", ())), host_check=host_check, **kw)


def synthesize_emitted(emitted: Emitted) -> SynthStats:
    """Yosys statistics of an emitted design (cell modules kept hierarchical)."""
    return synthesize(emitted.verilog, emitted.name, cells=emitted.manifest.get("cells", []))


def cosim_block(emitted: Emitted, blk: BlockConfig, sim: str, **kw) -> CosimResult:
    return cosim_emitted(blk.family, blk.params, emitted, sim=sim, vectors=blk.cosim.vectors, seed=blk.cosim.seed,
                         options=blk.cosim.options, **kw)


def run_build(config: BuildConfig, out_dir: str | Path, *, sim: str | None = None, synth: bool | None = None,
              on_step: Callable[[str, str], None] | None = None) -> list[BlockReport]:
    """Generate, co-simulate and synthesize each block of ``config`` into ``out_dir``.

    Writes ``<name>.v``, ``<name>.json`` and (when synthesized) ``<name>.synth.json``
    per block, and ``build.json`` with every result. ``on_step(block, step)`` is
    called before each step, for progress display.
    """
    out = ensure_output_dir(out_dir)
    sim = sim or config.sim
    do_synth = config.synth if synth is None else synth
    step = on_step or (lambda name, what: None)
    reports = []
    for blk in config.blocks:
        step(blk.name, "generate")
        emitted = emit(blk.family, blk.params, blk.name, out)
        rep = BlockReport(name=blk.name, block=blk.family.name, params=blk.params.model_dump(),
                          verilog=emitted.verilog_path.name, manifest=emitted.manifest_path.name)
        if blk.cosim.enabled:
            step(blk.name, f"cosim ({sim})")
            rep.cosim = cosim_block(emitted, blk, sim)
            if not rep.cosim.passed:
                rep.errors.append(rep.cosim.error or f"cosim failed: {rep.cosim.mismatches} mismatches")
        if do_synth:
            step(blk.name, "synthesize")
            rep.synth = synthesize_emitted(emitted)
            write_atomic(out / f"{blk.name}.synth.json", json.dumps(rep.synth.to_dict(), indent=2) + "\n")
        reports.append(rep)
    write_atomic(out / "build.json", json.dumps({"source": config.source, "sim": sim,
                                                 "blocks": [r.to_dict() for r in reports]}, indent=2) + "\n")
    return reports
