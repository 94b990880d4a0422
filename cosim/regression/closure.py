"""Coverage-driven closure: ``accelgen regress REG --until-covered [--max-tests N]``.

:func:`run_until_covered` runs the regression, then in rounds adds a random test with a fresh seed for
every design of each family that still has functional bins never hit, and runs again (the runner
resumes: only the new tests run), until every reachable bin is hit, the budget of added tests is
spent, or :data:`STALL_ROUNDS` rounds in a row hit no new bin. Bins a family's parameters cannot
reach are not bins (``Coverage.unreachable``, with their reason); every bin still open at the end
gets the reason it is open. The outcome is ``results.json``'s ``closure``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from ...util import write_atomic
from .results import RegressionResult
from .runner import run_regression
from .spec import Regression, TestSpec

#: rounds in a row without a newly hit bin after which closure stops (more random seeds are not finding them)
STALL_ROUNDS = 2


def _open_bins(res: RegressionResult) -> dict[str, list[str]]:
    return {fam: c.missed for fam, c in res.coverage().items() if c.missed}


def _new_tests(reg: Regression, families: set[str], seed: int, budget: int) -> list[TestSpec]:
    """One random test with ``seed`` per distinct design (and simulator, testbench) of ``families``."""
    seen: dict[tuple, TestSpec] = {}
    for t in reg.tests:
        if t.family in families:
            k = (t.family, t.design, t.sim, t.testbench)
            if k not in seen or (t.mode == "random" and seen[k].mode != "random"):
                seen[k] = t
    return [replace(t, mode="random", seed=seed) for t in list(seen.values())[:budget]]


def run_until_covered(reg: Regression, out_dir: str | Path, *, max_tests: int, run=run_regression,
                      on_round=None, **kw) -> RegressionResult:
    """Run ``reg``, then add random tests until its functional bins close (module docstring). ``max_tests`` caps
    the tests added; ``run`` is :func:`~.runner.run_regression` (its keyword arguments ``kw``); ``on_round(n,
    open_bins)`` reports each round."""
    res = run(reg, out_dir, **kw)
    seed = max((t.seed for t in reg.tests), default=0) + 1
    first_seed, added, rounds, stalls, reason = seed, 0, 0, 0, ""
    covered = {f: c.covered for f, c in res.coverage().items()}
    while True:
        open_bins = _open_bins(res)
        if on_round:
            on_round(rounds, open_bins)
        if not open_bins:
            reason = "every reachable bin hit"
            break
        if added >= max_tests:
            reason = f"the budget of {max_tests} added tests is spent"
            break
        if stalls >= STALL_ROUNDS:
            reason = f"{STALL_ROUNDS} rounds of fresh random seeds hit no new bin"
            break
        new = _new_tests(reg, set(open_bins), seed, max_tests - added)
        if not new:
            reason = "no design of the open families to add tests for"
            break
        reg = replace(reg, tests=reg.tests + new)
        added += len(new)
        rounds += 1
        seed += 1
        res = run(reg, out_dir, **kw)
        now = {f: c.covered for f, c in res.coverage().items()}
        stalls = 0 if any(now.get(f, 0) > covered.get(f, 0) for f in now) else stalls + 1
        covered = now
    cov = res.coverage()
    seeds = f"seeds {first_seed}-{seed - 1}" if added else "no tests added"
    res.closure = {
        "stopped": reason, "rounds": rounds, "tests_added": added, "max_tests": max_tests,
        "families": {f: {"covered": c.covered, "bins": len(c.bins),
                         "open": {b: f"not hit by {sum(r.family == f for r in res.results)} tests ({seeds}); "
                                     f"stopped: {reason}" for b in c.missed},
                         "unreachable": dict(sorted(c.unreachable.items()))}
                     for f, c in cov.items()}}
    out = Path(out_dir)
    write_atomic(out / "results.json", json.dumps(res.to_dict(), indent=1, default=str) + "\n")
    return res
