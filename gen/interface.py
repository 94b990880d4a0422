"""A block family's interface as a user reads it: the ports of a configuration and the generator's own account of them.

``accelgen blocks FAMILY`` prints it. The ports (name, direction, width, signedness), the clock, the reset and
the latency are those of the manifest the configuration is emitted with, so they cannot drift from the Verilog; the
protocol (what each port carries, when it is sampled, the skew of an array's edges, how weights load, when an
output is valid) is the generator's own documentation: the sections of its component class's docstring from
the first interface heading on (``Weights and pipelining``, ``Ports``, ``Ports (ws)``, ``Latency``, ...), written beside the code it describes.
"""

from __future__ import annotations

import inspect
import re

from ..family import BlockFamily
from .emit import render

#: the first line of the docstring sections that describe the interface (numpydoc headings)
_INTERFACE_HEADING = re.compile(r"^(Ports|Latency|Weights|Protocol|Timing)\b.*\n-+$", re.MULTILINE)


def component_class(fam: BlockFamily) -> type | None:
    """The Amaranth component class a family builds (``build_component`` is its ``from_params``), or ``None``."""
    owner = getattr(fam.build_component, "__self__", None)
    return owner if isinstance(owner, type) else None


def protocol_doc(fam: BlockFamily) -> str:
    """The interface sections of the family's component docstring ("" when it has none)."""
    cls = component_class(fam)
    doc = inspect.getdoc(cls) if cls is not None else None
    match = _INTERFACE_HEADING.search(doc or "")
    return doc[match.start():].strip() if match else ""


def describe_interface(fam: BlockFamily, params) -> dict:
    """The interface of one configuration (validated ``params``): its ports, clock, reset and latency as its
    manifest states them, and the generator's protocol documentation."""
    manifest = render(fam, params, fam.default_name(params)).manifest
    return {"family": fam.name, "summary": fam.summary, "params": params.model_dump(mode="json"),
            "ports": manifest["ports"], "clock": manifest.get("clock"), "reset": manifest.get("reset"),
            "reset_kind": manifest.get("reset_kind"), "latency": manifest.get("latency"),
            "protocol": protocol_doc(fam)}
