"""The generated accelerator's blocks synthesized (issue 52): what :mod:`accelgen.system.synth` compares with the
estimate. Nothing here reads the estimator, so its results are cached on disk by their content (the Verilog, the
stimulus, the clock, the library, the flow's code and this module's): a change of the estimator re-runs the
comparison in seconds, and an interrupted bench resumes at the first block it had not finished (:func:`_cached`).

* **tensor unit**: the ``systolic`` array of the description through the flow the fitted models are measured with
  (:func:`accelgen.fit.measure.measure`: mapped to the cell library at the description's clock, timed, simulated
  gate by gate, a timed run for the glitch ratio). Its stimulus is the layer itself: the operand lines the
  accelerator feeds the array, fold after fold, tile after tile (the cosim driver's schedule,
  :func:`accelgen.cosim.systolic_schedule.gemm_schedule`), cut into lanes that each start
  :data:`LANE_WARMUP_CYCLES` early. Energy per layer = (switching x glitch ratio + clock network) per cycle x
  cycles, the fitted models' own definition (:func:`accelgen.fit.sweep.dataset_rows`).
* **memories**: the accesses the layer's commands make (:func:`memory_accesses`).
* **DMA and control** (the shell, :class:`~accelgen.rtl.accel.top.AcceleratorShell`: queues, dispatch, tokens,
  load, execute and store control, bank logic, activation stage): mapped and timed by the same flow; its energy
  from vectorless activity (every input bit and flip-flop at Design Compiler's default toggle rate, the reset
  held), per cycle.
"""

from __future__ import annotations

import inspect
import json
import math
import sys

import numpy as np

from ..cosim.accel_host import Program
from ..cosim.stimulus import Activity
from ..cosim.systolic_schedule import gemm_schedule
from ..family import BlockFamily
from ..fit.glitch import TimedSim, cell_delays
from ..fit.measure import Design, MappedDesign, glitch_stimulus, map_design, measurement_key
from ..fit.vectorless import Sources, measure_vectorless
from ..gen.emit import _convert_hierarchy, render
from ..params.accel import AccelParams, decode
from ..rtl.accel.top import AcceleratorShell
from ..util import cache_dir, canonical_json, sha256_hex, write_atomic
from .layers import AccelLayer

__all__ = ["LANES", "LANE_WARMUP_CYCLES", "array_stimulus", "lane_warmup", "memory_accesses", "shell_synthesis",
           "tensor_unit_synthesis"]


def _cached(kind: str, key: dict, compute) -> dict:
    """``compute()``, or its result from an earlier run with the same ``key`` and this module's source. The key is a
    measurement's (:func:`accelgen.fit.measure.measurement_key`: the Verilog, the stimulus, the flow's code and
    versions), so the estimator's code, which this module's imports reach, is not part of it."""
    code = sha256_hex(inspect.getsource(sys.modules[__name__]))
    digest = sha256_hex(canonical_json({"key": key, "code": code}))[:32]
    path = cache_dir("accel_synth") / f"{kind}-{digest}.json"
    if path.exists():
        return json.loads(path.read_text())
    result = compute()
    write_atomic(path, json.dumps(result))
    return result


#: lanes the layer's array stream is cut into for the gate simulation (the shipped sweeps simulate 32)
LANES = 32


def lane_warmup(params: AccelParams) -> int:
    """Cycles a lane is simulated before it is counted: a whole weight load and the skew, so that every register of
    the array holds what the continuous stream would have put there."""
    a = params.array
    return 2 * (a.rows + a.cols) + a.rows * a.row_hop + a.mul_stages


LANE_WARMUP_CYCLES = "2 (rows + cols) + rows x (add_stages + 1) + mul_stages"


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
    return _cached("tensor_unit", {"measurement": measurement_key(design)}, lambda: _tensor_unit(design, stimuli,
                                                                                              cycles))


def _tensor_unit(design: Design, stimuli: list, cycles: int) -> dict:
    key = (design.verilog, design.clock_mhz)
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
    design = Design(verilog=verilog, top="accel_shell", cells=(), stimuli={}, clock_mhz=clock_mhz)
    return _cached("shell", {"measurement": measurement_key(design)}, lambda: _shell(design))


def _shell(design: Design) -> dict:
    rec = measure_vectorless(design, Sources(held={"rst": 0}))
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
