"""accelgen's own step from Amaranth's RTLIL to Verilog: plain module names, explicit operand widths, one Yosys script.

Amaranth's Verilog backend (``amaranth.back.verilog``) gives files that ``verilator --lint-only -Wall`` rejects
(issue 51 measured 113, 110 and 985 warnings on an 8x8 int8 systolic array, a bf16 MAC and a 32-input fp32 FAN):

* a submodule is named after its path, ``<top>__pe.mac``: an escaped identifier (``\\sa8x8_ws__pe.mac``);
* processes are kept (``proc -nomux``), and Yosys's Verilog-2005 writer gives every ``always @*`` a dummy register
  (``\\$auto$verilog_backend.cc:...:dump_module$1``) so that it runs at time zero;
* cells keep the operand widths of the Amaranth expression (``$signed(x[12:0]) < $signed(2'h1)``, ``!x`` of a
  16-bit ``x``): legal Verilog, extended by its rules, but Verilator's WIDTH warnings fire on each;
* named wires nothing reads are kept.

Two Yosys runs, the same in both conversion paths (:mod:`accelgen.gen.yosys_inprocess`): :data:`NETLIST_SCRIPT`
on the RTLIL with plain module names (:func:`plain_module_names`, ``<top>__pe__mac``) keeps the processes as
Amaranth wrote them (``proc -nomux``: their if/case structure, which code coverage reports on) and removes unused
wires; :func:`explicit_widths` then extends or
truncates each cell operand to the width the cell computes at (the extension Verilog's rules already implied,
now written out; ``$logic_not`` of a vector as a comparison with zero); :data:`VERILOG_SCRIPT` writes the Verilog
without attributes, with internal names as plain ``_N_`` and the processes as SystemVerilog ``always_comb`` and
``always_ff`` blocks (``-sv``), which run at time zero by themselves: no dummy registers. The emitted file has the top module first and a
Verilator waiver file beside it (:mod:`accelgen.gen.lint_waivers`). The logic is unchanged: only how the Verilog states it.
"""

from __future__ import annotations

import re

__all__ = ["NETLIST_SCRIPT", "VERILOG_SCRIPT", "explicit_widths", "plain_module_name", "plain_module_names",
           "to_verilog"]

#: the first Yosys run, on Amaranth's RTLIL (module names made plain, ``{rtlil}``): the processes kept as
#: processes (``proc -nomux``, as Amaranth's own backend; ``-norom``: a switch stays a case statement, not a ROM),
#: unused wires and cells removed (``opt_clean -purge``: named wires nothing reads go too), the result written as
#: RTLIL, whose cells get explicit operand widths (:func:`explicit_widths`).
NETLIST_SCRIPT = "read_rtlil <<rtlil\n{rtlil}\nrtlil\nproc -nomux -norom\nmemory_collect\nopt_clean -purge\nwrite_rtlil\n"
#: the second run: the Verilog, without Amaranth's attributes, internal names written as plain ``_N_``, processes as
#: ``always_comb``/``always_ff`` (``-sv``); ``-noparallelcase``: a one-hot multiplexer becomes a case statement
#: whose patterns do not overlap
VERILOG_SCRIPT = "read_rtlil <<rtlil\n{rtlil}\nrtlil\nwrite_verilog -sv -noattr -noparallelcase\n"

#: cells whose operands are extended (or truncated) to the result's width: the low bits of a sum, product or
#: bitwise result depend only on the low bits of the operands (Yosys cell library: $add ... $xnor)
_TO_RESULT = {"$add", "$sub", "$mul", "$and", "$or", "$xor", "$xnor"}
_UNARY_TO_RESULT = {"$not", "$neg", "$pos"}
#: comparisons extend both operands to the wider one
_COMPARE = {"$lt", "$le", "$gt", "$ge", "$eq", "$ne", "$eqx", "$nex"}
#: shifts extend their first operand to the result (Yosys extends it before shifting); a left shift may also drop
#: the bits above the result
_SHIFT_LEFT = {"$shl", "$sshl"}
_SHIFT_RIGHT = {"$shr", "$sshr"}

_MODULE = re.compile(r"^(\s*module\s+)\\(\S+)$", re.MULTILINE)
_TOKEN = re.compile(r"\{|\}|\[\d+(?::\d+)?\]|\d+'[01xzm-]*|-?\d+|[\\$]\S+")


def plain_module_name(name: str) -> str:
    """Amaranth's ``<top>__pe.mac`` as a plain Verilog identifier, ``<top>__pe__mac``."""
    return name.replace(".", "__")


def _bits(spec: str, widths: dict[str, int]) -> list[str]:
    """The bits of an RTLIL signal ``spec``, least significant first, each as ``\\w [i]`` or a constant bit."""
    tokens = _TOKEN.findall(spec)
    pos = 0

    def one() -> list[str]:
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "{":
            parts = []
            while tokens[pos] != "}":
                parts.append(one())
            pos += 1
            return [b for part in reversed(parts) for b in part]   # the first part is the most significant
        if "'" in tok:
            width, value = tok.split("'")
            return list(reversed(value.rjust(int(width), "0")))
        if tok[0] not in "\\$":
            return list(reversed(format(int(tok) & 0xFFFFFFFF, "032b")))
        if pos < len(tokens) and tokens[pos].startswith("["):
            lo_hi = [int(v) for v in tokens[pos][1:-1].split(":")]
            pos += 1
            hi, lo = lo_hi[0], lo_hi[-1]
        else:
            hi, lo = widths[tok] - 1, 0
        return [f"{tok} [{i}]" for i in range(lo, hi + 1)]

    bits = one()
    if pos != len(tokens):
        raise ValueError(f"cannot read RTLIL signal {spec!r}")
    return bits


def _spec(bits: list[str], widths: dict[str, int]) -> str:
    """``bits`` (least significant first) as a compact RTLIL signal: runs of one wire as slices, constants joined."""
    chunks: list[tuple[str, int, int] | str] = []   # (wire, lo, hi) or constant bits, least significant first
    for bit in bits:
        if " [" in bit:
            wire, index = bit[:-1].split(" [")
            i = int(index)
            last = chunks[-1] if chunks else None
            if isinstance(last, tuple) and last[0] == wire and last[2] == i - 1:
                chunks[-1] = (wire, last[1], i)
            else:
                chunks.append((wire, i, i))
        elif chunks and isinstance(chunks[-1], str):
            chunks[-1] = bit + chunks[-1]
        else:
            chunks.append(bit)
    texts = []
    for chunk in reversed(chunks):
        if isinstance(chunk, str):
            texts.append(f"{len(chunk)}'{chunk}")
        else:
            wire, lo, hi = chunk
            texts.append(wire if (lo, hi) == (0, widths[wire] - 1) else
                         f"{wire} [{hi}]" if lo == hi else f"{wire} [{hi}:{lo}]")
    return texts[0] if len(texts) == 1 else "{ " + " ".join(texts) + " }"


def _resize(bits: list[str], width: int, signed: bool) -> list[str]:
    if len(bits) >= width:
        return bits[:width]
    fill = bits[-1] if signed and bits else "0"
    return bits + [fill] * (width - len(bits))


def _normalise_cell(kind: str, params: dict[str, str], conns: dict[str, str], widths: dict[str, int]) -> str | None:
    """The cell's new kind, with ``params``/``conns`` updated in place, or None when it is left as it is."""
    def signed(port):
        return params.get(f"\\{port}_SIGNED", "0") == "1"

    def width(port):
        return int(params[f"\\{port}_WIDTH"])

    def set_port(port, new_width, sign):
        bits = _bits(conns[f"\\{port}"], widths)
        conns[f"\\{port}"] = _spec(_resize(bits, new_width, sign), widths)
        params[f"\\{port}_WIDTH"] = str(new_width)

    if kind in _TO_RESULT | _COMPARE:
        if signed("A") != signed("B"):
            return None   # Amaranth extends mixed operands itself; a mixed cell is left to Yosys's rules
        target = width("Y") if kind in _TO_RESULT else max(width("A"), width("B"))
        if width("A") == width("B") == target:
            return None
        set_port("A", target, signed("A"))
        set_port("B", target, signed("B"))
        return kind
    if kind in _UNARY_TO_RESULT and width("A") != width("Y"):
        set_port("A", width("Y"), signed("A"))
        return kind
    if (kind in _SHIFT_LEFT and width("A") != width("Y")) or (kind in _SHIFT_RIGHT and width("A") < width("Y")):
        set_port("A", width("Y"), signed("A"))
        return kind
    if kind == "$logic_not" and width("A") > 1:
        params["\\A_SIGNED"] = params["\\B_SIGNED"] = "0"
        params["\\B_WIDTH"] = params["\\A_WIDTH"]
        conns["\\B"] = f"{width('A')}'" + "0" * width("A")
        return "$eq"
    return None


def _normalise_widths(lines: list[str]) -> list[str]:
    out: list[str] = []
    widths: dict[str, int] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("module "):
            widths = {}
        elif stripped.startswith("wire "):
            words = stripped.split()
            widths[words[-1]] = int(words[words.index("width") + 1]) if "width" in words else 1
        elif stripped.startswith("cell $"):
            end = i
            while lines[end].strip() != "end":
                end += 1
            body = [b.strip() for b in lines[i + 1:end]]
            if all(b.startswith(("parameter ", "connect ")) for b in body):
                params = dict(b.split(" ", 2)[1:] for b in body if b.startswith("parameter "))
                conns = dict(b.split(" ", 2)[1:] for b in body if b.startswith("connect "))
                _, kind, name = stripped.split()
                new_kind = _normalise_cell(kind, params, conns, widths)
                if new_kind is not None:
                    indent = line[:len(line) - len(line.lstrip())] + "  "
                    out.append(f"{line[:len(line) - len(line.lstrip())]}cell {new_kind} {name}")
                    out += [f"{indent}parameter {k} {v}" for k, v in sorted(params.items())]
                    out += [f"{indent}connect {k} {v}" for k, v in sorted(conns.items())]
                    i = end
                    continue
        out.append(line)
        i += 1
    return out


def plain_module_names(rtlil: str) -> str:
    """Amaranth's RTLIL with every module and module instance named by :func:`plain_module_name`."""
    modules = {m for _, m in _MODULE.findall(rtlil)}
    renamed = {m: plain_module_name(m) for m in modules if "." in m}
    clash = sorted(set(renamed.values()) & modules)
    if clash:
        raise ValueError(f"module names {clash} exist both as cells and as Amaranth submodules")
    if not renamed:
        return rtlil
    pattern = re.compile(r"^(\s*(?:module|cell)\s+)\\(\S+)", re.MULTILINE)
    return pattern.sub(lambda m: m.group(1) + "\\" + renamed.get(m.group(2), m.group(2)), rtlil)


def explicit_widths(rtlil: str) -> str:
    """Yosys's RTLIL with each cell operand extended (or truncated) to the width the cell computes at."""
    return "\n".join(_normalise_widths(rtlil.split("\n")))


def to_verilog(rtlil: str, run_yosys) -> str:
    """Amaranth's ``rtlil`` as accelgen's Verilog; ``run_yosys(args, stdin)`` runs Yosys and returns its stdout."""
    netlist = run_yosys(["-q", "-"], NETLIST_SCRIPT.format(rtlil=plain_module_names(rtlil)))
    return run_yosys(["-q", "-"], VERILOG_SCRIPT.format(rtlil=explicit_widths(netlist)))
