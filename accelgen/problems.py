"""One formatter for validation problems, used by every schema.

Block parameters, build configs, regressions, sweeps, architectures, workloads and DSE spaces
are pydantic models; whichever failed, a problem reads the same: ``path: message``, with the path
in the document's own terms (``blocks[1].params.a_width``) and one wording per kind of problem:

* ``unknown field`` (block parameters: ``unknown parameter 'x' of block 'mac'; allowed: ...``)
* ``missing required field`` (``missing required parameter 'x'``)
* ``<value> is not allowed; expected <what the field allows>`` for a block parameter, or
  ``<value> is not allowed; <pydantic's reason>`` elsewhere
* a validator's own message, at the field it names when it starts with ``<field>: ``.
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from typing import Any, NamedTuple

import pydantic


class Problem(NamedTuple):
    path: str
    message: str
    is_type_error: bool = False


_TYPE_ERRORS = ("int_from_float", "bool_parsing", "int_parsing")
_FIELD_MESSAGE = re.compile(r"^([a-z_][a-z0-9_]*): (.*)$", re.S)


def join_path(prefix: str, loc: tuple | list) -> str:
    """``("blocks", 1, "params")`` under ``"cfg"`` -> ``cfg.blocks[1].params``."""
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _models_in(annotation) -> list:
    """The pydantic models an annotation may hold (through Optional, unions, Annotated), else the annotation."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _models_in(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _models_in(arg) if arg is not type(None)]
    return [annotation]


def _fields_at(root, loc: tuple) -> list[str]:
    """The field names of the model at ``loc`` inside ``root`` (a pydantic model class), [] when unknown."""
    candidates = _models_in(root)
    for part in loc:
        nxt = []
        for t in candidates:
            origin, args = typing.get_origin(t), typing.get_args(t)
            if isinstance(part, int) and origin in (list, tuple) and args:
                nxt += _models_in(args[0])
            elif isinstance(part, str) and origin is dict and len(args) == 2:
                nxt += _models_in(args[1])
            elif isinstance(part, str) and isinstance(t, type) and issubclass(t, pydantic.BaseModel) \
                    and part in t.model_fields:
                nxt += _models_in(t.model_fields[part].annotation)
        candidates = nxt
    for t in candidates:
        if isinstance(t, type) and issubclass(t, pydantic.BaseModel):
            return list(t.model_fields)
    return []


def unknown_key(key: str, allowed: list[str]) -> str:
    """``unknown field 'parms'; did you mean 'params'? allowed: name, block, params`` (no suggestion when nothing
    is close; ``unknown field`` alone when the allowed names are unknown)."""
    return f"unknown field {key!r}; {_suggest(key, allowed)}" if allowed else "unknown field"


def _suggest(key: str, allowed: list[str]) -> str:
    """``did you mean 'params'? allowed: ...``: the closest allowed name (difflib's ratio >= 0.6), then all."""
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    return (f"did you mean {close[0]!r}? " if close else "") + f"allowed: {', '.join(allowed)}"


def problem_list(exc: pydantic.ValidationError, prefix: str = "", *, model: Any = None,
                 root: Any = None) -> list[Problem]:
    """Every problem of ``exc``. ``model`` (a ``BlockParams`` subclass) words parameter problems
    with the allowed values of the field and names the block; ``root`` (the validated model class) names the
    allowed fields, and the closest one, of an unknown field anywhere below it."""
    out: list[Problem] = []
    fields = getattr(model, "model_fields", {})
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        kind = err["type"]
        value = err.get("input")
        field = str(loc[0]) if loc else ""
        path = join_path(prefix, loc)
        if kind == "extra_forbidden":
            if model is not None and len(loc) == 1:
                out.append(Problem(path, f"unknown parameter {field!r} of block {model.block!r}; "
                                         f"{_suggest(field, list(fields))}"))
            else:
                key = str(loc[-1]) if loc else ""
                out.append(Problem(path, unknown_key(key, _fields_at(root, loc[:-1]) if root is not None else [])))
        elif kind == "missing":
            out.append(Problem(path, f"missing required parameter {field!r}" if model is not None and len(loc) == 1
                               else "missing required field"))
        elif kind == "value_error":
            msg = str(err["ctx"]["error"]) if "ctx" in err else err["msg"].removeprefix("Value error, ")
            m = _FIELD_MESSAGE.match(msg)
            if m and (not fields or m.group(1) in fields) and not (model is not None and not loc):
                # a model validator's message about one field: reported at that field's path
                out.append(Problem(join_path(path, (m.group(1),)), m.group(2)))
            else:
                out.append(Problem(path or prefix, msg))
        elif model is not None and field in fields and len(loc) == 1:
            is_type = kind.endswith("_type") or kind in _TYPE_ERRORS
            out.append(Problem(path, f"{value!r} is not allowed; expected {model.allowed(field)}", is_type))
        elif "input" in err and not isinstance(value, dict):
            out.append(Problem(path, f"{value!r} is not allowed; {_lower_first(err['msg'])}"))
        else:
            out.append(Problem(path, err["msg"]))
    return out


def schema_problems(exc: pydantic.ValidationError, prefix: str = "", *, model: Any = None,
                    root: Any = None) -> list[tuple[str, str]]:
    """``[(path, message)]`` of :func:`problem_list`, for :class:`~accelgen.errors.ConfigError`."""
    return [(p.path, p.message) for p in problem_list(exc, prefix, model=model, root=root)]


def params_problems(model: Any, exc: pydantic.ValidationError, prefix: str = "") -> list[tuple[str, str]]:
    """The problems of a block's parameter set (``model`` is its ``BlockParams`` subclass)."""
    return schema_problems(exc, prefix, model=model)
