"""The accelerator of an architecture file synthesized block by block, against ``accelgen estimate`` and
``accelgen perf`` of the same file (issue 52).

Blocks, each measured the way its estimate is made:

Areas are placed areas on both sides: the synthesized cell area (and clock tree) over the standard-cell utilization
the estimator places every fitted unit at (:data:`accelgen.technology.STD_CELL_UTILIZATION`).

* **tensor unit**: the ``systolic`` array of the description through the flow the fitted models are measured with
  (:func:`accelgen.fit.measure.measure`: mapped to the cell library at the description's clock, timed, simulated
  gate by gate, a timed run for the glitch ratio). Its stimulus is the layer itself: the operand lines the
  accelerator feeds the array, fold after fold, tile after tile (the cosim driver's schedule,
  :func:`accelgen.cosim.systolic_schedule.gemm_schedule`), cut into lanes that each start
  :data:`LANE_WARMUP_CYCLES` early. Energy per layer = (switching x glitch ratio + clock network) per cycle x
  cycles, the fitted models' own definition (:func:`accelgen.fit.sweep.dataset_rows`).
* **memories**: SRAM macros of the estimator's SRAM model (the same macro on both sides, so the areas agree by
  construction); their energy per layer is the accesses the layer's commands make (loads' writes, folds' weight and
  activation reads, the accumulator's writes and read-modify-write reads, stores' reads) at the macro's energy per
  access, against the performance model's on-chip bytes at its mean energy per byte.
* **DMA and control** (the shell, :class:`~accelgen.rtl.accel.top.AcceleratorShell`: queues, dispatch, tokens,
  load, execute and store control, bank logic, activation stage): mapped and timed by the same flow; its energy
  from vectorless activity (every input bit and flip-flop at Design Compiler's default toggle rate, the reset
  held), per cycle x the layer's measured cycles. The estimator's counterparts are the activation unit and the data
  bus; it has no unit for the DMA engine or the command queues.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from ..cosim.accel_host import Program
from ..cosim.stimulus import Activity
from ..cosim.systolic_schedule import gemm_schedule
from ..family import BlockFamily
from ..fit.glitch import TimedSim, cell_delays
from ..fit.measure import Design, MappedDesign, glitch_stimulus, map_design
from ..fit.vectorless import Sources, measure_vectorless
from ..gen.emit import _convert_hierarchy, render
from ..params.accel import AccelParams, decode
from ..ppa.arch import Arch
from ..ppa.estimate import estimate, memory_component
from ..ppa.perf import evaluate
from ..ppa.process import technology
from ..technology import STD_CELL_UTILIZATION
from ..rtl.accel.top import AcceleratorShell
from .layers import AccelLayer

__all__ = ["BlockFigures", "LANE_WARMUP_CYCLES", "LANES", "block_figures"]

#: lanes the layer's array stream is cut into for the gate simulation (the shipped sweeps simulate 32)
LANES = 32


def lane_warmup(params: AccelParams) -> int:
    """Cycles a lane is simulated before it is counted: a whole weight load and the skew, so that every register of
    the array holds what the continuous stream would have put there."""
    a = params.array
    return 2 * (a.rows + a.cols) + a.rows * a.row_hop + a.mul_stages


LANE_WARMUP_CYCLES = "2 (rows + cols) + rows x (add_stages + 1) + mul_stages"


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


def array_stimulus(params: AccelParams, layer: AccelLayer, m_tile: int, lanes: int = LANES) -> tuple[list, int]:
    """The array's inputs over the layer's folds (tiles of ``m_tile`` rows of A, folds back to back), cut into at
    most ``lanes`` lanes of equal length (each at least four warm-ups long), each simulated from
    :func:`lane_warmup` cycles before its share (idle cycles before the first fold and after the last, where the
    share runs past the stream); and the stream's cycles."""
    A, B = np.asarray(layer.A), np.asarray(layer.B)
    tiles = [(A[m0:m0 + m_tile], B) for m0 in range(0, A.shape[0], m_tile)]
    table, _ = gemm_schedule(params.array, tiles)
    stream = {k: np.asarray(v, dtype=object) for k, v in table.inputs.items()}
    total = len(next(iter(stream.values())))
    warm = lane_warmup(params)
    lanes = max(1, min(lanes, total // (4 * warm)))
    chunk = math.ceil(total / lanes)
    padded = {k: np.concatenate([np.zeros(warm, dtype=object), v, np.zeros(lanes * chunk - total, dtype=object)])
              for k, v in stream.items()}
    out = [Activity({k: v[i * chunk:i * chunk + warm + chunk] for k, v in padded.items()}, ops=float(chunk),
                    per="cycle", warmup=warm) for i in range(lanes)]
    return out, total


#: arrays mapped in this process, by (Verilog, clock): every layer of a description simulates the same netlist
_MAPPED: dict[tuple[str, float], MappedDesign] = {}


def tensor_unit_synthesis(fam: BlockFamily, params: AccelParams, layer: AccelLayer, m_tile: int,
                          clock_mhz: float) -> dict:
    """The array (``fam``: the ``systolic`` family) through the fitted models' flow on the layer's stream: area,
    leakage and the layer's energy, with its clock network's and its switching's shares. The simulation is
    :func:`accelgen.fit.measure.measure`'s, on a netlist mapped once per process."""
    e = render(fam, params.array, "tensor_unit")
    stimuli, cycles = array_stimulus(params, layer, m_tile)
    design = Design(verilog=e.verilog, top="tensor_unit", cells=tuple(fam.mapped_cells(e.manifest)),
                    stimuli={"1.0": stimuli}, clock_mhz=clock_mhz, glitch=True)
    key = (e.verilog, clock_mhz)
    if key not in _MAPPED:
        _MAPPED[key] = map_design(design)
    m = _MAPPED[key]
    run = m.sim.run(stimuli, weights={"switching_fj": m.energy.per_toggle_fj, "internal_fj": m.energy.internal_fj})
    _, cut = glitch_stimulus(design.stimuli)
    timed = TimedSim(m.sim, cell_delays(m.mapped.netlist, design.top, m.mapped.timing_library, m.energy.load_ff))
    ratio = timed.run(cut, m.energy.per_toggle_fj)["ratio"]
    rec = m.record()
    switching = run["weighted_per_cycle"]["switching_fj"] * ratio
    return {"area_um2": rec["area_um2"] + m.clock["area_um2"],
            "leakage_uw": (rec["leakage_nw"] + m.clock["leakage_nw"]) / 1e3, "delay_ns": rec["delay_ns"],
            "cycles": cycles, "glitch_ratio": ratio, "energy_pj": (switching + m.clock["energy_fj"]) * cycles / 1e3,
            "energy_zero_delay_pj": (switching / ratio + m.clock["energy_fj"]) * cycles / 1e3,
            "clock_pj_per_cycle": m.clock["energy_fj"] / 1e3, "switching_pj_per_cycle": switching / 1e3}


def shell_synthesis(params: AccelParams, clock_mhz: float) -> dict:
    """The shell mapped and timed, its energy per cycle at vectorless activity (reset held)."""
    verilog = _convert_hierarchy(AcceleratorShell(params), "accel_shell")
    rec = measure_vectorless(Design(verilog=verilog, top="accel_shell", cells=(), stimuli={}, clock_mhz=clock_mhz),
                             Sources(held={"rst": 0}))
    act, clk, m = rec["activity"]["vectorless"], rec["clock"], rec["mapped"]
    return {"area_um2": m["area_um2"] + clk["area_um2"], "leakage_uw": (m["leakage_nw"] + clk["leakage_nw"]) / 1e3,
            "delay_ns": m["delay_ns"], "flip_flops": m["flip_flops"],
            "energy_per_cycle_pj": (act["switching_fj"] + clk["energy_fj"]) / 1e3}


def memory_accesses(program: Program, params: AccelParams) -> dict[str, dict[str, int]]:
    """Reads and writes of each memory's lines the layer's commands make."""
    rows = params.array.rows
    out = {"scratchpad": {"read": 0, "write": 0}, "accumulator": {"read": 0, "write": 0}}
    for word in program.commands:
        op, f = decode(word)
        if op == "load":
            out["scratchpad"]["write"] += f["lines"]
        elif op == "compute":
            out["scratchpad"]["read"] += rows + f["m_len"]
            out["accumulator"]["write"] += f["m_len"]
            out["accumulator"]["read"] += f["m_len"] * f["accumulate"]
        elif op == "store":
            out["accumulator"]["read"] += f["lines"]
    return out


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
    perf = evaluate(arch, {"name": layer.name, "layers": [layer.workload_layer | widths]}, batch=1).layers[0]
    energy = {k: v * 1e12 for k, v in perf["energy_breakdown_j"].items()}
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
                            f"{tu['glitch_ratio']:.3f} ({tu['energy_zero_delay_pj'] * v_dyn:.0f} pJ at zero delay); "
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
    est_ctrl = sum(_node(est.breakdown, n)["area_mm2"] * 1e6 for n in ("activation", "data_bus"))
    out.append(BlockFigures("DMA and control", shell["area_um2"] / STD_CELL_UTILIZATION, est_ctrl,
                            shell["energy_per_cycle_pj"] * cycles * v_dyn, energy.get("vector_j", 0.0),
                            f"{shell['flip_flops']} flip-flops; estimate: the activation unit and the data bus, "
                            "no DMA or command-queue unit; their energy is not in a layer's"))
    return out
