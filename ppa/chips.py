"""``validate-chips``: estimate every shipped chip and compare it with what its paper published, like with like.

Each chip's ``published:`` block (:mod:`accelgen.ppa.published`) gives every
figure's scope and kind. The validation computes the same quantity:

* area: the breakdown subtree of the scope (``chip`` includes the white space of
  :data:`accelgen.ppa.tree.DIE_WHITE_SPACE`, one rule for every die);
* power of kind ``tdp``: the estimate at full activity, over the scope;
* switching counted as the figure's flow counted it (``timed`` for silicon,
  ``zero_delay`` for a tool's average: :mod:`accelgen.ppa.published`), through
  ``activity.switching``;
* power on a workload (``measured``, or a tool's average with ``workload``): the
  description at the figure's clock and supply runs the workload through the
  performance model (:func:`accelgen.ppa.perf.evaluate`); the energy it spends
  on compute, vector unit, on-chip memory and DRAM over the run's time (the
  model's, or with ``activity_time: published`` the paper's, as NeuroMeter does
  for Eyeriss) gives each component class its activity, and the estimate at
  those activities gives the runtime power of every component (leakage always on);
* parts: each published component figure against the breakdown nodes it matches.

No chip has a correction factor: a chip that disagrees is explained by its
components (``parts``) and by the blocks its description leaves out
(``unmodelled``, with their published share).
"""

from __future__ import annotations

import fnmatch
import math
import warnings
from pathlib import Path

from .. import shipped
from ..errors import AccelgenError, ConfigError
from .arch import Activity, Arch, load_arch
from .estimate import dynamic_w_by_activity, estimate, walk
from .perf import evaluate
from .published import AreaFigure, Part, PowerFigure

#: breakdown-tree names of the compute units that are not part of a "compute array" scope
_NOT_ARRAY = ("vector_unit", "vector_regfile")
#: performance-model energy terms -> the activity key of the components that spend them
_ENERGY_KEYS = {"compute_j": "tensor", "vector_j": "vector", "sram_j": "memory", "dram_j": "dram",
                "pe_memory_j": "pe_memory"}


def _matching(tree: dict, patterns: list[str]) -> list[tuple[str, dict, float]]:
    """The topmost nodes whose path matches one of ``patterns`` (a match's descendants are not counted twice)."""
    out = []
    for p, node, m in walk(tree):
        if any(p == q or p.startswith(q + "/") for q, _, _ in out):
            continue
        if any(fnmatch.fnmatchcase(p, pat) for pat in patterns):
            out.append((p, node, m))
    return out


def _scope_patterns(tree: dict, scope: str) -> list[str] | None:
    """Path globs of a scope; None for the whole chip."""
    if scope == "chip":
        return None
    if scope == "core":
        return ["core"]
    units = [p for p, n, _ in walk(tree) if p.startswith("core/execution_units/") and p.count("/") == 2
             and n["name"] not in _NOT_ARRAY]
    return units or ["core/execution_units/*"]


def scope_total(tree: dict, scope: str, key: str) -> tuple[float, list[str]]:
    """The figure ``key`` (``area_mm2``, ``tdp_w``, ``leakage_w``, ...) of an estimate's breakdown ``tree`` summed over
    ``scope`` (``chip``, ``core`` or ``compute_array``), and the breakdown paths it covers."""
    return _total(tree, _scope_patterns(tree, scope), key)


def _total(tree: dict, patterns: list[str] | None, key: str) -> tuple[float, list[str]]:
    if patterns is None:
        return tree[key], [tree["name"]]
    hits = _matching(tree, patterns)
    return sum(n[key] * m for _, n, m in hits), [p for p, _, _ in hits]


def _parts(tree: dict, parts: list[Part], published_total: float, key: str) -> list[dict]:
    rows = []
    for part in parts:
        value, paths = _total(tree, part.match, key)
        pub = part.value if part.value is not None else part.share * published_total
        rows.append({"name": part.name, "published": pub, "estimate": value, "error_pct": _err(value, pub),
                     "matched": paths, "source": part.source})
    return rows


def _err(est: float, pub: float) -> float:
    return 100.0 * (est / pub - 1.0) if pub else math.nan


def _figure_patterns(tree: dict, fig) -> list[str] | None:
    """Path globs of a published figure: its scope's, and the paths it ``include``s beyond it."""
    patterns = _scope_patterns(tree, fig.scope)
    return patterns if patterns is None else patterns + list(fig.include)


def _area(est, fig: AreaFigure) -> dict:
    tree = est.breakdown
    value, paths = _total(tree, _figure_patterns(tree, fig), "area_mm2")
    return {"published": fig.mm2, "estimate": value, "error_pct": _err(value, fig.mm2), "scope": fig.scope,
            "kind": fig.kind, "source": fig.source, "matched": paths,
            "parts": _parts(tree, fig.parts, fig.mm2, "area_mm2")}


def _activity(spent: dict, full_w: dict, time_s: float) -> dict[str, float]:
    """Each component class's activity: the energy the performance model spent on it in ``time_s``, over what the
    class spends in that time at full activity."""
    act = {}
    for term, key in _ENERGY_KEYS.items():
        e = spent.get(term, 0.0)
        act[key] = min(1.0, e / (full_w[key] * time_s)) if full_w.get(key) and time_s > 0 else 0.0
    return act


def _at_activity(arch: Arch, act: dict[str, float]) -> Activity:
    """``arch``'s activity with the run's per-class ``act`` (every other class idle), its density, switching and
    operand profile."""
    return Activity(default=0.0, density=arch.density, switching=arch.switching, profile=arch.profile, **act)


def _workload_run(arch: Arch, fig: PowerFigure, model_paths: dict | None):
    """The performance model's run of the figure's workload, the full-activity power of each component class, the
    activity the run gives each class (:func:`_activity`), and the run's summary."""
    rep = evaluate(arch, fig.workload, batch=fig.batch, model_paths=model_paths)
    full_w = dynamic_w_by_activity(estimate(arch, model_paths=model_paths).breakdown)
    t = rep.total["time_s"]
    # the time the energy is spread over: the model's, or the paper's (PowerFigure.activity_time)
    spread = rep.batch / fig.inferences_per_s if fig.activity_time == "published" else t
    act = _activity(rep.total.get("energy_breakdown_j") or {}, full_w, spread)
    activity = _at_activity(arch, act)
    run = {"workload": rep.workload, "batch": rep.batch, "time_s": t, "activity_time_s": spread,
           "activity_time": fig.activity_time, "clock_mhz": rep.clock_mhz,
           "macs": rep.total.get("macs"), "dram_bytes": rep.total.get("dram_bytes"),
           "perf_power_w": rep.total.get("runtime_power_w"), "activity": act,
           "utilization": rep.total.get("utilization")}
    return rep, full_w, activity, run


def workload_activity(arch: Arch, fig: PowerFigure, model_paths: dict | None) -> tuple[Activity, dict]:
    """Activity of each component class while ``arch`` runs the figure's workload, and the run's summary."""
    _, _, activity, run = _workload_run(arch, fig, model_paths)
    return activity, run


def _layers(arch: Arch, fig: PowerFigure, rep, full_w: dict, scope: list[str], model_paths: dict | None
            ) -> list[dict]:
    """Each published layer against the same layer of the run ``rep``: its latency, and its power (the estimate at
    the activity the layer alone gives each component class, over the figure's scope)."""
    by_name = {lay["name"]: lay for lay in rep.layers}
    out = []
    for i, lf in enumerate(fig.layers):
        if lf.name not in by_name:
            raise ConfigError([(f"published.power.layers[{i}].name", f"{lf.name!r} is not a layer of workload "
                                f"{rep.workload!r}; allowed: {', '.join(by_name)}")])
        lay = by_name[lf.name]
        row = {"name": lf.name}
        if lf.latency_ms is not None:
            ms = 1e3 * lay["time_s"]
            row["latency_ms"] = {"published": lf.latency_ms, "estimate": ms, "error_pct": _err(ms, lf.latency_ms)}
        if lf.power_w is not None:
            spread = lf.latency_ms / 1e3 if fig.activity_time == "published" and lf.latency_ms else lay["time_s"]
            act = _activity(lay.get("energy_breakdown_j") or {}, full_w, spread)
            at = arch.model_copy(update={"activity": _at_activity(arch, act)})
            w, _ = _total(estimate(at, model_paths=model_paths).breakdown, scope, "runtime_w")
            row["power_w"] = {"published": lf.power_w, "estimate": w, "error_pct": _err(w, lf.power_w)}
        out.append(row)
    return out


def _power(arch: Arch, fig: PowerFigure, model_paths: dict | None, est) -> dict:
    """``est``: the estimate of ``arch`` as described, used when the figure is at that operating point at full
    activity."""
    at = {k: v for k, v in (("clock_mhz", fig.clock_mhz), ("vdd_v", fig.vdd_v)) if v is not None}
    if at:
        arch = arch.model_copy(update={**at, "target_tops": None} if "clock_mhz" in at else at)
    out = {"published": fig.w, "scope": fig.scope, "kind": fig.kind, "source": fig.source,
           "operating_point": {"clock_mhz": arch.clock_mhz, "vdd_v": arch.vdd_v}}
    switched = arch.switching != fig.counted_switching
    if switched:
        arch = arch.with_switching(fig.counted_switching)
    out["switching"] = fig.counted_switching
    key = "tdp_w"
    if fig.workload is not None:
        rep, full_w, activity, out["run"] = _workload_run(arch, fig, model_paths)
        arch = arch.model_copy(update={"activity": activity})
        key = "runtime_w"
    if at or switched or fig.workload is not None:
        est = estimate(arch, model_paths=model_paths)
    tree = est.breakdown
    value, paths = _total(tree, _figure_patterns(tree, fig), key)
    out.update(estimate=value, error_pct=_err(value, fig.w), matched=paths, parts=_parts(tree, fig.parts, fig.w, key))
    # the run's own published figures (layers, rate, energy per inference, off-chip traffic) beside the power they
    # explain
    if fig.layers:
        out["layers"] = _layers(arch, fig, rep, full_w, _figure_patterns(tree, fig), model_paths)
        out["layers_source"] = fig.layers_source
    if fig.inferences_per_s is not None:
        out["run_figures"] = _rate(out["run"], fig, value)
    if fig.dram_accesses_per_mac is not None:
        out.setdefault("run_figures", {})["dram_accesses_per_mac"] = _dram_traffic(out["run"], fig)
    return out


def _dram_traffic(run: dict, fig: PowerFigure) -> dict:
    """The run's off-chip accesses per MAC (the performance model's DRAM bytes in words of the figure's access)
    against the published ones."""
    if run.get("dram_bytes") is None:
        raise ConfigError([("published.power.dram_accesses_per_mac",
                            "the description has no off-chip memory (chip.offchip), so the run has no DRAM traffic")])
    est = run["dram_bytes"] * 8.0 / fig.dram_word_bits / run["macs"]
    return {"published": fig.dram_accesses_per_mac, "estimate": est,
            "error_pct": _err(est, fig.dram_accesses_per_mac)}


def _rate(run: dict, fig: PowerFigure, power_w: float) -> dict:
    """The run's rate against the published one, and the energy per inference each implies: average power is
    energy over time, so a power error is (1 + energy error) x (1 + rate error) - 1."""
    rate = run["batch"] / run["time_s"]
    # the estimate's power is over the time its activity was spread over (the model's or the paper's)
    energy_mj, pub_mj = 1e3 * power_w * run["activity_time_s"] / run["batch"], 1e3 * fig.w / fig.inferences_per_s
    return {"inferences_per_s": {"published": fig.inferences_per_s, "estimate": rate,
                                 "error_pct": _err(rate, fig.inferences_per_s)},
            "energy_per_inference_mj": {"published": pub_mj, "estimate": energy_mj,
                                        "error_pct": _err(energy_mj, pub_mj)}}


def validate_chip(arch: Arch, model_paths: dict | None = None) -> dict:
    """One chip's comparison (the row of :func:`validate_chips`)."""
    pub = arch.published
    row = {"chip": arch.name, "node_nm": arch.node_nm}
    if pub is None:
        row["error"] = "no published: block"
        return row
    row["source"] = pub.source
    row["evidence"] = pub.evidence
    if pub.unverified:
        row["unverified"] = list(pub.unverified)
    if pub.reference:
        row["reference"] = [r.model_dump() for r in pub.reference]
    row.update({k: v for k, v in (("clock_mhz", pub.clock_mhz), ("vdd_v", pub.vdd_v), ("dtype", pub.dtype))
                if v is not None})
    est = estimate(arch, model_paths=model_paths)
    row.update(estimate={"area_mm2": est.area_mm2, "tdp_w": est.tdp_w, "peak_tops": est.peak_tops,
                         "clock_mhz": est.clock_mhz, "meets_timing": est.meets_timing},
               published_tops=pub.tops,
               # what the estimate extrapolates (model inputs outside their fitted range) or cannot meet
               warnings=est.warnings)
    if pub.comparison:
        row["comparison"] = pub.comparison
    if pub.area:
        row["area"] = _area(est, pub.area)
    if pub.power:
        row["power"] = _power(arch, pub.power, model_paths, est)
    row["unmodelled"] = [u.model_dump() for u in pub.unmodelled]
    # the published shares only: a block without one is listed, not counted
    row["unmodelled_share"] = sum(u.share for u in pub.unmodelled if u.share is not None)
    return row


def validate_chips(directory: str | Path | None = None, model_paths: dict | None = None) -> list[dict]:
    """One row per chip of ``directory`` (``*.yaml``; default: the shipped chips)."""
    if directory is None:
        paths = [shipped.path("chips", name) for name in shipped.names("chips")]
    else:
        paths = sorted(Path(directory).glob("*.yaml"))
    rows = []
    for path in paths:
        arch = load_arch(path)
        # a chip is estimated several times (its area, its power at the figure's operating point): each of its
        # warnings is said once, with the chip's name
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                row = validate_chip(arch, model_paths)
            except AccelgenError as exc:
                row = {"chip": arch.name, "error": str(exc)}
        for message in dict.fromkeys(str(w.message) for w in caught):
            warnings.warn(f"{arch.name}: {message}", UserWarning, stacklevel=2)
        row["file"] = path.name
        rows.append(row)
    return rows


def _evidence(row: dict) -> str:
    return row.get("evidence", "paper")


def _means(rows: list[dict]) -> dict:
    out = {}
    for q in ("area", "power"):
        errs = [abs(r[q]["error_pct"]) for r in rows if q in r and math.isfinite(r[q]["error_pct"])]
        out[q] = {"chips": len(errs), "mean_abs_error_pct": sum(errs) / len(errs) if errs else math.nan,
                  "max_abs_error_pct": max(errs, default=math.nan)}
    return out


def summary(rows: list[dict]) -> dict:
    """Mean and worst |error| over the chips with an absolute figure, per quantity: the headline over the
    descriptions checked against their papers (``evidence: paper``), and apart from it (``from_abstracts``) over
    those whose source could not be read."""
    out = _means([r for r in rows if _evidence(r) == "paper"])
    out["from_abstracts"] = _means([r for r in rows if _evidence(r) == "abstract"])
    return out


TABLE_HEADERS = ("chip", "node", "figure", "scope", "kind", "estimate", "published", "error")
_UNITS = {"area": ("mm^2", "{:.1f}"), "power": ("W", "{:.3g}")}
_RUN_FIGURE_LABELS = {"inferences_per_s": "inferences/s (performance model)",
                "energy_per_inference_mj": "energy per inference mJ",
                "dram_accesses_per_mac": "DRAM accesses per MAC (performance model)"}


def table_rows(rows: list[dict], parts: bool = True) -> list[tuple[str, ...]]:
    """Rows of the validation table (:data:`TABLE_HEADERS`): per chip its area and power, then their parts; the
    descriptions checked against their papers first, then, under a heading row, those from abstracts with what they
    take on trust."""
    paper = [r for r in rows if _evidence(r) == "paper"]
    abstract = [r for r in rows if _evidence(r) == "abstract"]
    out = _chip_rows(paper, parts)
    if abstract:
        out.append(("descriptions from abstracts (not in the means above)", "", "", "", "", "", "", ""))
        out += _chip_rows(abstract, parts)
    return out


def _chip_rows(rows: list[dict], parts: bool) -> list[tuple[str, ...]]:
    out = []
    for r in rows:
        node = f"{r.get('node_nm', float('nan')):g} nm"
        if "error" in r:
            out.append((r["chip"], node, "-", "-", "-", "-", "-", r["error"]))
            continue
        if "comparison" in r and "area" not in r and "power" not in r:
            out.append((r["chip"], node, "-", "-", "-", "-", "-", r["comparison"]))
            continue
        for q in ("area", "power"):
            if q not in r:
                continue
            f = r[q]
            unit, fmt = _UNITS[q]
            kind = f["kind"] + (f" ({f['run']['workload']})" if "run" in f else "") + \
                (", zero-delay" if f.get("switching") == "zero_delay" else "")
            out.append((r["chip"], node, f"{q} {unit}", f["scope"], kind, fmt.format(f["estimate"]),
                        f"{f['published']:g}", f"{f['error_pct']:+.0f}%"))
            for p in f["parts"] if parts else ():
                out.append(("", "", f"  {p['name']}", "", "", fmt.format(p["estimate"]), fmt.format(p["published"]),
                            f"{p['error_pct']:+.0f}%"))
            for name, c in f.get("run_figures", {}).items() if parts else ():
                out.append(("", "", f"  {_RUN_FIGURE_LABELS[name]}", "", "", f"{c['estimate']:.3g}",
                            f"{c['published']:.3g}", f"{c['error_pct']:+.0f}%"))
            for lay in f.get("layers", []) if parts else ():
                for key, label in (("latency_ms", "latency ms"), ("power_w", "power W")):
                    if key in lay:
                        c = lay[key]
                        out.append(("", "", f"  {lay['name']} {label}", "", "", f"{c['estimate']:.3g}",
                                    f"{c['published']:.3g}", f"{c['error_pct']:+.0f}%"))
            # the unmodelled blocks' shares are of the die's area: listed under the area figure
            if parts and q == "area" and r.get("unmodelled"):
                names = ", ".join(u["name"] + (f" {100 * u['share']:.0f}%" if u["share"] is not None else "")
                                  for u in r["unmodelled"])
                unknown = any(u["share"] is None for u in r["unmodelled"])
                known = f"{100 * r['unmodelled_share']:.0f}%" if r["unmodelled_share"] else ""
                share = (f"{known} + ?" if known else "not published") if unknown else known
                out.append(("", "", "  not modelled (share of the area)", "", "", "", share, names))
            for ref in r.get("reference", []) if parts else ():
                value = ref.get("area_mm2" if q == "area" else "power_w")
                if value is not None:
                    out.append(("", "", f"  {ref['tool']}'s own estimate", "", "", fmt.format(value),
                                f"{f['published']:g}", f"{_err(value, f['published']):+.0f}%"))
        if parts and r.get("unverified"):
            out.append(("", "", "  unverified", "", "", "", "", "; ".join(r["unverified"])))
    return out


def summary_line(rows: list[dict]) -> str:
    s = summary(rows)
    line = "; ".join(f"{q}: mean |error| {s[q]['mean_abs_error_pct']:.0f}%, worst {s[q]['max_abs_error_pct']:.0f}% "
                     f"over {s[q]['chips']} chips" for q in ("area", "power"))
    rest = s["from_abstracts"]
    if rest["area"]["chips"] or rest["power"]["chips"]:
        line += " (descriptions from papers); from abstracts: " + "; ".join(
            f"{q} {rest[q]['mean_abs_error_pct']:.0f}% over {rest[q]['chips']}" for q in ("area", "power"))
    return line
