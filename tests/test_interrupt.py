"""Ctrl-C ends a parallel run and all its worker processes within seconds, the second Ctrl-C too (issue 51: a
second SIGINT left ``accelgen sweep -j 2`` joining workers that finished their tasks, forever)."""

import os
import signal
import subprocess
import sys
import time

import pytest

SCRIPT = """
import sys, time
from accelgen.executor import Executor

def nap(i):
    time.sleep(60)
    return i

if __name__ == "__main__":
    with Executor(jobs=2) as ex:
        print("started", flush=True)
        ex.run(nap, range(4))
"""


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True, check=False)
    return [int(p) for p in out.stdout.split()]


@pytest.mark.parametrize("signals", [1, 2])
def test_ctrl_c_ends_the_run_and_its_workers_within_seconds(tmp_path, signals):
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    # its own process group, as a shell gives a foreground job: Ctrl-C reaches the workers too; SIGINT handled as
    # in a shell (a pytest-xdist worker ignores it, and an ignored signal stays ignored across exec)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout.readline().strip() == "started"
        deadline = time.monotonic() + 20
        while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        workers = _children(proc.pid)
        assert len(workers) >= 2
        time.sleep(0.5)   # the workers are in their tasks
        t0 = time.monotonic()
        for _ in range(signals):
            os.killpg(proc.pid, signal.SIGINT)
            time.sleep(0.3)
        proc.wait(timeout=10)
        assert time.monotonic() - t0 < 10
        assert proc.returncode != 0 and "KeyboardInterrupt" in proc.stderr.read()
        alive = [w for w in workers if os.path.exists(f"/proc/{w}") and
                 open(f"/proc/{w}/stat").read().split()[2] != "Z"]
        assert alive == []
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
