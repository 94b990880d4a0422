"""Architecture-level PPA estimator (NeuroMeter-style). Reads fitted model files; never imports Amaranth.

Layers (each usable on its own): :mod:`.process` (per-node technology data with sources)
-> :mod:`.sram` (CACTI-style SRAM / register-file model), :mod:`.components`
(wires, NoC, PHYs, PCIe, scalar core, fitted compute blocks) and :mod:`.units` (each kind of
unit a plug-in class found by name) -> :mod:`.arch`
(the validated description) -> :mod:`.estimate` (tree, timing, outputs) ->
:mod:`.perf` (workloads on the mapping models and the dual roofline), :mod:`.batch`
(vectorized design points), :mod:`.dse` (design-space exploration), :mod:`.chips`
(published chips) and :mod:`.studies` (the papers' comparisons).
"""

from .arch import Arch, load_arch, parse_arch
from .estimate import Estimate, estimate
from .process import technology
from .sram import SRAM, sram_batch

__all__ = ["Arch", "Estimate", "SRAM", "estimate", "load_arch", "parse_arch", "sram_batch", "technology"]
