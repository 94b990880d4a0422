"""The sweep of a user's own parameterized Verilog module: a grid of its parameters, measured as a family's points.

A sweep file that names Verilog files and a top instead of a family (docs/refit.md, "Your own Verilog")::

    verilog: [adder.v]                 # relative to the sweep file
    top: my_adder
    defines: {WIDE_SUM: 1}             # optional: read_verilog -D
    ports: {clock: clk, reset: rst}    # optional: found by name otherwise; the other inputs get the stimulus
    activity: 0.5                      # optional: each data input bit's toggle probability per cycle
    grid: [{WIDTH: [4, 8, 16]}]        # the top's parameters (chparam), crossed as in a family's sweep
    heldout: [{WIDTH: [6, 12]}]
    densities: [1.0, 0.5]              # a data word is zero with probability 1 - density
    targets: {area_um2: {features: ["1", "WIDTH"], positive: true}, ...}

and every setting of a family's sweep file (cycles, lanes, seed, clock_mhz, glitch_samples, ...). Each point is
read with its parameters set (:func:`accelgen.fit.external.elaborate`), driven by
:func:`accelgen.fit.external.random_stimuli` at each density, and measured, cached and written to the dataset by
the same code as a family's point (:mod:`accelgen.fit.sweep`). The block of such a sweep is an
:class:`ExternalBlock`, whose parameter schema is made from the grid; its model is named after the sweep file
(``adder.yaml`` -> ``adder``), its family is :data:`EXTERNAL_FAMILY` (not a registered family), and the model file
records the module it was fitted to (``external``). Energy is per cycle.
"""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError, create_model

from ..errors import ConfigError
from .external import (DEFAULT_ACTIVITY, VERILOG_IDENT, describe_stimulus, elaborate, flow_design, port_roles,
                       random_stimuli)
from .measure import Design
from .sweep import SweepSpec, check_points, read_sweep_file, settings_problems, spec_settings

#: the ``family`` of every external module's sweep and model: its cache directory and the model file's field
EXTERNAL_FAMILY = "external"
#: the keys of an external module's sweep file besides a family sweep's settings
EXTERNAL_KEYS = ("verilog", "top", "defines", "ports", "activity")
_SETTINGS = ("grid", "heldout", "derived", "densities", "cycles", "lanes", "seed", "clock_mhz", "glitch_samples",
             "glitch_extra", "targets")
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
#: parameter schemas made from the grids, by block (pydantic classes made at run time do not pickle, so an
#: :class:`ExternalBlock`, which goes to the sweep's worker processes, keeps only their description)
_SCHEMAS: dict = {}


@dataclass(frozen=True)
class ExternalBlock:
    """A user's module as a sweep's block: its files (absolute paths), top, defines, port roles and stimulus activity,
    and its parameters (name -> the module's default, and the grid's values), from which :attr:`params_model`
    (the schema the fit reads its inputs from) is made."""

    name: str
    files: tuple[str, ...]
    top: str
    defines: tuple[tuple[str, str], ...]
    clock: str | None
    reset: str | None
    activity: float
    fields: tuple[tuple[str, object, tuple], ...]     # (parameter, module default, every value the sweep sets)
    external: bool = True

    @property
    def params_model(self):
        """The parameter schema: an integer field per parameter whose values are integers, else a choice."""
        if self not in _SCHEMAS:
            spec = {}
            for name, default, values in self.fields:
                if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                    spec[name] = (int, int(default) if str(default).lstrip("-").isdigit() else values[0])
                else:
                    choices = tuple(str(v) for v in values)
                    spec[name] = (typing.Literal[choices], choices[0])
            _SCHEMAS[self] = create_model(f"{self.top}Params", **spec)
        return _SCHEMAS[self]

    def validate(self, params: dict, path: str | None = None):
        where = path or self.name
        unknown = [k for k in params if k not in {f[0] for f in self.fields}]
        if unknown:
            raise ConfigError([(f"{where}.{unknown[0]}", f"not a parameter of the sweep; allowed: "
                                                         f"{', '.join(f[0] for f in self.fields)}")])
        try:
            return self.params_model(**params)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise ConfigError([(f"{where}.{err['loc'][0]}", f"{err.get('input')!r} is not allowed: {err['msg']}")]) \
                from None

    def design(self, job: dict) -> Design:
        """What a point measures: the module read with ``job["params"]`` set, the stimuli at every density."""
        elab, roles, verilog = flow_design(self.files, self.top, defines=dict(self.defines), params=job["params"],
                                           clock=self.clock, reset=self.reset)
        stimuli = {str(d): random_stimuli(elab.ports, roles, activity=self.activity, density=d, cycles=job["cycles"],
                                          lanes=job["lanes"], seed=job["seed"]) for d in job["densities"]}
        return Design(verilog=verilog, top=self.top, cells=(), stimuli=stimuli, clock_mhz=job["clock_mhz"],
                      liberty=job.get("liberty"), glitch=bool(job.get("glitch")))

    def describe(self, cycles: int, lanes: int, seed: int, source: str) -> dict:
        """What the model file records of the module it was fitted to (file names, not machine paths)."""
        return {"verilog": [Path(f).name for f in self.files], "top": self.top, "defines": dict(self.defines),
                "ports": {"clock": self.clock, "reset": self.reset}, "sweep": Path(source).name, "energy_per": "cycle",
                "stimulus": describe_stimulus(self.activity, None, cycles, lanes, seed)
                + "; at density d a data word is zero with probability 1 - d"}


def external_sweep_path(name: str, grid: str | Path | None) -> Path | None:
    """The sweep file of an external module, when ``name`` is a sweep file (``adder.yaml``) or ``grid`` names one
    with a ``verilog:`` key; ``None`` for a family's sweep."""
    if grid is None and str(name).lower().endswith((".yaml", ".yml")):
        return Path(name)
    if grid is not None and Path(grid).is_file():
        data, _ = read_sweep_file(grid)
        if "verilog" in data:
            return Path(grid)
    return None


def load_external_sweep(path: str | Path, name: str | None = None) -> SweepSpec:
    """Read the sweep file of an external module (module docstring); the model is named after the file. ``name``
    (as given to ``accelgen sweep NAME --grid FILE``), when not the file itself, must be that name."""
    path = Path(path)
    data, src = read_sweep_file(path)
    model = path.stem
    if not _NAME.match(model):
        raise ConfigError([("grid", f"{path.name!r}: an external module's model is named after its sweep file; "
                                    "allowed: letters, digits, '_', '.', '-'")])
    if name is not None and name not in (model, str(path)):
        raise ConfigError([("name", f"{name!r} is not allowed: the model of {path.name} is named {model!r} after "
                                    f"its sweep file (accelgen sweep {path})")])
    allowed = set(EXTERNAL_KEYS) | set(_SETTINGS)
    problems = [(f"{src}.{k}", f"unknown key; allowed: {', '.join(sorted(allowed))}") for k in data if k not in allowed]
    files = data.get("verilog")
    files = [files] if isinstance(files, str) else files
    if not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files):
        problems.append((f"{src}.verilog", "expected a Verilog file or a list of them (relative to the sweep file)"))
        files = []
    paths = [(path.parent / f).resolve() for f in files]
    problems += [(f"{src}.verilog", f"{f!r} does not exist") for f, p in zip(files, paths) if not p.is_file()]
    if not isinstance(data.get("top"), str) or not VERILOG_IDENT.match(data["top"]):
        problems.append((f"{src}.top", f"{data.get('top')!r} is not allowed; expected the top module's name"))
    ports = data.get("ports") or {}
    if not isinstance(ports, dict) or set(ports) - {"clock", "reset"}:
        problems.append((f"{src}.ports", f"{ports!r} is not allowed; expected {{clock: PORT, reset: PORT}}"))
        ports = {}
    defines = data.get("defines") or {}
    if not isinstance(defines, dict) or not all(isinstance(k, str) and VERILOG_IDENT.match(k) for k in defines):
        problems.append((f"{src}.defines", f"{defines!r} is not allowed; expected {{NAME: value}}"))
        defines = {}
    activity = data.get("activity", DEFAULT_ACTIVITY)
    if isinstance(activity, bool) or not isinstance(activity, (int, float)) or not 0 <= activity <= 1:
        problems.append((f"{src}.activity", f"{activity!r} is not allowed; expected a toggle probability in 0..1"))
    problems += settings_problems(data, src)
    if problems:
        raise ConfigError(problems)
    settings = spec_settings(data, src)
    defines = {k: str(v) for k, v in defines.items()}
    elab = elaborate(paths, data["top"], defines=defines)       # the module's parameters and ports, checked once
    roles = port_roles(elab.ports, ports.get("clock"), ports.get("reset"))
    probe = SweepSpec(family=EXTERNAL_FAMILY, name=model, **settings)
    values: dict[str, list] = {}
    for _, params in probe.points():
        for k, v in params.items():
            values.setdefault(k, []).append(v)
    unknown = [k for k in values if k not in elab.parameters]
    if unknown:
        raise ConfigError([(f"{src}.grid", f"{unknown[0]!r} is not a parameter of {data['top']}; parameters: "
                                           f"{', '.join(elab.parameters) or 'none'}")])
    block = ExternalBlock(name=model, files=tuple(str(p) for p in paths), top=data["top"],
                          defines=tuple(sorted(defines.items())), clock=roles.clock,
                          reset=roles.reset and f"{roles.reset}:{'low' if roles.reset_active_low else 'high'}",
                          activity=float(activity),
                          fields=tuple((k, elab.parameters[k], tuple(dict.fromkeys(v))) for k, v in values.items()))
    return check_points(SweepSpec(family=EXTERNAL_FAMILY, name=model, block=block, **settings))
