"""Read back a design ``accelgen gen`` wrote: its Verilog (possibly edited by hand) and the manifest beside it.

The manifest names the block family and its parameters, so an edited design (an ECO, a third-party copy) can be
checked against the family's golden model without being generated again (``accelgen cosim --verilog``). Every
problem with the two files is a :class:`~accelgen.errors.ConfigError` naming the file, the field and what is
allowed; nothing here runs a tool.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import ConfigError
from ..family import BlockFamily, find_family
from ..util import sha256_hex
from .emit import Emitted, check_name

#: the manifest fields a co-simulation reads (``accelgen.cosim.run.run_cosim``: the top, its ports, clock and reset)
REQUIRED_FIELDS = ("name", "block", "params", "ports")


def default_manifest_path(verilog_path: str | Path) -> Path:
    """The manifest ``accelgen gen`` writes beside ``<name>.v``: ``<name>.json``."""
    return Path(verilog_path).with_suffix(".json")


def _read_manifest(path: Path) -> dict:
    if not path.is_file():
        raise ConfigError([("manifest", (f"{str(path)!r} is not a file; allowed: the <name>.json `accelgen gen` "
                                         "wrote beside the Verilog"))])
    try:
        manifest = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError([("manifest", f"{str(path)!r} is not JSON ({exc})")]) from None
    if not isinstance(manifest, dict):
        raise ConfigError([("manifest", f"{str(path)!r} holds a {type(manifest).__name__}; allowed: a JSON object")])
    missing = [f for f in REQUIRED_FIELDS if f not in manifest]
    if missing:
        raise ConfigError([(f"manifest.{f}", (f"missing in {str(path)!r}; a manifest of `accelgen gen` has "
                                              f"{', '.join(REQUIRED_FIELDS)}")) for f in missing])
    return manifest


def module_header(verilog: str, name: str) -> str | None:
    """The header of module ``name`` in ``verilog`` (from ``module`` to its first ``;``), or ``None`` when the
    text declares no such module (a plain or escaped identifier)."""
    m = re.search(rf"^\s*module\s+\\?{re.escape(name)}(?=[\s(#;])([^;]*);", verilog, re.MULTILINE)
    return m.group(1) if m else None


def load_design(verilog_path: str | Path, manifest_path: str | Path | None,
                families: dict[str, BlockFamily]) -> Emitted:
    """The design in ``verilog_path`` as described by its manifest (default: :func:`default_manifest_path`),
    with the family's validated parameters; the Verilog is read, never regenerated.

    Raises :class:`ConfigError` for a missing file, a manifest without a family or the fields a co-simulation
    needs, parameters the family's schema rejects (every problem, with its path under ``manifest.params``), and a
    Verilog file lacking the manifest's top module or one of its ports.
    """
    vpath = Path(verilog_path)
    mpath = default_manifest_path(vpath) if manifest_path is None else Path(manifest_path)
    if not vpath.is_file():
        raise ConfigError([("verilog", f"{str(vpath)!r} is not a file; allowed: a Verilog file")])
    manifest = _read_manifest(mpath)
    fam = find_family(families, manifest["block"], "manifest.block")
    params = fam.validate(manifest["params"], "manifest.params")
    name = check_name(manifest["name"], "manifest.name")
    try:
        text = vpath.read_text()
    except UnicodeDecodeError:
        raise ConfigError([("verilog", f"{str(vpath)!r} is not text; allowed: a Verilog file")]) from None
    header = module_header(text, name)
    if header is None:
        raise ConfigError([("verilog", (f"{str(vpath)!r} declares no module {name!r} (the manifest's top); "
                                        f"allowed: the Verilog the manifest {str(mpath)!r} describes"))])
    header_words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_$]*", header))
    absent = [p["name"] for p in manifest["ports"] if p.get("name") not in header_words]
    if absent:
        raise ConfigError([("verilog", (f"module {name!r} in {str(vpath)!r} lacks the manifest's ports "
                                        f"{', '.join(map(str, absent))}"))])
    return Emitted(name=name, family=fam.name, params=params, verilog=text, manifest=manifest,
                   verilog_path=vpath, manifest_path=mpath)


def is_edited(design: Emitted) -> bool:
    """Whether the Verilog differs from the text the manifest was written with (its ``verilog_sha256``)."""
    return sha256_hex(design.verilog) != design.manifest.get("verilog_sha256")
