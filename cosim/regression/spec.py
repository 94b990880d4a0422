"""A regression description: its schema, and its expansion into tests (:class:`TestSpec`).

A regression description (YAML, validated by :func:`load_regression`)::

    name: default
    sim: verilator                 # or a list: [verilator, icarus]
    modes: [directed, random]      # test modes (see MODES)
    seeds: [1]
    timeout_s: 600                 # per test; a hung simulation is killed
    blocks:
      - block: mac
        params: {acc_width: 32}    # base parameters
        matrix: {a_width: [4, 8], signed: [true, false]}   # cartesian product over these
        modes: [directed, random, stress]                  # overrides the top-level lists
        seeds: [1, 2]
        vectors: {random: 512}     # per-mode vector counts (else the mode's default)
        options: {gemm: ["4,4,4"]} # the family's cosim options (``accelgen cosim BLOCK --help``)
    accelerators:                  # whole accelerators of architecture files (``accelgen cosim --arch``)
      - arch: examples/accel/int8_ws16.yaml       # paths relative to the current directory
        gemms: ["37,29,45", "70,37,50"]           # GEMM shapes M,N,K
        onnx: examples/accel/tiny_cnn.onnx        # and the convolutions of an ONNX model
        layers: [conv1]                           # (those named; default: all)
        seeds: [1, 2]                             # overrides the top-level lists
        sim: verilator
        cycle_tolerance: 0.05                     # |measured - predicted| / measured cycles allowed

A file lists ``blocks``, ``accelerators`` or both. The block names are looked up in the ``families``
mapping the caller passes (the command line passes :data:`accelgen.registry.FAMILIES`); every test
carries its family object. Every test can be reproduced alone with :func:`reproduce_command`
(``accelgen cosim <family> ...``): the same design, stimulus and seed.

An accelerator entry is checked here as a format (:class:`AccelEntry`); :mod:`accelgen.system.regress` reads its
files, expands it into one test per layer, seed and simulator, and runs them.
"""

from __future__ import annotations

import itertools
import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from ...errors import ConfigError
from ...family import BlockFamily
from ...gen.config import listed_families, parse_cosim_options, validate_with_blocks
from ...util import canonical_json, read_yaml, sha256_hex
from ..vectors import parse_gemm

MODES = ("directed", "random", "stress")
#: stress runs this many times the family's default number of random vectors
STRESS_FACTOR = 4
DEFAULT_TIMEOUT_S = 600.0
#: an accelerator test's measured cycles may differ from ``accelgen perf``'s prediction by this share (as
#: ``accelgen cosim --arch``'s ``--cycle-tolerance``)
DEFAULT_CYCLE_TOLERANCE = 0.05
MODE_HELP = {
    "directed": "the family's directed sections only (0 random vectors)",
    "random": "directed sections plus the family's default number of random vectors",
    "stress": f"directed sections plus {STRESS_FACTOR}x the default random vectors, back to back",
}


# --------------------------------------------------------------------------- schema

class _BlockEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    block: str
    params: dict[str, Any] = Field(default_factory=dict)
    matrix: dict[str, list[Any]] = Field(default_factory=dict)
    modes: list[Literal["directed", "random", "stress"]] | None = Field(None, min_length=1)
    seeds: list[int] | None = Field(None, min_length=1)
    sim: list[Literal["verilator", "icarus"]] | None = Field(None, min_length=1)
    vectors: dict[Literal["directed", "random", "stress"], int] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict)
    timeout_s: float | None = Field(None, gt=0)
    testbench: Literal["cocotb", "native"] | None = None


class _AccelEntry(BaseModel):
    """An accelerator an architecture file describes, run on layers as `accelgen cosim --arch` runs them."""

    model_config = ConfigDict(extra="forbid", strict=True)
    #: the architecture file (relative to the current directory)
    arch: str
    #: GEMM shapes, each M,N,K
    gemms: list[str] = Field(default_factory=list)
    #: an ONNX model whose convolutions run (relative to the current directory)
    onnx: str | None = None
    #: the ONNX model's convolutions to run [default: all of them]
    layers: list[str] | None = Field(None, min_length=1)
    seeds: list[int] | None = Field(None, min_length=1)
    sim: list[Literal["verilator", "icarus"]] | None = Field(None, min_length=1)
    #: a test fails when its measured cycles differ from `accelgen perf`'s prediction by more than this share
    cycle_tolerance: float = Field(DEFAULT_CYCLE_TOLERANCE, ge=0, le=1)


class _RegressSchema(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str | None = None
    sim: list[Literal["verilator", "icarus"]] = Field(default_factory=lambda: ["verilator"], min_length=1)
    modes: list[Literal["directed", "random", "stress"]] = Field(default_factory=lambda: ["directed", "random"],
                                                                 min_length=1)
    seeds: list[int] = Field(default_factory=lambda: [1], min_length=1)
    timeout_s: float = Field(DEFAULT_TIMEOUT_S, gt=0)
    testbench: Literal["cocotb", "native"] = "cocotb"
    blocks: list[_BlockEntry] = Field(default_factory=list)
    accelerators: list[_AccelEntry] = Field(default_factory=list)


# --------------------------------------------------------------------------- tests

@dataclass
class TestSpec:
    """One test: a design (family + parameters), a stimulus (mode, vectors, options, seed), a simulator."""

    fam: BlockFamily = field(repr=False)
    params: dict
    mode: str
    seed: int
    sim: str
    vectors: int
    options: dict
    timeout_s: float
    #: cocotb, or the compiled Verilator testbench (:mod:`accelgen.cosim.native`; same checks)
    testbench: str = "cocotb"
    #: sha256 of the design's Verilog (set when the design is rendered)
    design: str = ""

    @property
    def family(self) -> str:
        """The family's name."""
        return self.fam.name

    @property
    def key(self) -> str:
        """Resume key: the design's hash, simulator, seed, mode, vectors and options."""
        return sha256_hex(canonical_json([self.design, self.sim, self.seed, self.mode, self.vectors,
                                          self.options, self.testbench]))[:16]

    @property
    def test_id(self) -> str:
        return f"{self.family}[{param_tag(self.fam, self.params)}].{self.mode}.s{self.seed}.{self.sim}"

    @property
    def reproduce(self) -> str:
        return reproduce_command(self)


@dataclass
class AccelEntry:
    """An ``accelerators`` entry, checked as a format (its files are read where it is expanded and run)."""

    #: its field path (``accelerators[0]``), for messages
    where: str
    arch: str
    gemms: list[tuple[int, int, int]]
    onnx: str | None
    layers: list[str] | None
    seeds: list[int]
    sims: list[str]
    cycle_tolerance: float


@dataclass
class Regression:
    name: str
    tests: list[TestSpec]
    source: str | None = None
    accelerators: list[AccelEntry] = field(default_factory=list)


def param_tag(fam: BlockFamily, params: dict) -> str:
    """The parameters that differ from ``fam``'s defaults, ``k=v,...`` (``default`` if none)."""
    fields = fam.params_model.model_fields
    diff = [f"{k}={v}" for k, v in params.items() if k in fields and fields[k].default != v]
    return ",".join(diff) or "default"


def _as_list(data: dict, key: str) -> None:
    if key in data and not isinstance(data[key], list):
        data[key] = [data[key]]


def _option_arg(value) -> str:
    return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def parse_regression(data: Any, families: dict[str, BlockFamily], source: str | None = None, *,
                     sims: list[str] | None = None, seeds: list[int] | None = None) -> Regression:
    """Validate a loaded regression description against ``families`` (name -> family) and expand it.

    ``sims`` / ``seeds`` replace every simulator / seed list of the description
    (``accelgen regress --sim/--seed``). Raises :class:`ConfigError` listing every problem.
    """
    if not isinstance(data, dict):
        raise ConfigError([("", "expected a mapping with a 'blocks' or 'accelerators' list at the top, got "
                                f"{type(data).__name__}")], source)
    data = dict(data)
    _as_list(data, "sim")
    for key in ("blocks", "accelerators"):
        if isinstance(data.get(key), list):
            data[key] = [dict(b) if isinstance(b, dict) else b for b in data[key]]
            for b in data[key]:
                if isinstance(b, dict):
                    _as_list(b, "sim")
    problems: list[tuple[str, str]] = []
    # each block checked on its own: a structural error elsewhere does not hide its parameters' problems
    schema, entries = validate_with_blocks(_RegressSchema, _BlockEntry, data, problems)
    for s in seeds or ():
        if not 0 <= s < 2**32:
            problems.append(("--seed", f"{s} is not allowed; expected an integer in 0..4294967295"))
    tests: list[TestSpec] = []
    seen: set[str] = set()
    for _, where, entry, fam in listed_families(families, entries, problems):
        for key, values in entry.matrix.items():
            if not values:
                problems.append((f"{where}.matrix.{key}", "empty list; give at least one value"))
            if key in entry.params:
                problems.append((f"{where}.matrix.{key}", "also given in params; give it in one place"))
        try:
            options = parse_cosim_options(fam, entry.options, f"{where}.options")
        except ConfigError as exc:
            problems += exc.problems
            continue
        options = json.loads(json.dumps(options))  # tuples -> lists: the same form a job carries
        for mode, n in entry.vectors.items():
            if not 0 <= n <= 10_000_000:
                problems.append((f"{where}.vectors.{mode}", f"{n} is not allowed; expected an integer in 0..10000000"))
        for s in entry.seeds or ():
            if not 0 <= s < 2**32:
                problems.append((f"{where}.seeds", f"{s} is not allowed; expected an integer in 0..4294967295"))
        keys = list(entry.matrix)
        for j, combo in enumerate(itertools.product(*(entry.matrix[k] for k in keys))):
            raw = {**entry.params, **dict(zip(keys, combo))}
            try:
                params = fam.validate(raw, f"{where}.matrix[{j}]" if keys else f"{where}.params")
            except ConfigError as exc:
                problems += exc.problems
                continue
            pdict = params.model_dump()
            if schema is None:     # the description has problems of its own: checked, not expanded
                continue
            for mode in entry.modes or schema.modes:
                default = {"directed": 0, "random": fam.default_vectors,
                           "stress": STRESS_FACTOR * fam.default_vectors}[mode]
                vectors = entry.vectors.get(mode, default)
                for seed in seeds or entry.seeds or schema.seeds:
                    for sim in sims or entry.sim or schema.sim:
                        tb = entry.testbench or schema.testbench
                        if tb == "native" and sim != "verilator":
                            tb = "cocotb"  # the compiled testbench is Verilator's; Icarus runs under cocotb
                        t = TestSpec(fam=fam, params=pdict, mode=mode, seed=seed, sim=sim, vectors=vectors,
                                     options=options, timeout_s=entry.timeout_s or schema.timeout_s, testbench=tb)
                        ident = canonical_json([t.family, t.params, t.mode, t.seed, t.sim, t.vectors, t.options,
                                                t.testbench])
                        if ident not in seen:  # the same test listed twice runs once
                            seen.add(ident)
                            tests.append(t)
    accelerators = _accel_entries(data, schema, problems, sims, seeds)
    if schema is not None and not schema.blocks and not schema.accelerators:
        problems.append(("blocks", "no block and no accelerator to run; give at least one entry in blocks or in "
                                   "accelerators"))
    if problems:
        raise ConfigError(problems, source)
    name = schema.name or (Path(source).stem if source else "regression")
    return Regression(name=name, tests=tests, source=source, accelerators=accelerators)


def _accel_entries(data: dict, schema: _RegressSchema | None, problems: list, sims: list[str] | None,
                   seeds: list[int] | None) -> list[AccelEntry]:
    """The ``accelerators`` entries, each checked on its own (as the blocks are), seeds and simulators resolved
    against the top-level lists and the command line's."""
    if schema is not None:
        entries = list(enumerate(schema.accelerators))
    else:   # the schema's problems are reported already; each entry that validates alone is still checked
        entries = []
        raw = data.get("accelerators")
        for i, entry in enumerate(raw if isinstance(raw, list) else []):
            try:
                entries.append((i, _AccelEntry(**entry) if isinstance(entry, dict) else
                                _AccelEntry.model_validate(entry)))
            except (pydantic.ValidationError, TypeError):
                continue
    out = []
    for i, entry in entries:
        where = f"accelerators[{i}]"
        gemms = []
        for j, text in enumerate(entry.gemms):
            try:
                gemms.append(parse_gemm(text))
            except ValueError:
                problems.append((f"{where}.gemms[{j}]", f"{text!r} is not allowed; expected M,N,K with three "
                                                        "integers >= 1 (e.g. 37,29,45)"))
        for s in entry.seeds or ():
            if not 0 <= s < 2**32:
                problems.append((f"{where}.seeds", f"{s} is not allowed; expected an integer in 0..4294967295"))
        if entry.layers and entry.onnx is None:
            problems.append((f"{where}.layers", "names convolutions of an ONNX model; give the model in onnx"))
        if not entry.gemms and entry.onnx is None:
            problems.append((where, "no layer to run; give gemms (M,N,K shapes) or onnx (a model whose convolutions "
                                    "run)"))
        if schema is None:
            continue
        out.append(AccelEntry(where=where, arch=entry.arch, gemms=list(dict.fromkeys(gemms)), onnx=entry.onnx,
                              layers=list(dict.fromkeys(entry.layers)) if entry.layers else None,
                              seeds=list(seeds or entry.seeds or schema.seeds),
                              sims=list(sims or entry.sim or schema.sim), cycle_tolerance=entry.cycle_tolerance))
    return out


def load_regression(path: str | Path, families: dict[str, BlockFamily], **kw) -> Regression:
    """Read, validate and expand a regression YAML file (see :func:`parse_regression`)."""
    p = Path(path)
    data = read_yaml(p)
    return parse_regression(data, families, str(p), **kw)


def reproduce_command(spec: TestSpec) -> str:
    """``accelgen cosim <family> ...``: the one command that reruns exactly this test."""
    fam = spec.fam
    args = ["accelgen", "cosim", fam.name]
    for name, info in fam.params_model.model_fields.items():
        value = spec.params.get(name, info.default)
        if value == info.default:
            continue
        flag = name.replace("_", "-")
        if isinstance(value, bool):
            negative = (info.json_schema_extra or {}).get("cli_negative", f"no-{flag}")
            args.append(f"--{flag}" if value else f"--{negative}")
        else:
            args += [f"--{flag}", str(value)]
    for opt in fam.cosim_options:
        if opt.name not in spec.options:
            continue
        value = spec.options[opt.name]
        for v in (value if opt.multiple else [value]):
            args += [f"--{opt.name.replace('_', '-')}", _option_arg(v)]
    args += ["--vectors", str(spec.vectors), "--seed", str(spec.seed), "--sim", spec.sim]
    if spec.testbench != "cocotb":
        args += ["--testbench", spec.testbench]
    return shlex.join(args)
