"""Synthesis + activity sweeps over a parameter grid, with a content-addressed cache.

A sweep file (``fit/sweeps/<name>.yaml``) names the family, the grid of
generator parameters to fit on, a separate ``heldout`` grid of points never used
for fitting, derived parameters (``acc_width: "a_width + b_width + 8"``), the
operand densities to simulate and the features of each regression target::

    family: mac
    densities: [1.0, 0.5, 0.1]
    cycles: 192            # simulated cycles per stream
    lanes: 32              # independent streams (seeds), simulated bit-parallel
    grid:                  # a list of blocks; each block is a cartesian product
      - {a_width: [4, 8, 16], b_width: [4, 8], zero_gating: [false, true], input_reg: [true]}
    derived: {acc_width: "a_width + b_width + 8"}
    heldout:
      - {a_width: [6, 12], b_width: [6], zero_gating: [false, true], input_reg: [true]}
    targets: {area_um2: {features: [...], positive: true}, energy_pj: {features: [...]}, ...}
    clock_mhz: 1000        # the target clock of the timing-driven mapping (default 1000, at the library's node)
    glitch_samples: 4      # training points that also get a timed simulation (fit/glitch.py)
    glitch_extra:          # and these training points (a datapath option such as flush_subnormals: its own samples)
      - {a_width: 8, b_width: 8, zero_gating: true, input_reg: true}

``positive: true`` fits non-negative coefficients (every feature an amount of hardware that can only add), so the
form cannot turn negative outside the fitted range.

Model variants: a sweep and its model are named ``<family>`` or ``<family>-<variant>``
(``mac-bf16``: the MAC family with ``dtype: bf16`` pinned in the grid). A variant's sweep file
``fit/sweeps/mac-bf16.yaml`` must say ``family: mac``; its dataset is ``fit/data/mac-bf16.csv`` and
its model ``fit/models/mac-bf16.json`` (``load_model("mac-bf16")``). When the variant is a datatype
(``fp16``, ``bf16``, ``fp32``) every point of the sweep must have that ``dtype``. The point cache is
per family and keyed by what each point measures (below), so a variant reuses nothing it should not and
recomputes nothing it need not.

Each point is generated (:func:`accelgen.gen.emit.render`), its stimuli drawn at every density, and the design
mapped, timed and simulated (:mod:`accelgen.fit.measure`). The result is stored under ``cache_dir("sweep",
family)`` by the content key of that measurement: the Verilog, the block modules, the stimuli, the clock, the
library, the code of the measuring flow and the tool versions (:func:`accelgen.fit.measure.measurement_key`). An
interrupted sweep resumes, and a point is only measured again when what it measures changes: a generator edit that
leaves its Verilog and stimuli byte-identical costs the second or so of rendering it. Points run in parallel
processes (:class:`accelgen.executor.Executor`), with a rich progress bar and ETA.

The dataset (:func:`dataset`) is one row per (point, density): parameters,
``split`` (train/heldout), cells by type (``cell:$_AND_``...), flip-flops,
transistors, logic depth, toggles per cycle by driving cell (``tog:$_XOR_``...),
operations per cycle, tool versions and the technology-mapped targets; ``key`` identifies the point (a hash of
its family and parameters) and ``measurement`` the cached measurement it shares with every point of the same
Verilog and stimuli.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable

import yaml
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ..errors import ConfigError
from ..executor import Executor
from ..family import BlockFamily, find_family
from ..fpformat import FP_DTYPES
from ..gen.emit import render
from ..operand_profiles import PROFILES
from ..util import cache_dir, canonical_json, sha256_hex, write_atomic
from .glitch_samples import glitch_points, glitch_ratios, listed_as
from .mapping import DEFAULT_CLOCK_MHZ, check_clock
from .measure import Design, measure, measurement_key, versions
from .model import compile_feature
from .stimuli import point_stimuli

_TOP = "dut"

_NAME_RE = r"^[a-z][a-z0-9_]*(-[a-z0-9_]+)?$"


def split_name(name: str) -> tuple[str, str | None]:
    """``"mac-bf16" -> ("mac", "bf16")``, ``"mac" -> ("mac", None)``; a malformed name is a ConfigError."""
    if not isinstance(name, str) or not re.match(_NAME_RE, name):
        raise ConfigError([("name", (f"{name!r} is not allowed; expected FAMILY or FAMILY-VARIANT "
                                    "(lower case letters, digits, '_'; e.g. mac, mac-bf16)"))])
    fam, _, var = name.partition("-")
    return fam, var or None


@dataclass
class SweepSpec:
    family: str
    grid: list[dict]
    heldout: list[dict] = field(default_factory=list)
    derived: dict[str, str] = field(default_factory=dict)
    densities: list[float] = field(default_factory=lambda: [1.0])
    profile: str | None = None              # the operands' stimulus profile (None: the family's default)
    cycles: int = 192
    lanes: int = 32
    seed: int = 1
    clock_mhz: float = DEFAULT_CLOCK_MHZ   # the target clock every point is mapped at
    glitch_samples: int = 4                # training points that also get a timed (glitch) simulation
    glitch_extra: list[dict] = field(default_factory=list)   # training points sampled besides those (as in the grid)
    targets: dict[str, dict] = field(default_factory=dict)
    source: str = ""
    name: str = ""          # model name: the family or "<family>-<variant>" (default: the family)
    block: Any = None       # the BlockFamily object of ``family`` (set by load_sweep)

    def __post_init__(self):
        self.name = self.name or self.family

    def points(self) -> list[tuple[str, dict]]:
        """``[(split, params)]``: every grid point (train) then every held-out point."""
        out, seen = [], set()
        for split, blocks in (("train", self.grid), ("heldout", self.heldout)):
            for bi, block in enumerate(blocks):
                keys = list(block)
                for combo in itertools.product(*(block[k] if isinstance(block[k], list) else [block[k]]
                                                 for k in keys)):
                    params = dict(zip(keys, combo, strict=False))
                    for name, expr in self.derived.items():
                        if name not in params:
                            val = compile_feature(expr, set(params))(params)
                            params[name] = int(val) if float(val).is_integer() else float(val)
                    k = canonical_json(params)
                    if k in seen:
                        if split == "heldout":
                            raise ConfigError([(f"{self.source}.heldout[{bi}]", (f"point {k} is also in the grid; "
                                                                                "held-out points must be unseen"))])
                        continue
                    seen.add(k)
                    out.append((split, params))
        return out


def _sweeps_dir():
    """The package's ``fit/sweeps`` directory (a Traversable)."""
    return resources.files("accelgen.fit") / "sweeps"


def load_sweep(name: str, path: str | Path | None = None, *, families: dict[str, BlockFamily]) -> SweepSpec:
    """Read a sweep file (default: the shipped ``fit/sweeps/<name>.yaml``) of one of ``families``
    (name -> family, e.g. :data:`accelgen.registry.FAMILIES`).

    ``name`` is a family (``mac``) or a variant (``mac-bf16``); a variant's file must name its block
    family (``family: mac``) and, when the variant is a datatype, pin that ``dtype`` at every point.
    """
    fam_name, variant = split_name(name)
    if path is None:
        res = _sweeps_dir() / f"{name}.yaml"
        if not res.is_file():
            raise ConfigError([("grid", f"no shipped sweep for {name!r}; give --grid FILE")])
        data, src = read_sweep_file(res, f"sweeps/{name}.yaml")
    else:
        data, src = read_sweep_file(path)
    allowed = {"family", "grid", "heldout", "derived", "densities", "profile", "cycles", "lanes", "seed", "clock_mhz",
               "glitch_samples", "glitch_extra", "targets"}
    problems = [(f"{src}.{k}", f"unknown key; allowed: {', '.join(sorted(allowed))}") for k in data if k not in allowed]
    if variant is not None and "family" not in data:
        problems.append((f"{src}.family", (f"missing; the sweep of variant {name!r} must name its block family "
                                          f"(family: {fam_name})")))
    elif data.get("family", fam_name) != fam_name:
        problems.append((f"{src}.family", (f"{data.get('family')!r} does not match the requested "
                                          f"{'variant' if variant else 'family'} {name!r} (expected {fam_name!r})")))
    problems += settings_problems(data, src)
    if problems:
        raise ConfigError(problems)
    spec = SweepSpec(family=fam_name, name=name, block=find_family(families, fam_name, f"{src}.family"),
                     **spec_settings(data, src))
    return check_points(spec, variant)


def read_sweep_file(path, src: str | None = None) -> tuple[dict, str]:
    """A sweep file's mapping (``path``: a path or a package resource) and its name for messages (``src``, default
    the path as given)."""
    src = src or str(path)
    try:
        data = yaml.safe_load(path.read_text() if hasattr(path, "read_text") else Path(path).read_text())
    except OSError as exc:
        raise ConfigError([("grid", f"{str(path)!r} cannot be read: {exc.strerror}")]) from None
    except yaml.YAMLError as exc:
        raise ConfigError([(src, f"malformed YAML: {exc}")]) from None
    if not isinstance(data, dict):
        raise ConfigError([(src, "expected a mapping")])
    return data, src


def settings_problems(data: dict, src: str) -> list[tuple[str, str]]:
    """The problems of a sweep file's grid and simulation settings (every sweep file has them)."""
    problems = []
    if not isinstance(data.get("grid"), list) or not data["grid"]:
        problems.append((f"{src}.grid", "expected a non-empty list of parameter blocks"))
    dens = data.get("densities", [1.0])
    if not isinstance(dens, list) or not all(isinstance(d, (int, float)) and 0 <= d <= 1 for d in dens):
        problems.append((f"{src}.densities", f"{dens!r} is not allowed; expected a list of numbers in 0..1"))
    if data.get("profile", "uniform") not in PROFILES:
        problems.append((f"{src}.profile", (f"{data['profile']!r} is not a stimulus profile; allowed: "
                                           f"{', '.join(PROFILES)}")))
    for key, lo, hi in (("cycles", 8, 100_000), ("lanes", 1, 64), ("glitch_samples", 0, 1000)):
        v = data.get(key, 8)
        if not isinstance(v, int) or not lo <= v <= hi:
            problems.append((f"{src}.{key}", f"{v!r} is not allowed; expected an integer in {lo}..{hi}"))
    clock = data.get("clock_mhz", DEFAULT_CLOCK_MHZ)
    try:
        check_clock(clock)
    except ConfigError as exc:
        problems += [(f"{src}.clock_mhz", msg) for _, msg in exc.problems]
    return problems


def spec_settings(data: dict, src: str) -> dict:
    """The :class:`SweepSpec` fields of a checked sweep file (:func:`settings_problems`) but its block and names."""
    return {"grid": data["grid"], "heldout": data.get("heldout") or [], "derived": data.get("derived") or {},
            "densities": [float(d) for d in data.get("densities", [1.0])], "profile": data.get("profile"),
            "cycles": data.get("cycles", 192), "lanes": data.get("lanes", 32), "seed": data.get("seed", 1),
            "clock_mhz": float(data.get("clock_mhz", DEFAULT_CLOCK_MHZ)),
            "glitch_samples": data.get("glitch_samples", 4), "glitch_extra": data.get("glitch_extra") or [],
            "targets": data.get("targets") or {}, "source": src}


def check_points(spec: SweepSpec, variant: str | None = None) -> SweepSpec:
    """Validate every point of ``spec`` with its block (and a datatype variant's ``dtype``); return ``spec``."""
    src, name = spec.source, spec.name
    fam = spec.block
    train = [p for split, p in spec.points() if split == "train"]
    for i, extra in enumerate(spec.glitch_extra):
        if not isinstance(extra, dict) or not any(listed_as(p, extra, spec) for p in train):
            raise ConfigError([(f"{src}.glitch_extra[{i}]",
                                (f"{extra!r} is not a training point of the grid; allowed: a point of a grid block, "
                                "as the block lists it"))])
    for i, (split, params) in enumerate(spec.points()):
        where = f"{src}.{split}[{i}]"
        p = fam.validate(params, path=where)
        if variant in FP_DTYPES and getattr(p, "dtype", "int") != variant:
            raise ConfigError([(f"{where}.dtype", (f"{getattr(p, 'dtype', 'int')!r} is not allowed in the sweep of "
                                                  f"{name!r}; pin dtype: {variant} in its grid and heldout blocks"))])
    return spec


def point_design(job: dict) -> Design:
    """What a sweep point measures: its Verilog (:func:`accelgen.gen.emit.render`), the modules its family maps as
    blocks, and its stimuli at every density (one density when the family's stimulus ignores it)."""
    fam = job["block"]
    if getattr(fam, "external", False):     # a user's Verilog module (fit/external_sweep.py): read, not rendered
        return fam.design(job)
    params = fam.validate(job["params"])
    e = render(fam, params, _TOP)
    stimuli = point_stimuli(fam, params, job["densities"], job["cycles"], job["lanes"], job["seed"],
                            job.get("profile"))
    return Design(verilog=e.verilog, top=_TOP, cells=tuple(fam.mapped_cells(e.manifest)), stimuli=stimuli,
                  clock_mhz=job["clock_mhz"], liberty=job.get("liberty"), glitch=bool(job.get("glitch")))


def point_job(spec: SweepSpec, split: str, params: dict, liberty: str | None = None, glitch: bool = False) -> dict:
    """A sweep point as its worker measures it (:func:`point_design`): the family, the point and the sweep's
    stimulus, clock and library settings; ``glitch``: it also gets a timed simulation."""
    return {"family": spec.family, "block": spec.block, "params": params, "split": split,
            "densities": spec.densities, "profile": spec.profile, "cycles": spec.cycles, "lanes": spec.lanes,
            "seed": spec.seed, "clock_mhz": spec.clock_mhz, "liberty": liberty, "glitch": glitch}


def point_key(job: dict) -> str:
    """The cache key of a sweep point: the content key of its measurement
    (:func:`accelgen.fit.measure.measurement_key`). Rendering the point and drawing its stimuli take about a second;
    the measurement takes far longer."""
    return measurement_key(point_design(job))


def run_point(job: dict) -> dict:
    """Generate, map, time and simulate one point (runs in a worker process); return the record: the point
    (family, parameters, split, key) and its measurement (:func:`accelgen.fit.measure.measure`)."""
    design = point_design(job)
    return {**_point_fields(job, measurement_key(design)), **measure(design), "versions": versions(),
            "density_aware": bool(getattr(job["block"], "activity_table", None))}


def _point_fields(job: dict, key: str) -> dict:
    return {"family": job["family"], "params": job["params"], "split": job["split"], "key": key}


def run_sweep(spec: SweepSpec, jobs: int | None = None, liberty: str | None = None,
              progress: bool = True, on_point: Callable[[dict], None] | None = None,
              limit: int | None = None) -> list[dict]:
    """Run (or resume) every point of ``spec``; return the records (cached ones included), in the sweep's order.

    Every point is first rendered and its stimuli drawn, for its key (:func:`point_key`); a point whose measurement
    is cached under ``cache_dir("sweep", family)`` is reused (under its own parameters and split: two points with the
    same Verilog and stimuli share a measurement, measured once). The other measurements (at most ``limit``) run on
    an :class:`~accelgen.executor.Executor` of ``jobs`` processes (``jobs=1``: in this process), each written to the
    cache as soon as it finishes and handed to ``on_point``.
    """
    store = cache_dir("sweep", spec.family)
    sampled = glitch_points(spec)
    points = [point_job(spec, split, params, liberty, canonical_json(params) in sampled)
              for split, params in spec.points()]
    done: dict[int, dict] = {}
    cols = [TextColumn(f"sweep {spec.name}"), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn()]
    with Progress(*cols, disable=not progress, transient=False) as bar, Executor(jobs or None) as pool:
        keying = bar.add_task("keys", total=len(points))
        keys = [None] * len(points)
        for i, key in pool.map_unordered(point_key, points):
            keys[i] = key
            bar.advance(keying)
        sharing: dict[str, list[int]] = {}    # points of one measurement not yet cached: measured once
        for i, (job, key) in enumerate(zip(points, keys, strict=False)):
            path = store / f"{key}.json"
            if path.exists():
                done[i] = {**json.loads(path.read_text()), **_point_fields(job, key)}
            else:
                sharing.setdefault(key, []).append(i)
        todo = list(sharing.values())[:limit]
        task = bar.add_task("points", total=len(done) + sum(map(len, todo)), completed=len(done))
        for j, rec in pool.map_unordered(run_point, [points[same[0]] for same in todo]):
            write_atomic(store / f"{rec['key']}.json", json.dumps(rec))
            for i in todo[j]:
                done[i] = {**rec, **_point_fields(points[i], rec["key"])}
            if on_point:
                on_point(rec)
            bar.advance(task, len(todo[j]))
    # in the sweep's order, whichever points were cached: the dataset, and so the fit, do not depend on it
    return [done[i] for i in sorted(done)]


def dataset_rows(records: list[dict], fam: BlockFamily) -> list[dict[str, Any]]:
    """Tidy rows, one per (point, density) of family ``fam``, with the targets:

    * ``area_um2``: mapped cell area plus the clock tree's buffers;
    * ``leakage_uw``: the cells' and clock buffers' ``cell_leakage_power``;
    * ``energy_pj``: per operation (or cycle, ``energy_per``), the simulated toggles of every net at that net's
      energy, times the point's glitch ratio (:func:`~accelgen.fit.glitch_samples.glitch_ratios`: the nearest
      sampled points'), plus the clock network's energy per cycle (``energy_zero_delay_pj``: without the glitch ratio);
    * ``delay_ns``: static timing of the mapped netlist (clock-to-Q or input, logic, setup or output).
    """
    rows = []
    params = [fam.validate(rec["params"]).model_dump() for rec in records]
    measured = [(p, rec["glitch"]["ratio"]) for p, rec in zip(params, records, strict=False) if rec.get("glitch")]
    ratios = glitch_ratios(params, measured)
    delays = next((rec["glitch"].get("delays", "mean_of_edges") for rec in records if rec.get("glitch")), "none")
    for rec, base, ratio in zip(records, params, ratios, strict=False):
        m, clk = rec["mapped"], rec["clock"]
        base["split"] = rec["split"]
        base.update({f"cell:{k}": v for k, v in m["cells_by_type"].items()})
        base.update(cells=m["cells"], flip_flops=m["flip_flops"], logic_ns=m["logic_ns"],
                    clock_mhz=m["clock_mhz"], library=m["library"], abc_script=m["abc_script"],
                    clock_area_um2=clk["area_um2"], clock_wire_um=clk["wire_um"])
        for dens, act in rec["activity"].items():
            row = dict(base, density=float(dens))
            row.update({f"tog:{k}": v for k, v in act["toggles_per_cycle"].items()})
            row["toggles_per_cycle"] = sum(act["toggles_per_cycle"].values())
            row["ops_per_cycle"] = ops = act["ops_per_cycle"]
            row["energy_per"] = act["per"]
            row["clock_energy_pj"] = clk["energy_fj"] / 1000.0 / ops if ops else float("nan")
            row["internal_energy_pj"] = act["internal_fj"] / 1000.0 / ops if ops else float("nan")
            row.update(area_um2=m["area_um2"] + clk["area_um2"],
                       leakage_uw=(m["leakage_nw"] + clk["leakage_nw"]) / 1000.0,
                       delay_ns=m["delay_ns"])
            if ops:
                row["energy_zero_delay_pj"] = (act["switching_fj"] + clk["energy_fj"]) / 1000.0 / ops
                row["energy_pj"] = (act["switching_fj"] * ratio + clk["energy_fj"]) / 1000.0 / ops
            row["glitch_ratio"] = ratio
            row["glitch_sample_ratio"] = rec["glitch"]["ratio"] if rec.get("glitch") else float("nan")
            row["glitch_delays"] = delays
            row.update({f"v:{k}": v for k, v in rec["versions"].items()})
            # the point's identity (its family and parameters; the fit groups a point's densities by it), and the
            # measurement it shares with any point of the same Verilog and stimuli (the cache file)
            row["key"] = sha256_hex(canonical_json({"family": rec["family"], "params": rec["params"]}))[:32]
            row["measurement"] = rec["key"]
            rows.append(row)
    return rows


def write_dataset(rows: list[dict], path: str | Path) -> Path:
    import pandas as pd
    df = pd.DataFrame(rows)
    lead = [c for c in df.columns if not (":" in c)]
    rest = sorted(c for c in df.columns if ":" in c)
    df = df[lead + rest]
    for c in df.columns:
        if c.startswith(("cell:", "tog:")):
            df[c] = df[c].fillna(0)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, df.to_csv(index=False))
    return path
