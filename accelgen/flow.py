"""The main job: generate, co-simulate and synthesize every block of a build config.

The one place above :mod:`accelgen.gen`, :mod:`accelgen.cosim` and :mod:`accelgen.fit` that joins them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .cosim.check import cosim_emitted
from .cosim.run import CosimResult
from .fit.synth import SynthStats, synthesize
from .gen.config import BlockConfig, BuildConfig
from .gen.emit import Emitted, emit
from .util import ensure_output_dir, write_atomic


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
