"""Component cost models (after Accelergy's hwcomponents): physical parameters in; area, leakage,
energy per action and delay out; composition by sub-components.

Every component is a :class:`Component` node: ``area_um2``, ``leakage_mw``,
``energy_pj`` (per action, a dict action -> pJ), ``delay_ns`` (its register-to-
register or access time), ``actions_per_cycle`` at full activity (so that
``dynamic power = sum(energy x actions/cycle) x f``), ``ops_per_cycle`` (MACs
counted as 2 ops) and ``children``. A parent's area, leakage and power are the
sums over its children plus its own.

Analytical models here (the SRAM model is :mod:`accelgen.ppa.sram`, compute
blocks use the fitted models through :class:`FittedCompute`):

* :func:`wire` — repeated semi-global/global wires (``accelgen.ppa.process``).
* :func:`noc` — mesh / ring / bus routers and links. Router area and energy from
  the Intel 80-tile Teraflops router (Vangal et al., IEEE JSSC 43(1), 2008:
  5-port, 39-bit links, 0.34 mm^2 in 65 nm), split as Dally & Towles, *Principles
  and Practices of Interconnection Networks* (2004), ch. 17 build a router: a
  crossbar whose ``P w`` input wires cross its ``P w`` output wires, ``(P w
  pitch)^2``, and the rest (input buffers, pipeline registers, drivers, allocators),
  which grows with ``P w`` (:func:`router_area_um2`). Router energy
  0.15 pJ per bit per hop at 65 nm / 1.2 V (ORION 2.0, Kahng et al., DATE 2009,
  Table 4 order of magnitude), scaled with C V^2 (F x Vdd^2).
* :func:`dram_phy` — DDR / LPDDR / HBM PHY + I/O: area per GB/s and energy per
  bit. DDR4: 15 pJ/bit, LPDDR4: 6 pJ/bit, HBM2: 3.9 pJ/bit interface energy
  (O'Connor et al., "Fine-Grained DRAM", MICRO 2017, Table 1); PHY area: DDR4
  x64 channel ~5 mm^2 at 28 nm (Synopsys DesignWare DDR4 PHY datasheet class),
  HBM2 stack PHY ~15 mm^2 at 16 nm (Jun et al., ISSCC 2017 HBM2; NeuroMeter, Tang et al., HPCA 2021,
  sect. II-C, gives no PHY area: its TPU-v2 breakdown has the HBM ports at "9% v.s 5%" of the die, the
  published share first and its own second, a part of ``validate-chips``' TPU-v2 row), with I/O area not
  scaling across nodes (pads and analog front ends) — only 30% of it follows F^2.
* :func:`pcie` — PCIe controller + PHY per lane: 0.6 mm^2 and 5 pJ/bit per lane
  at 28 nm for Gen3 (8 GT/s), ~110 mW per lane active (Synopsys/Cadence PCIe 3.0
  PHY datasheets; Ghosh et al., ISSCC 2013 8 Gb/s SerDes 5 pJ/bit); Gen4/Gen5
  double the rate at ~1.2x the area per lane.
* :func:`scalar_core` — a small in-order core: RISC-V Rocket, 0.39 mm^2 (core
  without caches) and 0.034 mW/MHz at 45 nm SOI (Lee et al., ESSCIRC 2014),
  scaled with F^2 (area) and F x Vdd^2 (energy).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import ConfigError
from ..fit.model import load_model
from .component_node import Component
from .process import TechNode, area_ratio, energy_ratio, technology


# --------------------------------------------------------------------------- wires

#: a wire's pipeline flip-flop at 45 nm (NanGate45 DFF_X1, um^2), scaled by the node's logic area
WIRE_FLOP_UM2_45 = 4.522
#: a bus's transfers per cycle at full activity (each of its bits toggles every other cycle: random data); a
#: transfer toggles the bit once (:meth:`accelgen.technology.TechNode.wire_energy_pj_per_bit_mm` at activity 1)
WIRE_TRANSFERS_PER_CYCLE = 0.5


def wire_figures(tech: TechNode, *, bits, length_mm, clock_mhz=None, kind: str = "semi_global") -> dict:
    """One bus of ``bits`` repeated wires of ``length_mm`` (numpy arrays broadcast): its area, energy per transfer,
    delay per stage and pipeline stages (flip-flops every 0.8 of a cycle's reach when its delay exceeds a cycle;
    none without a clock). Repeater area: ~2% of the wire track area (Ho, Mai, Horowitz 2001); routed over logic on
    upper metal, only repeaters and pipeline flops take area."""
    length_mm = np.asarray(length_mm, dtype=float)
    d_ps = tech.repeated_wire_delay_ps_per_mm(kind) * length_mm
    if clock_mhz is not None and np.all(np.asarray(clock_mhz) > 0):
        stages = np.maximum(0.0, np.ceil(d_ps / (0.8 * 1e6 / np.asarray(clock_mhz, dtype=float))) - 1)
    else:
        stages = np.zeros_like(d_ps)
    area = (bits * length_mm * 1000.0 * tech.wire_pitch_um(kind) * 0.02
            + stages * bits * WIRE_FLOP_UM2_45 * tech.logic_area_factor)
    return {"area_um2": area, "energy_pj": tech.wire_energy_pj_per_bit_mm(1.0) * length_mm * bits,
            "delay_ns": (d_ps / 1000.0) / (stages + 1), "stages": stages}


def wire(name: str, tech: TechNode, *, bits, length_mm, clock_mhz=None, kind: str = "semi_global",
         activity_key: str = "default") -> Component:
    """A bus of ``bits`` repeated wires of ``length_mm`` (:func:`wire_figures`), one transfer every other cycle at
    full activity. Scalars give a breakdown node; numpy arrays (one per design point, ``tech`` then giving each
    point's wire figures) a node of arrays."""
    f = wire_figures(tech, bits=bits, length_mm=length_mm, clock_mhz=clock_mhz if np.ndim(clock_mhz) else
                     clock_mhz or None, kind=kind)
    params = {"kind": kind}
    if all(np.ndim(v) == 0 for v in (bits, length_mm, clock_mhz)):
        f = {k: float(v) for k, v in f.items()}
        params = {"bits": bits, "length_mm": round(length_mm, 4), "kind": kind, "pipeline_stages": int(f["stages"])}
    return Component(name, "wire", area_um2_each=f["area_um2"], energy_pj={"transfer": f["energy_pj"]},
                     actions_per_cycle={"transfer": WIRE_TRANSFERS_PER_CYCLE}, delay_ns=f["delay_ns"],
                     activity_key=activity_key, params=params)


# --------------------------------------------------------------------------- NoC

_ROUTER_REF = {"area_mm2": 0.34, "ports": 5, "bits": 39, "node_nm": 65.0, "pj_per_bit": 0.15, "vdd": 1.2}


def _crossbar_um2(tech: TechNode, ports: int, flit_bits: int) -> float:
    """A matrix crossbar's wire-limited area: ``ports x flit_bits`` input wires crossing as many output wires, each
    at the semi-global pitch (Dally & Towles 2004, ch. 17; ORION 2.0, Kahng et al., DATE 2009, the crossbar area)."""
    return (ports * flit_bits * tech.wire_pitch_um("semi_global")) ** 2


def router_area_um2(tech: TechNode, ports: int, flit_bits: int) -> float:
    """Area of a ``ports``-port router of ``flit_bits``-bit flits: the reference router's crossbar replaced by this
    one's, and the rest of its area (buffers, registers, drivers, allocators: one slice per port and bit) scaled with
    ``ports x flit_bits`` and the logic area of the node. (Scaled whole as a crossbar, the reference made a 5-port
    512-bit router at 28 nm 13.4 mm^2; split, it is 1.2 mm^2, 0.21 of it the crossbar.)"""
    r = _ROUTER_REF
    ref = technology(r["node_nm"], "ref_nm")
    rest = r["area_mm2"] * 1e6 - _crossbar_um2(ref, r["ports"], r["bits"])
    return (rest * (ports * flit_bits) / (r["ports"] * r["bits"]) * area_ratio(tech, r["node_nm"])
            + _crossbar_um2(tech, ports, flit_bits))


#: ports of a router: four neighbours and the core (mesh), two and the core (ring), the bus and the core
ROUTER_PORTS = {"mesh": 5, "ring": 3, "bus": 2}


def router_pj_per_bit(tech: TechNode) -> float:
    """Energy of one bit through a router at ``tech`` (the reference's, scaled with C V^2)."""
    r = _ROUTER_REF
    return r["pj_per_bit"] * energy_ratio(tech, r["node_nm"], r["vdd"])


def noc_links(topology: str, tx, ty):
    """Unidirectional links of the topology (a bus is one)."""
    return {"mesh": 2 * (tx * (ty - 1) + ty * (tx - 1)), "ring": 2 * tx * ty, "bus": 1}[topology]


def router_figures(tech: TechNode, ports: int, flit_bits: int) -> tuple[float, float, float, float]:
    """One router's area (um^2), leakage (mW), energy per bit (pJ) and stage delay (ns) at ``tech``."""
    area = router_area_um2(tech, ports, flit_bits)
    return area, area * tech.logic_leak_uw_per_um2 * 1e-3, router_pj_per_bit(tech), 2 * tech.fo4_ps * 8 / 1000.0


def noc(tech: TechNode, *, topology: str, tx: int, ty: int, flit_bits: int, link_mm: float) -> Component:
    """Routers and links of a mesh (``tx x ty``), ring or bus connecting ``tx * ty`` cores (:func:`noc_tree`)."""
    return noc_tree(topology=topology, tx=tx, ty=ty, flit_bits=flit_bits, link_mm=link_mm, wire_tech=tech,
                    router=router_figures(tech, ROUTER_PORTS[topology], flit_bits))


def noc_tree(*, topology: str, tx, ty, flit_bits, link_mm, wire_tech, router) -> Component:
    """The NoC of ``router`` (:func:`router_figures`) and links on ``wire_tech``'s wires, empty with one core and
    no bus. Scalars give a breakdown node; numpy arrays, one per design point (the batch estimator), a node of
    arrays whose points with no NoC count no routers and no links.

    A breakdown node's ``params`` give the performance model's NoC roof (:mod:`accelgen.ppa.perf_layers`): the
    bisection width, the mean hop count of uniform random traffic (:func:`mean_hops`) and the energy of one bit
    over one hop (a router traversal and a link)."""
    n = tx * ty
    top = Component("noc", "noc")
    has = (n > 1) | (topology == "bus")
    scalar = np.ndim(has) == 0
    if scalar and not has:
        return top
    area, leak, e_bit, delay = router
    top.add(Component("router", "router", count=n if scalar else np.where(has, n, 0), area_um2_each=area,
                      energy_pj={"flit": e_bit * flit_bits}, actions_per_cycle={"flit": 1.0}, delay_ns=delay,
                      leakage_mw_each=leak, activity_key="noc",
                      params={"ports": ROUTER_PORTS[topology], "flit_bits": flit_bits} if scalar else {}))
    ln = wire("link", wire_tech, bits=flit_bits, length_mm=link_mm * (n if topology == "bus" else 1), kind="global",
              activity_key="noc")
    links = noc_links(topology, tx, ty)
    ln.count = links if scalar else np.where(has, links, 0)
    top.add(ln)
    if scalar:
        top.params = {"topology": topology, "flit_bits": flit_bits,
                      "bisection_bits_per_cycle": bisection_bits_per_cycle(topology, tx, ty, flit_bits),
                      "mean_hops": mean_hops(topology, tx, ty),
                      "pj_per_bit_hop": e_bit + ln.energy_pj["transfer"] / flit_bits}
    return top


def bisection_bits_per_cycle(topology: str, tx: int, ty: int, flit_bits: int) -> int:
    """Bisection width in bits per cycle (both directions) of the topology."""
    if topology == "mesh":
        return 2 * (min(tx, ty) if np.ndim(tx) == 0 and np.ndim(ty) == 0 else np.minimum(tx, ty)) * flit_bits
    if topology == "ring":
        return 4 * flit_bits
    return flit_bits


def noc_flit_bits(topology: str, tx, ty, flit_bits: int, bisection_gbps: float | None, clock_mhz):
    """The flit width: ``flit_bits`` doubled until the bisection meets ``bisection_gbps`` at ``clock_mhz`` (at most
    4096 bits). Numbers, or numpy arrays of design points (``tx``, ``ty``, ``clock_mhz``)."""
    if not bisection_gbps or (np.ndim(clock_mhz) == 0 and not clock_mhz):
        return flit_bits
    need = bisection_gbps * 8e3 / clock_mhz  # bits per cycle
    per_flit = bisection_bits_per_cycle(topology, tx, ty, flit_bits)
    # the fewest doublings that meet the need: 2**m >= need / per_flit, m from the exponent of the ratio (exact),
    # one more where the ratio's rounding left it short
    mantissa, exponent = np.frexp(need / per_flit)
    m = np.maximum(exponent - (mantissa == 0.5), 0)
    m = m + (np.ldexp(np.asarray(per_flit, dtype=float), m) < need)
    cap = 0
    while flit_bits << cap < 4096:
        cap += 1
    m = np.minimum(m, cap)
    return flit_bits << int(m) if np.ndim(m) == 0 else np.ldexp(float(flit_bits), m)


def mean_hops(topology: str, tx: int, ty: int) -> float:
    """Mean hop count between a uniformly random source and destination core (Dally & Towles, "Principles and
    Practices of Interconnection Networks", 2004, sect. 3.3: (k^2 - 1) / 3k per mesh dimension of k nodes; k / 4
    around a bidirectional ring of k nodes); a bus is one hop."""
    if topology == "mesh":
        return sum((k * k - 1) / (3 * k) for k in (tx, ty))
    if topology == "ring":
        return tx * ty / 4
    return 1.0


#: the share of uniform random traffic that crosses the bisection (Dally & Towles 2004, sect. 3.3: a source in
#: one half sends to the other half with probability 1/2); every transfer on a bus uses the bus
BISECTION_SHARE = {"mesh": 0.5, "ring": 0.5, "bus": 1.0}


# --------------------------------------------------------------------------- off-chip interfaces

_DRAM = {  # pj_per_bit interface energy; phy area mm^2 per GB/s at ref node; ref node
    "ddr3": {"pj_per_bit": 20.0, "mm2_per_gbps": 5.0 / 12.8, "node_nm": 28.0},
    "ddr4": {"pj_per_bit": 15.0, "mm2_per_gbps": 5.0 / 25.6, "node_nm": 28.0},
    "lpddr4": {"pj_per_bit": 6.0, "mm2_per_gbps": 4.0 / 25.6, "node_nm": 28.0},
    "hbm2": {"pj_per_bit": 3.9, "mm2_per_gbps": 15.0 / 256.0, "node_nm": 16.0},
}
DRAM_TYPES = tuple(_DRAM)


def _io_scale(tech: TechNode, ref_nm: float) -> float:
    return 0.7 + 0.3 * area_ratio(tech, ref_nm)


def dram_phy(tech: TechNode, *, kind: str, bandwidth_gbps: float, channels: int) -> Component:
    d = _DRAM[kind]
    area = d["mm2_per_gbps"] * bandwidth_gbps * 1e6 * _io_scale(tech, d["node_nm"])
    bits_per_cycle_at_1ghz = bandwidth_gbps * 8.0  # bits per ns
    return Component(f"{kind}_phy", "dram_phy", area_um2_each=area,
                     energy_pj={"bit": d["pj_per_bit"]},
                     # actions per cycle are set at the chip clock by the estimator (bits per clock at full bandwidth)
                     actions_per_cycle={"bit": 0.0}, activity_key="dram",
                     leakage_mw_each=0.05 * d["pj_per_bit"] * bits_per_cycle_at_1ghz,  # bias/termination ~5% of peak
                     params={"kind": kind, "bandwidth_gbps": bandwidth_gbps, "channels": channels})


_PCIE_GTS = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0}


def pcie(tech: TechNode, *, gen: int, lanes: int) -> Component:
    gts = _PCIE_GTS[gen]
    area = 0.6e6 * (1.2 if gen >= 4 else 1.0) * _io_scale(tech, 28.0)
    return Component("pcie", "pcie", count=lanes, area_um2_each=area, leakage_mw_each=20.0,
                     energy_pj={"bit": 5.0}, actions_per_cycle={"bit": 0.0}, activity_key="host",
                     params={"gen": gen, "lanes": lanes, "gt_per_s": gts})


def scalar_core(tech: TechNode) -> Component:
    e_cycle = 0.034 * energy_ratio(tech, 45.0, 1.0)  # mW/MHz == nJ/cycle, measured at 45 nm, 1.0 V
    area = 0.39e6 * area_ratio(tech, 45.0)
    return Component("scalar_core", "scalar_core", area_um2_each=area, energy_pj={"cycle": e_cycle * 1e3},
                     actions_per_cycle={"cycle": 1.0}, activity_key="scalar",
                     leakage_mw_each=area * tech.logic_leak_uw_per_um2 * 1e-3,
                     delay_ns=30 * tech.fo4_ps / 1000.0, params={"model": "RISC-V Rocket (ESSCIRC 2014)"})


# --------------------------------------------------------------------------- fitted compute blocks

def model_name(family: str, dtype: str = "int", variant: str = "", profile: str = "") -> str:
    """Fitted model of ``family`` for operands of ``dtype``: the family's own model for "int", the variant
    ``<family>-<dtype>`` (``systolic-bf16``) for a floating-point format. A hardware ``variant`` that no
    polynomial of the family's parameters continues to (TensorDash's dense baseline, ``depth: 1``, whose
    scheduler and staging buffers are gone) comes first: ``tensordash_tile-dense``,
    ``tensordash_tile-dense_fp16`` (a model name has one '-'). A stimulus ``profile`` other than the one the
    default model was fitted with comes last: ``mac-dnn``, ``systolic-bf16_dnn``."""
    parts = [p for p in (variant, None if dtype in ("int", None) else dtype, profile) if p]
    return f"{family}-{'_'.join(parts)}" if parts else family


class FittedCompute:
    """Adapter from a fitted model file (``accelgen.fit.model``) to components.

    ``model_paths`` maps a model name (a family, or a variant such as
    ``systolic-bf16``) to a model file; otherwise the shipped
    ``accelgen/fit/models/<name>.json`` is used. A unit with an fp ``dtype`` uses
    the variant ``<family>-<dtype>``. A missing model raises a
    :class:`ConfigError` at ``path`` (the unit's field path; ``path.dtype`` for a
    missing variant) saying which model to fit (no invented numbers).
    """

    def __init__(self, model_paths: dict[str, str] | None = None, switching: str = "timed",
                 profile: str | None = None):
        self.model_paths = dict(model_paths or {})
        self.switching = switching
        self.profile = profile
        self._cache: dict[str, object] = {}

    def energy_target(self, model, path: str) -> str:
        """The model target that is a unit's energy per operation under :attr:`switching` (``activity.switching``
        of the description): ``energy_pj`` (timed, glitches included) or ``energy_zero_delay_pj``; a model file
        fitted before the zero-delay target existed cannot answer for the latter and says how to refit."""
        if self.switching == "timed":
            return "energy_pj"
        if "energy_zero_delay_pj" not in model:
            raise ConfigError([(path, f"activity.switching zero_delay needs the fitted target energy_zero_delay_pj, "
                                      f"which the model {model.name!r} ({model.source}) does not have; refit it with "
                                      f"`accelgen fit {model.name}`")])
        return "energy_zero_delay_pj"

    def model(self, family: str, path: str, dtype: str = "int", variant: str = ""):
        """The fitted model of a unit; with a stimulus :attr:`profile` (``activity.profile``), the model fitted on
        that profile's operands, unless the family's stimulus is its own (the default model records ``family``)."""
        # the field that asks for a variant: a dense TensorDash unit's depth, else the dtype
        asked_by = (f"{path}.depth", 1) if variant == "dense" else (f"{path}.dtype", dtype)
        base = self._load(model_name(family, dtype, variant), family, path, asked_by)
        if not self.profile or stimulus_profile(base) in ("family", self.profile):
            return base
        model = self._load(model_name(family, dtype, variant, self.profile), family, path,
                           ("activity.profile", self.profile))
        if stimulus_profile(model) != self.profile:
            raise ConfigError([("activity.profile", f"{self.profile!r}: the model {model.name!r} ({model.source}) "
                                                    f"was fitted on {stimulus_profile(model)!r} operands")])
        return model

    def _load(self, name: str, family: str, path: str, asked_by: tuple[str, object]):
        if name not in self._cache:
            try:
                self._cache[name] = load_model(name, path=self.model_paths.get(name))
            except ConfigError as exc:
                msg = "; ".join(f"{where}: {m}" if where not in ("", "path") else m for where, m in exc.problems)
                if name != family and name not in self.model_paths:
                    where, value = asked_by
                    raise ConfigError([(where, f"{value!r} needs the fitted model variant {name!r}, "
                                               f"which is not shipped; fit it with `accelgen sweep {name} "
                                               f"&& accelgen fit {name} --ship` (sweep file "
                                               f"fit/sweeps/{name}.yaml with family: {family}) or give "
                                               f"models.{name}: FILE")]
                                      ) from None
                raise ConfigError([(path, f"needs the fitted model of {name!r}: {msg} "
                                          f"(fit it with `accelgen fit {name}` or give models.{name}: FILE)")]
                                  ) from None
        return self._cache[name]

    def predict(self, family: str, params: dict, node_nm: float, path: str, dtype: str = "int",
                variant: str = "") -> tuple[dict, dict]:
        """``({target: float}, trace)``; out-of-range inputs warn (FitRangeWarning) and are recorded.

        ``dtype`` and ``variant`` select the model (:func:`model_name`); ``dtype`` is passed to models that
        take it as an input."""
        model = self.model(family, path, dtype, variant)
        params = {**params, "dtype": dtype} if "dtype" in model.inputs else params
        inputs = {k: v for k, v in params.items() if k in model.inputs}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = model.predict(node_nm=node_nm, **inputs)
            except ConfigError as exc:
                raise ConfigError([(f"{path}.{p}" if p else path, m) for p, m in exc.problems]) from None
        for w in caught:
            warnings.warn(f"{path}: {w.message}", w.category, stacklevel=3)
        target = self.energy_target(model, path)
        out, steady = with_energy(model, out, inputs, node_nm, target)
        vals = {k: float(np.asarray(v)) for k, v in out.items()}
        trace = {"family": family, "model": model.name, "dtype": dtype, "model_file": model.source,
                 "stimulus": stimulus_profile(model),
                 "inputs": {k: v for k, v in inputs.items()},
                 "fitted_range": {k: v.get("range", v.get("values")) for k, v in model.inputs.items()},
                 "heldout_error": model.errors(),
                 "out_of_range": [str(w.message) for w in caught]}
        if steady is not None:
            trace["energy_note"] = steady[1]
        if target != "energy_pj":
            trace["energy_target"] = target
        return vals, trace


def stimulus_profile(model) -> str:
    """The stimulus profile a fitted model was fitted with (``training.stimulus``; a model file written before the
    record existed was fitted with its family's default, which this cannot tell: ``None``)."""
    return (model.training.get("stimulus") or {}).get("profile")


def with_energy(model, out: dict, inputs: dict, node_nm, target: str = "energy_pj") -> tuple[dict, tuple | None]:
    """``model``'s outputs ``out`` at ``inputs`` (floats, or numpy arrays of design points) with ``energy_pj`` the
    energy per operation the estimator costs: the ``target`` one (:meth:`FittedCompute.energy_target`), in steady
    state where the model's includes one array fill (:func:`steady_state_energy`, whose result is returned too)."""
    out = {**out, "energy_pj": out[target]}
    steady = steady_state_energy(model, inputs, node_nm, target)
    if steady is not None:
        out["energy_pj"] = steady[0]
    return out, steady


#: array dimensions clamped into the fitted range when the per-op energy includes one array fill/drain
FILL_DIMS = ("rows", "cols")


def steady_state_energy(model, inputs: dict, node_nm, target: str = "energy_pj") -> tuple[np.ndarray, str] | None:
    """Per-MAC energy of an array in steady state, or None if the model's energy needs no correction.

    A fitted array energy whose operation is "a MAC of a GEMM filling the array
    once" (``per`` of the systolic model) includes the pipeline fill and drain of
    that one short GEMM, amortized over its MACs: a term growing with
    ``rows + cols``. At full activity (TDP) the array streams and fill/drain is
    amortized away, and extrapolating that term far beyond the fitted sizes
    (8x8 -> 256x256) multiplies the per-MAC energy (~4 pJ instead of ~0.3 pJ for
    8-bit MACs at 28 nm). So the energy is evaluated with the array dimensions
    clamped into their fitted range: the per-PE energy of the largest fitted
    array, an upper bound of the steady-state value. Same rule for every chip.
    """
    if target not in model or "fill" not in str(model[target].per or ""):
        return None
    clamped = dict(inputs)
    notes = []
    for d in FILL_DIMS:
        rng = model.inputs.get(d, {}).get("range")
        if d in clamped and rng is not None:
            v = np.asarray(clamped[d], dtype=float)
            c = np.clip(v, rng[0], rng[1])
            if np.any(c != v):
                notes.append(f"{d} clamped to {rng[0]:g}..{rng[1]:g}")
            clamped[d] = c
    t = model[target]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = t.predict(node_nm=node_nm, **{k: v for k, v in clamped.items() if k in t.inputs})
    return e, ("steady-state energy per MAC (" + ("; ".join(notes) or "inside the fitted range") +
               "): the fitted per-op energy includes one fill/drain of the array")


# --------------------------------------------------------------------------- SerDes lanes (inter-chip links)

#: Published SerDes transceivers, each with its area and its energy per bit at a lane rate (one lane: a transmitter
#: and a receiver; a full-duplex link's bit costs one lane's pJ/bit on each die, TX on one and RX on the other):
#: * ``short_reach``: O'Mahony et al., "A 47x10 Gb/s 1.4 mW/(Gb/s) Parallel Interface in 45 nm CMOS", IEEE JSSC
#:   45(12), 2010 (abstract): 47 lanes at 10 Gb/s, 660 mW, 1.4 mW/(Gb/s), 3.2 mm^2 active area (package-level
#:   short channels, dense connector);
#: * ``long_reach``: Ramachandran, Natarajan, Anand, "Line Coding Techniques for Channel Equalization ...", IEEE
#:   TCAS-I 66(3), 2019 (abstract): 65 nm transceiver, 10-18 Gb/s, 4.37 pJ/bit at 16 Gb/s over 27 dB of channel loss,
#:   0.21 mm^2 active area.
#: Energy per bit is kept across nodes (analog and I/O-limited, as the DRAM and PCIe PHYs' here); area follows the
#: PHYs' rule (:func:`_io_scale`: 30% of it with the node's logic area). The measured power is all counted as
#: switching at the lane rate (neither source separates a static part).
SERDES = {
    "short_reach": {"node_nm": 45.0, "gbps": 10.0, "max_gbps": 10.0, "pj_per_bit": 1.4, "mm2_per_lane": 3.2 / 47,
                    "source": "O'Mahony et al., IEEE JSSC 45(12), 2010"},
    "long_reach": {"node_nm": 65.0, "gbps": 16.0, "max_gbps": 18.0, "pj_per_bit": 4.37, "mm2_per_lane": 0.21,
                   "source": "Ramachandran et al., IEEE TCAS-I 66(3), 2019"},
}


def serdes(tech: TechNode, *, kind: str, lanes: int, lane_gbps: float, name: str = "serdes") -> Component:
    """``lanes`` SerDes lanes of the reference ``kind`` (:data:`SERDES`) at ``lane_gbps``; one ``bit`` action is one
    bit sent (and one received) at the reference's energy per bit. Actions per cycle are set at the clock."""
    r = SERDES[kind]
    return Component(name, "serdes", count=lanes, area_um2_each=r["mm2_per_lane"] * 1e6 * _io_scale(tech, r["node_nm"]),
                     energy_pj={"bit": r["pj_per_bit"]}, actions_per_cycle={"bit": 0.0}, activity_key="noc",
                     params={"serdes": kind, "lanes": lanes, "lane_gbps": lane_gbps, "source": r["source"]})
