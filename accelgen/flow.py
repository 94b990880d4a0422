"""The main job: generate, co-simulate and synthesize every block of a build config.

The one place above :mod:`accelgen.gen`, :mod:`accelgen.cosim` and :mod:`accelgen.fit` that joins them.
One design: :func:`cosim_design`, :func:`synthesize_design`; every block of a config:
:func:`emit_config`, :func:`cosim_config`, :func:`synthesize_config`, and :func:`run_build` (all three
steps, with files and a report).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .cosim.check import cosim_emitted
from .cosim.run import CosimResult
from .cosim.simulators import resolve_opt, simulator_version
from .family import BlockFamily
from .fit.generic_gates import GateStats, gate_statistics
from .fit.mapping import DEFAULT_CLOCK_MHZ, MappedTiming, map_and_time
from .gen.config import BlockConfig, BuildConfig
from .gen.emit import Emitted, emit, render, write
from .util import ensure_output_dir, write_atomic

#: ``render(fam, params, name) -> Emitted``: the generator step (default :func:`accelgen.gen.emit.render`)
Render = Callable[..., Emitted]


@dataclass
class BlockReport:
    name: str
    block: str
    params: dict
    verilog: str
    manifest: str
    cosim: CosimResult | None = None
    synth: GateStats | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors and (self.cosim is None or self.cosim.passed)

    def to_dict(self) -> dict:
        return {"name": self.name, "block": self.block, "params": self.params, "verilog": self.verilog,
                "manifest": self.manifest, "ok": self.ok, "errors": self.errors,
                "cosim": self.cosim.to_dict() if self.cosim else None,
                "synth": self.synth.to_dict() if self.synth else None}


def synthesize_emitted(emitted: Emitted) -> GateStats:
    """Generic-gate statistics of an emitted design (cell modules kept hierarchical)."""
    return gate_statistics(emitted.verilog, emitted.name, cells=emitted.manifest.get("cells", []),
                           registered=emitted.manifest.get("registered_modules", []))


def synthesize_design(fam: BlockFamily, params, name: str | None = None) -> GateStats:
    """Yosys statistics of one design of ``fam`` (validated ``params``; ``name`` defaults to the family's)."""
    return synthesize_emitted(render(fam, params, name or fam.default_name(params)))


def time_design(fam: BlockFamily, params, name: str | None = None, *, clock_mhz: float = DEFAULT_CLOCK_MHZ,
                liberty: str | Path | None = None) -> MappedTiming:
    """One design of ``fam`` mapped to a cell library at ``clock_mhz`` and statically timed
    (:func:`accelgen.fit.mapping.map_and_time`; default library: the default technology's)."""
    return time_emitted(fam, render(fam, params, name or fam.default_name(params)), clock_mhz=clock_mhz,
                        liberty=liberty)


def time_emitted(fam: BlockFamily, emitted: Emitted, *, clock_mhz: float = DEFAULT_CLOCK_MHZ,
                 liberty: str | Path | None = None) -> MappedTiming:
    """:func:`time_design` of a design of ``fam`` already emitted (:func:`accelgen.fit.mapping.map_and_time`: the
    cell modules :meth:`~accelgen.family.BlockFamily.mapped_cells` names are mapped once each)."""
    return map_and_time(emitted.verilog, emitted.name, clock_mhz=clock_mhz, liberty=liberty,
                        cells=fam.mapped_cells(emitted.manifest),
                        registered=emitted.manifest.get("registered_modules", []))


def synthesize_config(config: BuildConfig) -> Iterator[GateStats]:
    """Yosys statistics of every block of ``config``, in order, each as soon as it is done (no files)."""
    for blk in config.blocks:
        yield synthesize_emitted(render(blk.family, blk.params, blk.name))


def emit_config(config: BuildConfig, out_dir: str | Path) -> Iterator[Emitted]:
    """Write ``<name>.v`` and ``<name>.json`` of every block of ``config`` into ``out_dir``, in order,
    yielding each design as soon as it is written."""
    ensure_output_dir(out_dir)  # a bad directory fails before the first elaboration
    for blk in config.blocks:
        yield emit(blk.family, blk.params, blk.name, out_dir)


def cosim_design(fam: BlockFamily, params, name: str | None = None, *, sim: str = "verilator",
                 vectors: int | None = None, seed: int = 1, keep: bool = False, options: dict | None = None,
                 testbench: str = "cocotb", render: Render = render, opt: str | None = None) -> CosimResult:
    """Render one design of ``fam`` (validated ``params``) into a temporary directory and co-simulate it
    against the family's golden model (:func:`accelgen.cosim.check.cosim_emitted`).

    ``vectors`` defaults to the family's (0: directed stimulus only); ``options`` are the family's cosim
    options; ``keep`` keeps the run directory after a pass; ``testbench="native"`` (Verilator only) runs
    the compiled testbench instead of cocotb. ``render`` makes the design (a mutant generator in tests).
    ``opt`` is the C++ optimization level of the Verilator model (default -O0, a short run:
    :func:`accelgen.cosim.simulators.resolve_opt`). A missing simulator or a bad level is reported before
    rendering.
    """
    simulator_version(sim)
    if sim == "verilator":
        resolve_opt(opt)
    with tempfile.TemporaryDirectory(prefix="accelgen-cosim-") as tmp:
        e = write(render(fam, params, name or fam.default_name(params)), tmp)
        return cosim_emitted(fam, params, e, sim=sim, vectors=vectors, seed=seed, options=options, keep=keep,
                             testbench=testbench, opt=opt)


def cosim_config(config: BuildConfig, *, sim: str | None = None, render: Render = render,
                 opt: str | None = None) -> Iterator[CosimResult]:
    """Co-simulate every block of ``config`` (its vectors, seed and options; ``sim`` defaults to the
    config's; ``opt``: the C++ optimization level, as for :func:`cosim_design`), in order, yielding each
    result as soon as it is done. No files are kept."""
    for blk in config.blocks:
        yield cosim_design(blk.family, blk.params, blk.name, sim=sim or config.sim, vectors=blk.cosim.vectors,
                           seed=blk.cosim.seed, options=blk.cosim.options, render=render, opt=opt)


def cosim_block(emitted: Emitted, blk: BlockConfig, sim: str, **kw) -> CosimResult:
    return cosim_emitted(blk.family, blk.params, emitted, sim=sim, vectors=blk.cosim.vectors, seed=blk.cosim.seed,
                         options=blk.cosim.options, **kw)


def run_build(config: BuildConfig, out_dir: str | Path, *, sim: str | None = None, synth: bool | None = None,
              on_step: Callable[[str, str], None] | None = None, opt: str | None = None) -> list[BlockReport]:
    """Generate, co-simulate and synthesize each block of ``config`` into ``out_dir``.

    Writes ``<name>.v``, ``<name>.json`` and (when synthesized) ``<name>.synth.json``
    per block, and ``build.json`` with every result. ``on_step(block, step)`` is
    called before each step, for progress display. ``opt`` is the C++ optimization level
    of the Verilator models (default -O0, as for :func:`cosim_design`).
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
            rep.cosim = cosim_block(emitted, blk, sim, opt=opt)
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
