"""Paths into descriptions (``core.tensor_units.0.rows``): checking them, setting them, and applying
a point's values to an already validated architecture without validating all of it again."""

from __future__ import annotations

import types
import typing
from typing import Any, Mapping, Optional, Union

from pydantic import BaseModel

from ..arch import Arch, parse_arch


def _unwrap(ann):
    origin = typing.get_origin(ann)
    if origin is Union or origin is types.UnionType:
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        return _unwrap(args[0]) if len(args) == 1 else ann
    return ann


def check_path(path: str, base: dict, model=Arch) -> Optional[str]:
    """Why ``path`` (``core.tensor_units.0.rows``) does not name a field of ``model`` in ``base``, or None."""
    cur_model, cur = model, base
    parts = path.split(".")
    for i, part in enumerate(parts):
        where = ".".join(parts[:i]) or "the top level"
        if isinstance(cur_model, type) and issubclass(cur_model, BaseModel):
            fields = cur_model.model_fields
            if part not in fields:
                return f"{path!r}: {part!r} is not a field of {where}; allowed: {', '.join(fields)}"
            cur_model = _unwrap(fields[part].annotation)
            cur = cur.get(part) if isinstance(cur, dict) else None
        elif typing.get_origin(cur_model) is list:
            if not part.isdigit():
                return f"{path!r}: {where} is a list; expected an index, got {part!r}"
            n = len(cur) if isinstance(cur, list) else 0
            if int(part) >= n:
                return f"{path!r}: {where} has {n} entr{'y' if n == 1 else 'ies'} in the base description"
            cur_model = _unwrap(typing.get_args(cur_model)[0])
            cur = cur[int(part)]
        else:
            return f"{path!r}: {where} is a value, it has no field {part!r}"
    return None


def set_path(d: dict, path: str, value) -> None:
    """Set ``path`` in the description ``d`` (in place); missing mappings on the way are created."""
    parts = path.split(".")
    cur = d
    for part in parts[:-1]:
        if isinstance(cur, list):
            cur = cur[int(part)]
        else:
            if cur.get(part) is None:
                cur[part] = {}
            cur = cur[part]
    last = parts[-1]
    if isinstance(cur, list):
        cur[int(last)] = value
    else:
        cur[last] = value


def get_path(d: dict, path: str, default=None):
    """The value at ``path`` in the description ``d``, or ``default`` if a part is missing."""
    cur: Any = d
    for part in path.split("."):
        if isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return default
    return cur


def loc_of(path: str) -> str:
    """``core.tensor_units.0.rows`` -> ``core.tensor_units[0].rows`` (how validation problems name it)."""
    out: list[str] = []
    for part in path.split("."):
        if part.isdigit() and out:
            out[-1] = f"{out[-1]}[{part}]"
        else:
            out.append(part)
    return ".".join(out)


# --------------------------------------------------------------------------- values on a validated architecture

class _Value:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def with_values(raw: dict, arch: Arch, values: Mapping[str, Any]) -> Arch:
    """``parse_arch(raw with values set)`` (``{path: value}``, in order, as :func:`set_path`), computed
    without validating again what the values leave unchanged.

    ``arch`` is ``raw`` validated. Only the models on the set paths are validated again (from ``raw``
    with the values merged in, so their validators -- bounds, implied widths, cross-field rules of
    every enclosing model -- see exactly what a full parse would see); every other sub-model is the
    instance already in ``arch`` (pydantic takes instances as they are). Raises the ConfigError of
    :func:`~accelgen.ppa.arch.parse_arch` for an invalid combination.
    """
    if not values:
        return arch
    tree: dict = {}
    for path, value in values.items():
        parts = path.split(".")
        node = tree
        for part in parts[:-1]:
            if not isinstance(node.get(part), dict):
                node[part] = {}
            node = node[part]
        node[parts[-1]] = _Value(value)
    return parse_arch(_merge(raw, arch, tree))


def _reuse(raw, model):
    """The validated counterpart of an unchanged ``raw`` value, if it is a model (or a list of models)."""
    if isinstance(model, BaseModel):
        return model
    if isinstance(model, list) and isinstance(raw, list) and len(model) == len(raw) and model \
            and all(isinstance(m, BaseModel) for m in model):
        return list(model)
    return raw


def _child(model, key: str):
    if isinstance(model, BaseModel):
        return getattr(model, key, None)
    if isinstance(model, list) and key.isdigit() and int(key) < len(model):
        return model[int(key)]
    return None


def _merge(raw, model, tree: dict):
    """``raw`` with ``tree``'s values set; unchanged sub-models replaced by their validated instances."""
    if isinstance(raw, list):
        out = _reuse(raw, model)
        out = list(raw) if out is raw else out
        for key, sub in tree.items():
            i = int(key)
            out[i] = sub.value if isinstance(sub, _Value) else _merge(raw[i], _child(model, key), sub)
        return out
    raw = raw if isinstance(raw, dict) else {}      # set_path: a missing level becomes a mapping
    out = {}
    for key, value in raw.items():
        sub = tree.get(key)
        if sub is None:
            out[key] = _reuse(value, _child(model, key))
        else:
            out[key] = sub.value if isinstance(sub, _Value) else _merge(value, _child(model, key), sub)
    for key, sub in tree.items():
        if key not in raw:
            out[key] = sub.value if isinstance(sub, _Value) else _merge(None, _child(model, key), sub)
    return out
