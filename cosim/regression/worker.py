"""The process of one regression job: ``python -m accelgen.cosim.regression.worker RESULT.json < job.pickle``.

Started by :func:`~accelgen.cosim.regression.job.run_job` in its own process group. It reads the
job (a pickle; a test job carries its :class:`~accelgen.family.BlockFamily`, so no registry is
needed here), builds the simulator or runs the test with the family's stimulus, checks and
coverage collector, and writes the result as JSON to ``RESULT.json`` (with the run's Verilator code
coverage data as text when the job asks for it: the parent keeps it, also from other hosts). An exception is the
test's error, not the worker's crash. The worker ends itself (and its simulator) if the process
that started it dies.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

from ...gen.emit import Emitted
from ...golden.fp import recording
from ...util import write_atomic
from .. import simulators
from ..check import cosim_emitted
from ..code_coverage import dat_text, parse_dat, with_file
from ..coverage import Coverage
from ..fp_coverage import family_fp_coverage
from ..native import ensure_native


def _execute_build(job: dict) -> dict:
    """Build (or find cached) one design's simulator at the job's ``opt`` with ``build_jobs`` parallel compiles."""
    opt, jobs = job.get("opt"), job.get("build_jobs")
    with tempfile.TemporaryDirectory(prefix="accelgen-build-") as tmp:
        vpath = Path(tmp) / f"{job['top']}.v"
        vpath.write_text(job["verilog"])
        coverage = bool(job.get("code_coverage"))
        if job.get("testbench") == "native":
            built = ensure_native(job["verilog"], job["manifest"], opt=opt, jobs=jobs, coverage=coverage)
        else:
            built = simulators.ensure_built(vpath, job["top"], job["sim"], opt=opt, jobs=jobs, coverage=coverage)
    return {"status": "built", "build_s": built.seconds, "cached": built.cached, "opt": built.opt}


def _execute_test(job: dict) -> dict:
    fam = job["fam"]
    params = fam.validate(job["params"])
    vectors, seed, options = job["vectors"], job["seed"], job["options"]
    # the golden models compute the expected results while the table is built: the fp operations to cover
    with recording() as fp_ops:
        made = fam.cycle_table(params, vectors, seed, **options)
    table, context = made if isinstance(made, tuple) else (made, None)
    cov = fam.coverage(params, table, context if context is not None else {"vectors": vectors, "seed": seed}) \
        if fam.coverage else Coverage()
    cov = cov.merge(family_fp_coverage(fam, params, fp_ops))
    with tempfile.TemporaryDirectory(prefix="accelgen-test-") as tmp:
        manifest = job["manifest"]
        vpath = Path(tmp) / f"{manifest['name']}.v"
        vpath.write_text(job["verilog"])
        emitted = Emitted(name=manifest["name"], family=fam.name, params=params, verilog=job["verilog"],
                          manifest=manifest, verilog_path=vpath)
        dat = Path(tmp) / "coverage.dat" if job.get("code_coverage") else None
        res = cosim_emitted(fam, params, emitted, sim=job["sim"], vectors=vectors, seed=seed, options=options,
                            made=made, work_dir=Path(job["work_dir"]), keep=False,
                            waves_on_failure=job.get("waves", True), testbench=job.get("testbench", "cocotb"),
                            opt=job.get("opt"), coverage_dat=dat)
        # keyed by the design's file name, not the path this host built it from (module code_coverage)
        code_cov = dat_text(with_file(parse_dat(dat.read_text()), vpath.name)) if dat and dat.exists() else None
    return {"status": "passed" if res.passed else "failed", "cycles": res.cycles, "checks": res.checks,
            "mismatches": res.mismatches, "first_mismatches": res.first_mismatches, "error": res.error,
            "waveform": res.waveform, "log": res.log, "run_dir": res.run_dir, "sim_s": res.run_s,
            "opt": res.opt, "coverage": cov.to_dict(), "code_coverage": code_cov}


def _watch_parent() -> None:
    """End this worker (and its simulator) if the process that started it dies (e.g. is SIGKILLed)."""
    parent = os.getppid()

    def watch():
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os.killpg(os.getpgid(0), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    """Read a job from stdin, run it, write its result to ``argv[0]``."""
    argv = sys.argv[1:] if argv is None else argv
    result_path = Path(argv[0])
    _watch_parent()
    try:
        job = pickle.load(sys.stdin.buffer)
        out = _execute_build(job) if job["kind"] == "build" else _execute_test(job)
    except Exception as exc:  # reported as the test's error; the regression goes on
        out = {"status": "error", "error": f"{type(exc).__name__}: {exc}",
               "traceback": traceback.format_exc(limit=8)}
    write_atomic(result_path, json.dumps(out, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
