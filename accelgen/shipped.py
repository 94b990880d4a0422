"""The data shipped inside the package, by name: example chips, workload tables, DSE studies, regressions.

Each kind lives as package data in the subpackage that uses it (found with :mod:`importlib.resources`,
so it works the same from a checkout, an editable install and a wheel):

=============  ==============================  =========================================
kind           package data                    a name is
=============  ==============================  =========================================
chips          ``accelgen.ppa/chips/``         an architecture description (``tpu_v1``)
workloads      ``accelgen.ppa/workloads/``     a layer table (``resnet50``)
dse            ``accelgen.ppa/dse_spaces/``    a space file (``neurometer_datacenter``)
regressions    ``accelgen.cosim/regressions/`` a regression description (``default``)
accelerators   ``accelgen.system/accelerators/`` a generated accelerator's description (``int8_ws16``)
=============  ==============================  =========================================

A name is the file's stem. ``examples/`` of the repository holds copies to read and edit
(``python examples/refresh_copies.py`` rewrites them from the package data).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .errors import ConfigError

#: kind -> (package, folder inside it, what one item is called in messages)
KINDS = {
    "chips": ("accelgen.ppa", "chips", "chip"),
    "workloads": ("accelgen.ppa", "workloads", "workload"),
    "dse": ("accelgen.ppa", "dse_spaces", "DSE study"),
    "regressions": ("accelgen.cosim", "regressions", "regression"),
    "accelerators": ("accelgen.system", "accelerators", "accelerator"),
}
SUFFIX = ".yaml"


def folder(kind: str) -> Path:
    """The folder holding the shipped files of ``kind``."""
    try:
        package, sub, _ = KINDS[kind]
    except KeyError:
        raise ValueError(f"kind {kind!r} is not allowed; expected one of {', '.join(KINDS)}") from None
    # an installed (unzipped) package is on the file system: the Traversable is a pathlib.Path
    return Path(str(resources.files(package) / sub))


def names(kind: str) -> list[str]:
    """The shipped names of ``kind``, sorted."""
    d = folder(kind)
    return sorted(p.name[:-len(SUFFIX)] for p in d.iterdir() if p.name.endswith(SUFFIX)) if d.is_dir() else []


def _listing(kind: str) -> str:
    return f"shipped: {', '.join(names(kind)) or '(none)'}"


def path(kind: str, name: str) -> Path:
    """The file of the shipped ``name`` (``path("chips", "tpu_v1")``); an unknown name is a
    :class:`ConfigError` listing the shipped ones."""
    p = folder(kind) / f"{name}{SUFFIX}"
    if not name or "/" in name or "\\" in name or not p.is_file():
        raise ConfigError([("", f"unknown {KINDS[kind][2]} {name!r}; {_listing(kind)}")])
    return p


def resolve(kind: str, text: str | Path, suffix: str = SUFFIX) -> Path:
    """What a command line argument names: an existing file as given, else a shipped name, else a
    :class:`ConfigError` (``TEXT: file not found and not a shipped chip; shipped: ...``). ``suffix``: the shipped
    file's (``.onnx`` for a shipped model beside the accelerators)."""
    p = Path(text)
    if p.is_file():
        return p
    shipped = folder(kind) / f"{text}{suffix}"
    if text and "/" not in str(text) and shipped.is_file():
        return shipped
    raise ConfigError([("", f"file not found and not a shipped {KINDS[kind][2]}; {_listing(kind)}")], str(text))
