"""Third-party RTL with commercial synthesis reports through accelgen's flow: the "third-party RTL" rungs of
``accelgen validate-components`` (issue 49, item 2).

    python bench/third_party_ladder.py --checkout DIR [--commit SHA] [--design KEY ...] [--write] [--json]

``DIR`` holds maeri-project/FEATHER's ``FEATHER_RTL`` (a checkout, or ``git archive`` of it into a scratch
directory: nothing of it enters this repository) at a414376 (2024-04-24), which added ``reports/4x4/feather_top_*.rpt``
(Design Compiler V-2023.12-SP2, 2024-04-21) with the Verilog that produced them (the BIRRD changed after, 90e2e2d).
``--commit`` names the commit when ``DIR`` is not a git work tree.

The report (from it and from that commit's ``scripts/syn.tcl``, ``cons/design_cons.tcl``, ``cons/defaults.tcl``):
TSMC 28HPC+ ``tcbn28hpcplusbwp30p140tt0p8v25c`` (typical, 0.8 V, 25 C), zero wire load, 2 ns clock, ``compile_ultra
-no_autoungroup -no_boundary_optimization`` (a block's hierarchical figures are the block alone), ideal clock.
``report_power -hier -analysis_effort low`` without SAIF: unannotated primary inputs (PWR-414) and sequential cell
outputs (PWR-415) take DC's documented defaults, ``power_default_toggle_rate`` 0.1 (of the clock) and static
probability 0.5 (none set in the scripts), propagated through the combinational logic zero-delay (PWR-6).

Those semantics in accelgen's flow: ``accelgen synth FILE.v --top M --param ... --clock-mhz 500 --vectorless``
(:mod:`accelgen.fit.vectorless`): every input bit (the reset too: ``rst_n`` is a primary input of ``feather_top``)
and every flip-flop output at toggle rate 0.1 per cycle, static probability 0.5, propagated as transition densities,
zero-delay; inputs ``feather_top`` ties to a constant (``i_en`` = 1) held (``--hold``). Not DC's: inside
``feather_top`` a block input driven through other logic has the rate DC propagates, not 0.1. Kept beside it, the
simulated figure (``--stimulus S``, :func:`dc_default_stimulus`: data input bits fair coins toggling with probability
0.1, the reset released, the flip-flops simulated). Compared: zero-delay switching plus the flip-flops'
clock-pin internal energy (DC's ideal clock: no tree), cell area (no clock-tree buffers); the full simulated figure
(glitches, clock network) is kept too.

Node and supply: the default library (NanGate45-like, 45 nm, 1.1 V) to 28 nm by the project's node rule
(:func:`accelgen.technology.nodes.scaling`, as every fitted model's ``tech.scaling``): area x ``logic_area``, energy
x ``energy`` (C V^2 at the node table's 0.9 V) x ``(0.8 / 0.9)^2`` to the report's 0.8 V, leakage x ``leakage`` x
``0.8 / 0.9``. The figures, and accelgen's generator's for the function ("generator quality"), go to ``--out``.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from accelgen.fit.external import DEFAULT_CYCLES, DEFAULT_LANES, flow_design, synth_files
from accelgen.fit.liberty_read import read_power_library
from accelgen.fit.mapping import resolve_library
from accelgen.fit.vectorless import DC_STATIC_PROBABILITY, DC_TOGGLE_RATE, Sources
from accelgen.ppa.ladder import ThirdPartyFile
from accelgen.technology.nodes import node, scaling

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "ppa" / "data" / "references" / "third_party_rtl.json"
REPOSITORY = "maeri-project/FEATHER"
RTL_DIR = "FEATHER_RTL/RTL"
REPORT_DIR = "FEATHER_RTL/reports/4x4"
#: the report's top (``scripts/syn.tcl``: TOP_DESIGN)
REPORT_TOP = "feather_top"
# DC_TOGGLE_RATE, DC_STATIC_PROBABILITY: DC's defaults for unannotated primary inputs and sequential outputs; the
# report uses them (PWR-414, PWR-415: no SAIF, none set in the scripts)
#: the node of the report's library, TSMC 28HPC+ (tcbn28hpcplus...), and the project's node table entry for it
REPORT_NODE_NM = 28
#: the library accelgen maps to: the default technology (fit/tech/nangate45_cells.yaml, 45 nm, nom_voltage 1.1 V)
LIBRARY_NODE_NM = 45
LIBRARY_VDD_V = 1.1


@dataclass(frozen=True)
class Block:
    """One block of the report: its instance path in the report, the module and files of its Verilog, the inputs its
    context ties to a constant, and accelgen's own generator for the same function (``accelgen gen`` arguments)."""

    key: str
    name: str
    module: str
    instance: str
    files: tuple[str, ...]
    held: dict[str, int] = field(default_factory=dict)
    params: dict[str, int] = field(default_factory=dict)   # only for the report's top (its name carries none)
    generator: tuple[str, ...] = ()
    generator_note: str = ""


BIRRD_FILES = ("birrd_simple_cmd_flow_seq.v", "birrd_2x2_simple_cmd_flow_seq.v", "birrd_2x2_simple_last_cmd_flow_seq.v")
BLOCKS = (
    Block("pe", "FEATHER PE", "feather_pe",
          "feather_GENVAR_DPE_INST_COL_ITER_0__feather_GENVAR_DPE_INST_ROW_ITER_0__feather_PE_OTHER_ROWS",
          ("feather_pe.v",),
          generator=("mac", "--a-width", "9", "--b-width", "9", "--acc-width", "32", "--signed", "--input-reg",
                     "--product-reg", "--output-reg"),
          generator_note="accelgen's int MAC cell at the PE's arithmetic (9x9-bit signed operands after the zero "
                         "points, 32-bit accumulator, input/product/output registers); without the PE's zero-point "
                         "subtractors, 2x4-word weight buffers and forwarding registers"),
    Block("birrd_switch", "FEATHER BIRRD 2x2 switch", "birrd_2x2_simple_cmd_flow_seq",
          "birrd_INST/first_stage_switch_0__first_stage", ("birrd_2x2_simple_cmd_flow_seq.v",), held={"i_en": 1},
          generator=("benes", "--n", "2", "--width", "32", "--pipeline-every", "1"),
          generator_note="accelgen's Benes 2x2 switch (pass/cross/broadcast, 32 bits, registered); without BIRRD's "
                         "32-bit adder (add-left/add-right) and its command forwarding"),
    Block("birrd", "FEATHER BIRRD (4 inputs)", "birrd_simple_cmd_flow_seq", "birrd_INST", BIRRD_FILES,
          held={"i_en": 1},
          generator=("benes", "--n", "4", "--width", "32", "--pipeline-every", "1"),
          generator_note="accelgen's 4-port Benes network (3 stages of 2x2 switches, 32 bits, registered after "
                         "each); BIRRD has 3 stages too, with adders and command forwarding in each switch"),
    Block("output_bus", "FEATHER output bus (4x32-bit pick)", "o_bus_autopick_seq",
          "feather_GENVAR_DPE_INST_COL_ITER_0__COL_WISE_O_DATA_BUS", ("o_bus_autopick_seq.v",), held={"i_en": 1}),
    Block("register_bank", "FEATHER buffer bank (4x32-bit registers)", "sram_bank_sp",
          "OUTPUT_BUFFER_SRAM/SP_SRAM_BANKS_0__sram_bank_sp_inst", ("sram_bank_sp.v",)),
    Block("controller", "FEATHER controller", "feather_controller", "feather_CONTROLLER_INST",
          ("feather_controller.v",)),
)


# --- the report -------------------------------------------------------------------------------------------------

_NUMBER = r"[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"


def parse_area_report(text: str) -> dict:
    """A DC ``report_area -hierarchy``: library, totals and, per hierarchical instance (``a/b`` paths), its absolute
    total and local combinational / non-combinational areas (um^2) and its design name."""
    lib = re.search(r"Library\(s\) Used:\s*\n\s*(\S+)", text)
    totals = {key: float(m.group(1)) for key, label in (("combinational_um2", "Combinational area"),
                                                         ("buf_inv_um2", "Buf/Inv area"),
                                                         ("noncombinational_um2", "Noncombinational area"),
                                                         ("total_um2", "Total cell area"))
              if (m := re.search(rf"^{re.escape(label)}:\s+({_NUMBER})", text, re.MULTILINE))}
    table = text.split("Hierarchical area distribution", 1)[-1]
    row = re.compile(rf"^(\S+)\s+({_NUMBER})\s+({_NUMBER})\s+({_NUMBER})\s+({_NUMBER})\s+({_NUMBER})\s+(\S+)\s*$")
    instances, pending = {}, None
    for line in table.splitlines():
        m = row.match(f"{pending} {line.strip()}" if pending else line.strip())
        if m:
            name, total, _pct, comb, noncomb, _bbox, design = m.groups()
            instances[name] = {"design": design, "total_um2": float(total), "combinational_um2": float(comb),
                               "noncombinational_um2": float(noncomb)}
            pending = None
        else:   # a long instance name stands alone; its numbers are on the next line
            pending = line.strip() if re.fullmatch(r"[A-Za-z_]\S*", line.strip()) else None
    return {"library": lib.group(1) if lib else None, **totals, "instances": instances}


def parse_power_report(text: str) -> dict:
    """A DC ``report_power -hier``: library, operating conditions, supply, units, the activity messages, and per
    instance (``a/b`` paths from the indentation) its switching, internal, leakage and total power in mW."""
    cond = re.search(r"Operating Conditions:\s*(\S+)", text)
    vdd = re.search(rf"Global Operating Voltage\s*=\s*({_NUMBER})", text)
    dyn = re.search(r"Dynamic Power Units\s*=\s*1(\w+)", text)
    leak = re.search(r"Leakage Power Units\s*=\s*1(\w+)", text)
    to_mw = {"W": 1e3, "mW": 1.0, "uW": 1e-3, "nW": 1e-6, "pW": 1e-9}
    dyn_mw, leak_mw = to_mw[dyn.group(1) if dyn else "mW"], to_mw[leak.group(1) if leak else "nW"]
    messages = re.findall(r"^(?:Information|Warning): (.*)$", text, re.MULTILINE)
    body = text.split("Hierarchy", 1)[-1]
    nums = rf"({_NUMBER})\s+({_NUMBER})\s+({_NUMBER})\s+({_NUMBER})\s+({_NUMBER})\s*$"
    instances, stack, pending = {}, [], None
    for line in body.splitlines():
        if not line.strip() or line.lstrip().startswith(("-", "Power")):
            continue
        head = re.match(rf"^(\s*)(\S+)(?:\s+\((\S+)\))?\s*(?:{nums})?$", line)
        only = re.match(rf"^\s+{nums}", line)
        if only and pending is not None:
            values = only.groups()
        elif head and head.group(4) is not None:
            pending, values = (len(head.group(1)), head.group(2), head.group(3)), head.groups()[3:]
        elif head:
            pending = (len(head.group(1)), head.group(2), head.group(3))
            continue
        else:
            continue
        indent, name, design = pending
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, name))
        path = "/".join(n for _, n in stack[1:]) or name      # the top's own row is its name
        sw, internal, lk, total = (float(v) for v in values[:4])
        instances[path] = {"design": design or name, "switching_mw": sw * dyn_mw, "internal_mw": internal * dyn_mw,
                           "leakage_mw": lk * leak_mw, "total_mw": total * dyn_mw}
        pending = None
    return {"operating_conditions": cond.group(1) if cond else None, "vdd_v": float(vdd.group(1)) if vdd else None,
            "messages": messages, "instances": instances}


def parse_clock_period_ns(text: str, clock: str = "clk") -> float | None:
    """The period of ``clock`` in a DC ``report_timing``: the time of its capturing rise edge."""
    edges = [float(t) for t in re.findall(rf"^\s*clock {re.escape(clock)} \(rise edge\)\s+({_NUMBER})", text, re.MULTILINE)]
    return max(edges) if edges else None


def design_parameters(design: str, module: str, declared: list[str]) -> dict[str, int]:
    """The parameters DC wrote into a uniquified design name: ``<module>_<NAME><value>...`` in declaration order, or
    ``<module>_<value>_<value>...`` (values alone, in declaration order) when the names were left out; a trailing
    ``_<n>`` is DC's uniquification."""
    if not design.startswith(module):
        raise ValueError(f"design {design!r} is not of module {module!r}")
    rest, out = design[len(module):].lstrip("_"), {}
    for name in declared:
        m = re.match(rf"{re.escape(name)}(\d+)(?:_|$)", rest)
        if m:
            out[name] = int(m.group(1))
            rest = rest[m.end():]
    if out:
        return out
    values = [v for v in rest.split("_") if v]
    return {name: int(v) for name, v in zip(declared, values[:len(declared)])} if len(values) > 1 else {}


def declared_parameters(verilog: str, module: str) -> list[str]:
    """The parameters of ``module`` in declaration order (``parameter NAME =`` in its header)."""
    m = re.search(rf"\bmodule\s+{re.escape(module)}\s*#\s*\((.*?)\)\s*\(", verilog, re.DOTALL)
    return re.findall(r"\bparameter\s+(?:\w+\s+)?(\w+)\s*=", re.sub(r"//[^\n]*", "", m.group(1))) if m else []


# --- accelgen's side --------------------------------------------------------------------------------------------

def dc_default_stimulus(ports: dict, roles, held: dict[str, int], *, cycles: int = DEFAULT_CYCLES,
                        lanes: int = DEFAULT_LANES, seed: int = 1) -> list[dict]:
    """Streams of per-cycle port values (``accelgen synth --stimulus`` JSON): each data input bit starts at a fair
    coin (static probability :data:`DC_STATIC_PROBABILITY`) and toggles with probability :data:`DC_TOGGLE_RATE` each
    cycle; ``held`` inputs stay at their value; the reset is left to the flow (asserted in an added first cycle)."""
    streams = []
    for lane in range(lanes):
        rng = np.random.default_rng(seed * 1000 + lane)
        stream = {}
        for port in roles.data:
            width = ports[port][1]
            if port in held:
                stream[port] = [held[port]] * cycles
                continue
            bits = rng.random((1, width)) < DC_STATIC_PROBABILITY
            flips = rng.random((cycles - 1, width)) < DC_TOGGLE_RATE
            bits = np.logical_xor.accumulate(np.vstack([bits, flips]), axis=0)
            stream[port] = [str(sum(int(b) << j for j, b in enumerate(row))) for row in bits]
        streams.append(stream)
    return streams


def factors() -> dict[str, float]:
    """The project's node rule from the library (45 nm, 1.1 V) to the report (28 nm, its supply set by the caller)."""
    s = scaling(REPORT_NODE_NM, LIBRARY_NODE_NM)
    return {"area": s.logic_area, "energy": s.energy, "leakage": s.leakage, "node_vdd_v": node(REPORT_NODE_NM).vdd_v}


default_power_library = functools.cache(lambda: read_power_library(resolve_library(None)[0]))


def flop_clock_internal_fj(cells_by_type: dict[str, int]) -> float:
    """The flip-flops' clock-pin internal energy per cycle (both edges), as the flow charges it (net_energy)."""
    plib = default_power_library()
    return sum(n * plib.cells[c].clock_energy_fj(plib.nominal_slew_ps) for c, n in cells_by_type.items()
               if plib.cells[c].ff is not None)


def flow_figures(rep, clock_mhz: float, vdd_v: float) -> dict:
    """accelgen's report of a block at the report's semantics and node (module docstring), with its raw figures."""
    f = factors()
    supply = (vdd_v / f["node_vdd_v"]) ** 2
    act = next(iter(rep.measurement["activity"].values()))
    clock_internal_fj = flop_clock_internal_fj(rep.cells_by_type)
    toggles = act["toggles_per_cycle"]         # per cycle, by the driving cell's type
    plib = default_power_library()
    flop_toggles = sum(v for c, v in toggles.items() if c in plib.cells and plib.cells[c].ff is not None)
    dc_scope_pj = (act["switching_fj"] + clock_internal_fj) / 1000.0
    leakage_uw = rep.leakage_uw * f["leakage"] * vdd_v / f["node_vdd_v"]
    energy_pj = dc_scope_pj * f["energy"] * supply
    full_pj = rep.energy_pj * f["energy"] * supply
    return {"area_um2": rep.cell_area_um2 * f["area"],
            "power_mw": (energy_pj * clock_mhz + leakage_uw) / 1000.0,
            "detail": {"area_45nm_um2": round(rep.cell_area_um2, 3), "clock_tree_area_45nm_um2":
                       round(rep.area_um2 - rep.cell_area_um2, 3), "flip_flops": rep.flip_flops,
                       "switching_zero_delay_45nm_pj": round(act["switching_fj"] / 1000.0, 4),
                       "flop_clock_internal_45nm_pj": round(clock_internal_fj / 1000.0, 4),
                       "clock_network_45nm_pj": round(rep.clock_energy_pj, 4),
                       "glitch_ratio": round(rep.glitch_ratio, 3) if rep.glitch_ratio else None,
                       "flop_output_toggle_rate": round(flop_toggles / max(rep.flip_flops, 1), 4),
                       "cell_output_toggle_rate": round(sum(toggles.values()) / rep.cells, 4),
                       "leakage_45nm_uw": round(rep.leakage_uw, 3), "delay_45nm_ns": round(rep.delay_ns, 4),
                       "area_factor": round(f["area"], 4), "energy_factor": round(f["energy"] * supply, 4),
                       "leakage_factor": round(f["leakage"] * vdd_v / f["node_vdd_v"], 4),
                       "power_with_glitches_and_clock_network_mw": round((full_pj * clock_mhz + leakage_uw) / 1e3, 4),
                       "leakage_mw": round(leakage_uw / 1000.0, 5)}}


def git_commit(path: Path) -> str | None:
    proc = subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, capture_output=True, text=True, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else None


def _read_report(checkout: Path) -> tuple[dict, dict, float]:
    d = checkout / REPORT_DIR
    area = parse_area_report((d / f"{REPORT_TOP}_area.rpt").read_text())
    power = parse_power_report((d / f"{REPORT_TOP}_power.rpt").read_text())
    period = parse_clock_period_ns((d / f"{REPORT_TOP}_timing.rpt").read_text())
    return area, power, period


def measure_block(block: Block, checkout: Path, area: dict, power: dict, clock_mhz: float, scratch: Path,
                  generator: bool = True) -> dict:
    """The report's figures of ``block`` and accelgen's flow on the same Verilog, parameters and clock."""
    rtl = checkout / RTL_DIR
    files = [rtl / f for f in block.files]
    a, p = area["instances"][block.instance], power["instances"][block.instance]
    top_text = (rtl / block.files[0]).read_text()
    params = block.params or design_parameters(a["design"], block.module, declared_parameters(top_text, block.module))
    elab, roles, _ = flow_design(files, block.module, params=params)
    stim = scratch / f"{block.key}-stimulus.json"
    stim.write_text(json.dumps(dc_default_stimulus(elab.ports, roles, block.held)))
    rep = synth_files(files, block.module, params=params, clock_mhz=clock_mhz, stimulus=stim)
    vectorless = [synth_files(files, block.module, params=params, clock_mhz=clock_mhz,
                              vectorless=Sources(held=block.held, propagation=how)) for how in ("simulation", "density")]
    ours = both_figures(*vectorless, rep, clock_mhz, power["vdd_v"])
    rel = [f"{RTL_DIR}/{f}" for f in block.files]
    command = (f"accelgen synth {' '.join(rel)} --top {block.module} "
               + "".join(f"--param {k}={v} " for k, v in params.items()) + f"--clock-mhz {clock_mhz:g} --vectorless"
               + "".join(f" --hold {k}={v}" for k, v in block.held.items()) + " (simulated: --stimulus S, "
               + f"dc_default_stimulus; python bench/third_party_ladder.py --design {block.key})")
    entry = {"name": block.name, "path": rel[0], "top": block.module, "parameters": params,
             "report": {"instance": block.instance, "design": a["design"], "area_um2": a["total_um2"],
                        "combinational_um2": a["combinational_um2"], "noncombinational_um2": a["noncombinational_um2"],
                        **p},
             "accelgen": {"command": command, **ours}}
    if block.generator and generator:
        entry["generator"] = generator_figures(block, clock_mhz, power["vdd_v"], scratch)
    return entry


def generator_figures(block: Block, clock_mhz: float, vdd_v: float, scratch: Path) -> dict:
    """accelgen's own generator for the block's function, emitted and measured the same way (every data input at
    the DC defaults: the generator's ports have no context)."""
    out = scratch / f"gen-{block.key}"
    subprocess.run([sys.executable, "-m", "accelgen", "gen", *block.generator, "-o", str(out)], check=True,
                   capture_output=True)
    family = block.generator[0]
    verilog = out / f"{family}.v"
    elab, roles, _ = flow_design([verilog], family)
    stim = scratch / f"gen-{block.key}-stimulus.json"
    stim.write_text(json.dumps(dc_default_stimulus(elab.ports, roles, {})))
    rep = synth_files([verilog], family, clock_mhz=clock_mhz, stimulus=stim)
    vectorless = [synth_files([verilog], family, clock_mhz=clock_mhz, vectorless=Sources(propagation=how))
                  for how in ("simulation", "density")]
    command = (f"accelgen gen {' '.join(block.generator)} -o G; accelgen synth G/{family}.v --top {family} "
               f"--clock-mhz {clock_mhz:g} --vectorless (simulated: --stimulus S)")
    return {"command": command, "note": block.generator_note, **both_figures(*vectorless, rep, clock_mhz, vdd_v)}


def both_figures(vectorless, density, simulated, clock_mhz: float, vdd_v: float) -> dict:
    """The compared figures from the vectorless run (DC's propagation, the report's semantics); the transition-density
    run's power and the simulated run's power and detail beside them (``flop_output_toggle_rate``: simulated)."""
    v, s = flow_figures(vectorless, clock_mhz, vdd_v), flow_figures(simulated, clock_mhz, vdd_v)
    wire_mw = vectorless.measurement["activity"]["vectorless"]["wire_fj"] * v["detail"]["energy_factor"] * clock_mhz / 1e6
    return {"area_um2": v["area_um2"], "power_mw": v["power_mw"],
            "detail": {**s["detail"], "power_simulated_mw": round(s["power_mw"], 6),
                       "power_zero_wire_load_mw": round(v["power_mw"] - wire_mw, 6),
                       "power_density_mw": round(flow_figures(density, clock_mhz, vdd_v)["power_mw"], 6),
                       "switching_vectorless_45nm_pj": v["detail"]["switching_zero_delay_45nm_pj"],
                       "cell_output_toggle_rate_vectorless": v["detail"]["cell_output_toggle_rate"]}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkout", type=Path, required=True, help="directory holding FEATHER_RTL/ (RTL and reports)")
    ap.add_argument("--commit", default=None, help="FEATHER's commit, when --checkout is not a git work tree")
    ap.add_argument("--design", action="append", choices=[b.key for b in BLOCKS], help="only these blocks")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--write", action="store_true", help=f"write the entries to --out ({DEFAULT_OUT.name})")
    ap.add_argument("--json", action="store_true", help="print the entries as JSON")
    ap.add_argument("--no-generator", action="store_true", help="leave out accelgen's own generators' rows")
    args = ap.parse_args()
    commit = args.commit or git_commit(args.checkout)
    if not commit:
        ap.error("--checkout is not a git work tree: give FEATHER's commit with --commit")
    area, power, period = _read_report(args.checkout)
    clock_mhz = 1000.0 / period
    blocks = [b for b in BLOCKS if not args.design or b.key in args.design]
    ours_commit = git_commit(ROOT)
    entries = []
    with tempfile.TemporaryDirectory(prefix="third-party-") as tmp:
        for block in blocks:
            e = measure_block(block, args.checkout, area, power, clock_mhz, Path(tmp), not args.no_generator)
            entries.append(e)
            r, o = e["report"], e["accelgen"]
            line = (f"{block.key:<14} area {r['area_um2']:8.1f} vs {o['area_um2']:8.1f} um^2 "
                    f"({o['area_um2'] / r['area_um2']:.2f}x); power {r['total_mw']:.4f} vs {o['power_mw']:.4f} mW "
                    f"({o['power_mw'] / r['total_mw']:.2f}x; simulated {o['detail']['power_simulated_mw']:.4f} mW "
                    f"{o['detail']['power_simulated_mw'] / r['total_mw']:.2f}x, density "
                    f"{o['detail']['power_density_mw'] / r['total_mw']:.2f}x, zero wire load "
                    f"{o['detail']['power_zero_wire_load_mw'] / r['total_mw']:.2f}x, with glitches and clock network "
                    f"{o['detail']['power_with_glitches_and_clock_network_mw'] / r['total_mw']:.2f}x)")
            if "generator" in e:
                g = e["generator"]
                line += (f"; generator {g['area_um2'] / r['area_um2']:.2f}x area, "
                         f"{g['power_mw'] / r['total_mw']:.2f}x power")
            print(line, flush=True)
    report = {"library": area["library"], "operating_conditions": power["operating_conditions"],
              "vdd_v": power["vdd_v"], "clock_mhz": clock_mhz, "messages": power["messages"]}
    if args.json:
        print(json.dumps({"report": report, "entries": entries}, indent=1))
    if args.write:
        write_entries(args.out, entries, report, commit, ours_commit)


def write_entries(out: Path, entries: list[dict], report: dict, commit: str, ours_commit: str | None) -> None:
    """Replace the FEATHER designs of ``out`` (``ThirdPartyFile``) by ``entries``; other designs are kept."""
    data = json.loads(out.read_text()) if out.exists() else {"designs": []}
    names = {e["name"] for e in entries}
    keep = [d for d in data.get("designs", []) if d.get("repository") != REPOSITORY or d["name"] not in names]
    keep = [d for d in keep if not (d.get("repository") == REPOSITORY and "report" not in d)]   # the placeholder
    activity = (f"DC vectorless defaults (no SAIF; PWR-414/415): toggle rate {DC_TOGGLE_RATE:g} of the clock and "
                f"static probability {DC_STATIC_PROBABILITY:g} on primary inputs and flip-flop outputs, propagated "
                "zero-delay (PWR-6)")
    for e in entries:
        r, o = e["report"], e["accelgen"]
        design = {"name": e["name"], "repository": REPOSITORY, "commit": commit, "path": e["path"], "top": e["top"],
                  "parameters": e["parameters"],
                  "report": {"tool": "Synopsys Design Compiler V-2023.12-SP2 (compile_ultra, report_power -hier)",
                             "library": f"TSMC 28HPC+ {report['library']} ({report['operating_conditions']})",
                             "node_nm": REPORT_NODE_NM, "vdd_v": report["vdd_v"], "clock_mhz": report["clock_mhz"],
                             "activity": activity, "file": f"{REPORT_DIR}/{REPORT_TOP}_area.rpt, _power.rpt; "
                                                           f"instance {r['instance']}",
                             "area_um2": r["area_um2"], "power_mw": round(r["total_mw"], 6),
                             "split": {k: r[k] for k in ("combinational_um2", "noncombinational_um2", "switching_mw",
                                                         "internal_mw", "leakage_mw")}},
                  "accelgen": _flow(o, ours_commit)}
        design["cause"] = cause(e, report["clock_mhz"])
        if "generator" in e:
            design["generator"] = _flow(e["generator"], ours_commit)
        keep.append(design)
    data["designs"] = keep
    ThirdPartyFile.model_validate(data)
    out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {out}")


def cause(entry: dict, clock_mhz: float) -> str:
    """What the difference between accelgen's figures and the report's is made of, from the measured detail."""
    r, o = entry["report"], entry["accelgen"]
    x = o["detail"]
    return (f"area: accelgen's cells ({x['flip_flops']:.0f} flip-flops, DC's sequential area / that count "
            f"{r['noncombinational_um2'] / max(x['flip_flops'], 1):.2f} um^2) scaled by the node rule's logic area "
            f"{x['area_factor']:.3f}; power at DC's vectorless semantics {o['power_mw'] / r['total_mw']:.2f}x "
            f"(transition density instead of DC's zero-delay simulation {x['power_density_mw'] / r['total_mw']:.2f}x); "
            f"simulated {x['power_simulated_mw'] / r['total_mw']:.2f}x (its flip-flop outputs toggle "
            f"{x['flop_output_toggle_rate']:.2f} per cycle where DC pins every one at {DC_TOGGLE_RATE:g}, PWR-415); "
            f"the flip-flops' clock pins give {x['flop_clock_internal_45nm_pj'] * x['energy_factor'] * clock_mhz / 1e3:.4f}"
            f" mW at {clock_mhz:g} MHz against DC's internal power {r['internal_mw']:.4f} mW (flip-flops and logic); with "
            f"glitches (ratio {x['glitch_ratio']:.2f}) and the clock network, outside DC's zero-delay ideal-clock "
            f"report, {x['power_with_glitches_and_clock_network_mw'] / r['total_mw']:.2f}x")


def _flow(o: dict, commit: str | None) -> dict:
    return {"command": o["command"], "commit": commit or "unknown",
            "activity": "DC's vectorless semantics (accelgen synth --vectorless): every input bit and flip-flop "
                        "output a random source at toggle rate 0.1 per cycle, static probability 0.5 (held inputs "
                        "held), the logic simulated zero-delay from them (DC's PWR-6); plus the flip-flops' clock-pin "
                        "internal energy (DC's ideal clock), no clock tree. detail.power_density_mw: transition "
                        "densities instead; detail.power_simulated_mw: inputs at that rate, flip-flops simulated",
            "area_um2": round(o["area_um2"], 3), "power_mw": round(o["power_mw"], 6),
            **({"note": o["note"]} if o.get("note") else {}), "detail": o["detail"]}


if __name__ == "__main__":
    main()
