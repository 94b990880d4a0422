"""Parameter schemas for generators.

Every generator declares its parameters once, as a :class:`BlockParams` subclass
(a strict, frozen pydantic model). The same schema validates the Python
constructor, the YAML config and the command-line options, so the allowed values
and the error messages are identical everywhere.
"""

from __future__ import annotations

import typing
from typing import Any, ClassVar, Literal

import annotated_types
import pydantic
from pydantic import BaseModel, ConfigDict

from ..problems import problem_list


class BlockParams(BaseModel):
    """Base class of generator parameter sets (strict types, unknown keys rejected)."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    #: block family name used in configs and on the command line (``"mac"``)
    block: ClassVar[str] = ""

    @classmethod
    def allowed(cls, field: str) -> str:
        """Describe the values a field allows, e.g. ``"1..32"`` or ``"'int'"``."""
        info = cls.model_fields[field]
        ann = info.annotation
        if typing.get_origin(ann) is Literal:
            return " or ".join(repr(v) for v in typing.get_args(ann))
        if ann is bool:
            return "true or false"
        lo = hi = None
        for meta in info.metadata:
            if isinstance(meta, annotated_types.Ge):
                lo = meta.ge
            elif isinstance(meta, annotated_types.Gt):
                lo = meta.gt + 1
            elif isinstance(meta, annotated_types.Le):
                hi = meta.le
            elif isinstance(meta, annotated_types.Lt):
                hi = meta.lt - 1
        if ann is int:
            if lo is not None and hi is not None:
                return f"an integer in {lo}..{hi}"
            if lo is not None:
                return f"an integer >= {lo}"
            return "an integer"
        return getattr(ann, "__name__", str(ann))

    @classmethod
    def problems(cls, exc: pydantic.ValidationError, prefix: str = "") -> list[tuple[str, str, bool]]:
        """Turn a pydantic error into ``(field_path, message, is_type_error)`` triples."""
        return [tuple(p) for p in problem_list(exc, prefix, model=cls)]

    @classmethod
    def validate_kwargs(cls, kwargs: dict[str, Any]) -> "BlockParams":
        """Validate for a Python constructor: raise ``TypeError`` for a wrongly typed value,
        ``ValueError`` for a value of the right type that cannot be built."""
        try:
            return cls(**kwargs)
        except pydantic.ValidationError as exc:
            probs = cls.problems(exc)
            text = "; ".join(f"{cls.block}.{p}: {m}" if p else f"{cls.block}: {m}" for p, m, _ in probs)
            if any(is_type for _, _, is_type in probs):
                raise TypeError(text) from None
            raise ValueError(text) from None


def fill_implied(data: Any, dtype: str, implied: dict[str, tuple[Any, str]]) -> Any:
    """Fill the fields a datatype implies, for a ``model_validator(mode="before")``.

    ``implied`` maps a field to ``(value, why)``. A field left out (or given as ``None``) gets
    ``value``; a contradicting value raises ``ValueError("<field>: <value> is not allowed with
    dtype=<dtype>; <why>")``, the same message for every block family.
    """
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for field, (value, why) in implied.items():
        given = out.get(field)
        if given is None:
            out[field] = value
        elif given != value or type(given) is not type(value):
            shown = str(given).lower() if isinstance(given, bool) else repr(given)
            raise ValueError(f"{field}: {shown} is not allowed with dtype={dtype!r}; {why}")
    return out


def fp_operand_implied(dtype: str, width: int, signed: bool, *, two_operands: bool = True) -> dict:
    """The fields an fp ``dtype`` implies for a multiply-accumulate block: operand widths of
    ``width`` bits (``a_width``/``b_width``, or one ``width``), an fp32 accumulator and ``signed``."""
    sign_why = ("floating-point operands carry their own sign bit (signed true, or leave it out)" if signed else
                "floating-point operands carry their own sign bit (signed is not used; leave it out)")
    ops = {"a_width": (width, f"{dtype} operands are {width} bits wide (a_width {width})"),
           "b_width": (width, f"{dtype} operands are {width} bits wide (b_width {width})")} if two_operands else \
        {"width": (width, f"{dtype} operands are {width} bits wide (width {width}, or leave it out) "
                          "and products and sums are fp32")}
    acc = {"acc_width": (32, f"{dtype} operands accumulate in fp32 (acc_width 32)")} if two_operands else {}
    return {**ops, **acc, "signed": (signed, sign_why)}


class FromParams:
    """Mixin of the top-level generators: ``from_params`` builds one from a validated parameter set
    (``Gen.from_params(Gen.params_model(...))``), and ``latency`` is the parameter set's own unless the
    generator states another."""

    params: BlockParams

    @classmethod
    def from_params(cls, params: BlockParams):
        return cls(**params.model_dump())

    @property
    def latency(self) -> int:
        return self.params.latency
