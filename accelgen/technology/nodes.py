"""Technology nodes from published process data, the scaling factors derived from them, and the scaling of a
fitted model's predictions to a node (:func:`tech_factor`).

The data is ``accelgen/data/nodes.yaml``: one entry per node (180, 130, 90, 65, 45, 32, 28, 22,
16, 14, 12, 7 nm) with contacted gate pitch, minimum metal pitch, track height / cell height,
6T SRAM bitcell area, nominal supply, FO4 delay and off-current, each with its source and a
``kind`` (published, derived, model, assumed). :func:`node_table` returns them as
:class:`NodeData`; :func:`node` looks one up; :func:`scaling` derives the factors relative to the
reference node (45 nm, the NanGate45 library the fitted models were characterized with).

How the table is completed (the loader, so that no hand-computed number sits in the data)

* ``fo4_ps`` with ``model: sb17`` is the Stillmaker & Baas (Integration 58, 2017) delay
  polynomial of that node evaluated at ``at_vdd_v``; the coefficients are in the data file.
* ``cell_height_nm`` left empty is ``track_height x mmp_nm``.
* Any other empty figure (``value: null`` with its ``reason``) is interpolated from the nearest
  tabulated nodes on both sides that have one, and marked ``interpolated``; with no neighbour on
  one side it stays ``None`` (never extrapolated).

Interpolation, here and between table entries, is log-linear: linear in log(node) and log(value),
as :mod:`accelgen.technology.constants` and :func:`tech_factor` interpolate. Every node argument is checked by
:func:`check_node` against the node table's range (:func:`node_range`), or against another table's nodes.

Derived factors (:func:`scaling`, node N against reference R; each is the ratio N / R)

``logic_area``  ``cpp_nm x cell_height_nm``: the footprint of one gate pitch of one standard-cell
                row. A netlist mapped to the same cells occupies the same number of such slots.
``sram_area``   ``sram_bitcell_um2``.
``delay``       ``fo4_ps``: gate delay at the node's supply.
``energy``      ``C x V^2`` with ``V = vdd_v`` and the switched capacitance taken proportional to
                ``cpp_nm`` (gate, junction and local-wire capacitance per gate all scale with the
                gate pitch to first order). An assumption, stated here; Stillmaker & Baas fit
                energy per node from simulation instead of deriving it from a pitch.
``leakage``     leakage power of the same netlist: ``ioff_na_per_um x vdd_v x`` device width. The
                width per area is taken as one device of width proportional to the cell height per
                contacted pitch, i.e. ``~ 1 / cpp_nm``; times the logic area that is ``~ cell
                height``, so ``leakage ~ ioff x vdd x cell_height_nm``. ``None`` where the node has
                no off-current (the FinFET nodes: none was found).

At the reference node every factor is 1 by construction. The reference's ``vdd_v`` is the
library's 1.1 V corner (energies were fitted there) while its FO4 is taken at the ITRS HP 1.0 V
the delay polynomial is fitted to: the delay factors compare nominal supplies. The foundry nodes
whose standard-cell libraries were read (28, 16, 7 nm: TSMC's typical corners, 0.9, 0.8, 0.75 V)
take that corner as ``vdd_v`` the same way, their FO4 staying at the device model's nominal.

The ``delay`` factor compares nodes. A fitted model's delays were measured in a cell library whose
own FO4 need not be its node's, so :func:`tech_factor` also scales them by FO4(node table) / FO4(library)
at the model's node.

FO4: the unit in which a library's delays carry to another process

A netlist's critical path, expressed in FO4 delays of the library it was timed with, is to first order
independent of that library's speed (Harris, Sutherland, Sproull, *Logical Effort*, 1999, ch. 1; Ho, Mai,
Horowitz, "The future of wires", Proc. IEEE 2001, measure logic in FO4 for that reason). The fitted models'
delays are therefore scaled to a node as ``delay x FO4(node) / FO4(library)``, with the node's FO4 from the
node table and the library's measured by its own delay model (:func:`accelgen.fit.sta.fo4_ps`), and not by the
node table's ratio alone, which would give every node the reference library's speed relative to its process.

Measured for the two libraries the project maps to (``python bench/osu018_compare.py --fo4``): NanGate45
(typical, 1.1 V) 21.7 ps, against the node table's 12.5 ps at 45 nm; Debian's osu018 (180 nm, 1.8 V) 99 ps.
Their ratio, 4.6, is about the ratio of the two libraries' mapped delays of the same designs (medians 4.3-4.4 for
the MAC, systolic array and TensorDash PE, 3.9 for FAN, osu018 mapped at the same clock in FO4 delays; bench/
RESULTS.md), where the node table's 180/45 nm ratio says 6.3.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from importlib import resources
from types import MappingProxyType

import numpy as np
import yaml

from ..errors import ConfigError

#: the figures every node has, in table order
FIGURES = ("cpp_nm", "mmp_nm", "track_height", "cell_height_nm", "sram_bitcell_um2", "vdd_v", "fo4_ps",
           "ioff_na_per_um")
FACTORS = ("logic_area", "sram_area", "delay", "energy", "leakage")
DATA_FILE = "nodes.yaml"


@dataclass(frozen=True)
class Figure:
    """One figure and where it comes from."""

    value: float | None
    kind: str               # published | derived | model | assumed | interpolated | missing
    source: str = ""        # key of the data file's ``sources`` (full citation: :func:`sources`)
    where: str = ""         # table / page / column
    via: str = ""           # key of the compilation it was read from
    note: str = ""          # the other source, the device flavour, the arithmetic, or why it is missing

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v not in ("", None) or k == "value"}


@dataclass(frozen=True)
class NodeData:
    """Process data of one node; ``None`` where nothing was found (see ``figures[name].note``)."""

    node_nm: float
    process: str
    cpp_nm: float
    mmp_nm: float
    track_height: float | None
    cell_height_nm: float
    sram_bitcell_um2: float
    vdd_v: float
    fo4_ps: float
    ioff_na_per_um: float | None
    figures: Mapping[str, Figure] = field(default_factory=dict, compare=False, repr=False)

    @property
    def logic_unit_um2(self) -> float:
        """Area of one contacted gate pitch of one cell row (the logic-area measure)."""
        return self.cpp_nm * self.cell_height_nm * 1e-6

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "figures"}
        out["sources"] = {k: f.to_dict() for k, f in self.figures.items()}
        return out


@dataclass(frozen=True)
class Scaling:
    """Multiplicative factors that take a quantity from ``ref_nm`` to ``node_nm``."""

    node_nm: float
    ref_nm: float
    logic_area: float
    sram_area: float
    delay: float
    energy: float
    leakage: float | None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


# --------------------------------------------------------------------------- loading

def _raw() -> dict:
    text = (resources.files("accelgen") / "data" / DATA_FILE).read_text()
    return yaml.safe_load(text)


def _sb17_delay(coefficients: dict, node: int, vdd: float) -> float:
    a3, a2, a1, a0 = coefficients[node]
    return ((a3 * vdd + a2) * vdd + a1) * vdd + a0


def _figure(raw: dict, name: str, entry: dict, node: int) -> Figure:
    citation, via = entry.get("source", ""), entry.get("via", "")
    unknown = [k for k in (citation, via) if k and k not in raw["sources"]]
    if unknown:
        raise ConfigError([(f"nodes.{node}.{name}", f"unknown source {unknown[0]!r}")], DATA_FILE)
    note = entry.get("note", "") or entry.get("reason", "")
    if entry.get("model") == "sb17":
        vdd = float(entry["at_vdd_v"])
        value = _sb17_delay(raw["sb17_delay_coefficients"], node, vdd)
        where = f"delay polynomial of the {node} nm model at {vdd:g} V"
        return Figure(value, "model", citation, where, via, entry.get("note", ""))
    value = entry.get("value")
    kind = entry.get("kind", "missing" if value is None else "published")
    return Figure(None if value is None else float(value), kind, citation, entry.get("where", ""), via, note)


def _loglog(x: float, x0: float, y0: float, x1: float, y1: float) -> float:
    t = (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0))
    return math.exp(math.log(y0) + t * (math.log(y1) - math.log(y0)))


def _fill_gaps(table: dict[int, dict[str, Figure]]) -> None:
    """Interpolate every empty figure between the nearest nodes on both sides that have it."""
    order = sorted(table)
    for name in FIGURES:
        if name in ("cell_height_nm", "track_height"):
            continue        # the cell height follows from tracks x MMP instead
        for i, n in enumerate(order):
            fig = table[n][name]
            if fig.value is not None:
                continue
            lo = next((m for m in reversed(order[:i]) if table[m][name].value is not None), None)
            hi = next((m for m in order[i + 1:] if table[m][name].value is not None), None)
            if lo is None or hi is None:
                continue
            value = _loglog(n, lo, table[lo][name].value, hi, table[hi][name].value)
            table[n][name] = Figure(value, "interpolated", note=f"log-linear between {lo} and {hi} nm; "
                                                                 f"not published: {fig.note}")


@functools.lru_cache(maxsize=1)
def sources() -> Mapping[str, str]:
    """Source key -> full citation."""
    return MappingProxyType(dict(_raw()["sources"]))


@functools.lru_cache(maxsize=1)
def node_table() -> tuple[NodeData, ...]:
    """Every tabulated node, smallest first."""
    raw = _raw()
    table: dict[int, dict[str, Figure]] = {}
    for node, entry in raw["nodes"].items():
        missing = [f for f in FIGURES if f not in entry]
        if missing:
            raise ConfigError([(f"nodes.{node}", f"no entry for {', '.join(missing)}")], DATA_FILE)
        table[int(node)] = {f: _figure(raw, f, entry[f], int(node)) for f in FIGURES}
        if "vdd_itrs_hp_v" in entry:
            table[int(node)]["vdd_itrs_hp_v"] = _figure(raw, "vdd_itrs_hp_v", entry["vdd_itrs_hp_v"], int(node))
    _fill_gaps(table)
    out = []
    for node in sorted(table):
        figs = table[node]
        height = figs["cell_height_nm"]
        if height.value is None:
            tracks, mmp = figs["track_height"], figs["mmp_nm"]
            figs["cell_height_nm"] = Figure(tracks.value * mmp.value, "derived",
                                            note=f"track_height ({tracks.kind}) x mmp_nm ({mmp.kind})")
        values = {f: figs[f].value for f in FIGURES}
        out.append(NodeData(node_nm=float(node), process=raw["nodes"][node]["process"], **values,
                            figures=MappingProxyType(dict(figs))))
    return tuple(out)


def node_range() -> tuple[float, float]:
    """The smallest and largest node of the node table (nm): the range every node argument is checked against."""
    nodes = [n.node_nm for n in node_table()]
    return min(nodes), max(nodes)


def check_node(node_nm, path: str = "node_nm", tabulated: Iterable[float] | None = None) -> float:
    """``node_nm`` as a float, or a :class:`ConfigError` naming ``path`` and the allowed range: that of the node
    table, or of the ``tabulated`` nodes of another table (CACTI's, :data:`accelgen.technology.constants.CACTI`)."""
    grid = sorted(float(n) for n in tabulated) if tabulated is not None else [n.node_nm for n in node_table()]
    lo, hi = grid[0], grid[-1]
    number = isinstance(node_nm, (int, float)) and not isinstance(node_nm, bool) and math.isfinite(node_nm)
    if not (number and lo <= float(node_nm) <= hi):
        shown = f"{float(node_nm):g}" if number else repr(node_nm)
        listed = ", ".join(f"{n:g}" for n in grid)
        raise ConfigError([(path, f"{shown} is outside the technology table; allowed: {lo:g}..{hi:g} nm "
                                  f"(tabulated: {listed})")])
    return float(node_nm)


def _neighbours(node_nm: float) -> tuple[NodeData, NodeData]:
    table = node_table()
    for a, b in itertools.pairwise(table):
        if a.node_nm <= node_nm <= b.node_nm:
            return a, b
    raise AssertionError(node_nm)       # check_node ran first


def node(node_nm, path: str = "node_nm") -> NodeData:
    """The tabulated node, or one interpolated between its neighbours (log-linear, marked so)."""
    n = check_node(node_nm, path)
    exact = {d.node_nm: d for d in node_table()}
    if n in exact:
        return exact[n]
    a, b = _neighbours(n)
    values, figs = {}, {}
    for f in FIGURES:
        va, vb = getattr(a, f), getattr(b, f)
        values[f] = None if va is None or vb is None else _loglog(n, a.node_nm, va, b.node_nm, vb)
        figs[f] = Figure(values[f], "interpolated" if values[f] is not None else "missing",
                         note=f"log-linear between {a.node_nm:g} and {b.node_nm:g} nm")
    return NodeData(node_nm=n, process=f"interpolated between {a.process} and {b.process}", **values,
                    figures=MappingProxyType(figs))


def _factors(n: NodeData, r: NodeData) -> dict[str, float | None]:
    leak = None
    if n.ioff_na_per_um is not None and r.ioff_na_per_um is not None:
        leak = (n.ioff_na_per_um * n.vdd_v * n.cell_height_nm) / (r.ioff_na_per_um * r.vdd_v * r.cell_height_nm)
    return {
        "logic_area": n.logic_unit_um2 / r.logic_unit_um2,
        "sram_area": n.sram_bitcell_um2 / r.sram_bitcell_um2,
        "delay": n.fo4_ps / r.fo4_ps,
        "energy": (n.cpp_nm * n.vdd_v ** 2) / (r.cpp_nm * r.vdd_v ** 2),
        "leakage": leak,
    }


def scaling(node_nm, ref_nm=45, path: str = "node_nm") -> Scaling:
    """Factors from ``ref_nm`` to ``node_nm`` (see the module docstring for each derivation).

    Between table entries each factor is interpolated log-linearly from the factors of the two
    neighbouring entries; ``leakage`` is ``None`` unless both neighbours have one.
    """
    n = check_node(node_nm, path)
    ref = node(check_node(ref_nm, "ref_nm"), "ref_nm")
    exact = {d.node_nm: d for d in node_table()}
    if n in exact:
        f = _factors(exact[n], ref)
    else:
        a, b = _neighbours(n)
        fa, fb = _factors(a, ref), _factors(b, ref)
        f = {k: None if fa[k] is None or fb[k] is None else _loglog(n, a.node_nm, fa[k], b.node_nm, fb[k])
             for k in FACTORS}
    return Scaling(node_nm=n, ref_nm=ref.node_nm, **f)


def model_scaling(ref_nm=45) -> dict[str, dict[str, float]]:
    """The node-scaling table a fitted model file carries (``tech.scaling``, read by
    :func:`tech_factor`): for every tabulated node, the ``area`` (logic area), ``delay``,
    ``energy`` and ``leakage`` factors of :func:`scaling` from ``ref_nm``.

    Where a node has no off-current (the FinFET nodes), its leakage factor holds the off-current at that of the
    nearest larger node that has one (22 nm's ITRS HP figure) and scales the rest (supply, cell height) as
    :func:`scaling` does: an assumption, stated in ``LEAKAGE_FALLBACK``; FinFET HP devices were specified near
    that off-current, but no published figure was read here."""
    ref = node(check_node(ref_nm, "ref_nm"), "ref_nm")
    if ref.ioff_na_per_um is None:
        raise ConfigError([("node_nm", f"{ref.node_nm:g} nm has no off-current in the node table: leakage cannot be "
                                       "scaled from it")])
    table, known = {}, None
    for n in sorted(node_table(), key=lambda d: -d.node_nm):
        f = _factors(n, ref)
        if n.ioff_na_per_um is not None:
            known = n.ioff_na_per_um
        elif known is not None:
            f["leakage"] = (known * n.vdd_v * n.cell_height_nm) / (ref.ioff_na_per_um * ref.vdd_v * ref.cell_height_nm)
        table[f"{n.node_nm:g}"] = {"area": f["logic_area"], "delay": f["delay"], "energy": f["energy"],
                                   "leakage": f["leakage"]}
    return table


#: what :func:`model_scaling` assumes where the data has no off-current
LEAKAGE_FALLBACK = ("leakage at nodes without an off-current (16, 14, 12, 7 nm): the off-current of the nearest "
                    "larger node that has one (22 nm), scaled by supply and cell height; assumed, not published")


def tech_factor(tech: dict, node_nm: float, quantity: str) -> np.ndarray | float:
    """Factor that scales ``quantity`` (area/energy/leakage/delay) of a fitted model from ``tech['node_nm']`` to
    ``node_nm``, from the scaling table the model file carries (``tech.scaling``, :func:`model_scaling` when it was
    written), log-linear between its nodes.

    A delay is carried in FO4 delays of the library it was measured with (see the module docstring): the table's
    ratio from the model's node to ``node_nm``, times the node table's FO4 at the model's node over the library's
    own (``tech.fo4_ps``). A file without ``fo4_ps`` (written before it was recorded) gets the ratio alone, i.e.
    takes its library to be exactly as fast as the node table's figure for its node."""
    table = {float(k): v for k, v in tech.get("scaling", {}).items()}
    ref = float(tech.get("node_nm", 0))
    if not table or ref not in table:
        raise ConfigError([("node_nm", "this model file has no technology scaling table")])
    nodes = np.array(sorted(table))
    node = np.asarray(node_nm, dtype=np.float64)
    if np.any(node < nodes[0]) or np.any(node > nodes[-1]):
        raise ConfigError([("node_nm", f"{node_nm!r} is outside the scaling table; allowed: "
                                       f"{nodes[0]:g}..{nodes[-1]:g} nm")])
    vals = np.log(np.array([table[n][quantity] for n in nodes], dtype=np.float64))
    factor = np.exp(np.interp(np.log(node), np.log(nodes), vals) - np.log(table[ref][quantity]))
    fo4 = tech.get("fo4_ps")
    if quantity == "delay" and fo4:
        factor = factor * (float(fo4["node"]) / float(fo4["library"]))
    return factor
