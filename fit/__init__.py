"""The fitted component models and the flow they are fitted with: map -> sweep -> fit -> load and predict.

The public API (also what each ``accelgen`` command of the flow runs):

* :func:`map_and_time`: map a design to a cell library at a target clock and time it (:mod:`.mapping`);
* :func:`sweep_dataset`: run or resume a sweep of mapped, timed and simulated design points and write its
  dataset; :func:`fit_model`: fit a model file to a dataset; :func:`predict` (:mod:`.api`);
* :func:`load_model` / :class:`FittedModel`: a model file, vectorized prediction at a node (:mod:`.model`).

The modules, by job: Liberty reading (:mod:`.liberty_read`) and writing (:mod:`.liberty_write`) of a cell
description (:mod:`.cells`) into a library in memory (:mod:`.cell_library`); Yosys netlists (:mod:`.netlist`);
static timing and a library's FO4 (:mod:`.sta`); library energy and the clock network (:mod:`.power`);
electrical repair (:mod:`.repair`); mapping (:mod:`.mapping`); gate-level and timed simulation
(:mod:`.activity`, :mod:`.glitch`); one point's measurement (:mod:`.measure`), sweeps (:mod:`.sweep`), fitting
(:mod:`.fitting`). The generic-gate statistics of ``accelgen synth`` (Yosys' generic cells, no library) are
:func:`accelgen.fit.generic_gates.gate_statistics`, not part of this flow. Node scaling is
:mod:`accelgen.technology`'s.

The names are loaded on first use: the estimator imports :mod:`.model` alone, and must not pay for the sweep
machinery (pandas and the emitters, about 3 s) that :mod:`.api` brings.
"""

from importlib import import_module

#: public name -> the module of this package that defines it
_EXPORTS = {
    "map_and_time": "mapping", "MappedTiming": "mapping",
    "sweep_dataset": "api", "SweepResult": "api", "fit_model": "api", "FitResult": "api", "predict": "api",
    "Prediction": "api", "read_dataset": "api",
    "load_model": "model", "FittedModel": "model", "TargetModel": "model", "FitRangeWarning": "model",
    "shipped_models": "model",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
