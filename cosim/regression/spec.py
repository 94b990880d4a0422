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

The block names are looked up in the ``families`` mapping the caller passes (the command line
passes :data:`accelgen.registry.FAMILIES`); every test carries its family object. Every test can be
reproduced alone with :func:`reproduce_command` (``accelgen cosim <family> ...``): the same design,
stimulus and seed.
"""

from __future__ import annotations

import itertools
import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...errors import ConfigError
from ...family import BlockFamily
from ...gen.config import listed_families, parse_cosim_options, validate_with_blocks
from ...util import canonical_json, read_yaml, sha256_hex

MODES = ("directed", "random", "stress")
#: stress runs this many times the family's default number of random vectors
STRESS_FACTOR = 4
DEFAULT_TIMEOUT_S = 600.0
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


class _RegressSchema(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str | None = None
    sim: list[Literal["verilator", "icarus"]] = Field(default_factory=lambda: ["verilator"], min_length=1)
    modes: list[Literal["directed", "random", "stress"]] = Field(default_factory=lambda: ["directed", "random"],
                                                                 min_length=1)
    seeds: list[int] = Field(default_factory=lambda: [1], min_length=1)
    timeout_s: float = Field(DEFAULT_TIMEOUT_S, gt=0)
    testbench: Literal["cocotb", "native"] = "cocotb"
    blocks: list[_BlockEntry] = Field(min_length=1)


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
class Regression:
    name: str
    tests: list[TestSpec]
    source: str | None = None


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
        raise ConfigError([("", f"expected a mapping with a 'blocks' list at the top, got {type(data).__name__}")],
                          source)
    data = dict(data)
    _as_list(data, "sim")
    if isinstance(data.get("blocks"), list):
        data["blocks"] = [dict(b) if isinstance(b, dict) else b for b in data["blocks"]]
        for b in data["blocks"]:
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
    if problems:
        raise ConfigError(problems, source)
    name = schema.name or (Path(source).stem if source else "regression")
    return Regression(name=name, tests=tests, source=source)


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
