"""Option types shared by the commands: block parameters and cosim options from a family's schema,
simulators, C++ optimization levels, GEMM shapes, sparsity pairs."""

from __future__ import annotations

import typing

import click

from ..cosim.flexdpe import parse_sparsity
from ..cosim.simulators import OPT_ENV, OPT_LEVELS
from ..cosim.vectors import parse_gemm
from ..errors import ConfigError
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


class SparsityPairsType(click.ParamType):
    """``A/B,A/B,...`` -> ``[(sparsity_a, sparsity_b), ...]``: fractions of zeros in the inputs and weights."""

    name = "A/B,..."

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        out = []
        for part in value.split(","):
            a, sep, b = part.strip().partition("/")
            try:
                if not sep:
                    raise ValueError(f"{part.strip()!r} is not a pair")
                out.append((parse_sparsity(a), parse_sparsity(b)))
            except ValueError as exc:
                self.fail(f"{exc}; expected comma-separated A/B pairs of fractions of zeros in 0..1, "
                          "e.g. 0/0,0.8/0.3", param, ctx)
        return out


SPARSITY_PAIRS = SparsityPairsType()


def _sim_attrs(default: str | None, help: str) -> dict:
    return {"type": click.Choice(SIMULATORS), "default": default, "show_default": default is not None, "help": help}


def sim_option(default: str | None = "verilator", help: str = "Simulator.") -> click.Option:
    """``--sim``, one of :data:`accelgen.family.SIMULATORS`, for a ``params=[...]`` list."""
    return click.Option(["--sim"], **_sim_attrs(default, help))


def with_sim(default: str | None = "verilator", help: str = "Simulator."):
    """The decorator form of :func:`sim_option`."""
    return click.option("--sim", **_sim_attrs(default, help))


def _opt_attrs(default: str) -> dict:
    return {"type": click.Choice(OPT_LEVELS), "default": None,
            "help": f"C++ optimization level of the Verilator model [default: {default}, or ${OPT_ENV}]; "
                    "-O0 builds fastest, -O2 runs fastest."}


def opt_option(default: str = "-O0") -> click.Option:
    """``--opt``, one of :data:`accelgen.cosim.simulators.OPT_LEVELS` (``None`` when not given: the
    library's per-use ``default``, or ``$ACCELGEN_VERILATOR_OPT``), for a ``params=[...]`` list."""
    return click.Option(["--opt"], **_opt_attrs(default))


def with_opt(default: str = "-O0"):
    """The decorator form of :func:`opt_option`."""
    return click.option("--opt", **_opt_attrs(default))


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
            values = typing.get_args(ann)
            opts.append(click.Option([f"--{flag}", field], type=click.Choice([str(a) for a in values]),
                                     default=None, help=help_text, callback=_literal_value(values)))
        else:
            opts.append(click.Option([f"--{flag}", field], type=int, default=None, metavar="INT", help=help_text))
    return opts


def _literal_value(values: tuple):
    """A click callback turning the chosen text back into the ``Literal``'s value (``"4"`` -> ``4``): the
    schemas are strict."""
    by_text = {str(v): v for v in values}
    return lambda ctx, param, text: None if text is None else by_text[text]


def split_params(fam: BlockFamily, kwargs: dict) -> dict:
    fields = fam.params_model.model_fields
    return {k: kwargs.pop(k) for k in list(kwargs) if k in fields and kwargs[k] is not None}


def cosim_options(fam: BlockFamily) -> list[click.Option]:
    """The family's own cosim options (``--gemm`` of the systolic array, ...), then ``--sim``,
    ``--vectors``, ``--seed``, ``--keep``, ``--testbench``, ``--opt`` and ``--json``."""
    opts = []
    for opt in fam.cosim_options:
        def convert(ctx, param, value, _opt=opt):
            try:
                return [_opt.parse(v) for v in value] if _opt.multiple else (
                    None if value is None else _opt.parse(value))
            except ValueError as exc:
                raise click.BadParameter(str(exc)) from None
        opts.append(click.Option([f"--{opt.name.replace('_', '-')}", opt.name], multiple=opt.multiple,
                                 callback=convert, help=opt.help))
    return [
        *opts,
        sim_option(),
        click.Option(["--vectors"], type=click.IntRange(0, 10_000_000), default=None,
                     help=f"{fam.vectors_help[0].upper()}{fam.vectors_help[1:]} (0: directed only) "
                          f"[default: {fam.default_vectors}]."),
        click.Option(["--seed"], type=click.IntRange(0, 2**32 - 1), default=1, show_default=True,
                     help="Stimulus seed."),
        click.Option(["--keep"], is_flag=True, help="Keep the run directory after a pass."),
        click.Option(["--testbench"], type=click.Choice(("cocotb", "native")), default="cocotb", show_default=True,
                     help="cocotb, or the compiled Verilator testbench (same checks)."),
        opt_option(),
        click.Option(["--json", "as_json"], is_flag=True, help="Print the result as JSON."),
    ]


def family_options(fam: BlockFamily, kwargs: dict) -> dict:
    """Pop the family's given cosim options out of a command's ``kwargs`` (``0.0`` is a given value)."""
    return {o.name: kwargs.pop(o.name) for o in fam.cosim_options if kwargs.get(o.name) not in (None, (), [])}


class BlockGroup(click.Group):
    """A group whose subcommands are block families; unknown names list the allowed ones."""

    def resolve_command(self, ctx, args):
        name = args[0] if args else None
        if name is not None and not name.startswith("-") and name not in self.commands:
            raise click.UsageError(f"unknown block {name!r}; allowed: {', '.join(self.commands)}")
        return super().resolve_command(ctx, args)


def model_paths(models) -> dict[str, str]:
    """``--model FAMILY=FILE`` options (repeatable) -> ``{family: file}``: fitted model files replacing the
    shipped ones."""
    paths = {}
    for m in models:
        fam, sep, path = m.partition("=")
        if not sep or not fam or not path:
            raise ConfigError([("--model", f"{m!r} is not allowed; expected FAMILY=FILE")])
        paths[fam] = path
    return paths
