"""Run one build or test job in its own process group, with a timeout (the parent's side).

:func:`run_job` is the function the executor's threads and Dask workers run: it starts
``python -m accelgen.cosim.regression.worker RESULT.json`` (:mod:`.worker`) in a new session,
sends it the job as a pickle on stdin (a test job carries its family object, which pickles by
reference), waits at most ``timeout_s`` and reads the result back from the file. A job that
outlives its timeout is killed with everything it started and reported as ``status="timeout"``.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

#: the module a job's process runs (``python -m``)
WORKER_MODULE = "accelgen.cosim.regression.worker"

_ACTIVE: set[subprocess.Popen] = set()
_ACTIVE_LOCK = threading.Lock()


def kill_active_jobs() -> None:
    """Kill every worker process group this process started (and their simulators)."""
    with _ACTIVE_LOCK:
        procs = list(_ACTIVE)
    for proc in procs:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)


def run_job(job: dict, timeout_s: float | None = None) -> dict:
    """Run one build or test job in a fresh process group; kill the group after ``timeout_s``.

    ``job`` is a build job (``kind="build"``: ``verilog``, ``top``, ``manifest``, ``sim``,
    ``testbench``) or a test job (``kind="test"``: the family object ``fam``, ``params``, ``mode``,
    ``seed``, ``sim``, ``vectors``, ``options``, ``verilog``, ``manifest``, ``waves``,
    ``testbench``, ``work_dir``). Returns the worker's result dict with ``wall_s`` added.
    """
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="accelgen-job-") as tmp:
        result_path = Path(tmp) / "result.json"
        log_path = Path(tmp) / "worker.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen([sys.executable, "-m", WORKER_MODULE, str(result_path)],
                                    stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True)
            with _ACTIVE_LOCK:
                _ACTIVE.add(proc)
            try:
                try:
                    proc.stdin.write(pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL))
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
                try:
                    rc = proc.wait(timeout=timeout_s)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    return {"status": "timeout", "wall_s": time.monotonic() - t0,
                            "error": f"killed after the per-test timeout of {timeout_s:g} s"}
            finally:
                with _ACTIVE_LOCK:
                    _ACTIVE.discard(proc)
                # nothing the job started may outlive it
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
        if result_path.exists():
            out = json.loads(result_path.read_text())
        else:
            tail = log_path.read_text(errors="replace").strip().splitlines()[-3:]
            out = {"status": "error", "error": f"worker exited with code {rc} without a result: "
                                               + " | ".join(tail)}
    out["wall_s"] = time.monotonic() - t0
    return out
