"""The whole accelerator as Verilog with its manifest (:class:`~accelgen.rtl.accel.Accelerator`, from its parameters
:class:`~accelgen.params.accel.AccelParams`); :mod:`accelgen.system.arch` derives them from an architecture file."""

from __future__ import annotations

from pathlib import Path

from ..params.accel import FIELDS, AccelParams
from ..rtl.accel import Accelerator
from ..toolchain import warm_amaranth
from ..util import ensure_output_dir, sha256_hex
from . import lint_waivers
from .emit import (
    MANIFEST_VERSION,
    Emitted,
    _convert_hierarchy,
    _flatten_members,
    _module_ports,
    check_name,
    tool_versions,
    write,
)

__all__ = ["emit_accel", "render_accel"]


def render_accel(params: AccelParams, name: str, arch_name: str | None = None) -> Emitted:
    """The accelerator of ``params`` as Verilog and manifest (nothing written); ``arch_name``: the description it
    came from, recorded in the manifest."""
    check_name(name)
    warm_amaranth()
    component = Accelerator(params)
    cells: list[str] = []
    registered: list[str] = []
    text = _convert_hierarchy(component, name, cells, registered_out=registered)
    ports = []
    _flatten_members(component.metadata.as_json()["interface"]["members"], ports)
    verilog_ports = _module_ports(text, name)
    missing = [p["name"] for p in ports if p["name"] not in verilog_ports]
    if missing:
        raise RuntimeError(f"emitted module {name} lacks ports {missing}: manifest and Verilog disagree")
    manifest = {
        "manifest_version": MANIFEST_VERSION, "name": name, "block": "accelerator", "arch": arch_name,
        "params": params.model_dump(mode="json"), "latency": None, "clock": "clk", "reset": "rst",
        "reset_kind": "synchronous, active high",
        "ports": [{"name": p["name"], "direction": p["dir"], "width": p["width"], "signed": p["signed"]} for p in ports],
        "commands": {op: {f: list(bits) for f, bits in fields.items()} for op, fields in FIELDS.items()},
        "cells": sorted(cells), "registered_modules": sorted(registered), "versions": tool_versions(),
        "verilog_sha256": sha256_hex(text), "lint_waivers": lint_waivers.file_name(name),
    }
    return Emitted(name=name, family="accelerator", params=params, verilog=text, manifest=manifest,
                   waivers=lint_waivers.waivers(text, name))




def emit_accel(params: AccelParams, out_dir: str | Path, name: str, arch_name: str | None = None) -> Emitted:
    """Write ``<name>.v``, ``<name>.vlt`` and ``<name>.json`` into ``out_dir``, atomically (the directory is checked
    before the design is elaborated)."""
    ensure_output_dir(out_dir)
    return write(render_accel(params, name, arch_name), out_dir)
