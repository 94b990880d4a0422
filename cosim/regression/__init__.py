"""Cosim regressions at scale: block x parameter matrix x test mode x seed x simulator.

- :mod:`.spec`     the regression description (YAML schema) and its expansion into tests;
                   every test carries its family object, taken from the ``families`` mapping
                   the caller passes (:func:`load_regression`, :func:`parse_regression`)
- :mod:`.runner`   :func:`run_regression`: render each design once, build each simulator once,
                   fan the tests out on local worker processes or a Dask cluster, resume
- :mod:`.job`      :func:`run_job`: one job in its own process group, with a timeout
- :mod:`.worker`   that job's process (``python -m accelgen.cosim.regression.worker``)
- :mod:`.state`    the resume state (``<out>/state.json``); :mod:`.results` what the tests did
- :mod:`.report`   JUnit XML and HTML reports
- :mod:`.closure`  :func:`run_until_covered`: add random seeds until the functional bins close
- :mod:`.code_coverage` ``--code-coverage``: each test's Verilator line and toggle data, merged per design

Functional coverage bins per family come from the family's collector
(:mod:`accelgen.cosim.coverage`). Every test can be reproduced alone with the command in its
``reproduce`` field (``accelgen cosim <family> ...``): the same design, stimulus and seed.
"""

from .closure import run_until_covered
from .job import kill_active_jobs, run_job
from .report import write_html, write_junit
from .results import RegressionResult, TestResult
from .runner import BUILD_TIMEOUT_S, check_code_coverage, run_regression
from .spec import (DEFAULT_TIMEOUT_S, MODE_HELP, MODES, STRESS_FACTOR, Regression, TestSpec, load_regression,
                   param_tag, parse_regression, reproduce_command)
from .state import STATE_FORMAT, RegressState

__all__ = ["BUILD_TIMEOUT_S", "check_code_coverage", "DEFAULT_TIMEOUT_S", "MODES", "MODE_HELP", "STATE_FORMAT", "STRESS_FACTOR",
           "RegressState", "Regression", "RegressionResult", "TestResult", "TestSpec", "kill_active_jobs",
           "load_regression", "param_tag", "parse_regression", "reproduce_command", "run_job", "run_regression",
           "run_until_covered", "write_html", "write_junit"]
