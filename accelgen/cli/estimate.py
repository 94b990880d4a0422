"""``accelgen estimate``, ``accelgen sram``, ``accelgen validate-chips``: parse options, call :mod:`accelgen.ppa`."""

from __future__ import annotations

import json

import click

from .. import shipped
from ..ppa.chips import TABLE_HEADERS, summary, summary_line, table_rows, validate_chips
from ..ppa.docs import replace_validation_table
from ..ppa.estimate import estimate, flatten
from ..ppa.plot import plot_breakdown
from ..ppa.sram import SRAM, check_die_area
from ..ppa.units.params import Memory
from .console import print_table, print_validation
from .options import model_paths

#: the SRAM cell of a description's memories unless it says otherwise (the Memory schema's default)
MEMORY_CELL = Memory.model_fields["cell"].default


@click.command("estimate")
@click.argument("arch_path", metavar="ARCH", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print the estimate as JSON.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), help="Draw the area and power breakdown (PNG).")
@click.option("--model", "models", multiple=True, metavar="FAMILY=FILE", help="Use this fitted model file.")
def estimate_cmd(arch_path, as_json, plot_path, models):
    """Area, TDP, clock, peak TOPS and the per-component breakdown of ARCH, an accelerator description
    (a YAML file or a shipped chip such as tpu_v1; see validate-chips)."""
    est = estimate(shipped.resolve("chips", arch_path), model_paths=model_paths(models))
    if plot_path:
        plot_breakdown(est, plot_path)
    if as_json:
        click.echo(est.to_json())
        return
    click.echo(f"{est.name}: {est.node_nm:g} nm, {est.vdd_v:g} V, clock {est.clock_mhz:.0f} MHz "
               f"(achievable {est.achievable_clock_mhz:.0f} MHz, critical: {est.critical_component}"
               + (f", {est.critical_path} {est.timing_paths[0]['delay_ns']:.3f} ns" if est.timing_paths else "")
               + ")")
    click.echo(f"peak {est.peak_tops:.3g} TOPS, area {est.area_mm2:.1f} mm^2, TDP {est.tdp_w:.2f} W "
               f"(leakage {est.leakage_w:.2f} W)" + (f", runtime {est.runtime_power_w:.2f} W"
                                                     if est.runtime_power_w is not None else ""))
    rows = [("  " * d + n["name"], str(n["count"]), f"{n['area_mm2']:.3f}", f"{n['tdp_w']:.3f}",
             f"{n['leakage_w']:.3f}", f"{n.get('delay_ns', 0):.3f}" if n.get("delay_ns") else "")
            for d, n in flatten(est.breakdown)]
    print_table(rows, ["component", "count", "area mm^2", "TDP W", "leakage W", "delay ns"])
    for c in est.pipelining:
        meets = "" if c["meets_clock"] is None else ", meets the clock" if c["meets_clock"] else \
            ", DOES NOT MEET the clock"
        r = c.get("mapping_ratio") or {}
        mapped = (f"; mapped at the clock's slack: area x{r['area_um2']:.2f}, energy x{r['energy_pj']:.2f}, "
                  f"zero-delay energy x{r['energy_zero_delay_pj']:.2f} against 1 GHz") if r else ""
        # a unit that misses the clock has its note among the warnings already
        why = f"; {c['note']}" if c.get("note") and c["meets_clock"] is not False else ""
        click.echo(f"  {c['component']}: mul_stages {c['mul_stages']}, add_stages {c['add_stages']} ({c['mode']}; "
                   f"delay {c['delay_ns']:.3f} ns{meets}; +{c['latency_cycles']} cycles latency, "
                   f"{c['area_um2_cost']:+.0f} um^2 and {c['energy_pj_cost']:+.3g} pJ/op per instance{mapped}{why})")
    for t in est.compute_models:
        err = ", ".join(f"{k} {v.get('mape_pct', float('nan')):.1f}%" for k, v in t["heldout_error"].items())
        click.echo(f"  {t['component']}: {t['model_file']} (held-out MAPE: {err})")


@click.command("sram")
@click.option("--capacity-bytes", type=int, required=True, help="Total capacity in bytes.")
@click.option("--block-bytes", type=int, default=64, show_default=True, help="Access width in bytes.")
@click.option("--banks", type=int, default=1, show_default=True, help="Banks.")
@click.option("--ports", default="1", show_default=True,
              help="Ports per bank: N read/write ports, or a port string (1rw, 1r1w, 2rw, 2r1w).")
@click.option("--node", "node_nm", type=float, default=45, show_default=True, help="Technology node (nm).")
@click.option("--cell", type=click.Choice(["sram", "sram_lp"]), default=MEMORY_CELL, show_default=True,
              help="High-performance (itrs-hp) or low-standby-power cells; the default is the estimator's (a "
                   "description's memories.cell).")
@click.option("--cacti", "cacti", type=click.Path(dir_okay=False), help="Evaluate with this CACTI 7 binary.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def sram_cmd(capacity_bytes, block_bytes, banks, ports, node_nm, cell, cacti, as_json):
    """The SRAM model alone: area, read/write energy, access/cycle time, leakage. A memory larger than one die can
    hold (the reticle limit) is refused."""
    r = SRAM(capacity_bytes=capacity_bytes, block_bytes=block_bytes, banks=banks, node_nm=node_nm, ports=ports,
             cell=cell, cacti=cacti, path="sram").result
    check_die_area(r.area_mm2, "--capacity-bytes", capacity_bytes, f"an SRAM of {banks} bank(s) at {node_nm:g} nm")
    d = {**r.to_dict(), "cell": cell}
    if as_json:
        click.echo(json.dumps(d, indent=1))
        return
    for k in ("area_mm2", "read_energy_pj", "write_energy_pj", "access_time_ns", "cycle_time_ns", "leakage_mw"):
        click.echo(f"{k:16s} {d[k]:.4g}")
    click.echo(f"organization     {d['organization']}  ({d['source']})")
    click.echo(f"cell             {cell}" + (" (the estimator's default)" if cell == MEMORY_CELL else ""))


@click.command("validate-chips")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: per chip, each figure's published value, estimate, "
              "error, scope, kind and the per-component comparison.")
@click.option("--doc", "--readme", "doc", type=click.Path(dir_okay=False, exists=True),
              help="Rewrite the validation table between the markers of this file (docs/validation.md).")
@click.option("--model", "models", multiple=True, metavar="FAMILY=FILE", help="Use this fitted model file.")
def validate_chips_cmd(as_json, doc, models):
    """Estimate every shipped chip and compare it with its paper's figures, like for like (each figure's scope:
    chip, core or compute array; and kind: TDP, measured on a workload, post-layout, ...)."""
    print_validation(validate_chips(model_paths=model_paths(models)), key="chips", as_json=as_json, doc=doc,
                     replace=replace_validation_table, headers=TABLE_HEADERS, table_rows=table_rows, summary=summary,
                     summary_line=summary_line)


COMMANDS = (estimate_cmd, sram_cmd, validate_chips_cmd)
