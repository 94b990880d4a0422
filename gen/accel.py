"""The whole accelerator as Verilog with its manifest (:class:`~accelgen.rtl.accel.Accelerator`, from its parameters
:class:`~accelgen.params.accel.AccelParams`); :mod:`accelgen.system.arch` derives them from an architecture file."""

from __future__ import annotations

from pathlib import Path

from ..params.accel import FIELDS, AccelParams
from ..rtl.accel import Accelerator
from ..toolchain import warm_amaranth
from ..util import ensure_output_dir
from . import lint_waivers
from .emit import Emitted, check_name, convert, write

__all__ = ["emit_accel", "render_accel"]


def render_accel(params: AccelParams, name: str, arch_name: str | None = None) -> Emitted:
    """The accelerator of ``params`` as Verilog and manifest (nothing written); ``arch_name``: the description it
    came from, recorded in the manifest."""
    check_name(name)
    warm_amaranth()
    text, manifest = convert(Accelerator(params), name, {
        "block": "accelerator", "arch": arch_name, "params": params.model_dump(mode="json"), "latency": None})
    manifest["commands"] = {op: {f: list(bits) for f, bits in fields.items()} for op, fields in FIELDS.items()}
    return Emitted(name=name, family="accelerator", params=params, verilog=text, manifest=manifest,
                   waivers=lint_waivers.waivers(text, name))


def emit_accel(params: AccelParams, out_dir: str | Path, name: str, arch_name: str | None = None) -> Emitted:
    """Write ``<name>.v``, ``<name>.vlt`` and ``<name>.json`` into ``out_dir``, atomically (the directory is checked
    before the design is elaborated)."""
    ensure_output_dir(out_dir)
    return write(render_accel(params, name, arch_name), out_dir)
