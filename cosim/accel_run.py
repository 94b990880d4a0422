"""Runs a program on the emitted accelerator (cocotb on Verilator or Icarus, external memory from cocotbext-axi) and
checks its results against the golden model, bit for bit."""

from __future__ import annotations

import json
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..params.accel import AccelParams
from ..util import cache_dir
from . import simulators
from .accel_host import Program

__all__ = ["ACCEL_TB", "AccelRun", "run_program"]

ACCEL_TB = "accelgen.cosim.tb.accel_tb"
#: cycles a program may take beyond a generous bound before the run counts as hung (per command and fold line)
HANG_CYCLES_PER_COMMAND = 4096


@dataclass
class AccelRun:
    """One program's run: whether its results matched, its measured cycles and where the logs are."""

    passed: bool
    cycles: int | None
    results: np.ndarray | None
    mismatches: int
    build_s: float
    run_s: float
    log: str | None = None
    error: str | None = None


def run_program(verilog_path: Path, top: str, params: AccelParams, program: Program, expected: np.ndarray, *,
                sim: str = "verilator", seed: int = 1, keep: bool = False, opt: str | None = None) -> AccelRun:
    """Simulate ``program`` on the design and compare its results with ``expected`` (``[M, N]``)."""
    built = simulators.ensure_built(Path(verilog_path), top, sim, opt=opt)
    run_dir = cache_dir("runs") / f"{top}-{sim}-s{seed}-{uuid.uuid4().hex[:8]}"
    run_dir.mkdir(parents=True, exist_ok=True)
    images = []
    for i, (address, data) in enumerate(sorted(program.images.items())):
        path = run_dir / f"image{i}.bin"
        path.write_bytes(data)
        images.append([address, str(path)])
    out_len = program.dram_bytes - program.c_addr
    out_path = run_dir / "results.bin"
    result_path = run_dir / "result.json"
    plan = {"commands": [f"{w:x}" for w in program.commands], "images": images, "dram_bytes": program.dram_bytes,
            "outputs": [[program.c_addr, out_len, str(out_path)]], "result": str(result_path),
            "max_cycles": HANG_CYCLES_PER_COMMAND * len(program.commands) + 8 * program.M * program.folds,
            "clock": "clk", "reset": "rst"}
    plan_path = run_dir / "plan.json"
    plan_path.write_text(json.dumps(plan))
    t0 = time.monotonic()
    ok, log = simulators.run_test(built.path, top, sim, ACCEL_TB, run_dir,
                                  extra_env={"ACCELGEN_PLAN": str(plan_path)}, seed=seed)
    run_s = time.monotonic() - t0
    if not ok or not result_path.exists():
        return AccelRun(False, None, None, 0, built.seconds, run_s, str(log), f"the simulation failed: see {log}")
    cycles = json.loads(result_path.read_text())["cycles"]
    raw = out_path.read_bytes()
    results = program.results(lambda addr, n: raw[addr - program.c_addr:addr - program.c_addr + n], params)
    mismatches = int(np.count_nonzero(results != np.asarray(expected)))
    passed = mismatches == 0
    if passed and not keep:
        shutil.rmtree(run_dir, ignore_errors=True)
        log = None
    return AccelRun(passed, cycles, results, mismatches, built.seconds, run_s, str(log) if log else None,
                    None if passed else f"{mismatches} of {results.size} results differ from the golden model")
