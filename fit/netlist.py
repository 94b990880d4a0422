"""Reading a Yosys JSON netlist (``write_json``): a module by name, its port bits, readable net names.

Net bits are Yosys' integers; ``"0"``/``"1"``/``"x"`` are constants. Names are cleaned of Yosys' leading backslash
and of the space before a bit index.
"""

from __future__ import annotations

import re

from ..errors import ConfigError


def clean_name(name: str) -> str:
    """A Yosys name without its escaping backslash and the space before a bit index."""
    return re.sub(r"\s+\[", "[", name.lstrip("\\").strip())


def port_bits(mod: dict, direction: str) -> list[tuple[str, int]]:
    """``(name, net bit)`` of every bit of the module's ports of ``direction`` (and inout), ``name[i]`` for a bus."""
    return [(clean_name(name) + (f"[{i}]" if len(port["bits"]) > 1 else ""), b) for name, port in mod["ports"].items()
            if port["direction"] in (direction, "inout") for i, b in enumerate(port["bits"]) if isinstance(b, int)]


def net_names(mod: dict, wanted: set[int]) -> dict[int, str]:
    """A readable name per net bit in ``wanted``: names without ``$`` first, then the shortest."""
    best: dict[int, tuple] = {}
    for name, net in mod.get("netnames", {}).items():
        bits, offset, upto = net["bits"], net.get("offset", 0), net.get("upto", 0)
        for i, b in enumerate(bits):
            if b in wanted:
                text = clean_name(name) + (f"[{offset + (len(bits) - 1 - i if upto else i)}]" if len(bits) > 1 else "")
                key = ("$" in name, len(text), text)
                best[b] = min(best.get(b, key), key)
    return {b: k[2] for b, k in best.items()} | {b: f"net{b}" for b in wanted - best.keys()}


def module_of(netlist: dict, top: str) -> dict:
    """Module ``top`` of a Yosys JSON netlist (named with or without Yosys' leading backslash)."""
    modules = netlist.get("modules", {})
    mod = next((modules[k] for k in (top, top.lstrip("\\"), "\\" + top) if k in modules), None)
    if mod is None:
        raise ConfigError([("netlist", f"module {top!r} is not in the netlist (modules: {sorted(modules)})")])
    return mod
