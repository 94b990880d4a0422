"""Build configurations (YAML): which blocks to generate, co-simulate and synthesize.

Validation runs in two passes, after ZigZag's validator/factory split: a schema
fills defaults and checks the structure, then each block's parameters are
checked by its family's schema. Every problem found is reported together with
its field path (``blocks[1].params.a_width``); only valid data becomes objects.

Example::

    sim: verilator            # default simulator (verilator | icarus)
    cosim: {vectors: 4096, seed: 1}
    synth: true
    blocks:
      - name: mac_s8
        block: mac
        params: {a_width: 8, b_width: 8, acc_width: 32, signed: true}
      - name: mac_u16_pipe
        block: mac
        params: {a_width: 16, b_width: 16, acc_width: 40, signed: false, input_reg: true}
        cosim: {vectors: 8192}
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError
from ..family import BlockFamily, Simulator, find_family
from ..problems import schema_problems
from ..util import read_yaml
from .emit import check_name

MAX_VECTORS = 10_000_000


class CosimOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    vectors: int | None = Field(None, ge=1, le=MAX_VECTORS,
                                description="random vectors per block [default: the family's]")
    seed: int = Field(1, ge=0, lt=2**32, description="stimulus seed")
    enabled: bool = True
    options: dict[str, Any] = Field(default_factory=dict, description="family-specific cosim options")


class _BlockEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str | None = None
    block: str
    params: dict[str, Any] = Field(default_factory=dict)
    cosim: dict[str, Any] | None = None


class _BuildSchema(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    sim: Simulator = "verilator"
    cosim: CosimOptions = Field(default_factory=CosimOptions)
    synth: bool = True
    blocks: list[_BlockEntry] = Field(min_length=1)


@dataclass
class BlockConfig:
    """One validated block of a build."""

    name: str
    family: BlockFamily
    params: Any            # the family's BlockParams
    cosim: CosimOptions


@dataclass
class BuildConfig:
    sim: str
    synth: bool
    blocks: list[BlockConfig]
    source: str | None = None


def parse_build_config(data: Any, families: dict[str, BlockFamily], source: str | None = None) -> BuildConfig:
    """Validate an already-loaded YAML document against ``families`` (name -> family, e.g.
    :data:`accelgen.registry.FAMILIES`); raise :class:`ConfigError` with every problem."""
    if not isinstance(data, dict):
        raise ConfigError([("", f"expected a mapping with a 'blocks' list at the top, got {type(data).__name__}")],
                          source)
    problems: list[tuple[str, str]] = []
    schema, entries = validate_with_blocks(_BuildSchema, _BlockEntry, data, problems)
    shared = schema.cosim if schema is not None else _shared_cosim(data.get("cosim"))
    blocks: list[BlockConfig] = []
    seen: dict[str, int] = {}
    for i, where, entry, fam in listed_families(families, entries, problems):
        try:
            params = fam.validate(entry.params, f"{where}.params")
        except ConfigError as exc:
            problems += exc.problems
            continue
        name = entry.name or fam.default_name(params)
        try:
            check_name(name, f"{where}.name")
        except ConfigError as exc:
            problems += exc.problems
            continue
        if name in seen:
            problems.append((f"{where}.name", f"{name!r} is already used by blocks[{seen[name]}]; names must be unique"))
            continue
        seen[name] = i
        try:
            cosim = CosimOptions(**(shared.model_dump() | (entry.cosim or {})))
        except pydantic.ValidationError as exc:
            problems += schema_problems(exc, f"{where}.cosim", root=CosimOptions)
            continue
        try:
            cosim.options = parse_cosim_options(fam, cosim.options, f"{where}.cosim.options")
        except ConfigError as exc:
            problems += exc.problems
            continue
        if cosim.vectors is None:
            cosim.vectors = fam.default_vectors
        blocks.append(BlockConfig(name=name, family=fam, params=params, cosim=cosim))
    if problems:
        raise ConfigError(problems, source)
    return BuildConfig(sim=schema.sim, synth=schema.synth, blocks=blocks, source=source)


def _shared_cosim(data) -> CosimOptions:
    """The config's own cosim options when the rest of it failed validation (the defaults if they did too: their
    problems are reported already), so that each block's options are still checked."""
    try:
        return CosimOptions(**data) if isinstance(data, dict) else CosimOptions()
    except pydantic.ValidationError:
        return CosimOptions()


def validate_with_blocks(schema_cls, entry_cls, data: dict, problems: list) -> tuple[Any, list]:
    """``data`` validated against ``schema_cls`` (a model with a ``blocks`` list of ``entry_cls``), and its
    ``blocks`` as ``(index, entry)`` pairs: each entry validated on its own, so that a structural error in one
    (a misspelt key) or at the top does not hide the problems of the others' parameters. The problems go to
    ``problems``; the schema is None when it has any."""
    try:
        schema = schema_cls(**data)
        return schema, list(enumerate(schema.blocks))
    except pydantic.ValidationError as exc:
        problems += schema_problems(exc, root=schema_cls)
    entries = []
    raw = data.get("blocks")
    for i, entry in enumerate(raw if isinstance(raw, list) else []):
        try:
            entries.append((i, entry_cls(**entry) if isinstance(entry, dict) else entry_cls.model_validate(entry)))
        except pydantic.ValidationError:
            continue    # its problems are in the schema's above
    return None, entries


def listed_families(families, blocks, problems: list) -> Iterator[tuple[int, str, Any, BlockFamily]]:
    """``(index, field path, entry, its family)`` of each ``(index, entry)`` of a config's ``blocks`` list whose
    ``block`` names a family; an unknown name's problem is added to ``problems`` and its entry skipped."""
    for i, entry in blocks:
        where = f"blocks[{i}]"
        try:
            fam = find_family(families, entry.block, f"{where}.block")
        except ConfigError as exc:
            problems += exc.problems
            continue
        yield i, where, entry, fam


def parse_cosim_options(fam: BlockFamily, options: dict[str, Any], path: str = "options") -> dict[str, Any]:
    """Check and parse a family's cosim options (names, repeatability, each value's form)."""
    known = {o.name: o for o in fam.cosim_options}
    out, problems = {}, []
    for key, value in options.items():
        opt = known.get(key)
        if opt is None:
            allowed = ", ".join(known) or "none"
            problems.append((f"{path}.{key}", f"unknown cosim option for block {fam.name!r}; allowed: {allowed}"))
            continue
        values = value if isinstance(value, list) else [value]
        if not opt.multiple and len(values) != 1:
            problems.append((f"{path}.{key}", "takes a single value"))
            continue
        try:
            parsed = [opt.parse(v if isinstance(v, str) else ",".join(map(str, v)) if isinstance(v, (list, tuple))
                                else str(v)) for v in values]
        except ValueError as exc:
            problems.append((f"{path}.{key}", str(exc)))
            continue
        out[key] = parsed if opt.multiple else parsed[0]
    if problems:
        raise ConfigError(problems)
    return out


def load_build_config(path: str | Path, families: dict[str, BlockFamily]) -> BuildConfig:
    """Read and validate a YAML build config against ``families``."""
    p = Path(path)
    data = read_yaml(p)
    return parse_build_config(data, families, str(p))
