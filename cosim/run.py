"""Run one co-simulation: build the emitted Verilog (cached), apply a cycle table, report.

This is the library entry point behind ``accelgen cosim`` and the pytest cosim
tests; both use exactly this code and the same testbench.
"""

from __future__ import annotations

import json
import shutil
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..util import cache_dir
from . import simulators
from .vectors import CycleTable, from_bits

TABLE_TB = "accelgen.cosim.tb.table_tb"


@dataclass
class CosimResult:
    """Outcome of one cosim run. ``cycles`` and ``checks`` are what the simulator really did."""

    name: str
    sim: str
    sim_version: str
    seed: int
    passed: bool
    cycles: int = 0
    checks: int = 0
    vectors: int = 0
    unit: str = "vectors"
    mismatches: int = 0
    first_mismatches: list = field(default_factory=list)
    #: wall time of getting the simulator build (tiny when ``build_cached``)
    build_s: float = 0.0
    #: the build came from the cache: nothing was compiled
    build_cached: bool = False
    #: the C++ optimization level of the Verilator model (``None`` for Icarus)
    opt: str | None = None
    #: wall time of the simulation run
    run_s: float = 0.0
    run_dir: str | None = None
    log: str | None = None
    waveform: str | None = None
    error: str | None = None
    #: per-cycle values of the ports asked for with ``record=`` (not serialized)
    recorded: dict = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("recorded")
        return d

    def summary(self) -> str:
        head = (f"{'PASS' if self.passed else 'FAIL'} {self.name} on {self.sim} (seed {self.seed}): "
                f"{self.vectors} {self.unit}, {self.cycles} cycles, {self.checks} checks, {self.mismatches} mismatches")
        return head + f" [{self.timing()}]"

    def timing(self) -> str:
        """The build/run split: ``build 7.9 s at -O0, run 0.8 s`` (``build 0.0 s (cached) ...``)."""
        build = f"build {self.build_s:.1f} s" + (" (cached)" if self.build_cached else "") + \
            (f" at {self.opt}" if self.opt else "")
        return f"{build}, run {_seconds(self.run_s)}"


def save_coverage(result: CosimResult, written: Path, dest: Path) -> None:
    """Move the coverage data a run wrote (``written``) to ``dest``; a run that wrote none is an error of
    ``result`` (Verilator writes it when the model ends normally)."""
    if written.exists():
        Path(dest).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(written, dest)
    elif not result.error:
        result.error = f"the instrumented model wrote no coverage data ({written.name})"
        result.passed = False


def _seconds(s: float) -> str:
    # a compiled testbench runs for milliseconds: two significant digits there, not "0.0 s"
    return f"{s:.1f} s" if s >= 1 or s == 0 else f"{s:.2g} s"


def _port_signedness(manifest: dict) -> dict[str, tuple[int, bool]]:
    return {p["name"]: (p["width"], p["signed"]) for p in manifest["ports"]}


def judge(result: CosimResult, data: dict, table: CycleTable, manifest: dict, *, simulator_ok: bool,
          no_result: str) -> None:
    """Fill ``result``'s cycles, checks, mismatches and verdict from the testbench's ``data`` (its result JSON).
    A pass needs the simulator's verdict *and* every requested comparison made; no data is an error saying
    ``no_result`` (where to look), too few checks one counting them."""
    result.cycles = int(data.get("cycles", 0))
    result.checks = int(data.get("checks", 0))
    result.mismatches = int(data.get("mismatches", 0))
    result.first_mismatches = _describe_mismatches(data, manifest, table)
    result.passed = simulator_ok and bool(data) and result.checks == table.checks and result.mismatches == 0
    if not data:
        result.error = f"simulation ended without a result ({no_result})"
    elif result.checks != table.checks:
        result.error = f"only {result.checks} of {table.checks} checks were made"


def fail_host_check(result: CosimResult, host_check) -> None:
    """Fail ``result`` with the first problems ``host_check`` finds in its recorded outputs (none: unchanged)."""
    problems = host_check(result.recorded)
    if problems:
        result.passed = False
        result.error = "; ".join(problems[:3]) + (f" (+{len(problems) - 3} more)" if len(problems) > 3 else "")


def _describe_mismatches(result: dict, manifest: dict, table: CycleTable) -> list[dict]:
    """Each mismatch with its values and, from a cycle-table testbench (a row per cycle; not the TensorDash
    one, whose mismatches name a stream), the inputs applied in that cycle (``inputs``: what an engineer checking
    an edit needs first), signed ports shown signed."""
    ports = _port_signedness(manifest)

    def value(port: str, bits) -> int:
        width, signed = ports.get(port, (64, False))
        return from_bits(bits, width, signed)

    out = []
    for mm in result.get("first_mismatches", []):
        got, cycle = mm["got"], mm["cycle"]
        inputs = {port: value(port, col[cycle]) for port, col in table.inputs.items()} \
            if "stream" not in mm and 0 <= cycle < table.cycles else {}
        out.append({"cycle": cycle, "port": mm["port"], "expected": value(mm["port"], mm["expected"]),
                    "got": value(mm["port"], got) if isinstance(got, int) else got, "inputs": inputs})
    return out


def run_cosim(verilog_path: Path, manifest: dict, table: CycleTable, *, sim: str = "verilator", seed: int = 1,
              work_dir: Path | None = None, keep: bool = False, waves_on_failure: bool = True,
              test_module: str = TABLE_TB, plan_extra: dict | None = None,
              record: tuple[str, ...] = (), host_check=None, opt: str | None = None,
              coverage_dat: Path | None = None) -> CosimResult:
    """Simulate ``verilog_path`` (described by ``manifest``) against ``table``.

    The run directory (plan, logs, results) is removed after a pass unless
    ``keep``; after a failure it is kept and, with ``waves_on_failure``, the
    test is rerun on a tracing build so that the waveform of the failing run is
    left in it.

    ``test_module`` is the cocotb module to run (default: the generic cycle-table
    testbench). A custom testbench reads the plan JSON named by ``$ACCELGEN_PLAN``
    (keys ``table``, ``result``, ``clock``, ``reset`` plus ``plan_extra``) and must
    write the result JSON with ``cycles``, ``checks``, ``mismatches`` and
    ``first_mismatches`` like :func:`accelgen.cosim.tb.table_tb.run_table`.

    ``record`` names output ports whose value in every cycle is returned in
    ``result.recorded`` (numpy ``uint64`` arrays), for host-side checks that do
    not depend on the expected table (e.g. de-skewing a systolic array's outputs).
    ``host_check(recorded) -> [problem, ...]`` runs on them after the simulation;
    any problem fails the run (and triggers the waveform rerun). ``opt`` is the C++ optimization
    level of a Verilator model (:func:`~accelgen.cosim.simulators.resolve_opt`: default -O0, or
    ``$ACCELGEN_VERILATOR_OPT``). With ``coverage_dat`` the run is on a model instrumented for line and
    toggle coverage (Verilator only; a build of its own) and its ``coverage.dat`` is saved there
    (:func:`save_coverage`). Raises :class:`~accelgen.errors.ToolNotFoundError` if ``sim`` is not
    available.
    """
    top = manifest["name"]
    version = simulators.simulator_version(sim)
    built = simulators.ensure_built(Path(verilog_path), top, sim, opt=opt, coverage=coverage_dat is not None)
    build_dir = built.path

    run_dir = Path(work_dir) if work_dir else cache_dir("runs") / f"{top}-{sim}-s{seed}-{uuid.uuid4().hex[:8]}"
    run_dir.mkdir(parents=True, exist_ok=True)
    result = CosimResult(name=top, sim=sim, sim_version=version, seed=seed, passed=False,
                         vectors=int(table.info.get("vectors", table.cycles)), build_s=built.seconds,
                         build_cached=built.cached, opt=built.opt, unit=table.info.get("unit", "vectors"),
                         run_dir=str(run_dir))

    def attempt(test_dir: Path, bdir: Path, waves: bool) -> tuple[bool, dict]:
        test_dir.mkdir(parents=True, exist_ok=True)
        table_path = test_dir / "table.npz"
        result_path = test_dir / "result.json"
        table.save(table_path)
        record_path = test_dir / "recorded.npz"
        plan = {"table": str(table_path.resolve()), "result": str(result_path.resolve()),
                "record": list(record), "recorded": str(record_path.resolve()),
                "clock": manifest.get("clock"), "reset": manifest.get("reset"), **(plan_extra or {})}
        plan_path = test_dir / "plan.json"
        plan_path.write_text(json.dumps(plan, indent=1))
        ok, log = simulators.run_test(bdir, top, sim, test_module, test_dir,
                                      extra_env={"ACCELGEN_PLAN": str(plan_path.resolve())}, seed=seed, waves=waves)
        result.log = str(log)
        data = json.loads(result_path.read_text()) if result_path.exists() else {}
        if record and record_path.exists() and not waves:
            with np.load(record_path) as rec:
                result.recorded = {k: rec[k] for k in rec.files}
        return ok, data

    t1 = time.monotonic()
    ok, data = attempt(run_dir, build_dir, waves=False)
    result.run_s = time.monotonic() - t1
    judge(result, data, table, manifest, simulator_ok=ok, no_result=f"see {result.log}")
    if host_check is not None and result.error is None:
        fail_host_check(result, host_check)

    if coverage_dat is not None:
        save_coverage(result, run_dir / "coverage.dat", coverage_dat)
    if not result.passed and waves_on_failure:
        wave_build = simulators.build(Path(verilog_path), top, sim, waves=True, opt=built.opt)
        attempt(run_dir / "waves", wave_build, waves=True)
        found = sorted(p for ext in ("*.vcd", "*.fst") for p in (run_dir / "waves").glob(ext))
        result.waveform = str(found[0]) if found else None
    if result.passed and not keep:
        shutil.rmtree(run_dir, ignore_errors=True)
        result.run_dir = result.log = None
    return result
