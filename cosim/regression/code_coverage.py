"""A regression's code coverage (``--code-coverage``): each test's Verilator data kept, merged per design.

Every test of a run with code coverage returns its ``coverage.dat`` (from whichever host ran it); the
runner keeps it as ``<out>/coverage/tests/<test key>.dat`` (:func:`keep_test_data`), so a resumed run
merges the data of reused passes too. :func:`merge_designs` then merges each design's test data into
``<out>/coverage/<family>-<design hash>.dat`` (:func:`accelgen.cosim.code_coverage.merge_dat`: Verilator's
``verilator_coverage`` when installed) and summarizes it per design and per family (the sum of the
family's designs' points).
"""

from __future__ import annotations

from pathlib import Path

from ...util import write_atomic
from ..code_coverage import CodeCoverage, merge_dat, parse_dat, summarize
from .results import TestResult

TESTS_DIR = Path("coverage") / "tests"


def test_data_path(out: Path, key: str) -> Path:
    """Where the coverage data of the test with resume key ``key`` is kept."""
    return out / TESTS_DIR / f"{key}.dat"


def keep_test_data(out: Path, key: str, text: str) -> str:
    """Save one test's coverage data; returns its path relative to ``out`` (the test result's ``coverage_dat``)."""
    path = test_data_path(out, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
    return str(path.relative_to(out))


def merge_designs(out: Path, designs: dict[str, dict], results: list[TestResult]) -> dict:
    """Merge and summarize the kept test data per design and family (``results.json``'s ``code_coverage``).

    ``designs`` are the rendered designs by hash (``verilog``, ``top``); a design whose tests left no data
    (all failed to build, say) is listed with ``tests: 0`` and no figures.
    """
    by_design: dict[str, list[TestResult]] = {}
    for r in results:
        by_design.setdefault(r.design, []).append(r)
    merged_with = None
    per_design, per_family = {}, {}
    for digest, rs in by_design.items():
        fam = rs[0].family
        paths = [out / r.coverage_dat for r in rs if r.coverage_dat and (out / r.coverage_dat).exists()]
        entry = {"family": fam, "top": designs[digest]["top"], "params": rs[0].params, "tests": len(paths)}
        if paths:
            dat = out / "coverage" / f"{fam}-{digest[:12]}.dat"
            merged_with = merge_dat(paths, dat)
            cov = summarize(parse_dat(dat.read_text()), designs[digest]["verilog"])
            entry.update(dat=str(dat.relative_to(out)), **cov.to_dict())
            per_family[fam] = per_family.get(fam, CodeCoverage()).add(cov)
        per_design[digest[:12]] = entry
    return {"merged_with": merged_with, "designs": per_design,
            "families": {f: {k: v for k, v in c.to_dict().items() if k not in ("unhit_lines", "untoggled")}
                         for f, c in sorted(per_family.items())}}
