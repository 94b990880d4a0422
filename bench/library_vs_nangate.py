"""The default library's energy figures against NanGate45's published typical-corner Liberty (issue 49, item 3).

    python bench/library_vs_nangate.py                     # the comparison, from bench/data/nangate45_typ_figures.yaml
    python bench/library_vs_nangate.py --extract LIB.lib   # re-read the figures from a NanGate45 Liberty file

accelgen's default library (fit/tech/nangate45_cells.yaml, written as Liberty by accelgen.fit.liberty_write) keeps
one scalar internal energy per output edge, averaged over NanGate's loads 1-5, related pins and when-conditions at
the 17.19 ps nominal slew; NanGate's Liberty has a 7 x 7 table (input slew x load) per related pin and condition.
This prints, per cell, the input pin capacitance (fF), the internal energy per output transition (fJ, rise and fall
mean, i.e. what one toggle costs beyond the load) at a stated slew and load, and the leakage (nW), NanGate's figure
(bilinear interpolation in its tables) beside accelgen's, and the ratio; both are at NanGate's supply, 1.1 V.
The cells: issue 49's list (INV_X1, NAND2_X1, NOR2_X1, XOR2_X1, FA_X1, DFF_X1) and the cells that carry most of the
toggles of the mapped int8 and fp16 MACs (bench/energy_points.py).

The figures are read once from the Liberty (``--extract``) into bench/data/nangate45_typ_figures.yaml, each with
its line in the file; the Liberty itself is never kept in the repository.
"""

from __future__ import annotations

import argparse
import re
import sys
from bisect import bisect_right
from pathlib import Path

import yaml

from accelgen.fit.liberty_read import read_power_library
from accelgen.fit.mapping import resolve_library

DATA = Path(__file__).parent / "data" / "nangate45_typ_figures.yaml"
CELLS = ["INV_X1", "NAND2_X1", "NOR2_X1", "XOR2_X1", "XNOR2_X1", "NAND3_X1", "AOI21_X1", "OAI21_X1", "AND2_X1",
         "BUF_X1", "XNOR2_X2", "NAND2_X2", "FA_X1", "HA_X1", "DFF_X1"]
#: the comparison's operating points: NanGate's input-transition index points 3 and 4 (17.19 ps, the default
#: library's nominal slew, and 40.98 ps) and a 4 fF load (about the mean load of the int8 MAC's nets, 3.9 fF)
SLEWS_PS = (17.19, 40.98)
LOAD_FF = 4.0

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z_][\w.\[\]!&|^ ]*?(?=\s*[(:;{),])|[-+]?[\d.]+(?:[eE][-+]?\d+)?|[(){}:;,]'
                    r'|\\\n|\n')


def _tokens(text: str, first_line: int):
    line = first_line
    for m in _TOKEN.finditer(text):
        t = m.group(0)
        if t == "\n" or t == "\\\n":
            line += 1
            continue
        yield t.strip(), line


def _parse(tokens, end="}"):
    """A Liberty group body as a list of (name, args, value or body, line)."""
    out = []
    for t, line in tokens:
        if t == end:
            return out
        name = t
        t2, _ = next(tokens)
        if t2 == ":":
            value, _ = next(tokens)
            next(tokens)      # ;
            out.append((name, None, value.strip('"'), line))
        elif t2 == "(":
            args = []
            for a, _ in tokens:
                if a == ")":
                    break
                if a != ",":
                    args.append(a.strip('"'))
            t3, _ = next(tokens)
            if t3 == "{":
                out.append((name, args, _parse(tokens), line))
            else:             # a complex attribute: name (args);
                out.append((name, args, None, line))
    return out


def _floats(s: str) -> list[float]:
    return [float(x) for x in s.split(",")]


def _table(body) -> dict:
    attrs = {name: (args, line) for name, args, _, line in body}
    if "values" not in attrs:
        return {}
    vals, line = attrs["values"]
    rows = [_floats(r) for r in vals]
    if "index_1" not in attrs:
        return {"scalar": rows[0][0], "line": line}
    slews = _floats(attrs["index_1"][0][0])
    loads = _floats(attrs["index_2"][0][0]) if "index_2" in attrs else None
    # kept: only the index points the comparison interpolates between (SLEWS_PS, LOAD_FF)
    i0 = max(bisect_right(slews, min(SLEWS_PS) / 1000 * (1 + 1e-6)) - 1, 0)
    i1 = min(bisect_right(slews, max(SLEWS_PS) / 1000 * (1 + 1e-6)), len(slews) - 1)
    if loads is None:
        return {"slews_ns": slews[i0:i1 + 1], "loads_ff": None, "values": [rows[0][i0:i1 + 1]], "line": line}
    j = min(max(bisect_right(loads, LOAD_FF) - 1, 0), len(loads) - 2)
    return {"slews_ns": slews[i0:i1 + 1], "loads_ff": loads[j:j + 2],
            "values": [r[j:j + 2] for r in rows[i0:i1 + 1]], "line": line}


def extract(lib_path: Path, cells: list[str]) -> dict:
    """Input pin capacitances, leakage and internal-energy tables of ``cells`` from a NanGate Liberty file."""
    text = lib_path.read_text()
    out = {}
    for cname in cells:
        m = re.search(rf"^\s*cell \({cname}\) \{{", text, re.M)
        if not m:
            raise SystemExit(f"{lib_path}: no cell {cname}")
        first = text.count("\n", 0, m.end()) + 1
        toks = _tokens(text[m.end():], first)
        body = _parse(toks)
        cell = {"line": first, "inputs": {}, "energy": {}}
        for name, args, value, line in body:
            if name == "area":
                cell["area_um2"] = {"value": float(value), "line": line}
            elif name == "cell_leakage_power":
                cell["leakage_nw"] = {"value": float(value), "line": line}
            elif name == "pin":
                attrs = {n: (v, ln) for n, _, v, ln in value if v is not None and not isinstance(v, list)}
                pin = args[0]
                if attrs.get("direction", ("",))[0] == "input":
                    cap, ln = attrs["capacitance"]
                    cell["inputs"][pin] = {"value": float(cap), "line": ln}
                for n, _, grp, ln in value:
                    if n != "internal_power":
                        continue
                    g = {a: v for a, _, v, _ in grp if not isinstance(v, list)}
                    tabs = {a: _table(v) for a, _, v, _ in grp if isinstance(v, list)}
                    cell["energy"].setdefault(pin, []).append(
                        {"related_pin": g.get("related_pin"), "when": g.get("when"), "line": ln,
                         "rise": tabs.get("rise_power"), "fall": tabs.get("fall_power")})
        out[cname] = cell
    return out


def _interp(tab: dict, slew_ps: float, load_ff: float) -> float:
    if tab is None:
        return 0.0
    if "scalar" in tab:
        return tab["scalar"]
    xs = [s * 1000 for s in tab["slews_ns"]]
    ys = tab["loads_ff"]
    v = tab["values"]
    i = min(max(bisect_right(xs, slew_ps) - 1, 0), len(xs) - 2)
    t = (slew_ps - xs[i]) / (xs[i + 1] - xs[i])
    if ys is None:            # a 1-D (input transition) table: a clock or data pin's hidden power
        row = v[0]
        return row[i] + t * (row[i + 1] - row[i])
    j = min(max(bisect_right(ys, load_ff) - 1, 0), len(ys) - 2)
    u = (load_ff - ys[j]) / (ys[j + 1] - ys[j])
    a = v[i][j] + u * (v[i][j + 1] - v[i][j])
    b = v[i + 1][j] + u * (v[i + 1][j + 1] - v[i + 1][j])
    return a + t * (b - a)


def nangate_energy(cell: dict, out_pin: str, slew_ps: float, load_ff: float) -> float:
    """NanGate's internal energy of one output toggle: the mean of rise and fall, over the output's arcs (related
    pins and when-conditions), as accelgen's PowerLibrary.energy_fj averages them."""
    arcs = cell["energy"].get(out_pin, [])
    vals = [(_interp(a["rise"], slew_ps, load_ff) + _interp(a["fall"], slew_ps, load_ff)) / 2 for a in arcs]
    return sum(vals) / len(vals) if vals else float("nan")


def nangate_clock_energy(cell: dict, clock_pin: str, slew_ps: float) -> float:
    """NanGate's clock-pin internal energy per cycle (rise + fall edge), mean over the when-conditions."""
    arcs = cell["energy"].get(clock_pin, [])
    vals = [_interp(a["rise"], slew_ps, 0) + _interp(a["fall"], slew_ps, 0) for a in arcs]
    return sum(vals) / len(vals) if vals else float("nan")


def _ratio(a: float, b: float) -> str:
    return f"{a / b:6.2f}" if b and a == a else f"{'-':>6s}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extract", type=Path, help="a NanGate45 typical Liberty to read the figures from")
    ap.add_argument("--source", default="", help="where --extract's file came from (repository, commit, path)")
    args = ap.parse_args()
    if args.extract:
        figures = extract(args.extract, CELLS)
        DATA.parent.mkdir(parents=True, exist_ok=True)
        header = ("# NanGate 45nm Open Cell Library, NangateOpenCellLibrary_typical (typical corner, 1.1 V, 25 C):\n"
                  "# input pin capacitance (fF), cell_leakage_power (nW) and internal_power tables (fJ per output\n"
                  "# transition; index_1 input transition ns, index_2 load fF) of the cells bench/library_vs_nangate.py\n"
                  "# compares, each with its line in the source file (a table's line is its values line). Tables are\n"
                  "# cut to the index points the comparison interpolates between. Written by that script's --extract.\n")
        DATA.write_text(header + yaml.safe_dump({"source": args.source, "cells": figures}, sort_keys=False, default_flow_style=None,
                                                 width=200))
        print(f"wrote {DATA}")
        return 0
    data = yaml.safe_load(DATA.read_text())
    plib = read_power_library(resolve_library(None)[0])
    print(f"NanGate45 typical ({data['source']}) vs accelgen's default library {plib.name}, both at 1.1 V;")
    print(f"internal energy per output toggle (mean of rise and fall) at load {LOAD_FF} fF, slews {SLEWS_PS} ps")
    head = (f"{'cell.pin':24s} {'pin cap fF (NG / ag)':>22s} {'ratio':>6s}  "
            + "  ".join(f"{'E_int fJ @' + format(s, '.0f') + 'ps (NG / ag)':>26s} {'ratio':>6s}" for s in SLEWS_PS)
            + f"  {'leakage nW (NG / ag)':>22s} {'ratio':>6s}")
    print(head)
    for cname, cell in data["cells"].items():
        mine = plib.cells.get(cname)
        ng_cap = sum(v["value"] for v in cell["inputs"].values()) / len(cell["inputs"])
        ag_cap = (sum(mine.inputs[p] for p in cell["inputs"] if p in mine.inputs) / len(cell["inputs"])
                  if mine is not None else float("nan"))
        ng_leak = cell["leakage_nw"]["value"]
        ag_leak = mine.leakage_nw if mine is not None else float("nan")
        rows = [p for p in cell["energy"] if p not in cell["inputs"]]
        clock = next((p for p in cell["energy"] if p in cell["inputs"] and p.startswith("CK")), None)
        rows += [clock] if clock else []
        for k, pin in enumerate(rows):
            cols = []
            for s in SLEWS_PS:
                if pin == clock:
                    ng = nangate_clock_energy(cell, pin, s)
                    ag = mine.clock_energy_fj(s) if mine is not None else float("nan")
                else:
                    ng = nangate_energy(cell, pin, s, LOAD_FF)
                    ag = mine.energy_fj(pin, LOAD_FF, s) if mine is not None and pin in mine.outputs else float("nan")
                cols.append(f"{ng:9.3f} / {ag:9.3f} {_ratio(ag, ng)}")
            label = f"{cname}.{pin}" + (" (per cycle)" if pin == clock else "")
            first = (f"{ng_cap:9.3f} / {ag_cap:9.3f} {_ratio(ag_cap, ng_cap)}" if k == 0 else " " * 29)
            last = f"{ng_leak:9.2f} / {ag_leak:9.2f} {_ratio(ag_leak, ng_leak)}" if k == 0 else ""
            print(f"{label:24s} {first}  " + "  ".join(cols) + f"  {last}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
