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

import re
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


def problem_list(exc: pydantic.ValidationError, prefix: str = "", *, model: Any = None) -> list[Problem]:
    """Every problem of ``exc``. ``model`` (a ``BlockParams`` subclass) words parameter problems
    with the allowed values of the field and names the block."""
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
                                         f"allowed: {', '.join(fields)}"))
            else:
                out.append(Problem(path, "unknown field"))
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


def schema_problems(exc: pydantic.ValidationError, prefix: str = "", *, model: Any = None) -> list[tuple[str, str]]:
    """``[(path, message)]`` of :func:`problem_list`, for :class:`~accelgen.errors.ConfigError`."""
    return [(p.path, p.message) for p in problem_list(exc, prefix, model=model)]


def params_problems(model: Any, exc: pydantic.ValidationError, prefix: str = "") -> list[tuple[str, str]]:
    """The problems of a block's parameter set (``model`` is its ``BlockParams`` subclass)."""
    return schema_problems(exc, prefix, model=model)
