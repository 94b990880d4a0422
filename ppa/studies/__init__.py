"""The seed papers' studies as shipped, runnable examples (``accelgen study NAME``).

Each study is a function of an output directory that returns a :class:`StudyResult`: the rows of its table
(``{"study": NAME, "rows": [...]}`` is its JSON), the columns to print, any further tables, notes that put
accelgen's numbers beside the paper's (with their sources) and the plot files it wrote. The registry below
lists the studies; :func:`run_study` runs one.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import ConfigError
from . import neurometer, sigma_reduction, sigma_vs_systolic, tensordash_overhead
from .result import Study, StudyResult

__all__ = ["Study", "StudyResult", "run_study", "study_names"]

STUDIES: dict[str, Study] = {s.name: s for s in (*sigma_reduction.STUDIES, *sigma_vs_systolic.STUDIES,
                                                 *tensordash_overhead.STUDIES, *neurometer.STUDIES)}


def study_names() -> list[str]:
    return sorted(STUDIES)


def run_study(name: str, out_dir: str | Path | None = None) -> StudyResult:
    """Run the study ``name``, writing its files under ``out_dir`` (default ``study-out/NAME``)."""
    if name not in STUDIES:
        raise ConfigError([("NAME", f"{name!r} is not a study; expected one of {', '.join(study_names())}")])
    out = Path(out_dir) if out_dir is not None else Path("study-out") / name
    if out.exists() and not out.is_dir():
        raise ConfigError([("--out", f"{str(out)!r} exists and is not a directory")])
    out.mkdir(parents=True, exist_ok=True)
    return STUDIES[name].run(out)
