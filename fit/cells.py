"""Standard cells as accelgen describes them, and the Boolean functions of cell pins.

The shipped description is ``fit/tech/nangate45_cells.yaml``: NanGate45 cells in several drive
strengths, each with area, leakage, input pin capacitances, and per timing arc (input pin ->
output, output rising or falling) a linear delay and output-transition model fitted to the
NanGate library's NLDM tables, every number with its source in the file::

    value_ps = intrinsic_ps + drive_ps_per_ff * C_load_ff + slew_factor * (slew_ps - nominal_slew_ps)

(:func:`arc_value`), plus the internal energy per output transition and, for flip-flops,
setup/hold and clock energy. :func:`load_cells` reads and checks a description; the Liberty library
written from it is :mod:`accelgen.fit.liberty_write`'s, and Liberty files (that one or a user's) are read
back by :mod:`accelgen.fit.liberty_read`.

:func:`parse_function` reads a pin's Liberty ``function`` (``A & !B``) into a tree that the description's
checks, the Liberty reader (:func:`timing_sense`) and the gate simulator (:mod:`accelgen.fit.activity`) evaluate.
"""

from __future__ import annotations

import re
from importlib import resources
from itertools import product
from pathlib import Path

import yaml

from ..errors import ConfigError

DEFAULT_CELLS = "nangate45_cells"
#: the models of one timing arc, by the output edge they describe
ARC_KEYS = ("delay_rise", "transition_rise", "delay_fall", "transition_fall")
_TOP_KEYS = ("vdd_v", "temperature_c", "nominal_slew_ps", "wire_cap_per_fanout_ff")
_FF_STATE = {"IQ", "IQN"}   # the state variables of the generated ff (IQ, IQN) group


# --------------------------------------------------------------------------- the description

def load_cells(path: str | Path | None = None) -> dict:
    """The cell description: the shipped ``nangate45_cells.yaml`` (``path=None``) or a YAML file.

    Raises :class:`~accelgen.errors.ConfigError` listing every problem of the description."""
    if path is None:
        source = f"{DEFAULT_CELLS}.yaml"
        text = (resources.files("accelgen.fit") / "tech" / source).read_text()
    else:
        source = str(path)
        try:
            text = Path(path).read_text()
        except OSError as exc:
            raise ConfigError([("cells", f"{source!r} cannot be read: {exc.strerror}")]) from None
    cells = yaml.safe_load(text)
    problems = check_cells(cells)
    if problems:
        raise ConfigError(problems, source=source)
    return cells


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _check_pair(value, path: str) -> list[tuple[str, str]]:
    if not isinstance(value, dict) or set(value) != {"rise", "fall"} or not all(map(_is_number, value.values())):
        return [(path, f"{value!r} is not allowed; expected {{rise: <number>, fall: <number>}}")]
    return []


def check_cells(cells) -> list[tuple[str, str]]:
    """Every problem of a cell description, as ``(field path, message)``."""
    if not isinstance(cells, dict) or not isinstance(cells.get("cells"), dict) or not cells["cells"]:
        return [("cells", "missing required field (a mapping of cell name to cell)")]
    problems = [(k, "missing required field") for k in _TOP_KEYS if not _is_number(cells.get(k))]
    for name, cell in cells["cells"].items():
        problems += _check_cell(name, cell) if isinstance(cell, dict) else [(f"cells.{name}", "expected a mapping")]
    return problems


def _check_cell(name: str, cell: dict) -> list[tuple[str, str]]:
    at, problems = f"cells.{name}", []
    for key in ("area_um2", "leakage_nw"):
        if not _is_number(cell.get(key)) or cell[key] < 0:
            problems.append((f"{at}.{key}", f"{cell.get(key)!r} is not allowed; expected a number >= 0"))
    pins = cell.get("inputs")
    if not isinstance(pins, dict) or not pins or not all(_is_number(c) and c > 0 for c in pins.values()):
        problems.append((f"{at}.inputs", "expected a mapping of input pin to capacitance > 0 (fF)"))
        pins = {}
    if "ff" in cell:
        ff = cell["ff"]
        if not isinstance(ff, dict) or ff.get("clocked_on") not in pins or ff.get("next_state") not in pins:
            problems.append((f"{at}.ff", "expected {clocked_on: <input pin>, next_state: <input pin>}"))
        for key in ("setup_ps", "hold_ps", "clock_energy_fj"):
            problems += _check_pair(cell.get(key), f"{at}.{key}")
    outputs = cell.get("outputs")
    if not isinstance(outputs, dict) or not outputs:
        return [*problems, (f"{at}.outputs", "missing required field")]
    readable = set(pins) | (_FF_STATE if "ff" in cell else set())
    for out, spec in outputs.items():
        problems += _check_output(f"{at}.outputs.{out}", name, spec, pins, readable)
    return problems


def _check_output(at: str, name: str, spec, pins: dict, readable: set[str]) -> list[tuple[str, str]]:
    if not isinstance(spec, dict) or not isinstance(spec.get("function"), str):
        return [(f"{at}.function", "missing required field")]
    problems = _check_pair(spec.get("energy_fj"), f"{at}.energy_fj")
    try:
        unknown = function_inputs(parse_function(spec["function"])) - readable
    except ValueError as exc:
        problems.append((f"{at}.function", str(exc)))
    else:
        if unknown:
            problems.append((f"{at}.function", f"reads {sorted(unknown)}, not input pins of {name}"))
    for key in ARC_KEYS:
        arcs = spec.get(key)
        if not isinstance(arcs, dict) or not arcs:
            problems.append((f"{at}.{key}", "missing required field"))
            continue
        if isinstance(spec.get("delay_rise"), dict) and set(arcs) != set(spec["delay_rise"]):
            problems.append((f"{at}.{key}",
                             f"pins {sorted(arcs)} differ from delay_rise's {sorted(spec['delay_rise'])}"))
        for pin, model in arcs.items():
            if pin not in pins:
                problems.append((f"{at}.{key}.{pin}", f"{pin!r} is not an input pin of {name}"))
            elif not (isinstance(model, list) and len(model) == 3 and all(map(_is_number, model))
                      and model[0] > 0 and model[1] >= 0):
                expected = "[intrinsic_ps > 0, drive_ps_per_ff >= 0, slew_factor]"
                problems.append((f"{at}.{key}.{pin}", f"{model!r} is not allowed; expected {expected}"))
    return problems


def arc_value(model, load_ff: float, slew_ps: float, nominal_slew_ps: float) -> float:
    """One linear model ``[intrinsic_ps, drive_ps_per_ff, slew_factor]`` at a load and input slew (ps)."""
    intrinsic, drive, slew_factor = model
    return intrinsic + drive * load_ff + slew_factor * (slew_ps - nominal_slew_ps)


# --------------------------------------------------------------------------- Boolean functions

_TOKEN = re.compile(r"[A-Za-z_][\w\[\]]*|[01]|\S")


def parse_function(text: str):
    """A Liberty function (``!`` and postfix ``'`` NOT, ``^`` XOR, ``&``/``*``/juxtaposition AND,
    ``|``/``+`` OR, in rising order of precedence from OR; parentheses; constants 0/1) as a tree of
    tuples: ``("var", name)``, ``("const", bool)``, ``("not", x)``, ``("and"|"xor"|"or", x, y)``."""
    tokens = _TOKEN.findall(text)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        tok = peek()
        if tok is None:
            raise ValueError(f"function {text!r} ends early")
        pos += 1
        return tok

    def unary():
        tok = take()
        if tok == "!":
            node = ("not", unary())
        elif tok == "(":
            node = or_()
            if take() != ")":
                raise ValueError(f"unbalanced parentheses in function {text!r}")
        elif tok in ("0", "1"):
            node = ("const", tok == "1")
        elif tok[0].isalpha() or tok[0] == "_":
            node = ("var", tok)
        else:
            raise ValueError(f"unexpected {tok!r} in function {text!r}")
        while peek() == "'":
            take()
            node = ("not", node)
        return node

    def and_():
        node = unary()
        while peek() is not None and peek() not in ("|", "+", "^", ")"):
            if peek() in ("&", "*"):
                take()
            node = ("and", node, unary())
        return node

    def xor_():
        node = and_()
        while peek() == "^":
            take()
            node = ("xor", node, and_())
        return node

    def or_():
        node = xor_()
        while peek() in ("|", "+"):
            take()
            node = ("or", node, xor_())
        return node

    tree = or_()
    if peek() is not None:
        raise ValueError(f"unexpected {peek()!r} in function {text!r}")
    return tree


def function_inputs(tree) -> set[str]:
    """The variables a :func:`parse_function` tree reads."""
    if tree[0] == "var":
        return {tree[1]}
    return set().union(*(function_inputs(t) for t in tree[1:] if isinstance(t, tuple)))


def evaluate(tree, values: dict[str, bool]) -> bool:
    """A :func:`parse_function` tree for one assignment of its variables."""
    op = tree[0]
    if op == "var":
        return values[tree[1]]
    if op == "const":
        return tree[1]
    if op == "not":
        return not evaluate(tree[1], values)
    a, b = evaluate(tree[1], values), evaluate(tree[2], values)
    return (a and b) if op == "and" else (a or b) if op == "or" else a != b


def timing_sense(function: str, pin: str, pins) -> str:
    """``positive_unate``, ``negative_unate`` or ``non_unate``: how the output follows ``pin``."""
    tree = parse_function(function)
    others = [p for p in pins if p != pin]
    rises = falls = False
    for values in product((False, True), repeat=len(others)):
        env = dict(zip(others, values))
        low, high = evaluate(tree, {**env, pin: False}), evaluate(tree, {**env, pin: True})
        rises |= high and not low
        falls |= low and not high
    return "non_unate" if rises == falls else ("positive_unate" if rises else "negative_unate")
