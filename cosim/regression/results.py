"""What a regression's tests did: one :class:`TestResult` per block test, one :class:`AccelTestResult` per accelerator
test, a :class:`RegressionResult` in all."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..coverage import Coverage
from .spec import TestSpec


class _Record:
    """What both kinds of test result share: a status, and a JSON form that reads back."""

    status: str

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict):
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in d.items() if k in known})


@dataclass
class TestResult(_Record):
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
    #: the C++ optimization level of the Verilator model the test ran on (``None``: Icarus, or not run)
    opt: str | None = None
    coverage: dict = field(default_factory=dict)
    run_id: str = ""
    #: True when this pass was recorded by an earlier invocation and not rerun
    reused: bool = False
    #: with ``--code-coverage``: the test's Verilator coverage data, relative to the output directory
    coverage_dat: str | None = None

    @classmethod
    def of(cls, t: TestSpec, status: str, run_id: str, **kw) -> TestResult:
        """The result of test ``t`` in run ``run_id``."""
        return cls(test_id=t.test_id, key=t.key, family=t.family, params=t.params, mode=t.mode, seed=t.seed,
                   sim=t.sim, vectors=t.vectors, options=t.options, design=t.design, status=status,
                   reproduce=t.reproduce, run_id=run_id, **kw)


@dataclass
class AccelTestResult(_Record):
    """What one accelerator test did: a layer on the accelerator of an architecture file (``status``: passed,
    failed, error, or not-run). It passes when the results are bit-exact and ``|cycle_error|`` is within
    ``cycle_tolerance``."""

    test_id: str
    key: str
    #: the architecture file, as the regression names it
    arch: str
    #: the description's name
    accelerator: str
    layer: str
    onnx: str | None
    seed: int
    sim: str
    cycle_tolerance: float
    status: str
    reproduce: str
    #: M, N, K of the layer's GEMM (a convolution's after im2col); empty when it did not run
    shape: list = field(default_factory=list)
    cycles: int | None = None
    predicted_cycles: float | None = None
    #: (measured - predicted) / measured
    cycle_error: float | None = None
    mismatches: int = 0
    folds: int = 0
    commands: int = 0
    error: str | None = None
    log: str | None = None
    wall_s: float = 0.0
    run_id: str = ""
    #: True when this pass was recorded by an earlier invocation and not rerun
    reused: bool = False


def accelerator_summary(results: list[AccelTestResult]) -> dict[str, dict]:
    """Per architecture file: tests, passed, failed, reused, total measured cycles, the worst |cycle error|."""
    out = {}
    for arch in dict.fromkeys(r.arch for r in results):
        rs = [r for r in results if r.arch == arch]
        errors = [abs(r.cycle_error) for r in rs if r.cycle_error is not None]
        out[arch] = {"accelerator": rs[0].accelerator, "tests": len(rs), "passed": sum(r.passed for r in rs),
                     "failed": sum(r.status in ("failed", "error") for r in rs), "reused": sum(r.reused for r in rs),
                     "cycles": sum(r.cycles or 0 for r in rs), "worst_cycle_error": max(errors, default=None)}
    return out


@dataclass
class RegressionResult:
    name: str
    source: str | None
    out_dir: str
    results: list[TestResult]
    wall_s: float
    run_id: str
    #: where the tests ran ("4 local processes", "Dask scheduler tcp://...")
    jobs: str
    #: the simulator builds of this run, before the tests: ``design`` (hash), ``top``, ``sim``, ``testbench``,
    #: ``opt``, ``code_coverage`` (instrumented), ``status``, ``build_s`` and ``cached`` (found in the build cache: nothing
    #: compiled)
    builds: list[dict] = field(default_factory=list)
    #: coverage-driven closure (``--until-covered``, :mod:`.closure`): why it stopped, rounds, tests added, and per
    #: family the bins still open (with the reason) and the unreachable ones
    closure: dict | None = None
    #: ``--code-coverage`` (:func:`.code_coverage.merge_designs`): line and toggle coverage per design and family
    code_coverage: dict | None = None
    #: the accelerator tests (``accelerators`` of the description), after the block tests
    accelerators: list[AccelTestResult] = field(default_factory=list)

    @property
    def build_s(self) -> float:
        """Wall seconds of this run's builds, summed (they run side by side on several jobs)."""
        return sum(b["build_s"] for b in self.builds)

    @property
    def sim_s(self) -> float:
        """Simulation seconds of the tests this run ran (reused results excluded), summed."""
        return sum(r.sim_s for r in self.results if not r.reused)

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def passed(self) -> bool:
        return all(r.passed for r in [*self.results, *self.accelerators] if r.status != "not-run")

    @property
    def failures(self) -> list[TestResult]:
        """The block tests that failed, timed out or hit an error."""
        return [r for r in self.results if r.status not in ("passed", "not-run")]

    @property
    def accelerator_failures(self) -> list[AccelTestResult]:
        return [r for r in self.accelerators if r.status not in ("passed", "not-run")]

    def coverage(self) -> dict[str, Coverage]:
        """Functional coverage merged per family over every test that ran (or was reused)."""
        out: dict[str, Coverage] = {}
        for r in self.results:
            if r.coverage:
                out[r.family] = out.get(r.family, Coverage()).merge(Coverage.from_dict(r.coverage))
        return dict(sorted(out.items()))

    def signoff(self) -> dict[str, dict]:
        """Per family, what a sign-off looks at: tests passed and failed, functional coverage (bins hit, %, the
        open ones), and with code coverage the line and toggle %."""
        cov, code = self.coverage(), (self.code_coverage or {}).get("families", {})
        out = {}
        for fam in dict.fromkeys(r.family for r in self.results):
            rs = [r for r in self.results if r.family == fam]
            c = cov.get(fam)
            out[fam] = {"tests": len(rs), "passed": sum(r.passed for r in rs),
                        "failed": sum(r.status in ("failed", "timeout", "error") for r in rs),
                        "functional_pct": 100 * c.fraction if c and c.bins else None,
                        "bins_hit": c.covered if c else 0, "bins": len(c.bins) if c else 0,
                        "open_bins": c.missed if c else [],
                        "line_pct": code.get(fam, {}).get("line_pct"),
                        "toggle_pct": code.get(fam, {}).get("toggle_pct")}
        return out

    def to_dict(self) -> dict:
        return {"name": self.name, "source": self.source, "out_dir": self.out_dir, "wall_s": self.wall_s,
                "run_id": self.run_id, "jobs": self.jobs, "passed": self.passed,
                "counts": {s: self.count(s) for s in ("passed", "failed", "timeout", "error", "not-run")},
                "reused": sum(r.reused for r in self.results),
                "build_s": self.build_s, "sim_s": self.sim_s, "builds": self.builds,
                "coverage": {f: {"covered": c.covered, "bins": len(c.bins), "missed": c.missed, **c.to_dict()}
                             for f, c in self.coverage().items()},
                "signoff": self.signoff(),
                **({"closure": self.closure} if self.closure is not None else {}),
                **({"code_coverage": self.code_coverage} if self.code_coverage is not None else {}),
                "tests": [r.to_dict() for r in self.results],
                **({"accelerators": {
                    "counts": {s: sum(r.status == s for r in self.accelerators)
                               for s in ("passed", "failed", "error", "not-run")},
                    "reused": sum(r.reused for r in self.accelerators),
                    "summary": accelerator_summary(self.accelerators),
                    "tests": [r.to_dict() for r in self.accelerators]}} if self.accelerators else {})}
