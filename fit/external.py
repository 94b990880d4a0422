"""A user's own Verilog through the flow the fitted models are measured with (``accelgen synth FILE.v --top NAME``).

accelgen's own blocks are rendered by their generators; a third-party module is read from its files instead:

* :func:`elaborate`: Yosys reads the files (``read_verilog -sv``, ``-D`` for each define), sets the top's parameters
  (``chparam``), checks the hierarchy and writes the top and every module below it as one Verilog text, with the
  top's ports (name, direction, width) and parameters. That text then goes through exactly the flow of a sweep
  point (:func:`accelgen.fit.measure.measure`): timing-driven mapping to the cell library at the clock, static
  timing, the gate-level simulation of the mapped cells with each net's library energy, the clock network, and an
  inertial-delay timed simulation for the glitch ratio.
* The clock and reset ports are found by name (:func:`port_roles`: ``clk``/``clock``, ``rst``/``reset`` and their
  active-low forms) or given; every other input is a data input that gets the stimulus.
* The stimulus (:func:`random_stimuli`): each data input bit toggles with probability ``activity`` per cycle
  (default 0.5, i.e. independent uniform random bits; the worst case, not realistic data), and at ``density`` below
  1 a word is zero with probability ``1 - density``; or a user's per-cycle port values (:func:`read_stimulus`).
  The reset is asserted in the first cycle and released after; the first two cycles are not counted.

Energy is per clock cycle (there is no operation to count in a module accelgen does not know).
"""

from __future__ import annotations

import csv
import json
import re
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..cosim.stimulus import Activity
from ..errors import ConfigError, ToolFailedError
from ..util import cache_dir, canonical_json, write_atomic
from .mapping import DEFAULT_CLOCK_MHZ, check_clock, resolve_library
from .measure import Design, measure, measurement_key
from .vectorless import Sources, measure_vectorless
from .yosys import result_cache_path, run_yosys

#: the default toggle probability of each data input bit per cycle: independent uniform random bits (the worst case
#: of uncorrelated data; the shipped sweeps' operands at density 1 are uniform random too)
DEFAULT_ACTIVITY = 0.5
#: cycles and independent streams of the generated stimulus (as the shipped sweeps, e.g. fit/sweeps/mac.yaml)
DEFAULT_CYCLES = 160
DEFAULT_LANES = 32
#: cycles simulated but not counted: the reset cycle, and the first cycle after it (toggles out of the reset state)
WARMUP = 2
#: port names taken as the clock, and as the reset (active high, then active low), when not given
CLOCK_NAMES = ("clk", "clock")
RESET_NAMES = ("rst", "reset")
RESET_LOW_NAMES = ("rst_n", "rstn", "reset_n", "resetn", "nrst", "nreset", "rst_ni", "rst_b", "reset_b")
#: flip-flops with an asynchronous set or reset become synchronous ones with that logic in front of D: the default
#: library has none (fit/tech/nangate45_cells.yaml: DFF_X1, DFF_X2), and the simulators count cycles, not the
#: instant a reset arrives
ASYNC_RESETS = "async2sync"
VERILOG_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


def parse_assignments(items, option: str, *, bare: bool = False) -> dict[str, str]:
    """``K=V`` words (``--define``, ``--param``) -> ``{K: V}``; ``bare``: a ``K`` alone means ``K=1``."""
    out = {}
    for item in items or ():
        key, sep, value = str(item).partition("=")
        if not VERILOG_IDENT.match(key) or (not sep and not bare) or (sep and not value.strip()):
            raise ConfigError([(option, f"{item!r} is not allowed; expected NAME=VALUE with NAME a Verilog "
                                        "identifier" + (" (or NAME alone, defined as 1)" if bare else ""))])
        out[key] = value.strip() if sep else "1"
    return out


def _param_value(key: str, value) -> str:
    """A parameter value as ``chparam -set`` takes it: an integer, or a string in double quotes."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ConfigError([(f"--param {key}", f"{value!r} is not allowed; expected an integer or a string")])
    text = str(value).strip()
    if re.fullmatch(r"-?\d+", text) or re.fullmatch(r"\d*'[sS]?[bBoOdDhH][0-9a-fA-F_xXzZ]+", text):
        return text
    if re.fullmatch(r'"[^"\\]*"', text):
        return text
    if '"' in text or "\\" in text or "\n" in text:
        raise ConfigError([(f"--param {key}", f"{value!r} is not allowed; expected an integer or a plain string")])
    return f'"{text}"'


@dataclass(frozen=True)
class Elaborated:
    """A module read from a user's files: the top and its modules as one Verilog text (parameters set), its ports
    (name -> (direction, width)) and its parameters (name -> value as Yosys reports it)."""

    verilog: str
    top: str
    ports: dict[str, tuple[str, int]]
    parameters: dict[str, str]


def elaborate(files, top: str, *, defines: dict[str, str] | None = None,
              params: dict[str, object] | None = None, clock: str | None = None) -> Elaborated:
    """Read ``files`` with Yosys (``-D`` for each of ``defines``), set the top's ``params`` (``chparam``), check the
    hierarchy under ``top`` and write it as one Verilog text; cached by the files' contents and the settings.
    ``clock``: that input is renamed ``clk``, the name the flow knows its clock by (electrical repair leaves the
    clock net alone, the energy model charges it as the clock network; :func:`flow_design`).

    A missing file, an unknown top or parameter, or a Verilog error is a one-line :class:`ConfigError`."""
    paths = [Path(f) for f in files]
    if not paths:
        raise ConfigError([("FILE", "give at least one Verilog file")])
    for p in paths:
        if not p.is_file():
            raise ConfigError([("FILE", f"{str(p)!r} does not exist or is not a file")])
    if not isinstance(top, str) or not VERILOG_IDENT.match(top):
        raise ConfigError([("--top", f"{top!r} is not allowed; expected a Verilog module name")])
    defines = dict(defines or {})
    sets = {k: _param_value(k, v) for k, v in (params or {}).items()}
    sources = [(p.name, p.read_text(errors="replace")) for p in paths]
    rename = f"cd {top}\nrename {clock} clk\ncd ..\n" if clock and clock != "clk" else ""
    flags = "".join(f" -D{k}={v}" for k, v in sorted(defines.items()))
    # each file is copied into Yosys' working directory (the WebAssembly build sees the host's /tmp as its own
    # temporary directory); `include files are looked up beside the originals
    includes = "".join(f" -I{d}" for d in sorted({str(p.resolve().parent) for p in paths}))
    reads = "".join(f"read_verilog -sv{flags}{includes} src{i}/{p.name}\n" for i, p in enumerate(paths))
    script = (reads + "tee -q -o modules.txt ls\n"
              + (f"tee -q -o params.txt chparam -list {top}\n" if sets else "")
              + "".join(f"chparam -set {k} {v} {top}\n" for k, v in sets.items())
              + f"hierarchy -check -top {top}\nproc\n{ASYNC_RESETS}\nopt_clean\n" + rename
              + "write_verilog -noattr design.v\nwrite_json design.json\n")
    cached = result_cache_path("external", canonical_json(sources), top, script=script)
    if cached.exists():
        data = json.loads(cached.read_text())
        return Elaborated(data["verilog"], top, {k: tuple(v) for k, v in data["ports"].items()}, data["parameters"])
    with tempfile.TemporaryDirectory(prefix="accelgen-ext-", dir=cache_dir("map-work")) as tmp:
        d = Path(tmp)
        for i, (name, text) in enumerate(sources):
            (d / f"src{i}").mkdir()
            (d / f"src{i}" / name).write_text(text)
        (d / "read.ys").write_text(script)
        proc = run_yosys(["-q", "-s", "read.ys"], d)
        if proc.returncode != 0:
            raise _read_error(proc.stdout + proc.stderr, d, top)
        text = (d / "design.v").read_text()
        netlist = json.loads((d / "design.json").read_text())
    text = re.sub(r"^/\* Generated by Yosys .*\*/\n", "", text)    # the tool version is part of the cache key
    mod = netlist["modules"][top]
    ports = {name: (p["direction"], len(p["bits"])) for name, p in mod["ports"].items()}
    parameters = {k: _bits_value(v) for k, v in mod.get("parameter_default_values", {}).items()}
    write_atomic(cached, json.dumps({"verilog": text, "ports": ports, "parameters": parameters}))
    return Elaborated(text, top, ports, parameters)


def _bits_value(v: str) -> str:
    """Yosys' JSON writes an integer parameter as its bits ("00...1000"); a string stays a string."""
    return str(int(v, 2)) if re.fullmatch(r"[01]{32,}", v) else v


def _read_error(log: str, d: Path, top: str) -> Exception:
    """A one-line error from a failed read: an unknown top or parameter names the allowed ones."""
    errors = [re.sub(r"\bsrc\d+/", "", line.strip()) for line in log.splitlines() if "ERROR" in line]   # copies' dirs
    first = errors[0] if errors else (log.strip().splitlines() or ["yosys failed"])[-1]
    listing = (d / "modules.txt").read_text() if (d / "modules.txt").exists() else ""
    modules = re.findall(r"^\s+\\?(\S+)$", listing.split("modules:", 1)[-1], re.M) if "modules:" in listing else []
    if f"Module `{top}' not found" in first or (modules and top not in modules):
        listed = ", ".join(modules) or "none"
        return ConfigError([("--top", f"{top!r} is not a module of the files; modules: {listed}")])
    bad = re.search(r"defparam `([^`']+)", first)
    if bad:
        listed = (d / "params.txt").read_text().split() if (d / "params.txt").exists() else []
        known = [w for w in listed[1:] if VERILOG_IDENT.match(w)]      # "TOP:" then one parameter a line
        return ConfigError([("--param", f"{bad.group(1)!r} is not a parameter of {top}; parameters: "
                                        f"{', '.join(known) or 'none'}")])
    return ToolFailedError(f"yosys could not read the Verilog of {top}: {first}")


@dataclass(frozen=True)
class PortRoles:
    """Which input is the clock, which the reset (and its active level), and which carry data."""

    clock: str | None
    reset: str | None
    reset_active_low: bool
    data: tuple[str, ...]

    def describe(self) -> str:
        level = "active low" if self.reset_active_low else "active high"
        return (f"clock {self.clock or 'none'}; reset {self.reset + ', ' + level if self.reset else 'none'}; "
                f"data inputs {', '.join(self.data) or 'none'}")


def port_roles(ports: dict[str, tuple[str, int]], clock: str | None = None, reset: str | None = None) -> PortRoles:
    """The roles of a module's input ports: ``clock`` and ``reset`` as given, else found by name (:data:`CLOCK_NAMES`,
    :data:`RESET_NAMES`, :data:`RESET_LOW_NAMES`, any case). ``reset`` may end in ``:low`` or ``:high`` to give its
    active level; otherwise it is active low when its name is one of :data:`RESET_LOW_NAMES` or ends in ``_n``."""
    inputs = [name for name, (direction, _) in ports.items() if direction == "input"]
    level = None
    if reset and ":" in reset:
        reset, _, level = reset.rpartition(":")
        if level not in ("low", "high"):
            raise ConfigError([("--reset", f"{level!r} is not allowed after ':'; expected low or high")])
    for option, name in (("--clock", clock), ("--reset", reset)):
        if name is not None and name not in inputs:
            raise ConfigError([(option, f"{name!r} is not an input port; inputs: {', '.join(inputs) or 'none'}")])
    if clock is None:
        clock = _by_name(inputs, CLOCK_NAMES, "--clock")
    if reset is None:
        reset = _by_name([p for p in inputs if p != clock], RESET_NAMES + RESET_LOW_NAMES, "--reset")
    if reset is not None and reset == clock:
        raise ConfigError([("--reset", f"{reset!r} is also the clock")])
    low = (level == "low") if level else bool(reset) and (reset.lower() in RESET_LOW_NAMES or reset.endswith("_n"))
    return PortRoles(clock, reset, low, tuple(p for p in inputs if p not in (clock, reset)))


def _by_name(inputs: list[str], names: tuple[str, ...], option: str) -> str | None:
    found = [p for p in inputs if p.lower() in names]
    if len(found) > 1:
        raise ConfigError([(option, f"several inputs could be it ({', '.join(found)}); name one with {option} PORT")])
    return found[0] if found else None


def _reset_column(roles: PortRoles, cycles: int) -> dict[str, np.ndarray]:
    """The reset asserted in the first cycle, released after (no column without a reset port)."""
    if roles.reset is None:
        return {}
    on, off = (0, 1) if roles.reset_active_low else (1, 0)
    return {roles.reset: np.array([on] + [off] * (cycles - 1), dtype=np.int64)}


def _words(bits: np.ndarray) -> np.ndarray:
    """(cycles, width) 0/1 -> (cycles,) integers (int64 up to 62 bits, Python integers beyond)."""
    width = bits.shape[1]
    if width <= 62:
        return bits.astype(np.int64) @ (np.int64(1) << np.arange(width, dtype=np.int64))
    return np.array([sum(int(b) << j for j, b in enumerate(row)) for row in bits], dtype=object)


def flow_design(files, top: str, *, defines=None, params=None, clock: str | None = None,
                reset: str | None = None) -> tuple[Elaborated, PortRoles, str]:
    """The module as the flow measures it: read (:func:`elaborate`), its port roles (:func:`port_roles`, in the
    user's names), and its Verilog with the clock renamed ``clk`` (unless an input already has that name)."""
    elab = elaborate(files, top, defines=defines, params=params)
    roles = port_roles(elab.ports, clock, reset)
    if roles.clock in (None, "clk") or "clk" in elab.ports:
        return elab, roles, elab.verilog
    return elab, roles, elaborate(files, top, defines=defines, params=params, clock=roles.clock).verilog


def random_stimuli(ports: dict[str, tuple[str, int]], roles: PortRoles, *, activity: float = DEFAULT_ACTIVITY,
                   density: float = 1.0, cycles: int = DEFAULT_CYCLES, lanes: int = DEFAULT_LANES,
                   seed: int = 1) -> list[Activity]:
    """``lanes`` independent streams (seeded ``seed * 1000 + lane``) of ``cycles`` cycles: every data input bit
    starts uniform random and toggles with probability ``activity`` each cycle; at ``density`` < 1 each word is
    zero with probability ``1 - density`` (its bits' stream continues underneath). The reset is asserted in the
    first cycle; the first :data:`WARMUP` cycles are not counted. Energy is per cycle."""
    if isinstance(activity, bool) or not isinstance(activity, (int, float)) or not 0 <= activity <= 1:
        raise ConfigError([("--activity", f"{activity!r} is not allowed; expected a toggle probability in 0..1")])
    if isinstance(density, bool) or not isinstance(density, (int, float)) or not 0 <= density <= 1:
        raise ConfigError([("density", f"{density!r} is not allowed; expected a number in 0..1")])
    out = []
    for lane in range(lanes):
        rng = np.random.default_rng(seed * 1000 + lane)
        inputs = _reset_column(roles, cycles)
        for name in roles.data:
            width = ports[name][1]
            flips = rng.random((cycles, width)) < activity
            flips[0] = rng.random(width) < 0.5          # the starting value: uniform random bits
            bits = np.bitwise_xor.accumulate(flips, axis=0)
            if density < 1:
                bits[rng.random(cycles) >= density] = False
            inputs[name] = _words(bits)
        if not inputs:       # no input at all: a constant module still runs its cycles
            inputs = {"_cycles": np.zeros(cycles, dtype=np.int64)}
        out.append(Activity(inputs, ops=cycles - WARMUP, per="cycle", warmup=WARMUP))
    return out


def read_stimulus(path, ports: dict[str, tuple[str, int]], roles: PortRoles) -> list[Activity]:
    """A user's stimulus file: per-cycle values of input ports (docs/refit.md, "Your own Verilog").

    CSV: a header naming input ports, then one row per cycle. JSON: ``{"port": [values per cycle], ...}`` (one
    stream) or a list of such objects (up to 64 independent streams of one length). Values are integers (decimal,
    ``0x``/``0b``; negative ones as two's complement of the port's width). Ports left out are held at 0, except the
    reset: asserted in a cycle added before the file's first, released after. The clock is not a column. The first
    transition counted is from the file's first cycle to its second."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError([("--stimulus", f"{str(path)!r} does not exist or is not a file")])
    text = path.read_text()
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
            streams = data if isinstance(data, list) else [data]
        else:
            rows = list(csv.reader(line for line in text.splitlines() if line.strip() and not line.startswith("#")))
            streams = [{h.strip(): [r[i] for r in rows[1:]] for i, h in enumerate(rows[0])}] if rows else []
    except (json.JSONDecodeError, IndexError) as exc:
        raise ConfigError([("--stimulus", f"{str(path)!r} is not a stimulus file: {exc}")]) from None
    if not streams or not 1 <= len(streams) <= 64 or not all(isinstance(s, dict) and s for s in streams):
        raise ConfigError([("--stimulus", f"{str(path)!r}: expected 1..64 streams of port columns")])
    allowed = [p for p in (*roles.data, roles.reset) if p]
    out, length = [], None
    for i, stream in enumerate(streams):
        unknown = [k for k in stream if k not in allowed]
        if unknown:
            raise ConfigError([("--stimulus", f"{unknown[0]!r} is not a data or reset input of the module; allowed: "
                                              f"{', '.join(allowed) or 'none'}")])
        cols = {k: [_value(v, k, ports[k][1]) for v in (vs if isinstance(vs, list) else [vs])]
                for k, vs in stream.items()}
        n = {len(c) for c in cols.values()}
        if len(n) != 1 or (length is not None and n != {length}) or min(n) < 2:
            raise ConfigError([("--stimulus", f"stream {i}: every column needs the same number of cycles (at least "
                                              "2), in every stream")])
        length = n.pop()
        pre = roles.reset is not None and roles.reset not in cols
        inputs = {k: np.array(([0] if pre else []) + c, dtype=object if ports[k][1] > 62 else np.int64)
                  for k, c in cols.items()}
        inputs.update(_reset_column(roles, length + 1) if pre else {})
        warm = 1 + pre
        out.append(Activity(inputs, ops=length + pre - warm, per="cycle", warmup=warm))
    return out


def _value(v, port: str, width: int) -> int:
    try:
        x = v if isinstance(v, int) and not isinstance(v, bool) else int(str(v).strip(), 0)
    except ValueError:
        raise ConfigError([("--stimulus", f"{port}: {v!r} is not an integer")]) from None
    if not -(1 << (width - 1)) <= x < (1 << width):
        raise ConfigError([("--stimulus", f"{port}: {v!r} does not fit its {width} bits")])
    return x & ((1 << width) - 1)


@dataclass
class ExternalReport:
    """A user's module mapped, timed and simulated: areas (um^2), delay and slack (ns), leakage (uW) and energy per
    cycle (pJ) at ``stimulus``; ``measurement`` is :func:`accelgen.fit.measure.measure`'s record."""

    top: str
    files: list[str]
    defines: dict[str, str]
    params: dict[str, str]
    ports: str
    stimulus: str
    library: str
    clock_mhz: float
    area_um2: float                # cells plus the clock tree's buffers
    cell_area_um2: float
    cells: int
    cells_by_type: dict[str, int]
    flip_flops: int
    delay_ns: float
    slack_ns: float
    critical_path: dict
    leakage_uw: float
    energy_pj: float               # per cycle: switching times the glitch ratio, plus the clock network
    energy_zero_delay_pj: float    # per cycle, without glitches
    clock_energy_pj: float         # per cycle, the clock network's part of both
    glitch_ratio: float | None     # timed over zero-delay switching energy (None: the timed simulation was not run)
    measurement: dict = field(default_factory=dict, repr=False)
    activity_semantics: str = "simulated"    # or "vectorless" (propagated probabilities, fit/vectorless.py)

    @property
    def meets_clock(self) -> bool:
        return self.slack_ns >= 0

    def to_dict(self, *, full: bool = False) -> dict:
        d = asdict(self)
        if not full:
            d.pop("measurement")
        return d | {"meets_clock": self.meets_clock, "energy_per": "cycle"}


def measure_cached(design: Design) -> dict:
    """:func:`accelgen.fit.measure.measure`, cached under ``cache_dir("external")`` by the measurement's content key."""
    path = cache_dir("external") / f"{measurement_key(design)}.json"
    if path.exists():
        return json.loads(path.read_text())
    record = measure(design)
    write_atomic(path, json.dumps(record))
    return record


def describe_stimulus(activity: float, stimulus, cycles: int, lanes: int, seed: int) -> str:
    if stimulus:
        return f"from {Path(stimulus).name} (per-cycle port values)"
    return (f"random: each data input bit toggles with probability {activity:g} per cycle"
            + (" (independent uniform random bits)" if activity == 0.5 else "")
            + f"; {lanes} streams x {cycles} cycles, seed {seed}, first {WARMUP} cycles not counted")


def synth_files(files, top: str, *, defines=None, params=None, clock_mhz: float = DEFAULT_CLOCK_MHZ,
                liberty=None, activity: float | None = None, stimulus=None, clock: str | None = None,
                reset: str | None = None, cycles: int = DEFAULT_CYCLES, lanes: int = DEFAULT_LANES,
                seed: int = 1, glitch: bool = True, vectorless: Sources | None = None) -> ExternalReport:
    """Map, time and simulate the module ``top`` of a user's Verilog ``files`` the way a sweep point is measured.

    ``defines``/``params``: ``{name: value}`` (``read_verilog -D``, ``chparam``); ``clock_mhz`` the target clock of the
    mapping; ``liberty`` a cell library (default: the default technology's); the stimulus is :func:`random_stimuli`
    at ``activity`` (default :data:`DEFAULT_ACTIVITY`) or a file (``stimulus``, :func:`read_stimulus`), not both;
    ``clock``/``reset`` name those ports (default: found by name, :func:`port_roles`); ``glitch``: also run the timed
    simulation for the glitch ratio. ``vectorless``: no simulation; the activity propagated from these sources
    (:func:`accelgen.fit.vectorless.measure_vectorless`, DC's and OpenSTA's semantics without vectors), zero-delay."""
    clock_mhz = check_clock(clock_mhz)
    if activity is not None and stimulus is not None:
        raise ConfigError([("--activity", "give --activity or --stimulus, not both")])
    if vectorless is not None and (activity is not None or stimulus is not None):
        raise ConfigError([("--vectorless", "give --vectorless or --activity/--stimulus, not both")])
    resolve_library(liberty)                      # a missing library fails before the synthesis
    elab, roles, verilog = flow_design(files, top, defines=defines, params=params, clock=clock, reset=reset)
    if vectorless is not None:
        return _synth_vectorless(elab, roles, verilog, vectorless, files=files, defines=defines or {},
                                 params=params or {}, clock_mhz=clock_mhz, liberty=liberty)
    act = DEFAULT_ACTIVITY if activity is None else activity
    stims = (read_stimulus(stimulus, elab.ports, roles) if stimulus is not None else
             random_stimuli(elab.ports, roles, activity=act, cycles=cycles, lanes=lanes, seed=seed))
    design = Design(verilog=verilog, top=top, cells=(), stimuli={"1.0": stims}, clock_mhz=clock_mhz,
                    liberty=str(liberty) if liberty else None, glitch=glitch)
    rec = measure_cached(design)
    return report_of(rec, elab, roles, files=files, defines=defines or {}, params=params or {},
                     stimulus=describe_stimulus(act, stimulus, cycles, lanes, seed))


def _synth_vectorless(elab: Elaborated, roles: PortRoles, verilog: str, sources: Sources, *, files, defines, params,
                      clock_mhz: float, liberty) -> ExternalReport:
    """:func:`synth_files` with vectorless activity: ``sources`` name the ports in the user's names (the clock, renamed
    ``clk`` in the flow, cannot be held)."""
    allowed = [p for p in (*roles.data, roles.reset) if p]
    for name in (*sources.held, *sources.ports):
        if name not in allowed:
            raise ConfigError([("--hold", f"{name!r} is not a data or reset input of {elab.top}; allowed: "
                                          f"{', '.join(allowed) or 'none'}")])
    for name, value in sources.held.items():
        width = elab.ports[name][1]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < (1 << width):
            raise ConfigError([("--hold", f"{name}={value!r} is not allowed; expected an integer in "
                                          f"0..{(1 << width) - 1} ({width} bits)")])
    design = Design(verilog=verilog, top=elab.top, cells=(), stimuli={}, clock_mhz=clock_mhz,
                    liberty=str(liberty) if liberty else None, glitch=False)
    rec = measure_vectorless(design, sources)
    rep = report_of(rec, elab, roles, files=files, defines=defines, params=params, stimulus=sources.describe())
    rep.activity_semantics = "vectorless"
    return rep


def report_of(rec: dict, elab: Elaborated, roles: PortRoles, *, files, defines, params, stimulus) -> ExternalReport:
    """An :class:`ExternalReport` of a measurement record (one stimulus)."""
    m, clk = rec["mapped"], rec["clock"]
    act = next(iter(rec["activity"].values()))
    ratio = rec["glitch"]["ratio"] if rec.get("glitch") else None
    period_ns = 1000.0 / m["clock_mhz"]
    return ExternalReport(
        top=elab.top, files=[str(f) for f in files], defines=dict(defines),
        params={k: str(v) for k, v in params.items()},
        ports=roles.describe(), stimulus=stimulus, library=m["library"], clock_mhz=m["clock_mhz"],
        area_um2=m["area_um2"] + clk["area_um2"], cell_area_um2=m["area_um2"], cells=m["cells"],
        cells_by_type=m["cells_by_type"], flip_flops=m["flip_flops"], delay_ns=m["delay_ns"],
        slack_ns=period_ns - m["delay_ns"], critical_path=m["critical_path"],
        leakage_uw=(m["leakage_nw"] + clk["leakage_nw"]) / 1000.0,
        energy_pj=(act["switching_fj"] * (ratio or 1.0) + clk["energy_fj"]) / 1000.0,
        energy_zero_delay_pj=(act["switching_fj"] + clk["energy_fj"]) / 1000.0,
        clock_energy_pj=clk["energy_fj"] / 1000.0, glitch_ratio=ratio, measurement=rec)
