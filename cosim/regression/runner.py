"""Run a regression: render every design once, build each simulator once, fan the tests out, resume.

:func:`run_regression` renders every distinct design once (in this process, so a design is what
this process's generators make), builds each (design, simulator, testbench) once on the workers
(the content-hashed build cache is shared by every test of that design), then fans the tests out
on an :class:`~accelgen.executor.Executor`: local threads that each supervise one worker process
(:func:`~.job.run_job`: own process group, per-test timeout), or the workers of a Dask cluster
(``scheduler="tcp://host:port"``). Verilator models are compiled at the level a long run pays
for (:func:`~accelgen.cosim.simulators.long_run_opt`: -O2 for the compiled testbench, -O0 for
cocotb) unless ``opt`` or ``$ACCELGEN_VERILATOR_OPT`` says otherwise, and the local build
jobs share the free cores. Every finished test is recorded at once in
``<out>/state.json`` (:class:`~.state.RegressState`), so a killed regression restarted with the
same arguments runs only what did not pass; ``<out>/results.json`` has every result.

Workers on other hosts (Dask) need this package installed and receive the Verilog text and the
family object (by reference) with each job; failing runs keep their directory (logs and
waveform) under ``<out>/runs`` on the host that ran them.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from ...executor import Executor
from ...gen.emit import Emitted, render as emit_render, write as emit_write
from ...util import canonical_json, ensure_output_dir, sha256_hex, write_atomic
from ..simulators import build_jobs, long_run_opt, resolve_opt
from .code_coverage import keep_test_data, merge_designs
from .job import kill_active_jobs, run_job
from .results import RegressionResult, TestResult
from .spec import Regression, TestSpec, param_tag
from .state import RegressState

#: builds compile C++ (or Icarus); they get their own, longer limit
BUILD_TIMEOUT_S = 1800.0

Event = Callable[[str, Any], None]
Render = Callable[..., Emitted]


def _render_designs(reg: Regression, out: Path, on_event: Event, render: Render) -> dict[str, dict]:
    """Render each distinct design once; set every test's design hash. Returns designs by hash."""
    by_params: dict[str, dict] = {}
    designs: dict[str, dict] = {}
    for t in reg.tests:
        ident = canonical_json([t.family, t.params])
        if ident not in by_params:
            fam = t.fam
            params = fam.validate(t.params)
            on_event("render", f"{t.family}[{param_tag(fam, t.params)}]")
            e = render(fam, params, fam.default_name(params))
            digest = sha256_hex(e.verilog)
            ddir = out / "designs" / f"{t.family}-{digest[:12]}"
            emit_write(e, ddir)
            by_params[ident] = designs[digest] = {"verilog": e.verilog, "manifest": e.manifest, "top": e.name,
                                                  "path": str(e.verilog_path), "digest": digest}
        t.design = by_params[ident]["digest"]
    return designs


def _run(task: tuple[dict, float]) -> dict:
    """``run_job(job, timeout_s)``: the executor's task (module level, so Dask can send it)."""
    job, timeout_s = task
    return run_job(job, timeout_s)


def _label(ex: Executor) -> str:
    # local threads only supervise: every job runs in its own worker process
    return ex.label if ex.scheduler else f"{ex.jobs} local process{'es' if ex.jobs != 1 else ''}"


def _opt(spec_opt: str | None, sim: str, testbench: str) -> str | None:
    """The C++ optimization level of a regression's Verilator builds on ``testbench`` (``None`` for Icarus)."""
    return resolve_opt(spec_opt, default=long_run_opt(testbench)) if sim == "verilator" else None


def check_code_coverage(reg: Regression) -> None:
    """Raise :class:`ConfigError` unless every test of ``reg`` can be instrumented (Verilator only)."""
    other = sorted({t.sim for t in reg.tests} - {"verilator"})
    if other:
        raise ConfigError([("--code-coverage", f"needs every test on sim 'verilator'; regression {reg.name!r} also "
                                               f"runs on {', '.join(other)} (give --sim verilator)")])


def run_regression(reg: Regression, out_dir: str | Path, *, jobs: int | None = None, scheduler: str | None = None,
                   rerun_failed: bool = False, waves: bool = True, on_event: Event | None = None,
                   render: Render = emit_render, opt: str | None = None,
                   code_coverage: bool = False) -> RegressionResult:
    """Run ``reg``; write ``state.json`` and ``results.json`` into ``out_dir``; return every test's result.

    Tests recorded as passed in ``out_dir/state.json`` (same resume key) are not
    rerun: their recorded result is reused. With ``rerun_failed`` only tests
    recorded as failed run (the rest are reused or reported ``not-run``).
    ``jobs`` local worker processes run the tests, or the workers of the Dask ``scheduler``.
    ``opt`` is the C++ optimization level of every Verilator build (default: ``$ACCELGEN_VERILATOR_OPT``,
    else :func:`~accelgen.cosim.simulators.long_run_opt` of the test's testbench).
    ``code_coverage`` runs every test on a model instrumented for Verilator line and toggle coverage (its own
    cached build) and merges the data per design and family (:mod:`.code_coverage`; Verilator only; a reused
    pass whose data is missing is rerun).
    ``render(fam, params, name) -> Emitted`` makes each design (default
    :func:`accelgen.gen.emit.render`; a test passes a mutant generator).
    ``on_event(kind, payload)`` reports progress: ``("render", name)``,
    ``("builds", n)``, ``("built", info)``, ``("tests", (to_run, reused))``,
    ``("result", TestResult)``.
    """
    on_event = on_event or (lambda kind, payload: None)
    for tb in ("cocotb", "native"):
        _opt(opt, "verilator", tb)  # a bad level fails before any work
    if code_coverage:
        check_code_coverage(reg)
    out = ensure_output_dir(out_dir)
    run_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}"
    t_start = time.monotonic()
    designs = _render_designs(reg, out, on_event, render)
    state = RegressState(out / "state.json")

    results: dict[str, TestResult] = {}
    todo: list[TestSpec] = []
    for t in reg.tests:
        prev = state.get(t.key)
        if prev is not None and prev.passed and code_coverage and not (prev.coverage_dat and
                                                                        (out / prev.coverage_dat).exists()):
            prev = None  # a pass without code coverage data runs again
        if prev is not None and prev.passed:
            prev.reused = True
            prev.reproduce, prev.test_id = t.reproduce, t.test_id
            results[t.key] = prev
        elif rerun_failed and prev is None:
            results[t.key] = TestResult.of(t, "not-run", run_id,
                                           error="not run: --rerun-failed runs earlier failures only")
        else:
            todo.append(t)

    def finish(r: TestResult) -> None:
        state.record(r)
        results[r.key] = r
        on_event("result", r)

    build_log: list[dict] = []
    with Executor(jobs, scheduler, threads=True) as ex:
        try:
            builds = list(dict.fromkeys((t.design, t.sim, t.testbench) for t in todo))
            on_event("builds", len(builds))
            # local builds run side by side: each gets its share of the free cores (Dask workers: their own)
            per_build = None if ex.scheduler else max(1, build_jobs() // max(1, min(ex.jobs, len(builds))))
            build_tasks = [({"kind": "build", "verilog": designs[d]["verilog"], "top": designs[d]["top"],
                             "manifest": designs[d]["manifest"], "sim": sim, "testbench": tb,
                             "opt": _opt(opt, sim, tb), "build_jobs": per_build, "code_coverage": code_coverage},
                            BUILD_TIMEOUT_S)
                           for d, sim, tb in builds]
            failed_builds: dict[tuple[str, str, str], str] = {}
            for i, info in ex.map_unordered(_run, build_tasks):
                d, sim, tb = builds[i]
                build_log.append({"design": d, "top": designs[d]["top"], "sim": sim, "testbench": tb,
                                  "opt": build_tasks[i][0]["opt"], "code_coverage": code_coverage,
                                  "status": info["status"],
                                  "build_s": info.get("build_s", info.get("wall_s", 0.0)),
                                  "cached": bool(info.get("cached", False))})
                if info["status"] != "built":
                    failed_builds[builds[i]] = f"build failed: {info.get('error')}"
                on_event("built", info)

            on_event("tests", (len(todo), len(results)))
            runnable = []
            for t in todo:
                failure = failed_builds.get((t.design, t.sim, t.testbench))
                if failure:
                    finish(TestResult.of(t, "error", run_id, error=failure))
                else:
                    runnable.append(t)
            test_jobs = [({"kind": "test", "fam": t.fam, "params": t.params, "mode": t.mode, "seed": t.seed,
                           "sim": t.sim, "vectors": t.vectors, "options": t.options,
                           "verilog": designs[t.design]["verilog"], "manifest": designs[t.design]["manifest"],
                           "waves": waves, "testbench": t.testbench, "opt": _opt(opt, t.sim, t.testbench),
                           "code_coverage": code_coverage,
                           "work_dir": str((out / "runs" / f"{t.family}-{t.key}").resolve())}, t.timeout_s)
                         for t in runnable]
            for i, info in ex.map_unordered(_run, test_jobs):
                kw = {k: info[k] for k in ("cycles", "checks", "mismatches", "first_mismatches", "error", "waveform",
                                           "log", "run_dir", "sim_s", "wall_s", "coverage", "opt")
                      if info.get(k) is not None}
                if info.get("code_coverage"):
                    kw["coverage_dat"] = keep_test_data(out, runnable[i].key, info["code_coverage"])
                finish(TestResult.of(runnable[i], info["status"], run_id, **kw))
        except BaseException:
            kill_active_jobs()
            raise
        label = _label(ex)
    ordered = [results[t.key] for t in reg.tests]
    res = RegressionResult(name=reg.name, source=reg.source, out_dir=str(out), results=ordered,
                           wall_s=time.monotonic() - t_start, run_id=run_id, jobs=label, builds=build_log,
                           code_coverage=merge_designs(out, designs, ordered) if code_coverage else None)
    write_atomic(out / "results.json", json.dumps(res.to_dict(), indent=1, default=str) + "\n")
    return res
