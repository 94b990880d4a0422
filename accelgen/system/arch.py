"""The accelerator an architecture file describes: its generator parameters and its Verilog.

The architecture file is the one the estimator and the performance model read (:mod:`accelgen.ppa.arch`). The
generator builds the subset :class:`~accelgen.params.accel.AccelParams` covers, and names the file's field for
everything else: one core; one weight-stationary tensor unit, square, shifting its weights, integer operands of one
width or bf16/fp32; memories named ``scratchpad`` (lines of one row of operands) and ``accumulator`` (lines of one
row of sums), each in banks of one read and one write port (``ports: 1r1w``); in ``core.units`` the three units
the estimator costs the rest of it with, each matching the array: an ``activation`` unit as wide as the array with its
scale stage, a ``dma`` unit (the DMA and the command path: its ``queue_depth`` is the generator's) and an ``array_io``
unit (the skew, de-skew and accumulate adders); external memory (``chip.offchip``) behind the DMA. Pipeline stages left
to ``auto`` are the ones the estimator chooses for the same file, so the Verilog is the design the estimate costs.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from .. import shipped
from ..errors import ConfigError
from ..fpformat import width as fp_width
from ..gen.accel import emit_accel as emit_params
from ..gen.emit import Emitted
from ..params.accel import COMMAND_BITS, AccelParams
from ..params.systolic import SystolicParams
from ..ppa.arch import Arch, load_arch
from ..ppa.estimate import estimate
from ..rtl.accel.activation import INT_SCALE_BITS
from ..rtl.accel.load import PENDING_LOADS
from ..rtl.accel.store import WRITE_QUEUE
from ..rtl.accel.top import QUEUES, TOKEN_BITS, TOKENS

__all__ = ["ACCEL_MEMORIES", "accel_params", "emit_accel", "resolve_arch", "resolve_model"]


def resolve_arch(text: str | Path) -> Path:
    """An architecture file as given, else a shipped accelerator's by name (``int8_ws16``)."""
    return shipped.resolve("accelerators", text)


def resolve_model(text: str | Path) -> Path:
    """An ONNX model as given, else one shipped beside the accelerators, by name (``tiny_cnn``)."""
    return shipped.resolve("accelerators", text, ".onnx")

#: the memories the generator builds, by name, and the line each holds
ACCEL_MEMORIES = {"scratchpad": "one row of operands (tensor_units[0].rows operands)",
                  "accumulator": "one row of sums (tensor_units[0].cols sums)"}
#: the unit kinds of ``core.units`` the generator builds (each required, once), and what each costs
BUILT_UNITS = {"activation": "the activation stage", "dma": "the DMA and the command path",
               "array_io": "the array's skew, de-skew and accumulate adders"}
_NOT_BUILT = ("reduction_trees", "dot_products", "flex_dpes", "tensordash", "vector_unit", "vector_regfile")


def _stages(arch: Arch, unit) -> dict:
    """The tensor unit's stages: as given, or (``auto``) the estimator's choice for this file."""
    if unit.pipeline != "auto":
        return {"mul_stages": unit.pipeline.mul_stages, "add_stages": unit.pipeline.add_stages}
    choice = next(c for c in estimate(arch).pipelining if c["component"].endswith("tensor_unit0"))
    return {"mul_stages": choice["mul_stages"], "add_stages": choice["add_stages"]}


def _problems(arch: Arch) -> list[tuple[str, str]]:
    """What the file describes that the generator does not build, each with the field it names."""
    out = []
    c = arch.core
    if arch.cores != 1:
        out.append(("cores", f"{arch.cores} is not built; allowed: 1"))
    for name in _NOT_BUILT:
        if getattr(c, name):
            out.append((f"core.{name}", "is not built by the accelerator generator; allowed: a tensor unit, its "
                                        "scratchpad and accumulator, an activation unit"))
    if c.scalar_unit:
        out.append(("core.scalar_unit", "true is not built; allowed: false"))
    if len(c.tensor_units) != 1 or c.tensor_units[0].count != 1:
        out.append(("core.tensor_units", f"{sum(t.count for t in c.tensor_units)} tensor units are not built; allowed: "
                                         "one entry with count 1"))
        return out
    t = c.tensor_units[0]
    path = "core.tensor_units[0]"
    for name, value, allowed in (("dataflow", t.dataflow, "ws"), ("weight_load", t.weight_load, "shift"),
                                 ("interconnect", t.interconnect, "unicast"), ("zero_skipping", t.zero_skipping, "none"),
                                 ("schedule", t.schedule, "systolic"), ("sum_group", t.sum_group, 1)):
        if value != allowed:
            out.append((f"{path}.{name}", f"{value!r} is not built; allowed: {allowed!r}"))
    if t.dtype == "fp16":
        out.append((f"{path}.dtype", "'fp16' is not built (no fp16 activation stage); allowed: 'int', 'bf16', 'fp32'"))
    if t.rows != t.cols:
        out.append((f"{path}.cols", f"{t.cols} differs from rows={t.rows}; allowed: a square array"))
    if t.dtype == "int" and t.a_width != t.b_width:
        out.append((f"{path}.b_width", f"{t.b_width} differs from a_width={t.a_width}; allowed: equal widths"))
    names = [m.name for m in c.memories]
    for i, m in enumerate(c.memories):
        if m.name not in ACCEL_MEMORIES:
            out.append((f"core.memories[{i}].name", f"{m.name!r} is not built; allowed: "
                                                    f"{', '.join(map(repr, ACCEL_MEMORIES))}"))
            continue
        if str(m.ports).lower() != "1r1w":
            out.append((f"core.memories[{i}].ports", f"{m.ports!r} is not built; allowed: '1r1w'"))
        if m.banks is None:
            out.append((f"core.memories[{i}].banks", "is required: the generator builds one memory per bank"))
        for name, value, allowed in (("count", m.count, 1), ("level", m.level, "shared")):
            if value != allowed:
                out.append((f"core.memories[{i}].{name}", f"{value!r} is not built; allowed: {allowed!r}"))
    for name in ACCEL_MEMORIES:
        if name not in names:
            out.append(("core.memories", f"has no memory named {name!r}; the accelerator needs one holding "
                                         f"{ACCEL_MEMORIES[name]}"))
    kinds = [u["kind"] for u in c.units]
    for i, kind in enumerate(kinds):
        if kind not in BUILT_UNITS:
            out.append((f"core.units[{i}].kind", f"{kind!r} is not built; allowed: {', '.join(BUILT_UNITS)}"))
        elif kind in kinds[:i]:
            out.append((f"core.units[{i}].kind", f"a second {kind!r} unit is not built; allowed: one"))
    for kind, what in BUILT_UNITS.items():
        if kind not in kinds:
            out.append(("core.units", f"has no {kind!r} unit; the estimate of {what} needs one"))
    if arch.chip.offchip is None:
        out.append(("chip.offchip", "is required: the DMA moves data to and from external memory"))
    return out


def _line_problems(arch: Arch, array: SystolicParams) -> list[tuple[str, str]]:
    """The memories' and the activation unit's geometry against the array's."""
    out = []
    operand_bits = array.a_width if array.dtype == "int" else fp_width(array.dtype)
    acc_width = array.acc_width if array.dtype == "int" else 32
    line_bytes = {"scratchpad": array.rows * operand_bits // 8, "accumulator": array.cols * acc_width // 8}
    for i, m in enumerate(arch.core.memories):
        if m.block_bytes != line_bytes[m.name]:
            out.append((f"core.memories[{i}].block_bytes", f"{m.block_bytes} is not a line of {m.name} "
                                                           f"({ACCEL_MEMORIES[m.name]}); allowed: {line_bytes[m.name]}"))
        lines = m.capacity_bytes // m.block_bytes
        if m.capacity_bytes % m.block_bytes or lines % m.banks or (lines // m.banks) & (lines // m.banks - 1):
            out.append((f"core.memories[{i}].capacity_bytes", f"{m.capacity_bytes} is not {m.banks} banks of a "
                                                              f"power-of-two number of {m.block_bytes}-byte lines"))
    arith = "int" if array.dtype == "int" else "fp32"
    line_bits = array.rows * operand_bits
    want = {"activation": {"lanes": array.cols, "width": acc_width, "out_bits": operand_bits, "scale": arith,
                           "scale_bits": INT_SCALE_BITS},
            "dma": {"line_bits": line_bits, "addr_bits": 32, "queues": len(QUEUES), "command_bits": COMMAND_BITS,
                    "pending": PENDING_LOADS, "tokens": TOKENS, "token_bits": TOKEN_BITS,
                    "write_queue_lines": WRITE_QUEUE},
            "array_io": {"rows": array.rows, "cols": array.cols, "in_bits": operand_bits, "out_bits": acc_width,
                         "accumulate": arith}}
    for i, u in enumerate(arch.core.units):
        for name, value in want.get(u["kind"], {}).items():
            if u[name] != value:
                out.append((f"core.units[{i}].{name}", f"{u[name]!r} does not match the accelerator; allowed: "
                                                       f"{value!r}"))
    return out


def accel_params(arch: Arch, source: str | None = None) -> AccelParams:
    """The accelerator an architecture file describes; a :class:`ConfigError` naming each field it cannot build."""
    problems = _problems(arch)
    if problems:
        raise ConfigError(problems, source)
    t = arch.core.tensor_units[0]
    widths = {} if t.dtype != "int" else {"a_width": t.a_width, "b_width": t.b_width, "acc_width": t.acc_width}
    try:
        array = SystolicParams(rows=t.rows, cols=t.cols, dataflow="ws", weight_load="shift", dtype=t.dtype,
                               flush_subnormals=t.flush_subnormals, **widths, **_stages(arch, t))
    except ValidationError as exc:
        raise ConfigError([("core.tensor_units[0]", error["msg"].removeprefix("Value error, "))
                           for error in exc.errors()], source) from None
    problems = _line_problems(arch, array)
    if problems:
        raise ConfigError(problems, source)
    memories = {m.name: m for m in arch.core.memories}
    sp, acc = memories["scratchpad"], memories["accumulator"]
    dma = next(u for u in arch.core.units if u["kind"] == "dma")
    try:
        return AccelParams(array=array, sp_lines=sp.capacity_bytes // sp.block_bytes, sp_banks=sp.banks,
                           acc_lines=acc.capacity_bytes // acc.block_bytes, acc_banks=acc.banks,
                           queue_depth=dma["queue_depth"])
    except ValidationError as exc:
        raise ConfigError([("core", error["msg"].removeprefix("Value error, ")) for error in exc.errors()],
                          source) from None



def emit_accel(arch_path: str | Path, out_dir: str | Path, name: str | None = None) -> Emitted:
    """Write ``<name>.v``, ``<name>.vlt`` and ``<name>.json`` of the accelerator in ``arch_path`` (a file, or a
    shipped accelerator's name; default name: the description's) into ``out_dir``, atomically: a bad field or an
    interrupt leaves nothing behind."""
    arch_path = resolve_arch(arch_path)
    arch = load_arch(arch_path)
    params = accel_params(arch, str(arch_path))
    return emit_params(params, out_dir, name or arch.name, arch.name)
