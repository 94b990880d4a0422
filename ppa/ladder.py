"""``validate-components``: the reference ladder below the chip -- operators, cells and blocks, each published figure
beside accelgen's figure for the same quantity, computed the same way (issue 49).

The references live in ``ppa/data/references/components.yaml``: each has its source (paper or library, table, page),
its scope (operator, cell, block, compute array), its operating point (node, supply, clock), its activity semantics
and what it includes, the published value and where accelgen's figure comes from:

* ``operator``: accelgen's mapped flow on the operator alone, measured by ``bench/operator_ladder.py`` into
  ``accelgen_operators.json`` (the command never runs the flow: it stays fast);
* ``model``: a shipped fitted model at given inputs (``accelgen predict``);
* ``description``: an accelgen description estimated alone (its compute array's area or TDP), ``minus`` a second
  one for an overhead;
* ``chip``: a shipped chip's validate-chips figure, or ``share_of`` its area or TDP;
* ``none``: accelgen has no such unit (the reason is the row's cause).

Energies of a reference with a stated supply are compared at that supply: accelgen's energy scaled by
``(vdd_ref / vdd_lib)^2`` (dynamic energy goes with C V^2), both raw and scaled kept. An energy row compares the energy
with glitches (the timed simulation's ratio, as silicon switches) and shows the zero-delay ratio beside it.

Third-party RTL with commercial synthesis reports adds rows from ``third_party_rtl.json``, which a bench script fills
(:class:`ThirdPartyDesign`): the report's figures and accelgen's flow on the same Verilog; a design not yet measured
is listed with the reason.
"""

from __future__ import annotations

import json
import math
import statistics
import warnings
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .. import shipped
from ..errors import ConfigError
from ..fit.model import load_model
from ..util import read_yaml
from .arch import load_arch
from .chips import scope_total, validate_chip
from .docs import VALIDATION_DOC, replace_between
from .estimate import estimate, walk

_STRICT = ConfigDict(extra="forbid", frozen=True)
REFERENCES_DIR = Path(str(resources.files("accelgen.ppa"))) / "data" / "references"
COMPONENTS_FILE = REFERENCES_DIR / "components.yaml"
OPERATORS_FILE = REFERENCES_DIR / "accelgen_operators.json"
THIRD_PARTY_FILE = REFERENCES_DIR / "third_party_rtl.json"
Quantity = Literal["area_um2", "energy_pj", "area_mm2", "power_w", "share"]
UNITS = {"area_um2": "um^2", "energy_pj": "pJ", "area_mm2": "mm^2", "power_w": "W", "share": ""}


class Source(BaseModel):
    model_config = _STRICT
    cite: str
    note: str = ""


class AccelgenFigure(BaseModel):
    """Where accelgen's figure for a reference comes from: exactly one of the fields below (module docstring)."""

    model_config = _STRICT
    operator: str | None = None
    model: str | None = None
    inputs: dict[str, Any] = {}
    description: dict[str, Any] | None = None
    minus: dict[str, Any] | None = None
    chip: str | None = None
    share_of: list[str] | None = None          # breakdown paths of ``chip``: their share of the chip's ...
    of: Literal["area_mm2", "tdp_w"] = "area_mm2"  # ... area or TDP
    none: str | None = None

    @model_validator(mode="after")
    def _one_kind(self):
        kinds = [k for k in ("operator", "model", "description", "chip", "none") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError(f"give exactly one of operator, model, description, chip, none (got {kinds or 'none'})")
        if self.minus is not None and self.description is None:
            raise ValueError("minus subtracts a description's figure: give description too")
        if self.share_of is not None and self.chip is None:
            raise ValueError("share_of is a share of a shipped chip: give chip too")
        return self


class Reference(BaseModel):
    """One published figure and how accelgen computes the same quantity."""

    model_config = _STRICT
    id: str
    rung: str                        # what is compared (an operator, a block)
    source: str                      # a key of the file's sources
    where: str                       # table, figure, page or file of the source
    scope: Literal["operator", "cell", "block", "compute_array"]
    node_nm: float = Field(gt=0)
    vdd_v: float | None = Field(None, gt=0.3, le=2.0)
    clock_mhz: float | None = Field(None, gt=0)
    activity: str                    # the figure's activity semantics
    includes: str                    # what the figure includes
    quantity: Quantity
    value: float = Field(gt=0)
    accelgen: AccelgenFigure
    cause: str = ""                  # where the two differ ("unexplained" is allowed)


class ReferenceFile(BaseModel):
    model_config = _STRICT
    sources: dict[str, Source]
    references: list[Reference] = Field(min_length=1)

    @model_validator(mode="after")
    def _known_sources(self):
        unknown = sorted({r.source for r in self.references} - set(self.sources))
        if unknown:
            raise ValueError(f"references name unknown sources {unknown}; allowed: {sorted(self.sources)}")
        ids = [r.id for r in self.references]
        if len(ids) != len(set(ids)):
            raise ValueError(f"duplicate reference ids: {sorted({i for i in ids if ids.count(i) > 1})}")
        return self


class ReportFigures(BaseModel):
    """A commercial synthesis report's figures of one design, as the report states them."""

    model_config = _STRICT
    tool: str                        # e.g. "Synopsys Design Compiler"
    library: str                     # e.g. "TSMC 28HPC+"
    node_nm: float = Field(gt=0)
    vdd_v: float | None = None
    clock_mhz: float | None = None
    activity: str                    # e.g. "DC vectorless default toggle rates"
    file: str | None = None          # path of the report in the design's repository
    area_um2: float | None = Field(None, gt=0)
    power_mw: float | None = Field(None, gt=0)
    split: dict[str, float] = {}     # the report's own split (combinational / sequential area, switching / internal ...)


class FlowFigures(BaseModel):
    """accelgen's flow on the same Verilog (``accelgen synth``), scaled to the report's node, at the report's
    activity semantics (emulated), with the command that measured it."""

    model_config = _STRICT
    command: str
    commit: str                      # accelgen's commit
    activity: str
    area_um2: float | None = Field(None, gt=0)
    power_mw: float | None = Field(None, gt=0)
    note: str = ""                   # what a generator's design leaves out or adds against the third party's
    detail: dict[str, float | None] = {}   # raw 45 nm figures, scale factors, toggle rates (bench/third_party_ladder.py)


class ThirdPartyDesign(BaseModel):
    """Third-party RTL shipped with commercial synthesis reports: the repository, commit, path, top and parameters
    of the Verilog, the report's figures and accelgen's; ``generator``: accelgen's own generator for the same function
    through the same flow (generator quality); ``status`` says why a design is not measured yet."""

    model_config = _STRICT
    name: str
    repository: str
    commit: str | None = None
    path: str | None = None
    top: str | None = None
    parameters: dict[str, int | str] = {}
    report: ReportFigures | None = None
    accelgen: FlowFigures | None = None
    generator: FlowFigures | None = None
    cause: str = ""                  # where accelgen's figures and the report's differ
    status: str = ""

    @model_validator(mode="after")
    def _status(self):
        if (self.report is None or self.accelgen is None) and not self.status:
            raise ValueError(f"{self.name}: a design without report and accelgen figures says why (status)")
        return self


class ThirdPartyFile(BaseModel):
    model_config = _STRICT
    about: str = ""
    designs: list[ThirdPartyDesign] = []


def _parse(model, data, path: Path):
    try:
        return model.model_validate(data)
    except Exception as e:  # pydantic's ValidationError: one line per problem, with its field path
        errors = getattr(e, "errors", None)
        problems = [(".".join(map(str, err["loc"])) or str(path), err["msg"]) for err in errors()] if errors else \
            [(str(path), str(e))]
        raise ConfigError(problems, source=str(path)) from None


def load_references(path: str | Path = COMPONENTS_FILE) -> ReferenceFile:
    path = Path(path)
    return _parse(ReferenceFile, read_yaml(path), path)


def load_third_party(path: str | Path = THIRD_PARTY_FILE) -> ThirdPartyFile:
    path = Path(path)
    return _parse(ThirdPartyFile, json.loads(path.read_text()) if path.exists() else {}, path)


class Ladder:
    """Computes accelgen's figure of every reference, each estimate and chip validation once."""

    def __init__(self, refs: ReferenceFile, operators: dict, model_paths: dict | None = None):
        self.refs, self.ops, self.model_paths = refs, operators, model_paths
        self._estimates: dict[str, Any] = {}
        self._chips: dict[str, dict] = {}

    @cached_property
    def library_vdd_v(self) -> float:
        return float(self.ops.get("vdd_v", math.nan))

    def _estimate(self, description: dict):
        key = json.dumps(description, sort_keys=True)
        if key not in self._estimates:
            self._estimates[key] = self._quiet(estimate, description)
        return self._estimates[key]

    def _quiet(self, function, *args):
        """``function(*args)`` without printing its range warnings: an estimate keeps them (``warnings``)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return function(*args, model_paths=self.model_paths)

    def _chip(self, name: str) -> dict:
        if name not in self._chips:
            self._chips[name] = self._quiet(validate_chip, load_arch(shipped.resolve("chips", name)))
        return self._chips[name]

    def _scaled(self, ref: Reference, energy: float, own_vdd: float) -> float:
        """An energy at ``own_vdd`` carried to the reference's supply (C V^2), unchanged when it states none."""
        return energy * (ref.vdd_v / own_vdd) ** 2 if ref.vdd_v else energy

    def figure(self, ref: Reference) -> dict:
        """accelgen's figure of ``ref``: ``value`` (the compared one), and for energies the raw, scaled, timed and
        zero-delay figures; ``note`` says how it was computed."""
        a, q = ref.accelgen, ref.quantity
        if a.none is not None:
            return {"value": None, "note": a.none}
        if a.operator is not None:
            op = self.ops.get("operators", {}).get(a.operator)
            if op is None:
                return {"value": None, "note": f"operator {a.operator!r} not measured: run bench/operator_ladder.py"}
            note = f"{op['what']}; mapped at {self.ops['clock_mhz']:g} MHz, {self.ops['vdd_v']:g} V"
            fig = self._energy_or_area(ref, op, self.library_vdd_v, note)
            if q == "energy_pj" and op.get("by_profile"):
                # the same operator on other stimulus profiles' operands (accelgen.operand_profiles)
                fig["by_profile"] = {p: {k: v for k, v in self._energy_or_area(ref, e, self.library_vdd_v, "").items()
                                         if k in ("value", "zero_delay", "glitch_ratio")}
                                     for p, e in op["by_profile"].items()}
            return fig
        if a.model is not None:
            model = load_model(a.model, path=(self.model_paths or {}).get(a.model))
            pred = {k: float(v) for k, v in model.predict(node_nm=ref.node_nm, **a.inputs).items()}
            vdd = float(model.tech.get("vdd_v", self.library_vdd_v))
            inputs = " ".join(f"{k}={v}" for k, v in a.inputs.items())
            return self._energy_or_area(ref, pred, vdd, f"accelgen predict {a.model} {inputs} --node {ref.node_nm:g}")
        if a.description is not None:
            key = {"area_mm2": "area_mm2", "power_w": "tdp_w"}[q]
            est = self._estimate(a.description)
            value = scope_total(est.breakdown, "compute_array", key)[0]
            note = f"estimate of {a.description.get('name')} (compute array, {self._switching(a.description)})" + \
                "".join(f"; {w}" for w in est.warnings)
            if a.minus is not None:
                value -= scope_total(self._estimate(a.minus).breakdown, "compute_array", key)[0]
                note += f" minus {a.minus.get('name')}"
            return {"value": value, "note": note}
        if a.share_of is not None:
            est, key = self._estimate_chip(a.chip), a.of
            part = sum(m * node[key] for p, node, m in walk(est.breakdown) if p in a.share_of)
            total = est.breakdown[key]
            return {"value": part / total, "note": f"{a.chip}: {' + '.join(a.share_of)} / chip {key}"}
        row = self._chip(a.chip)
        fig = row.get("area" if q == "area_mm2" else "power")
        if fig is None:
            return {"value": None, "note": f"chip {a.chip} has no published {q} figure"}
        return {"value": fig["estimate"], "note": f"validate-chips {a.chip} ({fig['scope']}, {fig['kind']})"}

    def _estimate_chip(self, name: str):
        if name not in self._estimates:
            self._estimates[name] = self._quiet(estimate, load_arch(shipped.resolve("chips", name)))
        return self._estimates[name]

    @staticmethod
    def _switching(description: dict) -> str:
        return (description.get("activity") or {}).get("switching", "timed")

    def _energy_or_area(self, ref: Reference, figures: dict, vdd: float, note: str) -> dict:
        if ref.quantity == "area_um2":
            return {"value": figures["area_um2"], "note": note}
        timed, zero = figures["energy_pj"], figures["energy_zero_delay_pj"]
        return {"value": self._scaled(ref, timed, vdd), "zero_delay": self._scaled(ref, zero, vdd),
                "raw": timed, "raw_zero_delay": zero, "raw_vdd_v": vdd,
                "glitch_ratio": figures.get("glitch_ratio", timed / zero if zero else math.nan),
                "supply_scale": (ref.vdd_v / vdd) ** 2 if ref.vdd_v else 1.0, "note": note}


def _ratio(a: float | None, b: float) -> float | None:
    return None if a is None or not b else a / b


def ladder_rows(refs: ReferenceFile | None = None, operators: dict | None = None,
                third_party: ThirdPartyFile | None = None, model_paths: dict | None = None) -> list[dict]:
    """Every reference with accelgen's figure and the ratio accelgen / published (``None`` without a figure)."""
    refs = refs or load_references()
    operators = operators if operators is not None else json.loads(OPERATORS_FILE.read_text())
    lad = Ladder(refs, operators, model_paths)
    rows = []
    for ref in refs.references:
        fig = lad.figure(ref)
        rows.append({"id": ref.id, "rung": ref.rung, "kind": "reference", "source": ref.source,
                     "cite": refs.sources[ref.source].cite, "where": ref.where, "scope": ref.scope,
                     "operating_point": {"node_nm": ref.node_nm, "vdd_v": ref.vdd_v, "clock_mhz": ref.clock_mhz},
                     "activity": ref.activity, "includes": ref.includes, "quantity": ref.quantity,
                     "published": ref.value, "accelgen": fig, "ratio": _ratio(fig["value"], ref.value),
                     "ratio_zero_delay": _ratio(fig.get("zero_delay"), ref.value),
                     "ratio_by_profile": {p: {"ratio": _ratio(f["value"], ref.value),
                                              "ratio_zero_delay": _ratio(f["zero_delay"], ref.value)}
                                          for p, f in fig.get("by_profile", {}).items()},
                     "cause": ref.cause or (fig["note"] if fig["value"] is None else "")})
    for d in (third_party or load_third_party()).designs:
        rows.extend(_third_party_rows(d))
    return rows


def _third_party_rows(d: ThirdPartyDesign) -> list[dict]:
    """The design's row pair (area, power), and a generator-quality pair when accelgen has a generator for it."""
    rows = _figure_rows(d, d.accelgen, d.name, "third_party_rtl", d.cause or d.status)
    if d.generator is not None:
        rows += _figure_rows(d, d.generator, f"{d.name}: accelgen generator", "generator_quality", d.generator.note)
    return rows


def _figure_rows(d: ThirdPartyDesign, flow: FlowFigures | None, rung: str, kind: str, cause: str) -> list[dict]:
    out = []
    for quantity, key, scale in (("area_um2", "area_um2", 1.0), ("power_w", "power_mw", 1e-3)):
        pub = getattr(d.report, key) if d.report else None
        ours = getattr(flow, key) if flow else None
        if pub is None and d.report is not None:
            continue
        rep = d.report
        out.append({"id": f"{rung}-{quantity}", "rung": rung, "kind": kind, "source": d.repository,
                    "cite": f"{d.repository}" + (f" @ {d.commit[:7]}" if d.commit else ""),
                    "where": (rep.file if rep and rep.file else d.path) or "-", "scope": "block",
                    "operating_point": {"node_nm": rep.node_nm if rep else None, "vdd_v": rep.vdd_v if rep else None,
                                        "clock_mhz": rep.clock_mhz if rep else None},
                    "activity": rep.activity if rep else "-", "includes": f"top {d.top}" if d.top else "-",
                    "quantity": quantity, "published": pub * scale if pub is not None else None,
                    "accelgen": {"value": ours * scale if ours is not None else None,
                                 "note": flow.command if flow else d.status},
                    "ratio": _ratio(ours, pub) if pub is not None else None, "ratio_zero_delay": None,
                    "cause": cause})
    return out


def _num(v: float | None, quantity: str) -> str:
    if v is None:
        return "-"
    if quantity == "share":
        return f"{100 * v:.0f}%"
    return f"{v:,.0f} {UNITS[quantity]}" if abs(v) >= 1000 else f"{v:.3g} {UNITS[quantity]}"


def _operating_point(op: dict) -> str:
    parts = [f"{op['node_nm']:g} nm" if op.get("node_nm") else None, f"{op['vdd_v']:g} V" if op.get("vdd_v") else None,
             f"{op['clock_mhz']:g} MHz" if op.get("clock_mhz") else None]
    return ", ".join(p for p in parts if p) or "-"


def _accelgen_text(row: dict) -> str:
    fig, q = row["accelgen"], row["quantity"]
    if fig.get("value") is None:
        return "-"
    if "zero_delay" not in fig:
        return _num(fig["value"], q)
    scaled = f" at {row['operating_point']['vdd_v']:g} V" if fig["supply_scale"] != 1.0 else ""
    raw = f" ({fig['raw']:.3g} / {fig['raw_zero_delay']:.3g} at {fig['raw_vdd_v']:g} V)" if scaled else ""
    others = "".join(f"; {p} operands: {f['value']:.3g} pJ, zero-delay {f['zero_delay']:.3g}{scaled}"
                     for p, f in fig.get("by_profile", {}).items())
    return f"{fig['value']:.3g} pJ, zero-delay {fig['zero_delay']:.3g}{scaled}{raw}{others}"


def _ratio_text(row: dict) -> str:
    if row["ratio"] is None:
        return "-"
    zd = f" (zero-delay {row['ratio_zero_delay']:.2f}x)" if row["ratio_zero_delay"] is not None else ""
    others = "".join(f"; {p} operands: {r['ratio']:.2f}x (zero-delay {r['ratio_zero_delay']:.2f}x)"
                     for p, r in row.get("ratio_by_profile", {}).items())
    return f"{row['ratio']:.2f}x{zd}{others}"


TABLE_HEADERS = ("rung", "figure", "source", "scope", "operating point", "activity", "published", "accelgen", "ratio",
                 "cause")


def table_rows(rows: list[dict]) -> list[tuple[str, ...]]:
    """The ladder's table (:data:`TABLE_HEADERS`), one line per row."""
    return [(r["rung"], r["quantity"], f"{r['source']}: {r['where']}", r["scope"],
             _operating_point(r["operating_point"]), r["activity"], _num(r["published"], r["quantity"]),
             _accelgen_text(r), _ratio_text(r), r["cause"])
            for r in rows]


def summary(rows: list[dict]) -> dict:
    """How many rows, sources and ratios; the median ratio of energies (with glitches and zero-delay) and areas."""
    def median(values):
        values = [v for v in values if v is not None]
        return statistics.median(values) if values else None
    energy = [r for r in rows if r["quantity"] == "energy_pj"]
    area = [r for r in rows if r["quantity"] == "area_um2" and r["kind"] == "reference"]
    return {"rows": len(rows), "sources": len({r["source"] for r in rows}),
            "with_ratio": sum(r["ratio"] is not None for r in rows),
            "energy_ratio_median": median(r["ratio"] for r in energy),
            "energy_zero_delay_ratio_median": median(r["ratio_zero_delay"] for r in energy),
            "operator_energy_ratio_median_by_profile": {
                p: median(r["ratio_by_profile"][p]["ratio"] for r in energy if p in r.get("ratio_by_profile", {}))
                for p in sorted({p for r in energy for p in r.get("ratio_by_profile", {})})},
            "operator_area_ratio_median": median(r["ratio"] for r in area)}


def summary_line(rows: list[dict]) -> str:
    s = summary(rows)
    def x(v):
        return "-" if v is None else f"{v:.2f}x"
    return (f"{s['rows']} rows from {s['sources']} sources, {s['with_ratio']} with a ratio; operator and MAC energy "
            f"(at the reference's supply): median {x(s['energy_ratio_median'])} with glitches, "
            f"{x(s['energy_zero_delay_ratio_median'])} zero-delay"
            + "".join(f"; operators on {p} operands: median {x(v)}"
                      for p, v in s["operator_energy_ratio_median_by_profile"].items())
            + "; operator area: median "
            f"{x(s['operator_area_ratio_median'])}")


LADDER_BEGIN = (f"<!-- validate-components: begin (generated by `accelgen validate-components --doc {VALIDATION_DOC}`)"
                " -->")
LADDER_END = "<!-- validate-components: end -->"


def ladder_section(rows: list[dict]) -> str:
    """The ladder as a markdown table with its summary line (the generated part of ``docs/validation.md``)."""
    lines = ["| " + " | ".join(TABLE_HEADERS) + " |", "|" + "---|" * len(TABLE_HEADERS)]
    lines += ["| " + " | ".join(str(c).replace("|", "/") for c in row) + " |" for row in table_rows(rows)]
    return "\n".join(lines) + "\n\n" + summary_line(rows) + "\n"


def replace_ladder_section(text: str, rows: list[dict]) -> str:
    """``text`` (``docs/validation.md``) with the ladder's generated part regenerated from ``rows``."""
    return replace_between(text, LADDER_BEGIN, LADDER_END, ladder_section(rows))


__all__ = ["COMPONENTS_FILE", "LADDER_BEGIN", "LADDER_END", "OPERATORS_FILE", "THIRD_PARTY_FILE", "Ladder", "Reference",
           "ReferenceFile", "TABLE_HEADERS", "ThirdPartyDesign", "ThirdPartyFile", "ladder_rows", "ladder_section",
           "load_references", "load_third_party", "replace_ladder_section", "summary", "summary_line", "table_rows"]
