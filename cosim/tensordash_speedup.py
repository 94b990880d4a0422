"""TensorDash speedup over the dense schedule, measured on the generated PE: long operand streams run
with the reactive testbench (``cosim/tb/tensordash_tb.py``, which follows the PE's ``take`` and counts
busy cycles), next to the fast cycle model and the ideal speedup (``accelgen tensordash-speedup``).
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..gen.emit import render, write
from ..golden.tensordash import cycle_counts, ideal_speedup
from .run import run_cosim
from .tensordash import Stream, acc_bits, trace
from .tensordash_streams import nonzero_ints
from .vectors import CycleTable, to_bits

STREAM_TB = "accelgen.cosim.tb.tensordash_tb"


@dataclass
class StreamRun:
    """Outcome of :func:`run_streams`: what the RTL did, next to the golden model."""

    passed: bool
    measured_cycles: list[int]
    model_cycles: list[int]
    results_exact: bool
    cosim: object  # CosimResult


def run_streams(fam, params, streams: list[Stream], *, sim: str = "verilator", seed: int = 1,
                name: str = "tensordash") -> StreamRun:
    """Co-simulate ``streams`` on the PE (or tile) of family ``fam`` with the reactive testbench.

    The testbench follows the DUT's ``take`` and counts busy cycles itself; the
    counts and the accumulators are compared with the golden model
    (:func:`simulate_pe`) stream by stream.
    """
    tile = hasattr(params, "rows")
    n_rows = params.rows if tile else 1
    lanes = params.lanes
    n_max = max([s.rows for s in streams] + [1])
    count = len(streams)
    a = np.zeros((count, n_rows, n_max, lanes) if tile else (count, n_max, lanes), dtype=np.int64)
    b = np.zeros((count, n_max, lanes), dtype=np.int64)
    lengths = np.array([s.rows for s in streams], dtype=np.int64)
    traces = [trace(params, s, tile) for s in streams]
    for i, s in enumerate(streams):
        a[i, ..., :s.rows, :] = s.a
        b[i, :s.rows] = s.b
    acc_names = [f"acc__{r}" for r in range(n_rows)] if tile else ["acc"]
    expect = {"cycles": np.array([t.cycles for t in traces], dtype=np.uint64)}
    for r, nm in enumerate(acc_names):
        expect[nm] = to_bits([acc_bits(params, t.result[r]) for t in traces], params.acc_width)
    table = CycleTable(inputs={"stream": np.arange(count, dtype=np.uint64)}, expect=expect,
                       info={"vectors": count})
    with tempfile.TemporaryDirectory(prefix="accelgen-td-") as tmp:
        tmp = Path(tmp)
        e = write(render(fam, params, name), tmp / "rtl")
        np.savez_compressed(tmp / "streams.npz", a=a, b=b, lengths=lengths)
        res = run_cosim(e.verilog_path, e.manifest, table, sim=sim, seed=seed, work_dir=tmp / "run", keep=True,
                        waves_on_failure=False, test_module=STREAM_TB,
                        plan_extra={"streams": str((tmp / "streams.npz").resolve()), "depth": params.depth,
                                    "lanes": lanes, "rows": n_rows if tile else 0, "a_width": params.a_width,
                                    "b_width": params.b_width})
        out = json.loads((tmp / "run" / "result.json").read_text()) if (tmp / "run" / "result.json").exists() else {}
    measured = [int(c) for c in out.get("measured_cycles", [])]
    got_acc = out.get("measured_acc", [])
    exact = len(got_acc) == count and all(
        [int(v) for v in got] == [int(expect[nm][i]) for nm in acc_names] for i, got in enumerate(got_acc))
    res.run_dir = res.log = None
    return StreamRun(passed=res.passed, measured_cycles=measured, model_cycles=[t.cycles for t in traces],
                     results_exact=exact, cosim=res)


def sweep_streams(lanes: int, depth: int, sparsity: float, *, count: int, rows: int, a_width: int = 8,
                  b_width: int = 8, signed: bool = True, seed: int = 1) -> list[Stream]:
    """``count`` streams of ``rows`` rows whose pairs are ineffectual with probability ``sparsity``.

    An ineffectual pair has a zero on A, on B or on both (equally likely), so
    both zero detectors matter.
    """
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        a = nonzero_ints(rng, (rows, lanes), a_width, signed)
        b = nonzero_ints(rng, (rows, lanes), b_width, signed)
        dead = rng.random((rows, lanes)) < sparsity
        side = rng.integers(0, 3, (rows, lanes))
        a[dead & (side != 1)] = 0
        b[dead & (side != 0)] = 0
        out.append(Stream(f"s={sparsity}", a, b))
    return out


def speedup_sweep(fam, params, sparsities, *, streams: int = 32, rows: int = 64, seed: int = 1,
                  sim: str | None = "verilator") -> list[dict]:
    """Speedup over the dense schedule versus sparsity: cosim, fast model and ideal side by side.

    For each sparsity ``s`` (fraction of ineffectual pairs), ``streams`` random
    streams of ``rows`` rows run on the PE ``params`` (of family ``fam``); all sparsities share one
    simulator run. ``sim=None`` skips cosim (model columns only). Each row:
    ``sparsity``, ``ineffectual`` (measured fraction), ``dense_cycles``,
    ``cosim_cycles``, ``model_cycles`` (fast vectorized model), ``speedup_cosim``,
    ``speedup_model``, ``ideal`` = ``min(1/(1-s), D)``, ``agree`` (cosim and fast
    model equal on every stream) and ``exact`` (every dot product exact).
    """
    per_s = [sweep_streams(params.lanes, params.depth, float(s), count=streams, rows=rows,
                           a_width=params.a_width, b_width=params.b_width, signed=params.signed,
                           seed=seed + 1000 * i) for i, s in enumerate(sparsities)]
    run = None
    if sim is not None:
        run = run_streams(fam, params, [st for group in per_s for st in group], sim=sim, seed=seed)
    table = []
    for i, (s, group) in enumerate(zip(sparsities, per_s)):
        eff = np.stack([(st.a != 0) & (st.b != 0) for st in group])
        fast = cycle_counts(eff, depth=params.depth, pattern=params.pattern)
        dense = int(sum(st.rows for st in group))
        row = {"sparsity": float(s), "ineffectual": float(1 - eff.mean()), "dense_cycles": dense,
               "model_cycles": int(fast.sum()), "speedup_model": dense / max(int(fast.sum()), 1),
               "ideal": float(ideal_speedup(s, params.depth))}
        if run is not None:
            measured = run.measured_cycles[i * streams:(i + 1) * streams]
            row.update(cosim_cycles=int(sum(measured)), speedup_cosim=dense / max(int(sum(measured)), 1),
                       agree=bool(len(measured) == streams and list(fast) == measured),
                       exact=bool(run.results_exact and run.passed))
        table.append(row)
    return table


