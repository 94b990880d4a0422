"""``accelgen tech show``: the node table with the source of every figure, and the scaling derived from it."""

from __future__ import annotations

import json

import click
from rich.table import Table

from ..fit.model import load_model
from ..technology import (FACTORS, FIGURES, LEAKAGE_FALLBACK, NodeData, model_scaling, node, node_table, scaling,
                          sources, tech_factor)
from .console import console

#: a figure's kind -> the mark after its value in the table
MARKS = {"published": "", "model": "", "derived": "*", "interpolated": "~", "assumed": "?", "missing": ""}
#: generic45.yaml's scaling keys for this table's factors
GENERIC45_KEYS = {"logic_area": "area", "sram_area": None, "delay": "delay", "energy": "energy", "leakage": "leakage"}


def _fmt(value, kind: str) -> str:
    return "-" if value is None else f"{value:.4g}{MARKS.get(kind, '')}"


def _node_rows(nodes: list[NodeData]) -> Table:
    t = Table("node nm", "process", "CPP nm", "MMP nm", "tracks", "cell h nm", "SRAM um^2", "Vdd V", "FO4 ps",
              "Ioff nA/um", title="Process data per node",
              caption="* derived  ~ interpolated  ? assumed  - none found (sources below)")
    for d in sorted(nodes, key=lambda d: -d.node_nm):
        t.add_row(f"{d.node_nm:g}", d.process, *(_fmt(getattr(d, f), d.figures[f].kind) for f in FIGURES))
    return t


def _sources(nodes: list[NodeData]) -> list[str]:
    """Every figure's kind, source key, place and note, then the citation of every key used."""
    lines, used = ["", "Sources of every figure (kind, source, where, note)"], set()
    for d in sorted(nodes, key=lambda d: -d.node_nm):
        lines.append(f"{d.node_nm:g} nm: {d.process}")
        for name, fig in d.figures.items():
            used.update(k for k in (fig.source, fig.via) if k)
            src = fig.source + (f" via {fig.via}" if fig.via else "")
            text = "; ".join(s for s in (src, fig.where, fig.note) if s)
            lines.append(f"  {name} = {_fmt(fig.value, fig.kind)} [{fig.kind}] {text}")
    lines += ["", "References"] + [f"  {k}: {v}" for k, v in sources().items() if k in used]
    return lines


def _generic45(node_nm: float) -> dict[str, float | None]:
    """The factors of fit/tech/generic45.yaml, which the models used before they carried the node table (``None``
    outside its table or for SRAM)."""
    from ..errors import ConfigError
    from ..fit.generic_gates import load_tech

    tech = load_tech("generic45")
    out = {}
    for name, key in GENERIC45_KEYS.items():
        try:
            out[name] = None if key is None else float(tech_factor(tech, node_nm, key))
        except ConfigError:
            out[name] = None
    return out


@click.group("tech")
def tech_group():
    """Technology nodes: published process data and the scaling factors derived from it."""


@tech_group.command("show")
@click.option("--node", "node_nm", type=float, help="Show one node (7..180 nm) with its scaling against 45 nm.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show_cmd(node_nm, as_json):
    """Print the node table (contacted gate pitch, metal pitch, cell height, SRAM bitcell, supply,
    FO4, off-current) with the source of every figure."""
    if node_nm is None:
        nodes = list(node_table())
        if as_json:
            click.echo(json.dumps({"reference_nm": 45, "sources": dict(sources()), "nodes": [d.to_dict() for d in nodes],
                                   "scaling": {f"{d.node_nm:g}": scaling(d.node_nm).to_dict() for d in nodes}},
                                  indent=1))
            return
        con = console()
        con.print(_node_rows(nodes))
        con.print("\n".join(_sources(nodes)), markup=False)
        return
    d = node(node_nm, "--node")
    s = scaling(node_nm, path="--node")
    old = _generic45(s.node_nm)
    # what a shipped model's delay is scaled by: the node ratio, and its library's FO4 against the 45 nm node's
    models = model_scaling().get(f"{d.node_nm:g}", {}) | {
        "delay": float(tech_factor(load_model("mac").tech, d.node_nm, "delay"))}
    if as_json:
        click.echo(json.dumps({"node": d.to_dict(), "scaling": s.to_dict(), "generic45_scaling": old,
                               "model_scaling": models}, indent=1))
        return
    con = console()
    con.print(_node_rows([d]))
    t = Table("factor vs 45 nm", "from process data", "fitted models use", "generic45.yaml (before)", "ratio",
              title=f"Scaling {d.node_nm:g} nm against 45 nm")
    for f in FACTORS:
        new, was = getattr(s, f), old[f]
        used = models.get({"logic_area": "area"}.get(f, f)) if f != "sram_area" else None
        ratio = f"{new / was:.2f}" if new is not None and was else "-"
        t.add_row(f, _fmt(new, ""), _fmt(used, ""), _fmt(was, ""), ratio)
    con.print(t)
    if d.ioff_na_per_um is None and models:
        con.print(f"fitted models: {LEAKAGE_FALLBACK}", markup=False)
    con.print("\n".join(_sources([d])), markup=False)


COMMANDS = (tech_group,)
