"""The Verilator configuration file emitted beside each Verilog file: the warning classes it cannot avoid, each
with its reason.

``verilator --lint-only -Wall <name>.vlt <name>.v`` gives no warning on an emitted design (``tests/gen/test_lint.py``
checks every family). The waivers are per class and per file (``lint_off -rule RULE -file "*<name>.v"``), so a
user's own files keep every rule. A class is listed only when the file has what triggers it.
"""

from __future__ import annotations

import re

__all__ = ["file_name", "waivers"]

#: (rule, reason, whether the Verilog text has what triggers it)
_RULES = (
    ("DECLFILENAME",
     "one file holds the design's top module (first) and the cell modules it instantiates, named <top>__<cell>",
     lambda text: len(re.findall(r"^module ", text, re.MULTILINE)) > 1),
    ("PROCASSINIT",
     ("each register is declared with its reset value as its initial value, so that a simulation starts from the "
      "state the generator's Amaranth model starts from (registers without a reset hold it until first written)"),
     lambda text: re.search(r"^\s*reg\b[^;]*=", text, re.MULTILINE) is not None),
    ("VARHIDDEN",
     ("Yosys writes a one-hot multiplexer as a function whose inputs (a, b, s) may share a name with a signal of "
      "the module; the function reads only its own inputs"),
     lambda text: re.search(r"^\s*function\b", text, re.MULTILINE) is not None),
    ("CASEINCOMPLETE",
     ("a switch of the generator without a default arm: its always_comb block assigns each of its signals before "
      "the case statement, so a value no arm names keeps that assignment (no latch)"),
     lambda text: re.search(r"^\s*casez?\s*\(", text, re.MULTILINE) is not None),
    ("UNUSEDSIGNAL",
     ("outputs of a cell instance a design leaves unread (the valid of an edge PE) and bits of an input or an "
      "intermediate result a design does not use (the carry of a wrapping sum); synthesis removes their logic"),
     lambda text: True),
)


def file_name(name: str) -> str:
    """The waiver file of design ``name``."""
    return f"{name}.vlt"


def waivers(verilog: str, name: str) -> str:
    """The Verilator configuration for ``verilog`` (the file ``<name>.v``)."""
    lines = ["`verilator_config",
             f"// lint waivers for {name}.v (accelgen): verilator --lint-only -Wall {file_name(name)} {name}.v"]
    for rule, reason, fires in _RULES:
        if fires(verilog):
            lines += [f"// {reason}", f'lint_off -rule {rule} -file "*{name}.v"']
    return "\n".join(lines) + "\n"
