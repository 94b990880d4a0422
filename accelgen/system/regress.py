"""The ``accelerators`` of a regression file (:mod:`accelgen.cosim.regression.spec`): each entry expanded into one test
per layer, seed and simulator (:func:`accelerator_tests`), run on the accelerator its architecture file describes
(:func:`accelgen.system.run.run_layer`) after the block tests, resumably (:func:`run_accelerator_tests`).

A test passes when the layer's results are bit-exact and its measured cycles are within the entry's
``cycle_tolerance`` of ``accelgen perf``'s prediction. Its resume key hashes the architecture file's content, the layer,
the seed, the simulator and the ONNX model's content. A pass recorded under that key in the output directory's
``state.json`` (the block tests' state) is reused, when it is also within the tolerance asked for now.

The first test of a design emits the accelerator and builds its simulator (both cached by content); it runs before
the others of that design, which then run side by side on local threads, each simulation in its own process. The
architecture and ONNX paths are this machine's, so a ``--scheduler`` run keeps these tests local.
"""

from __future__ import annotations

import json
import shlex
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cosim.regression.results import AccelTestResult, RegressionResult
from ..cosim.regression.spec import DEFAULT_CYCLE_TOLERANCE, AccelEntry, Regression
from ..cosim.regression.state import RegressState
from ..errors import ConfigError
from ..executor import Executor
from ..params.accel import AccelParams
from ..ppa.arch import load_arch
from ..ppa.onnx_import import import_onnx
from ..util import canonical_json, ensure_output_dir, sha256_hex, write_atomic
from .arch import accel_params, resolve_arch, resolve_model
from .layers import AccelLayer, gemm_layer, onnx_conv_layers
from .run import LayerRun, run_layer

__all__ = ["AccelTest", "accelerator_tests", "run_accelerator_tests"]

Event = Callable[[str, Any], None]


@dataclass
class AccelTest:
    """One layer, seed and simulator on the accelerator of an architecture file."""

    #: the architecture file, as the regression names it
    arch: str
    #: the description's name
    accelerator: str
    params: AccelParams = field(repr=False)
    #: sha256 of the architecture file's text
    arch_digest: str
    #: ``gemm_MxNxK``, or the ONNX convolution's name
    layer: str
    #: the GEMM's M, N, K (``None`` for an ONNX convolution)
    gemm: tuple[int, int, int] | None
    onnx: str | None
    #: sha256 of the ONNX model's bytes ("" without one)
    onnx_digest: str
    seed: int
    sim: str
    cycle_tolerance: float

    @property
    def key(self) -> str:
        """Resume key: the architecture file's content, the layer, the seed, the simulator, the ONNX model's content."""
        return sha256_hex(canonical_json(["accelerator", self.arch_digest, self.layer, self.seed, self.sim,
                                          self.onnx_digest]))[:16]

    @property
    def test_id(self) -> str:
        return f"{self.accelerator}.{self.layer}.s{self.seed}.{self.sim}"

    @property
    def reproduce(self) -> str:
        """``accelgen cosim --arch ...``: the one command that reruns exactly this test."""
        args = ["accelgen", "cosim", "--arch", self.arch]
        args += ["--gemm", ",".join(map(str, self.gemm))] if self.gemm else ["--onnx", self.onnx, "--layer", self.layer]
        args += ["--seed", str(self.seed), "--sim", self.sim]
        if self.cycle_tolerance != DEFAULT_CYCLE_TOLERANCE:
            args += ["--cycle-tolerance", str(self.cycle_tolerance)]
        return shlex.join(args)

    def layer_data(self) -> AccelLayer:
        """The layer's operands, as ``accelgen cosim --arch`` makes them for the same seed."""
        if self.gemm:
            return gemm_layer(self.params, *self.gemm, seed=self.seed)
        return onnx_conv_layers(self.params, self.onnx, [self.layer], seed=self.seed)[0]

    def result(self, status: str, run_id: str, **kw) -> AccelTestResult:
        return AccelTestResult(test_id=self.test_id, key=self.key, arch=self.arch, accelerator=self.accelerator,
                               layer=self.layer, onnx=self.onnx, seed=self.seed, sim=self.sim,
                               cycle_tolerance=self.cycle_tolerance, status=status, reproduce=self.reproduce,
                               run_id=run_id, **kw)


# --------------------------------------------------------------------------- expansion

def _onnx_layers(entry: AccelEntry, problems: list) -> list[str]:
    """The entry's convolutions of its ONNX model (those named, or all), each checked against the model."""
    try:
        path = resolve_model(entry.onnx)
    except ConfigError:
        problems.append((f"{entry.where}.onnx", f"{entry.onnx!r}: file not found (paths are relative to the current "
                                                "directory) and not a model shipped beside the accelerators "
                                                "(tiny_cnn)"))
        return []
    try:
        workload, _ = import_onnx(path)
    except ConfigError as exc:
        problems.append((f"{entry.where}.onnx", "; ".join(message for _, message in exc.problems)))
        return []
    convs = {layer["name"]: layer for layer in workload["layers"] if layer["type"] == "conv"}
    allowed = ", ".join(sorted(convs)) or "none"
    for j, name in enumerate(entry.layers or ()):
        if name not in convs:
            problems.append((f"{entry.where}.layers[{j}]", f"{name!r} is not a convolution of {entry.onnx}; "
                                                           f"allowed: {allowed}"))
    names = entry.layers or list(convs)
    if not names:
        problems.append((f"{entry.where}.onnx", f"{entry.onnx} has no convolution to run"))
    for name in names:
        if name in convs and convs[name].get("groups", 1) != 1:
            problems.append((f"{entry.where}.layers", f"{name!r} is a grouped convolution; allowed: one group"))
    return [name for name in names if name in convs]


def accelerator_tests(reg: Regression) -> list[AccelTest]:
    """The tests of ``reg``'s ``accelerators``: each entry's GEMMs and ONNX convolutions x seeds x simulators.

    Reads every architecture file (it must describe an accelerator the generator builds) and ONNX model; a
    :class:`ConfigError` names each problem by its field path. A test listed twice runs once."""
    problems: list[tuple[str, str]] = []
    tests: dict[str, AccelTest] = {}
    for entry in reg.accelerators:
        try:
            arch_path = resolve_arch(entry.arch)
        except ConfigError as exc:
            problems.append((f"{entry.where}.arch", f"{entry.arch!r}: file not found (paths are relative to the "
                                                    f"current directory) and not a shipped accelerator; "
                                                    f"{exc.problems[0][1].split('; ', 1)[-1]}"))
            continue
        try:
            arch = load_arch(arch_path)
            params = accel_params(arch, entry.arch)
        except ConfigError as exc:
            problems.append((f"{entry.where}.arch", str(exc)))
            continue
        layers = [(f"gemm_{M}x{N}x{K}", (M, N, K)) for M, N, K in entry.gemms]
        onnx_digest = ""
        if entry.onnx is not None:
            layers += [(name, None) for name in _onnx_layers(entry, problems)]
            try:
                onnx_digest = sha256_hex(resolve_model(entry.onnx).read_bytes())
            except ConfigError:
                pass   # reported by _onnx_layers
        arch_digest = sha256_hex(arch_path.read_text())
        for name, gemm in layers:
            for seed in entry.seeds:
                for sim in entry.sims:
                    t = AccelTest(arch=entry.arch, accelerator=arch.name, params=params, arch_digest=arch_digest,
                                  layer=name, gemm=gemm, onnx=None if gemm else entry.onnx,
                                  onnx_digest="" if gemm else onnx_digest, seed=seed, sim=sim,
                                  cycle_tolerance=entry.cycle_tolerance)
                    tests.setdefault(t.key, t)
    if problems:
        raise ConfigError(problems, reg.source)
    return list(tests.values())


# --------------------------------------------------------------------------- running

class _AccelState(RegressState):
    """The output directory's resume state, shared with the block tests (their keys hash other things), read as
    accelerator results."""

    def get(self, key: str) -> AccelTestResult | None:
        rec = self.tests.get(key)
        return AccelTestResult.from_dict(rec) if rec else None


def _verdict(run: LayerRun, tolerance: float) -> tuple[str, str | None]:
    """``(status, why)`` of a layer's run: bit-exact results and cycles within ``tolerance`` pass."""
    if run.cycles is None:
        return "error", run.error
    if not run.passed:
        return "failed", run.error
    if abs(run.cycle_error) > tolerance:
        return "failed", (f"cycles {run.cycles} vs predicted {run.predicted_cycles:.0f}: {run.cycle_error:+.1%}, "
                          f"beyond the tolerance of {tolerance:.1%}")
    return "passed", None


def _within(prev: AccelTestResult, tolerance: float) -> bool:
    """A recorded pass that also passes the tolerance asked for now."""
    return prev.passed and prev.cycle_error is not None and abs(prev.cycle_error) <= tolerance


def _run_test(task: tuple[AccelTest, str, str | None]) -> AccelTestResult:
    """Run one test (the executor's task)."""
    t, run_id, opt = task
    t0 = time.monotonic()
    try:
        run = run_layer(t.arch, t.layer_data(), sim=t.sim, seed=t.seed, opt=opt)
    except Exception as exc:  # a failed build or simulator start ends this test, not the regression's record
        message = " ".join(str(exc).split()) or type(exc).__name__
        return t.result("error", run_id, error=message, wall_s=time.monotonic() - t0)
    status, why = _verdict(run, t.cycle_tolerance)
    return t.result(status, run_id, shape=list(run.shape), cycles=run.cycles,
                    predicted_cycles=round(run.predicted_cycles, 1),
                    cycle_error=run.cycle_error, mismatches=run.mismatches, folds=run.folds, commands=run.commands,
                    error=why, log=run.log, wall_s=time.monotonic() - t0)


def _waves(tests: list[AccelTest]) -> list[list[AccelTest]]:
    """The first test of each design, then the first of each remaining simulator, then the rest: every design is
    emitted and every simulator built by one test, before the others of the same design need it."""
    first = list({t.arch_digest: t for t in reversed(tests)}.values())
    taken = {id(t) for t in first}
    per_sim = [t for t in {(t.arch_digest, t.sim): t for t in reversed(tests)}.values() if id(t) not in taken]
    taken |= {id(t) for t in per_sim}
    return [wave for wave in (first, per_sim, [t for t in tests if id(t) not in taken]) if wave]


def run_accelerator_tests(reg: Regression, tests: list[AccelTest], out_dir: str | Path,
                          blocks: RegressionResult | None = None, *, jobs: int | None = None,
                          rerun_failed: bool = False, opt: str | None = None,
                          on_event: Event | None = None) -> RegressionResult:
    """Run ``tests`` (:func:`accelerator_tests`); add their results to ``blocks`` (the block tests' result, or a new
    one when the regression has no blocks) and write it to ``out_dir/results.json``.

    A pass recorded in ``out_dir/state.json`` under the same key (and within the test's tolerance) is reused; with
    ``rerun_failed`` only the tests recorded as failed run, those never recorded are ``not-run``. ``jobs`` local
    threads run the tests (default: the number of cores); ``opt`` is the Verilator build's C++ optimization level.
    ``on_event(kind, payload)`` reports ``("accel-tests", (to_run, reused))`` and ``("accel-result", result)``.
    """
    on_event = on_event or (lambda kind, payload: None)
    out = ensure_output_dir(out_dir)
    run_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}"
    t_start = time.monotonic()
    state = _AccelState(out / "state.json")
    results: dict[str, AccelTestResult] = {}
    todo: list[AccelTest] = []
    for t in tests:
        prev = state.get(t.key)
        if prev is not None and _within(prev, t.cycle_tolerance):
            # the key leaves out the file's path and the tolerance: the recorded pass is shown as this test
            results[t.key] = t.result("passed", prev.run_id, reused=True,
                                      **{k: getattr(prev, k) for k in ("shape", "cycles", "predicted_cycles",
                                                                       "cycle_error", "mismatches", "folds",
                                                                       "commands", "wall_s")})
        elif rerun_failed and prev is None:
            results[t.key] = t.result("not-run", run_id, error="not run: --rerun-failed runs earlier failures only")
        else:
            todo.append(t)
    on_event("accel-tests", (len(todo), len(results)))
    with Executor(jobs, threads=True) as ex:
        for wave in _waves(todo):
            for _, r in ex.map_unordered(_run_test, [(t, run_id, opt) for t in wave]):
                state.record(r)
                results[r.key] = r
                on_event("accel-result", r)
        workers = ex.jobs
    ordered = [results[t.key] for t in tests]
    wall_s = time.monotonic() - t_start
    if blocks is None:
        blocks = RegressionResult(name=reg.name, source=reg.source, out_dir=str(out), results=[], wall_s=0.0,
                                  run_id=run_id, jobs=f"{workers} local process{'es' if workers != 1 else ''}")
    blocks.accelerators = ordered
    blocks.wall_s += wall_s
    write_atomic(out / "results.json", json.dumps(blocks.to_dict(), indent=1, default=str) + "\n")
    return blocks
