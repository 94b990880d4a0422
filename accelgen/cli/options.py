"""Option types shared by the commands: block parameters from their schema, simulators, GEMM shapes."""

from __future__ import annotations

import typing

import click

from ..cosim.vectors import parse_gemm
from ..family import SIMULATORS, BlockFamily


class GemmType(click.ParamType):
    """``M,N,K`` (or ``MxNxK``) -> ``(M, N, K)``, with the same message as the config files."""

    name = "M,N,K"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        try:
            return parse_gemm(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


GEMM = GemmType()


def sim_option(default: str | None = "verilator", help: str = "Simulator.") -> click.Option:
    return click.Option(["--sim"], type=click.Choice(SIMULATORS), default=default, show_default=default is not None,
                        help=help)


def param_options(fam: BlockFamily) -> list[click.Option]:
    """One click option per schema field; defaults stay in the schema (``None`` = not given)."""
    opts = []
    for field, info in fam.params_model.model_fields.items():
        flag = field.replace("_", "-")
        extra = info.json_schema_extra or {}
        help_text = f"{info.description} [default: {info.default!r}; allowed: {fam.params_model.allowed(field)}]"
        ann = info.annotation
        if ann is bool:
            negative = extra.get("cli_negative", f"no-{flag}")
            opts.append(click.Option([f"--{flag}/--{negative}", field], default=None, help=help_text))
        elif typing.get_origin(ann) is typing.Literal:
            opts.append(click.Option([f"--{flag}", field], type=click.Choice([str(a) for a in typing.get_args(ann)]),
                                     default=None, help=help_text))
        else:
            opts.append(click.Option([f"--{flag}", field], type=int, default=None, metavar="INT", help=help_text))
    return opts


def split_params(fam: BlockFamily, kwargs: dict) -> dict:
    fields = fam.params_model.model_fields
    return {k: kwargs.pop(k) for k in list(kwargs) if k in fields and kwargs[k] is not None}


class BlockGroup(click.Group):
    """A group whose subcommands are block families; unknown names list the allowed ones."""

    def resolve_command(self, ctx, args):
        name = args[0] if args else None
        if name is not None and not name.startswith("-") and name not in self.commands:
            raise click.UsageError(f"unknown block {name!r}; allowed: {', '.join(self.commands)}")
        return super().resolve_command(ctx, args)


def _config_blocks(path: str):
    from .config import load_build_config
    return load_build_config(path)


