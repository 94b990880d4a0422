"""Cosim regressions at scale: block x parameter matrix x test mode x seed x simulator.

A regression description (YAML, validated by :func:`load_regression`)::

    name: default
    sim: verilator                 # or a list: [verilator, icarus]
    modes: [directed, random]      # test modes (see MODES)
    seeds: [1]
    timeout_s: 600                 # per test; a hung simulation is killed
    blocks:
      - block: mac
        params: {acc_width: 32}    # base parameters
        matrix: {a_width: [4, 8], signed: [true, false]}   # cartesian product over these
        modes: [directed, random, stress]                  # overrides the top-level lists
        seeds: [1, 2]
        vectors: {random: 512}     # per-mode vector counts (else the mode's default)
        options: {gemm: ["4,4,4"]} # the family's cosim options (``accelgen cosim BLOCK --help``)

:func:`run_regression` expands it into tests, renders every distinct design
once (in this process, so a design is what this process's generators make),
builds each (design, simulator) once on the workers (the content-hashed build
cache is shared by every test of that design), then fans the tests out to
parallel worker processes (``concurrent.futures``) or to a Dask cluster
(``scheduler="tcp://host:port"``). Every test runs in its own process group
with a timeout; a hung simulation is killed with its simulator. Every finished
test is recorded at once in ``<out>/state.json`` (keyed by design hash,
simulator, seed, mode, vectors and options), so a killed regression restarted
with the same arguments runs only what did not pass. Reports:
:func:`write_junit`, :func:`write_html`, ``results.json``; functional coverage
bins per family come from :mod:`accelgen.cosim.coverage`.

Every test can be reproduced alone with the command in its ``reproduce``
field (``accelgen cosim <family> ...``): the same design, stimulus and seed.

Workers on other hosts (Dask) need this package installed and receive the
Verilog text with each job; failing runs keep their directory (logs and
waveform) under ``<out>/runs`` on the host that ran them.
"""

from __future__ import annotations

import contextlib
import html
import itertools
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor, as_completed as _local_as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError
from ..problems import schema_problems
from ..util import (canonical_json, ensure_output_dir, read_yaml, sha256_hex, write_atomic)
from .coverage import Coverage

MODES = ("directed", "random", "stress")
#: stress runs this many times the family's default number of random vectors
STRESS_FACTOR = 4
STATE_FORMAT = "accelgen-regress-state/1"
DEFAULT_TIMEOUT_S = 600.0
#: builds compile C++ (or Icarus); they get their own, longer limit
BUILD_TIMEOUT_S = 1800.0
MODE_HELP = {
    "directed": "the family's directed sections only (0 random vectors)",
    "random": "directed sections plus the family's default number of random vectors",
    "stress": f"directed sections plus {STRESS_FACTOR}x the default random vectors, back to back",
}


# --------------------------------------------------------------------------- description

class _BlockEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    block: str
    params: dict[str, Any] = Field(default_factory=dict)
    matrix: dict[str, list[Any]] = Field(default_factory=dict)
    modes: list[Literal["directed", "random", "stress"]] | None = Field(None, min_length=1)
    seeds: list[int] | None = Field(None, min_length=1)
    sim: list[Literal["verilator", "icarus"]] | None = Field(None, min_length=1)
    vectors: dict[Literal["directed", "random", "stress"], int] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict)
    timeout_s: float | None = Field(None, gt=0)
    testbench: Literal["cocotb", "native"] | None = None


class _RegressSchema(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str | None = None
    sim: list[Literal["verilator", "icarus"]] = Field(default_factory=lambda: ["verilator"], min_length=1)
    modes: list[Literal["directed", "random", "stress"]] = Field(default_factory=lambda: ["directed", "random"],
                                                                 min_length=1)
    seeds: list[int] = Field(default_factory=lambda: [1], min_length=1)
    timeout_s: float = Field(DEFAULT_TIMEOUT_S, gt=0)
    testbench: Literal["cocotb", "native"] = "cocotb"
    blocks: list[_BlockEntry] = Field(min_length=1)


@dataclass
class TestSpec:
    """One test: a design (family + parameters), a stimulus (mode, vectors, options, seed), a simulator."""

    family: str
    params: dict
    mode: str
    seed: int
    sim: str
    vectors: int
    options: dict
    timeout_s: float
    #: cocotb, or the compiled Verilator testbench (:mod:`accelgen.cosim.native`; same checks)
    testbench: str = "cocotb"
    #: sha256 of the design's Verilog (set when the design is rendered)
    design: str = ""

    @property
    def key(self) -> str:
        """Resume key: the design's hash, simulator, seed, mode, vectors and options."""
        return sha256_hex(canonical_json([self.design, self.sim, self.seed, self.mode, self.vectors,
                                          self.options, self.testbench]))[:16]

    @property
    def test_id(self) -> str:
        return f"{self.family}[{param_tag(self.family, self.params)}].{self.mode}.s{self.seed}.{self.sim}"

    @property
    def reproduce(self) -> str:
        return reproduce_command(self)


@dataclass
class Regression:
    name: str
    tests: list[TestSpec]
    source: str | None = None


def _family(name: str, path: str):
    from ..registry import family
    return family(name, path)


def param_tag(family: str, params: dict) -> str:
    """The parameters that differ from the family's defaults, ``k=v,...`` (``default`` if none)."""
    from ..registry import FAMILIES
    fields = FAMILIES[family].params_model.model_fields
    diff = [f"{k}={v}" for k, v in params.items() if k in fields and fields[k].default != v]
    return ",".join(diff) or "default"


def _schema_problems(exc: pydantic.ValidationError, prefix: str = "") -> list[tuple[str, str]]:
    return schema_problems(exc, prefix)


def _as_list(data: dict, key: str) -> None:
    if key in data and not isinstance(data[key], list):
        data[key] = [data[key]]


def _option_arg(value) -> str:
    return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def parse_regression(data: Any, source: str | None = None, *, sims: list[str] | None = None,
                     seeds: list[int] | None = None) -> Regression:
    """Validate a loaded regression description and expand it into tests.

    ``sims`` / ``seeds`` replace every simulator / seed list of the description
    (``accelgen regress --sim/--seed``). Raises :class:`ConfigError` listing every problem.
    """
    from ..gen.config import parse_cosim_options

    if not isinstance(data, dict):
        raise ConfigError([("", f"expected a mapping with a 'blocks' list at the top, got {type(data).__name__}")],
                          source)
    data = dict(data)
    _as_list(data, "sim")
    if isinstance(data.get("blocks"), list):
        data["blocks"] = [dict(b) if isinstance(b, dict) else b for b in data["blocks"]]
        for b in data["blocks"]:
            if isinstance(b, dict):
                _as_list(b, "sim")
    try:
        schema = _RegressSchema(**data)
    except pydantic.ValidationError as exc:
        raise ConfigError(_schema_problems(exc), source) from None
    problems: list[tuple[str, str]] = []
    for i, s in enumerate(seeds or ()):
        if not 0 <= s < 2**32:
            problems.append(("--seed", f"{s} is not allowed; expected an integer in 0..4294967295"))
    tests: list[TestSpec] = []
    seen: set[str] = set()
    for i, entry in enumerate(schema.blocks):
        where = f"blocks[{i}]"
        try:
            fam = _family(entry.block, f"{where}.block")
        except ConfigError as exc:
            problems += exc.problems
            continue
        for key, values in entry.matrix.items():
            if not values:
                problems.append((f"{where}.matrix.{key}", "empty list; give at least one value"))
            if key in entry.params:
                problems.append((f"{where}.matrix.{key}", "also given in params; give it in one place"))
        try:
            options = parse_cosim_options(fam, entry.options, f"{where}.options")
        except ConfigError as exc:
            problems += exc.problems
            continue
        options = json.loads(json.dumps(options))  # tuples -> lists: the same form a job carries
        for mode, n in entry.vectors.items():
            if not 0 <= n <= 10_000_000:
                problems.append((f"{where}.vectors.{mode}", f"{n} is not allowed; expected an integer in 0..10000000"))
        for s in entry.seeds or ():
            if not 0 <= s < 2**32:
                problems.append((f"{where}.seeds", f"{s} is not allowed; expected an integer in 0..4294967295"))
        keys = list(entry.matrix)
        for j, combo in enumerate(itertools.product(*(entry.matrix[k] for k in keys))):
            raw = {**entry.params, **dict(zip(keys, combo))}
            try:
                params = fam.validate(raw, f"{where}.matrix[{j}]" if keys else f"{where}.params")
            except ConfigError as exc:
                problems += exc.problems
                continue
            pdict = params.model_dump()
            for mode in entry.modes or schema.modes:
                default = {"directed": 0, "random": fam.default_vectors,
                           "stress": STRESS_FACTOR * fam.default_vectors}[mode]
                vectors = entry.vectors.get(mode, default)
                for seed in seeds or entry.seeds or schema.seeds:
                    for sim in sims or entry.sim or schema.sim:
                        tb = entry.testbench or schema.testbench
                        if tb == "native" and sim != "verilator":
                            tb = "cocotb"  # the compiled testbench is Verilator's; Icarus runs under cocotb
                        t = TestSpec(family=fam.name, params=pdict, mode=mode, seed=seed, sim=sim, vectors=vectors,
                                     options=options, timeout_s=entry.timeout_s or schema.timeout_s, testbench=tb)
                        ident = canonical_json([t.family, t.params, t.mode, t.seed, t.sim, t.vectors, t.options,
                                                t.testbench])
                        if ident not in seen:  # the same test listed twice runs once
                            seen.add(ident)
                            tests.append(t)
    if problems:
        raise ConfigError(problems, source)
    name = schema.name or (Path(source).stem if source else "regression")
    return Regression(name=name, tests=tests, source=source)


def load_regression(path: str | Path, **kw) -> Regression:
    """Read, validate and expand a regression YAML file (see :func:`parse_regression`)."""
    p = Path(path)
    data = read_yaml(p)
    return parse_regression(data, str(p), **kw)


def reproduce_command(spec: TestSpec) -> str:
    """``accelgen cosim <family> ...``: the one command that reruns exactly this test."""
    from ..registry import FAMILIES
    fam = FAMILIES[spec.family]
    args = ["accelgen", "cosim", spec.family]
    for name, info in fam.params_model.model_fields.items():
        value = spec.params.get(name, info.default)
        if value == info.default:
            continue
        flag = name.replace("_", "-")
        if isinstance(value, bool):
            negative = (info.json_schema_extra or {}).get("cli_negative", f"no-{flag}")
            args.append(f"--{flag}" if value else f"--{negative}")
        else:
            args += [f"--{flag}", str(value)]
    for opt in fam.cosim_options:
        if opt.name not in spec.options:
            continue
        value = spec.options[opt.name]
        for v in (value if opt.multiple else [value]):
            args += [f"--{opt.name.replace('_', '-')}", _option_arg(v)]
    args += ["--vectors", str(spec.vectors), "--seed", str(spec.seed), "--sim", spec.sim]
    if spec.testbench != "cocotb":
        args += ["--testbench", spec.testbench]
    return shlex.join(args)


# --------------------------------------------------------------------------- results and state

@dataclass
class TestResult:
    """What one test did (``status``: passed, failed, timeout, error, or not-run)."""

    test_id: str
    key: str
    family: str
    params: dict
    mode: str
    seed: int
    sim: str
    vectors: int
    options: dict
    design: str
    status: str
    reproduce: str
    cycles: int = 0
    checks: int = 0
    mismatches: int = 0
    first_mismatches: list = field(default_factory=list)
    error: str | None = None
    waveform: str | None = None
    log: str | None = None
    run_dir: str | None = None
    sim_s: float = 0.0
    wall_s: float = 0.0
    coverage: dict = field(default_factory=dict)
    run_id: str = ""
    #: True when this pass was recorded by an earlier invocation and not rerun
    reused: bool = False

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "TestResult":
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in d.items() if k in known})


class RegressState:
    """Finished tests by resume key, saved atomically after every test (``<out>/state.json``)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.tests: dict[str, dict] = {}
        if self.path.exists():
            try:
                data = json.loads(self.path.read_text())
            except (OSError, json.JSONDecodeError):
                data = {}
            if data.get("format") == STATE_FORMAT:
                self.tests = dict(data.get("tests", {}))
        self._lock = threading.Lock()

    def get(self, key: str) -> TestResult | None:
        rec = self.tests.get(key)
        return TestResult.from_dict(rec) if rec else None

    def record(self, result: TestResult) -> None:
        with self._lock:
            self.tests[result.key] = result.to_dict()
            write_atomic(self.path, json.dumps({"format": STATE_FORMAT, "tests": self.tests}, indent=1) + "\n")


@dataclass
class RegressionResult:
    name: str
    source: str | None
    out_dir: str
    results: list[TestResult]
    wall_s: float
    run_id: str
    jobs: str

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results if r.status != "not-run")

    @property
    def failures(self) -> list[TestResult]:
        return [r for r in self.results if r.status not in ("passed", "not-run")]

    def coverage(self) -> dict[str, Coverage]:
        """Functional coverage merged per family over every test that ran (or was reused)."""
        out: dict[str, Coverage] = {}
        for r in self.results:
            if r.coverage:
                out[r.family] = out.get(r.family, Coverage()).merge(Coverage.from_dict(r.coverage))
        return dict(sorted(out.items()))

    def to_dict(self) -> dict:
        return {"name": self.name, "source": self.source, "out_dir": self.out_dir, "wall_s": self.wall_s,
                "run_id": self.run_id, "jobs": self.jobs, "passed": self.passed,
                "counts": {s: self.count(s) for s in ("passed", "failed", "timeout", "error", "not-run")},
                "reused": sum(r.reused for r in self.results),
                "coverage": {f: {"covered": c.covered, "bins": len(c.bins), "missed": c.missed, **c.to_dict()}
                             for f, c in self.coverage().items()},
                "tests": [r.to_dict() for r in self.results]}


# --------------------------------------------------------------------------- jobs (run in worker processes)

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

    This is the function that runs on the local thread pool and on Dask workers.
    The job (JSON) goes to ``python -m accelgen.cosim.regress`` on stdin; its
    result comes back in a file. A job that outlives its timeout is killed with
    everything it started and reported as ``status="timeout"``.
    """
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="accelgen-job-") as tmp:
        result_path = Path(tmp) / "result.json"
        log_path = Path(tmp) / "worker.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen([sys.executable, "-m", "accelgen.cosim.regress", str(result_path)],
                                    stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True)
            with _ACTIVE_LOCK:
                _ACTIVE.add(proc)
            try:
                try:
                    proc.stdin.write(json.dumps(job).encode())
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


def _execute_build(job: dict) -> dict:
    from . import simulators
    with tempfile.TemporaryDirectory(prefix="accelgen-build-") as tmp:
        vpath = Path(tmp) / f"{job['top']}.v"
        vpath.write_text(job["verilog"])
        t0 = time.monotonic()
        if job.get("testbench") == "native":
            from .native import build_native
            build_native(job["verilog"], job["manifest"])
        else:
            simulators.build(vpath, job["top"], job["sim"])
    return {"status": "built", "build_s": time.monotonic() - t0}


def _execute_test(job: dict) -> dict:
    from ..gen.emit import Emitted
    from ..registry import FAMILIES
    from .check import cosim_emitted

    fam = FAMILIES[job["family"]]
    params = fam.validate(job["params"])
    vectors, seed, options = job["vectors"], job["seed"], job["options"]
    made = fam.cycle_table(params, vectors, seed, **options)
    table, context = made if isinstance(made, tuple) else (made, None)
    cov = fam.coverage(params, table, context if context is not None else {"vectors": vectors, "seed": seed}) \
        if fam.coverage else Coverage()
    with tempfile.TemporaryDirectory(prefix="accelgen-test-") as tmp:
        manifest = job["manifest"]
        vpath = Path(tmp) / f"{manifest['name']}.v"
        vpath.write_text(job["verilog"])
        emitted = Emitted(name=manifest["name"], family=fam.name, params=params, verilog=job["verilog"],
                          manifest=manifest, verilog_path=vpath)
        res = cosim_emitted(fam, params, emitted, sim=job["sim"], vectors=vectors, seed=seed, options=options,
                            made=made, work_dir=Path(job["work_dir"]), keep=False,
                            waves_on_failure=job.get("waves", True), testbench=job.get("testbench", "cocotb"))
    return {"status": "passed" if res.passed else "failed", "cycles": res.cycles, "checks": res.checks,
            "mismatches": res.mismatches, "first_mismatches": res.first_mismatches, "error": res.error,
            "waveform": res.waveform, "log": res.log, "run_dir": res.run_dir, "sim_s": res.run_s,
            "coverage": cov.to_dict()}


def _watch_parent() -> None:
    """End this worker (and its simulator) if the process that started it dies (e.g. is SIGKILLed)."""
    parent = os.getppid()

    def watch():
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os.killpg(os.getpgid(0), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()


def _worker_main(argv: list[str]) -> int:
    result_path = Path(argv[0])
    _watch_parent()
    job = json.loads(sys.stdin.read())
    try:
        out = _execute_build(job) if job["kind"] == "build" else _execute_test(job)
    except Exception as exc:  # reported as the test's error; the regression goes on
        out = {"status": "error", "error": f"{type(exc).__name__}: {exc}",
               "traceback": traceback.format_exc(limit=8)}
    write_atomic(result_path, json.dumps(out, default=str))
    return 0


# --------------------------------------------------------------------------- executors

class _LocalPool:
    def __init__(self, jobs: int):
        self.pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="accelgen-regress")
        self.label = f"{jobs} local process{'es' if jobs != 1 else ''}"

    def submit(self, job: dict, timeout_s: float | None):
        return self.pool.submit(run_job, job, timeout_s)

    def as_completed(self, futures):
        return _local_as_completed(futures)

    def close(self, cancel: bool = False):
        self.pool.shutdown(wait=not cancel, cancel_futures=cancel)


class _DaskPool:
    def __init__(self, address: str):
        try:
            from dask.distributed import Client
        except ImportError:
            raise ConfigError([("--scheduler", "needs dask.distributed: pip install 'dask[distributed]'")]) from None
        try:
            self.client = Client(address, timeout="20s")
        except (OSError, TimeoutError) as exc:
            raise ConfigError([("--scheduler", f"cannot connect to {address!r}: {exc}")]) from None
        self.label = f"Dask scheduler {address}"

    def submit(self, job: dict, timeout_s: float | None):
        return self.client.submit(run_job, job, timeout_s, pure=False)

    def as_completed(self, futures):
        from dask.distributed import as_completed
        return as_completed(futures)

    def close(self, cancel: bool = False):
        self.client.close()


# --------------------------------------------------------------------------- the regression

Event = Callable[[str, Any], None]


def _render_designs(reg: Regression, out: Path, on_event: Event) -> dict[str, dict]:
    """Render each distinct design once; set every test's design hash. Returns designs by hash."""
    import importlib

    from ..registry import FAMILIES
    # looked up on the module at call time, so a test may substitute a mutant ``render``
    _emit = importlib.import_module("accelgen.gen.emit")

    by_params: dict[str, dict] = {}
    designs: dict[str, dict] = {}
    for t in reg.tests:
        ident = canonical_json([t.family, t.params])
        if ident not in by_params:
            fam = FAMILIES[t.family]
            params = fam.validate(t.params)
            on_event("render", f"{t.family}[{param_tag(t.family, t.params)}]")
            e = _emit.render(fam, params, fam.default_name(params))
            digest = sha256_hex(e.verilog)
            ddir = out / "designs" / f"{t.family}-{digest[:12]}"
            _emit.write(e, ddir)
            by_params[ident] = designs[digest] = {"verilog": e.verilog, "manifest": e.manifest, "top": e.name,
                                                  "path": str(e.verilog_path), "digest": digest}
        t.design = by_params[ident]["digest"]
    return designs


def _new_result(t: TestSpec, status: str, run_id: str, **kw) -> TestResult:
    return TestResult(test_id=t.test_id, key=t.key, family=t.family, params=t.params, mode=t.mode, seed=t.seed,
                      sim=t.sim, vectors=t.vectors, options=t.options, design=t.design, status=status,
                      reproduce=t.reproduce, run_id=run_id, **kw)


def run_regression(reg: Regression, out_dir: str | Path, *, jobs: int | None = None, scheduler: str | None = None,
                   rerun_failed: bool = False, waves: bool = True, on_event: Event | None = None) -> RegressionResult:
    """Run ``reg``; write ``state.json`` and ``results.json`` into ``out_dir``; return every test's result.

    Tests recorded as passed in ``out_dir/state.json`` (same resume key) are not
    rerun: their recorded result is reused. With ``rerun_failed`` only tests
    recorded as failed run (the rest are reused or reported ``not-run``).
    ``on_event(kind, payload)`` reports progress: ``("render", name)``,
    ``("builds", n)``, ``("built", info)``, ``("tests", (to_run, reused))``,
    ``("result", TestResult)``.
    """
    on_event = on_event or (lambda kind, payload: None)
    out = ensure_output_dir(out_dir)
    run_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}"
    t_start = time.monotonic()
    designs = _render_designs(reg, out, on_event)
    state = RegressState(out / "state.json")

    results: dict[str, TestResult] = {}
    todo: list[TestSpec] = []
    for t in reg.tests:
        prev = state.get(t.key)
        if prev is not None and prev.passed:
            prev.reused = True
            prev.reproduce, prev.test_id = t.reproduce, t.test_id
            results[t.key] = prev
        elif rerun_failed and prev is None:
            results[t.key] = _new_result(t, "not-run", run_id, error="not run: --rerun-failed runs earlier failures only")
        else:
            todo.append(t)

    pool = _DaskPool(scheduler) if scheduler else _LocalPool(jobs or os.cpu_count() or 1)
    try:
        builds = {}
        for t in todo:
            builds.setdefault((t.design, t.sim, t.testbench), t)
        on_event("builds", len(builds))
        futs = {pool.submit({"kind": "build", "verilog": designs[d]["verilog"], "top": designs[d]["top"],
                             "manifest": designs[d]["manifest"], "sim": sim, "testbench": tb},
                            BUILD_TIMEOUT_S): (d, sim, tb) for d, sim, tb in builds}
        failed_builds: dict[tuple[str, str, str], str] = {}
        for fut in pool.as_completed(list(futs)):
            info = fut.result()
            if info["status"] != "built":
                failed_builds[futs[fut]] = f"build failed: {info.get('error')}"
            on_event("built", info)

        on_event("tests", (len(todo), len(results)))
        futs = {}
        for t in todo:
            if (t.design, t.sim, t.testbench) in failed_builds:
                r = _new_result(t, "error", run_id, error=failed_builds[(t.design, t.sim, t.testbench)])
                state.record(r)
                results[t.key] = r
                on_event("result", r)
                continue
            d = designs[t.design]
            job = {"kind": "test", "family": t.family, "params": t.params, "mode": t.mode, "seed": t.seed,
                   "sim": t.sim, "vectors": t.vectors, "options": t.options, "verilog": d["verilog"],
                   "manifest": d["manifest"], "waves": waves, "testbench": t.testbench,
                   "work_dir": str((out / "runs" / f"{t.family}-{t.key}").resolve())}
            futs[pool.submit(job, t.timeout_s)] = t
        for fut in pool.as_completed(list(futs)):
            t = futs[fut]
            info = fut.result()
            kw = {k: info[k] for k in ("cycles", "checks", "mismatches", "first_mismatches", "error", "waveform",
                                       "log", "run_dir", "sim_s", "wall_s", "coverage") if info.get(k) is not None}
            r = _new_result(t, info["status"], run_id, **kw)
            state.record(r)
            results[t.key] = r
            on_event("result", r)
    except BaseException:
        kill_active_jobs()
        pool.close(cancel=True)
        raise
    pool.close()
    ordered = [results[t.key] for t in reg.tests]
    res = RegressionResult(name=reg.name, source=reg.source, out_dir=str(out), results=ordered,
                           wall_s=time.monotonic() - t_start, run_id=run_id, jobs=pool.label)
    write_atomic(out / "results.json", json.dumps(res.to_dict(), indent=1, default=str) + "\n")
    return res


# --------------------------------------------------------------------------- reports

def write_junit(res: RegressionResult, path: str | Path) -> Path:
    """JUnit XML: one ``testsuite`` per family, one ``testcase`` per test (reproduce command in its output)."""
    path = Path(path)
    root = ET.Element("testsuites", name=f"accelgen regress {res.name}", tests=str(len(res.results)),
                      failures=str(res.count("failed")), errors=str(res.count("timeout") + res.count("error")),
                      skipped=str(res.count("not-run")), time=f"{res.wall_s:.3f}")
    by_family: dict[str, list[TestResult]] = {}
    for r in res.results:
        by_family.setdefault(r.family, []).append(r)
    for fam, rs in by_family.items():
        suite = ET.SubElement(root, "testsuite", name=fam, tests=str(len(rs)),
                              failures=str(sum(r.status == "failed" for r in rs)),
                              errors=str(sum(r.status in ("timeout", "error") for r in rs)),
                              skipped=str(sum(r.status == "not-run" for r in rs)),
                              time=f"{sum(r.wall_s for r in rs if not r.reused):.3f}")
        for r in rs:
            case = ET.SubElement(suite, "testcase", classname=f"accelgen.regress.{fam}", name=r.test_id,
                                 time=f"{0.0 if r.reused else r.wall_s:.3f}")
            props = ET.SubElement(case, "properties")
            for k, v in (("seed", r.seed), ("mode", r.mode), ("sim", r.sim), ("design_sha256", r.design),
                         ("cycles", r.cycles), ("checks", r.checks), ("reused", r.reused)):
                ET.SubElement(props, "property", name=k, value=str(v))
            message = _failure_text(r)
            if r.status == "failed":
                ET.SubElement(case, "failure", message=message, type="mismatch").text = message
            elif r.status in ("timeout", "error"):
                ET.SubElement(case, "error", message=message, type=r.status).text = message
            elif r.status == "not-run":
                ET.SubElement(case, "skipped", message=r.error or "not run")
            ET.SubElement(case, "system-out").text = "reproduce: " + r.reproduce + (
                f"\nwaveform: {r.waveform}" if r.waveform else "")
    ET.indent(root)
    write_atomic(path, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")
    return path


def _failure_text(r: TestResult) -> str:
    parts = [r.error or f"{r.mismatches} mismatches"]
    for mm in r.first_mismatches[:3]:
        parts.append(f"cycle {mm['cycle']}: {mm['port']} expected {mm['expected']}, got {mm['got']}")
    return "; ".join(parts)


_CSS = """body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}th{background:#eee}
.passed{color:#176317;font-weight:bold}.failed,.timeout,.error{color:#b00020;font-weight:bold}.not-run{color:#777}
code{font-size:12px;white-space:pre-wrap;word-break:break-all}.bar{background:#ddd;width:120px;height:10px;display:inline-block}
.bar span{background:#3a7;height:10px;display:block}"""


def write_html(res: RegressionResult, path: str | Path) -> Path:
    """A self-contained HTML report: summary, coverage per family, and one row per test."""
    path = Path(path)
    e = html.escape
    counts = ", ".join(f"{res.count(s)} {s}" for s in ("passed", "failed", "timeout", "error", "not-run")
                       if res.count(s))
    reused = sum(r.reused for r in res.results)
    rows = []
    order = {"failed": 0, "timeout": 0, "error": 0, "passed": 1, "not-run": 2}
    for r in sorted(res.results, key=lambda r: order.get(r.status, 0)):
        params = ", ".join(f"{k}={v}" for k, v in r.params.items())
        opts = ", ".join(f"{k}={v}" for k, v in r.options.items())
        detail = "" if r.passed else e(_failure_text(r))
        rows.append(
            f"<tr><td class='{e(r.status)}'>{e(r.status.upper())}{' (earlier run)' if r.reused else ''}</td>"
            f"<td>{e(r.family)}</td><td>{e(params)}{'<br>options: ' + e(opts) if opts else ''}</td>"
            f"<td>{e(r.mode)}</td><td>{r.seed}</td><td>{e(r.sim)}</td><td>{r.cycles}</td><td>{r.checks}</td>"
            f"<td>{r.sim_s:.2f}</td><td>{e(r.waveform) if r.waveform else ''}</td>"
            f"<td><code>{e(r.reproduce)}</code>{'<br>' + detail if detail else ''}</td></tr>")
    cov_rows = []
    for fam, c in res.coverage().items():
        pct = 100 * c.fraction
        cov_rows.append(f"<tr><td>{e(fam)}</td><td><span class='bar'><span style='width:{pct:.0f}%'></span></span> "
                        f"{c.covered}/{len(c.bins)} ({pct:.0f}%)</td><td>{e(', '.join(c.missed)) or '-'}</td>"
                        f"<td>{e(', '.join(f'{k}: {v}' for k, v in sorted(c.hits.items())))}</td></tr>")
    doc = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>accelgen regress {e(res.name)}</title>
<style>{_CSS}</style></head><body>
<h1>accelgen regress {e(res.name)}: {'PASS' if res.passed else 'FAIL'}</h1>
<p>{len(res.results)} tests: {e(counts)}{f' ({reused} passes reused from earlier runs)' if reused else ''};
wall time {res.wall_s:.1f} s on {e(res.jobs)}; source {e(str(res.source))}; run {e(res.run_id)}</p>
<h2>Functional coverage</h2>
<table><tr><th>family</th><th>bins hit</th><th>never hit</th><th>hits per bin</th></tr>{''.join(cov_rows)}</table>
<h2>Tests</h2>
<table><tr><th>status</th><th>block</th><th>parameters</th><th>mode</th><th>seed</th><th>sim</th><th>cycles</th>
<th>checks</th><th>sim time (s)</th><th>waveform</th><th>reproduce</th></tr>
{''.join(rows)}</table></body></html>
"""
    write_atomic(path, doc)
    return path


def main(argv: list[str] | None = None) -> int:
    """Worker entry point: ``python -m accelgen.cosim.regress RESULT.json < job.json``."""
    return _worker_main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
