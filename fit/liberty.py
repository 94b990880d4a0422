"""Standard cells for timing-driven mapping, and the Liberty file generated from them.

The shipped description is ``fit/tech/nangate45_cells.yaml``: NanGate45 cells in several drive
strengths, each with area, leakage, input pin capacitances, and per timing arc (input pin ->
output, output rising or falling) a linear delay and output-transition model fitted to the
NanGate library's NLDM tables, every number with its source in the file::

    value_ps = intrinsic_ps + drive_ps_per_ff * C_load_ff + slew_factor * (slew_ps - nominal_slew_ps)

(:func:`arc_value`), plus the internal energy per output transition and, for flip-flops,
setup/hold and clock energy. :func:`liberty_text` writes that description as a Liberty library
(time in ps, capacitance in fF, leakage in nW, energy in fJ) whose NLDM tables are the linear
models evaluated over :data:`SLEWS_PS` x :data:`LOADS_FF`, so that Yosys (``read_liberty -lib``,
``dfflibmap -liberty``, ``stat -liberty``) and ABC (``abc -liberty FILE -D <period_ps>``, and its
``buffer``/``upsize``/``dnsize``/``stime``) see load- and slew-dependent delays. The synthesis flow
(not this module) hands Yosys either this file or a user's own Liberty file. The text depends only
on its input: the same description gives the same bytes.
"""

from __future__ import annotations

import re
from importlib import resources
from itertools import product
from pathlib import Path

import yaml

from ..errors import ConfigError

DEFAULT_CELLS = "nangate45_cells"
DEFAULT_NAME = "accelgen_nangate45"
#: input transitions (ps) and output loads (fF) of the generated tables: a choice of ours, not
#: library data. The models are linear in both, so any grid reproduces them exactly; it spans the
#: loads up to the largest max_capacitance, and slews past the 78 ps the slew term was fitted to.
SLEWS_PS = (2.0, 5.0, 10.0, 20.0, 40.0, 80.0, 160.0)
LOADS_FF = (0.5, 2.0, 4.0, 8.0, 16.0, 64.0, 512.0)
#: fanout counts the generated wire-load table lists (wire capacitance = fanout x per-fanout value)
WIRE_FANOUTS = 16
TABLES = (("cell_rise", "delay_rise"), ("rise_transition", "transition_rise"),
          ("cell_fall", "delay_fall"), ("fall_transition", "transition_fall"))
_ARC_KEYS = tuple(key for _, key in TABLES)
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
    for key in _ARC_KEYS:
        arcs = spec.get(key)
        if not isinstance(arcs, dict) or not arcs:
            problems.append((f"{at}.{key}", "missing required field"))
            continue
        if isinstance(spec.get("delay_rise"), dict) and set(arcs) != set(spec["delay_rise"]):
            problems.append((f"{at}.{key}", f"pins {sorted(arcs)} differ from delay_rise's {sorted(spec['delay_rise'])}"))
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


# --------------------------------------------------------------------------- Liberty text

def _n(x: float) -> str:
    """A number as Liberty text: at most 6 significant digits, no exponent for our ranges."""
    text = f"{x:.6g}"
    return "0" if text == "-0" else text


def _index(values) -> str:
    return ", ".join(_n(v) for v in values)


def _table(kind: str, model, nominal: float, where: str) -> list[str]:
    rows = []
    for s in SLEWS_PS:
        row = [arc_value(model, c, s, nominal) for c in LOADS_FF]
        if min(row) <= 0:
            message = (f"the model {model!r} gives {min(row):.3g} ps at a {s:g} ps input slew; the generated "
                       f"tables need values > 0 over slews {SLEWS_PS[0]:g}-{SLEWS_PS[-1]:g} ps")
            raise ConfigError([(where, message)])
        rows.append('"' + ", ".join(f"{v:.3f}" for v in row) + '"')
    body = ", \\\n            ".join(rows)
    return [f"      {kind} (delay_template) {{", f"          values ({body});", "      }"]


def _scalar(kind: str, value: float, indent: str) -> list[str]:
    return [f'{indent}{kind} (scalar) {{ values ("{_n(value)}"); }}']


def _header(cells: dict, name: str) -> list[str]:
    vdd, temp, wire = cells["vdd_v"], cells["temperature_c"], cells["wire_cap_per_fanout_ff"]
    fanouts = "".join(f"    fanout_length ({n}, {n});\n" for n in range(1, WIRE_FANOUTS + 1))
    return f"""\
/* Generated by accelgen.fit.liberty from the cell description {cells.get('name', '')!s}:
   linear delay, transition and energy models fitted to {cells.get('library', '')!s}
   tables (sources in the description); table values are those models, not library data. */
library ({name}) {{
  technology (cmos);
  delay_model : table_lookup;
  time_unit : "1ps";
  voltage_unit : "1V";
  current_unit : "1mA";
  pulling_resistance_unit : "1kohm";
  leakage_power_unit : "1nW";
  capacitive_load_unit (1, ff);
  nom_process : 1;
  nom_temperature : {_n(temp)};
  nom_voltage : {_n(vdd)};
  operating_conditions (typical) {{
    process : 1;
    temperature : {_n(temp)};
    voltage : {_n(vdd)};
  }}
  default_operating_conditions : typical;
  input_threshold_pct_rise : 50;
  input_threshold_pct_fall : 50;
  output_threshold_pct_rise : 50;
  output_threshold_pct_fall : 50;
  slew_lower_threshold_pct_rise : 30;
  slew_lower_threshold_pct_fall : 30;
  slew_upper_threshold_pct_rise : 70;
  slew_upper_threshold_pct_fall : 70;
  slew_derate_from_library : 1;
  default_fanout_load : 1;
  default_max_transition : {_n(SLEWS_PS[-1])};
  wire_load ("fanout_linear") {{
    capacitance : {_n(wire)};
    resistance : 0;
    slope : 1;
{fanouts}  }}
  default_wire_load : "fanout_linear";
  default_wire_load_mode : top;
  lu_table_template (delay_template) {{
    variable_1 : input_net_transition;
    variable_2 : total_output_net_capacitance;
    index_1 ("{_index(SLEWS_PS)}");
    index_2 ("{_index(LOADS_FF)}");
  }}
""".splitlines()


def _cell(cname: str, cell: dict, nominal: float) -> list[str]:
    pins = cell["inputs"]
    ff = cell.get("ff")
    out = [f"  cell ({cname}) {{", f"    area : {_n(cell['area_um2'])};",
           f"    cell_leakage_power : {_n(cell['leakage_nw'])};"]
    if ff:
        out += ["    ff (IQ, IQN) {", f'      next_state : "{ff["next_state"]}";',
                f'      clocked_on : "{ff["clocked_on"]}";', "    }"]
    for pin, cap in pins.items():
        out += [f"    pin ({pin}) {{", "      direction : input;", f"      capacitance : {_n(cap)};"]
        if ff and pin == ff["clocked_on"]:
            out += ["      clock : true;", "      internal_power () {"]
            out += _scalar("rise_power", cell["clock_energy_fj"]["rise"], "        ")
            out += _scalar("fall_power", cell["clock_energy_fj"]["fall"], "        ")
            out += ["      }"]
        elif ff and pin == ff["next_state"]:
            for kind, key in (("setup_rising", "setup_ps"), ("hold_rising", "hold_ps")):
                out += ["      timing () {", f'        related_pin : "{ff["clocked_on"]}";',
                        f"        timing_type : {kind};"]
                out += _scalar("rise_constraint", cell[key]["rise"], "        ")
                out += _scalar("fall_constraint", cell[key]["fall"], "        ")
                out += ["      }"]
        out.append("    }")
    for oname, spec in cell["outputs"].items():
        out += [f"    pin ({oname}) {{", "      direction : output;", f'      function : "{spec["function"]}";']
        if "max_cap_ff" in spec:
            out.append(f"      max_capacitance : {_n(spec['max_cap_ff'])};")
        related = list(spec["delay_rise"])
        for pin in related:
            out += ["      timing () {", f'        related_pin : "{pin}";']
            if ff:
                out += ["        timing_type : rising_edge;", "        timing_sense : non_unate;"]
            else:
                out.append(f"        timing_sense : {timing_sense(spec['function'], pin, list(pins))};")
            for kind, key in TABLES:
                where = f"cells.{cname}.outputs.{oname}.{key}.{pin}"
                out += ["  " + line for line in _table(kind, spec[key][pin], nominal, where)]
            out.append("      }")
        for pin in related:
            out += ["      internal_power () {", f'        related_pin : "{pin}";']
            out += _scalar("rise_power", spec["energy_fj"]["rise"], "        ")
            out += _scalar("fall_power", spec["energy_fj"]["fall"], "        ")
            out.append("      }")
        out.append("    }")
    out.append("  }")
    return out


def liberty_text(cells: dict, *, name: str = DEFAULT_NAME) -> str:
    """The Liberty library of a cell description (:func:`load_cells`), as text."""
    problems = check_cells(cells)
    if problems:
        raise ConfigError(problems)
    nominal = cells["nominal_slew_ps"]
    lines = _header(cells, name)
    for cname, cell in cells["cells"].items():
        lines += _cell(cname, cell, nominal)
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_liberty(cells: dict, path: str | Path, *, name: str = DEFAULT_NAME) -> Path:
    """Write :func:`liberty_text` to ``path``; returns the path."""
    path = Path(path)
    path.write_text(liberty_text(cells, name=name))
    return path
