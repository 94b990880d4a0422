"""The accelerator of an architecture file synthesized block by block, against ``accelgen estimate`` and
``accelgen perf`` of the same file (issue 52).

Blocks, each measured the way its estimate is made (the synthesized side: :mod:`accelgen.system.synthesis`):

Areas are placed areas on both sides: the synthesized cell area (and clock tree) over the standard-cell utilization
the estimator places every fitted unit at (:data:`accelgen.technology.STD_CELL_UTILIZATION`).

* **tensor unit**: the ``systolic`` array through the fitted models' flow on the layer's own stream;
* **memories**: SRAM macros of the estimator's SRAM model (the same macro on both sides, so the areas agree by
  construction); their energy per layer is the accesses the layer's commands make (loads' writes, folds' weight and
  activation reads, the accumulator's writes and read-modify-write reads, stores' reads) at the macro's energy per
  access, against the performance model's on-chip bytes (the schedule's lines, each memory role's at its macros'
  read and write energy per byte: :mod:`accelgen.ppa.perf`).
* **DMA and control** (the shell, :class:`~accelgen.rtl.accel.top.AcceleratorShell`: queues, dispatch, tokens,
  load, execute and store control, bank logic, activation stage): mapped and timed by the same flow; its energy
  from vectorless activity (every input bit and flip-flop at Design Compiler's default toggle rate, the reset
  held), per cycle x the layer's measured cycles. The estimator's counterparts are the description's ``activation``,
  ``dma`` and ``array_io`` units (:mod:`accelgen.ppa.units.dma`, :mod:`accelgen.ppa.units.array_io`) and the core's
  data bus; their energy per layer is the performance model's ``control_j``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..cosim.accel_host import Program
from ..family import BlockFamily
from ..params.accel import AccelParams
from ..ppa.arch import Arch
from ..ppa.estimate import estimate, memory_component
from ..ppa.perf import evaluate
from ..ppa.process import technology
from ..ppa.units import die_block_units
from ..ppa.units.cells import clock_network_fj
from ..technology import STD_CELL_UTILIZATION
from .layers import AccelLayer
from .synthesis import memory_accesses, shell_synthesis, tensor_unit_synthesis

__all__ = ["CONTROL_NODES", "BlockFigures", "block_figures"]

#: the estimate's units that cost the shell (the description's ``core.units`` and the core's data bus)
CONTROL_NODES = ("activation", "dma", "array_io", "data_bus")

@dataclass
class BlockFigures:
    """One block of one layer: synthesized and estimated area (um^2) and energy of the layer (pJ)."""

    block: str
    synth_area_um2: float
    estimate_area_um2: float
    synth_energy_pj: float
    estimate_energy_pj: float
    note: str = ""

    @property
    def area_error(self) -> float | None:
        return (self.estimate_area_um2 - self.synth_area_um2) / self.synth_area_um2 if self.synth_area_um2 else None

    @property
    def energy_error(self) -> float | None:
        return ((self.estimate_energy_pj - self.synth_energy_pj) / self.synth_energy_pj
                if self.synth_energy_pj else None)

    def to_dict(self) -> dict:
        return asdict(self) | {"area_error": self.area_error, "energy_error": self.energy_error}


def _node(tree: dict, name: str) -> dict | None:
    if tree["name"] == name:
        return tree
    return next((n for c in tree.get("children", []) if (n := _node(c, name)) is not None), None)


def block_figures(systolic: BlockFamily, arch: Arch, params: AccelParams, layer: AccelLayer, program: Program,
                  cycles: int) -> list[BlockFigures]:
    """Every block of the accelerator on ``layer`` (run as ``program``, ``cycles`` measured in cosim): synthesized
    against estimated (module docstring). ``systolic``: the array's block family (the caller's registry)."""
    est = estimate(arch)
    clock = est.clock_mhz
    widths = {"a_width": params.operand_bits, "b_width": params.operand_bits}
    workload = {"name": layer.name, "layers": [layer.workload_layer | widths]}
    perf = evaluate(arch, workload, batch=1).layers[0]
    energy = {k: v * 1e12 for k, v in perf["energy_breakdown_j"].items()}
    # the same without glitches on either side: the fitted zero-delay energy against the zero-delay simulation
    zero_delay = evaluate(arch.with_switching("zero_delay"), workload, batch=1).layers[0]["energy_breakdown_j"]
    v_dyn = (est.vdd_v / 1.1) ** 2   # the cell library's supply (NanGate45 typical, 1.1 V)
    out = []
    tu = tensor_unit_synthesis(systolic, params, layer, program.m_tile, clock)
    macs = float(np.prod(layer.A.shape) * layer.B.shape[1])
    util = macs / (params.array.rows * params.array.cols * tu["cycles"])
    out.append(BlockFigures("tensor unit", tu["area_um2"] / STD_CELL_UTILIZATION,
                            _node(est.breakdown, "tensor_unit0")["area_mm2"] * 1e6, tu["energy_pj"] * v_dyn,
                            energy["compute_j"],
                            f"{tu['cycles']} cycles of folds at utilization {util:.2f}; clock network "
                            f"{tu['clock_pj_per_cycle'] * tu['cycles'] * v_dyn:.0f} pJ of it; glitch ratio "
                            f"{tu['glitch_ratio']:.3f}; at zero delay {tu['energy_zero_delay_pj'] * v_dyn:.0f} pJ "
                            f"(estimate {zero_delay['compute_j'] * 1e12:.0f}); "
                            f"estimate {energy['compute_j'] / macs:.3f} pJ per MAC"))
    accesses = memory_accesses(program, params)
    mem_energy, mem_area = 0.0, 0.0
    tech = technology(arch.node_nm)
    for i, m in enumerate(arch.core.memories):
        macro = memory_component(m, tech, f"core.memories[{i}]", clock)
        counts = accesses[m.name]
        mem_energy += (counts["read"] * macro.energy_pj["read"] + counts["write"] * macro.energy_pj["write"]) * v_dyn
        mem_area += _node(est.breakdown, m.name)["area_mm2"] * 1e6
    out.append(BlockFigures("memories", mem_area, mem_area, mem_energy, energy["sram_j"],
                            "accesses: " + "; ".join(f"{k} {v['read']} reads, {v['write']} writes"
                                                     for k, v in accesses.items())))
    shell = shell_synthesis(params, clock)
    est_ctrl = sum(_node(est.breakdown, n)["area_mm2"] * 1e6 for n in CONTROL_NODES)
    # the shell's clock network, as the flow prices it (its flip-flops over its cell area): the part of its energy
    # that does not depend on the activity, set against the estimate's units' clocks
    shell_clock = clock_network_fj(shell["flip_flops"], shell["area_um2"]) * 1e-3 * cycles * v_dyn
    units = {u.kind: u for u in die_block_units(arch.core, tech, clock)}
    est_clock = (units["dma"].energy_pj("cycle") + units["array_io"].energy_pj("cycle")) * cycles * v_dyn
    out.append(BlockFigures("DMA and control", shell["area_um2"] / STD_CELL_UTILIZATION, est_ctrl,
                            shell["energy_per_cycle_pj"] * cycles * v_dyn, energy.get("control_j", 0.0),
                            f"{shell['flip_flops']} flip-flops (estimate "
                            f"{sum(_node(est.breakdown, n)['params'].get('flip_flops', 0) for n in CONTROL_NODES[1:3])}"
                            f" in the dma and array_io units); clock network {shell_clock:.0f} pJ (estimate "
                            f"{est_clock:.0f}); the rest at vectorless activity"))
    return out
