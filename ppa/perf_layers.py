"""The per-layer engine of :mod:`accelgen.ppa.perf`: the accelerator context, mapping cycles, bytes per
memory level, time under the dual roofline and energy, vectorized over a workload's layers (the method is
described in :mod:`accelgen.ppa.perf`)."""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import ConfigError
from .arch import Arch
from .components import (
    BISECTION_SHARE,
    FittedCompute,
    bisection_bits_per_cycle,
    dram_phy,
    mean_hops,
    model_name,
    noc_flit_bits,
)
from .estimate import compute_units, dynamic_w_by_activity, estimate, memory_component, noc_ty
from .perf_onchip import onchip_bytes
from .process import technology
from .sram import check_die_area
from .units import LayerActivity, MapContext, die_block_units, unit_for
from .units.memory import sustained_gbps
from .workload import COMPUTE_TYPES, Gemms, Workload, lower

LEVELS = ("sram", "noc", "dram")
#: how a sparse operand crosses the off-chip interface: as the workload's ``storage`` says (``auto``: the smaller
#: of bitmap and CSR), for every chip: a DMA engine compresses zeros off-chip, as TensorDash gives its dense
#: baseline too (Mahmoud et al., MICRO 2020, sect. V: "Both the baseline and TensorDash architectures compress
#: zero values off-chip using the CompressingDMA method"); ``storage: dense`` turns it off
DRAM_OPERANDS = "the workload's storage (compressed by a DMA engine for every chip; storage: dense for none)"


def _families(arch: Arch) -> dict[tuple[str, str, str], str]:
    """Fitted models the estimator needs for ``arch``, ``(family, dtype, variant)`` -> the first description
    path that needs it."""
    out: dict[tuple[str, str, str], str] = {}
    for u in compute_units(arch.core):
        out.setdefault((u.family, u.dtype, u.variant), u.path)
    return out


class PerfContext:
    """Everything about the accelerator that does not depend on the workload."""

    def __init__(self, arch: Arch, model_paths: dict | None):
        self.arch = arch
        self.tech = technology(arch.node_nm)
        self.fc = FittedCompute({**arch.models, **(model_paths or {})}, switching=arch.switching,
                                profile=arch.profile)
        missing = []
        for (fam, dtype, variant), path in _families(arch).items():
            name = model_name(fam, dtype, variant)
            try:
                self.fc.model(fam, path, dtype, variant)
            except ConfigError as exc:
                if model_paths and name in model_paths:
                    raise
                missing.append(f"{name} ({exc.problems[0][1].split(':')[0]})" if exc.problems else name)
        self.warnings: list[str] = []
        self.est = None
        if not missing:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                self.est = estimate(arch, model_paths=model_paths)
            self.warnings = sorted({str(w.message) for w in caught})
            self.note = "energy from the fitted component models (see compute_models in `accelgen estimate --json`)"
        else:
            self.note = ("energy, power, area and efficiency metrics unavailable: no fitted model for "
                         + ", ".join(sorted(missing)) + " (fit it with `accelgen fit FAMILY` or pass --model "
                         "FAMILY=FILE)")
        self.units = {u.path: u for u in compute_units(arch.core)}
        #: each unit's pipeline stages, by path, as the estimator chose them (unpipelined without an estimate)
        self.stages: dict[str, dict] = {}
        self.mapping_ratio: dict[str, dict] = {}
        if self.est is not None:
            self.stages = {c["component"]: {"mul_stages": c["mul_stages"], "add_stages": c["add_stages"]}
                           for c in self.est.pipelining}
            #: the relaxed units' ratios (:mod:`accelgen.ppa.relaxed`): their energy per action is the relaxed netlist's
            self.mapping_ratio = {c["component"]: c["mapping_ratio"] for c in self.est.pipelining
                                  if c["mapping"] == "relaxed"}
            self.clock_mhz = self.est.clock_mhz
            # per-PE scratch pads are read and written as the PEs compute: their energy follows the compute
            # units' in the ratio of the two at full activity (the estimate's rule, arch.Activity.pe_memory)
            full = dynamic_w_by_activity(self.est.breakdown)
            self.pe_memory_per_compute = full.get("pe_memory", 0.0) / full["tensor"] if full.get("tensor") else 0.0
            vnom = self.tech.vdd_v
            self.v_dyn = (self.est.vdd_v / vnom) ** 2
        elif arch.clock_mhz not in (None, "auto"):
            self.clock_mhz = arch.clock_mhz
            self.v_dyn = ((arch.vdd_v or self.tech.vdd_v) / self.tech.vdd_v) ** 2
        else:
            field = "target_tops" if arch.clock_mhz is None else "clock_mhz"
            raise ConfigError([(field, f"deriving the clock from {field} needs the fitted models; " + self.note)])
        c = arch.core
        #: the unit each compute type runs on (the first of the core's units of that type), in COMPUTE_TYPES order
        self.compute = {t: u for t in COMPUTE_TYPES if (u := unit_for(c, t)) is not None}
        #: the core's analytical units (``core.units``) as the estimate builds them: those whose energy a layer
        #: charges (:meth:`~accelgen.ppa.units.AnalyticalUnit.layer_energy_pj`) count in ``control_j``
        self.listed = die_block_units(c, self.tech, self.clock_mhz)
        self.available = list(self.compute)
        # memory levels
        self.levels = []
        cores = arch.cores
        # the shared on-chip memories (count independent instances each); per-PE scratch pads are inside the PEs
        shared = [(i, m) for i, m in enumerate(c.memories) if m.level == "shared"]
        if shared:
            comps = [memory_component(m, self.tech, f"core.memories[{i}]", self.clock_mhz) for i, m in shared]
            for (i, m), p in zip(shared, comps):   # the estimate refuses it too; without fitted models it is not run
                check_die_area(p.area_um2_each * 1e-6, f"core.memories[{i}].capacity_bytes", m.capacity_bytes,
                               f"memory {m.name!r}")
            # one access per port per max(macro cycle, clock period) (accelgen.ppa.units.memory.sustained_gbps)
            gbps = [p.count * sustained_gbps(p.params["banks"], p.params["ports"], p.params["block_bytes"],
                                             p.params["cycle_time_ns"], self.clock_mhz) for p in comps]
            epb = [0.5 * (p.energy_pj["read"] + p.energy_pj["write"]) / p.params["block_bytes"] for p in comps]
            self.levels.append({"name": "sram", "capacity_bytes": float(sum(m.capacity_bytes * m.count
                                                                             for _, m in shared) * cores),
                                "bytes_per_cycle": float(sum(gbps) * cores * 1e3 / self.clock_mhz),
                                "bandwidth_gbps": float(sum(gbps) * cores),
                                "energy_pj_per_byte": float(np.average(epb, weights=gbps)) * self.v_dyn,
                                "operands": "compressed where the unit skips zeros, else dense",
                                "source": "SRAM model (accelgen.ppa.sram): banks x ports x block bytes per "
                                          "max(macro cycle time, clock period)"})
            # with a memory of sums, the sums (accumulator-wide lines) and the operands move in different macros:
            # each role's reads and writes at its own memories' energy per access over their line (bandwidth-
            # weighted among several), not at one mean (run_layers, bytes per level)
            roles = {}
            for role in ("operands", "sums"):
                own = [(p, gb) for (_, m), p, gb in zip(shared, comps, gbps) if m.holds == role]
                if own:
                    roles[role] = {f"{a}_pj_per_byte": float(np.average(
                        [p.energy_pj[a] / p.params["block_bytes"] for p, _ in own],
                        weights=[gb for _, gb in own])) * self.v_dyn for a in ("read", "write")}
            if "sums" in roles:
                self.levels[-1]["energy_by_role"] = roles
            # the narrowest line of the memories of each role: where it is narrower than the array's row, a row of
            # A (or of sums) takes the lines that hold its operands, not a whole row's worth
            self.levels[-1]["line_bytes"] = {role: min(m.block_bytes for _, m in shared if m.holds == role)
                                             for role in ("operands", "sums") if any(m.holds == role
                                                                                     for _, m in shared)}
        if shared and cores > 1:
            self.levels.append(self._noc_level())
        if arch.chip.offchip:
            o = arch.chip.offchip
            phy = dram_phy(self.tech, kind=o.type, bandwidth_gbps=o.bandwidth_gbps, channels=o.channels)
            self.levels.append({"name": "dram", "capacity_bytes": float("inf"), "bandwidth_gbps": o.bandwidth_gbps,
                                "bytes_per_cycle": o.bandwidth_gbps * 1e3 / self.clock_mhz,
                                "energy_pj_per_byte": phy.energy_pj["bit"] * 8.0,
                                "operands": DRAM_OPERANDS,
                                "source": f"{o.type} interface energy per bit (accelgen.ppa.components.dram_phy)"})
        # the capacity the off-chip tiling can keep on chip: the shared memories and the PEs' own scratch pads (a
        # row-stationary PE keeps its filter row and partial sums in them, so they hold a share of the layer's tile)
        pe_bytes = float(sum(m.capacity_bytes * m.count for m in c.memories if m.level == "pe") * cores)
        # a memory that holds a weight-stationary array's sums bounds its output tiles (Memory.holds)
        self.sum_bytes = float(sum(m.capacity_bytes * m.count for _, m in shared if m.holds == "sums"))
        self.operand_bytes = float(sum(m.capacity_bytes * m.count for _, m in shared if m.holds == "operands")
                                   or np.inf)
        self.onchip_bytes = (self.levels[0]["capacity_bytes"] if shared else 0.0) + pe_bytes

    def _noc_level(self) -> dict:
        """The NoC between the cores (:mod:`accelgen.ppa.perf`, bytes per level): remote bytes at the bisection
        bandwidth over the share of uniform traffic that crosses it; energy per byte from the estimate's NoC."""
        arch = self.arch
        nc, ty = arch.chip.noc, noc_ty(arch)
        flit = noc_flit_bits(nc.topology, nc.tx, ty, nc.flit_bits, nc.bisection_gbps, self.clock_mhz)
        bpc = bisection_bits_per_cycle(nc.topology, nc.tx, ty, flit) / 8.0 / BISECTION_SHARE[nc.topology]
        # mean hops between two different cores (mean_hops counts a core sending to itself as 0 hops)
        hops = mean_hops(nc.topology, nc.tx, ty) * arch.cores / (arch.cores - 1)
        node = next((c for c in (self.est.breakdown["children"] if self.est else []) if c["name"] == "noc"), None)
        e_byte = 8.0 * hops * node["params"]["pj_per_bit_hop"] * self.v_dyn if node else 0.0
        return {"name": "noc", "capacity_bytes": None, "bytes_per_cycle": bpc,
                "bandwidth_gbps": bpc * self.clock_mhz * 1e-3, "energy_pj_per_byte": e_byte,
                "remote_fraction": (arch.cores - 1) / arch.cores, "mean_hops": hops,
                "source": f"{nc.topology} NoC, {flit}-bit flits: bisection / {BISECTION_SHARE[nc.topology]:g} "
                          "(uniform traffic), activations remote (accelgen.ppa.perf)"}

    # ---- compute energy per action at given densities
    def action_energy_pj(self, family: str, params: dict, density: np.ndarray, path: str,
                         dtype: str = "int", variant: str = "") -> np.ndarray:
        """Energy (pJ) per action of the unit at ``path`` at each operand ``density``: its fitted energy per
        operation (``activity.switching``'s target, clock network included), scaled to its relaxed netlist, the
        chip's node and supply."""
        return self.action_energies_pj(family, params, density, path, dtype, variant)[0]

    def action_energies_pj(self, family: str, params: dict, density: np.ndarray, path: str, dtype: str = "int",
                           variant: str = "") -> tuple[np.ndarray, np.ndarray | None]:
        """``(e_action, e_clock)`` in pJ at each ``density``: the energy per action (:meth:`action_energy_pj`) and
        the clock network's part of it (the fitted ``clock_energy_pj``: per action at full activity, so the clock
        of one cycle with every unit busy over the actions of that cycle), at the same node and supply; ``e_clock``
        is None when the model has no such target (a model file fitted before it, a combinational block's).

        The clock keeps the 1 GHz netlist's figure where the unit is relaxed (:mod:`accelgen.ppa.relaxed`, whose
        ratios are of the whole energy): area recovery resizes and removes logic cells, not the flip-flops whose
        clock pins are most of the clock network, so the measured recovery is the switching part's. (The tree's
        wire, about a sixth of the clock in the systolic sweep, shortens with the square root of the area: some 2%
        less clock at the measured 0.77 area ratio, which this keeps.)"""
        model = self.fc.model(family, path, dtype, variant)
        inputs = {k: v for k, v in params.items() if k in model.inputs}
        if "density" in model.inputs:
            lo, hi = model.inputs["density"].get("range", [0.0, 1.0])
            inputs["density"] = np.clip(density, lo, hi)  # outside the fitted range: clamp (recorded below)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = model.predict(node_nm=self.tech.node_nm, **inputs)
        target = self.fc.energy_target(model, path)
        energy = out[target] * self.mapping_ratio.get(path, {}).get(target, 1.0)

        def per_density(e):
            return np.broadcast_to(np.asarray(e, dtype=float), np.shape(density)) * self.v_dyn

        return per_density(energy), per_density(out["clock_energy_pj"]) if "clock_energy_pj" in out else None


def _check_layers(ctx: PerfContext, wl: Workload, g: Gemms, source: str | None) -> list[str]:
    chosen = []
    problems = []
    for i, (lay, want) in enumerate(zip(wl.layers, g.compute)):
        ct = want or (ctx.available[0] if ctx.available else None)
        if ct is None or ct not in ctx.available:
            problems.append((f"layers[{i}].compute", f"{want!r} is not in the architecture {ctx.arch.name!r} "
                                                     f"(it has: {', '.join(ctx.available) or 'no matrix unit'})"))
            chosen.append(None)
            continue
        limits = ctx.compute[ct].operand_widths()
        if limits:
            for side, w, lim in (("a_width", g.a_width[i], limits[0]), ("b_width", g.b_width[i], limits[1])):
                if w > lim:
                    problems.append((f"layers[{i}].{side}", f"{int(w)}-bit operands are wider than the {ct} "
                                                            f"unit's {lim} bits"))
        chosen.append(ct)
    if problems:
        raise ConfigError(problems[:3], source)
    return chosen


def _tensor_bytes(elems, d, pat, block, width, k_len, storage: str):
    """(data_bytes, metadata_bytes) of tensors stored dense or compressed (module docstring)."""
    elems, d = np.asarray(elems, dtype=float), np.asarray(d, dtype=float)
    dense = elems * width / 8.0
    unit = np.where(pat == 2, block.astype(float) ** 2, 1.0)
    nz_units = elems * d / unit
    bitmap = (elems * d * width / 8.0, elems / unit / 8.0)
    idx_bits = np.ceil(np.log2(np.maximum(k_len / np.sqrt(unit), 2)))
    csr = (elems * d * width / 8.0, nz_units * idx_bits / 8.0 + (elems / np.maximum(k_len, 1) + 1) * 4.0)
    sparse = d < 1.0
    if storage == "dense":
        return dense, np.zeros_like(dense)
    if storage == "bitmap":
        return np.where(sparse, bitmap[0], dense), np.where(sparse, bitmap[1], 0.0)
    if storage == "csr":
        return np.where(sparse, csr[0], dense), np.where(sparse, csr[1], 0.0)
    use_bitmap = bitmap[0] + bitmap[1] <= csr[0] + csr[1]
    data = np.where(sparse, np.where(use_bitmap, bitmap[0], csr[0]), dense)
    meta = np.where(sparse, np.where(use_bitmap, bitmap[1], csr[1]), 0.0)
    return data, meta


def _dram_bytes(A, B, C, M, N, count, acc_bytes, capacity):
    """Off-chip traffic of each layer tiled in ``capacity`` bytes (module docstring), all groups."""
    Ag, Bg, Cg = A / count, B / count, C / count
    half = capacity / 2.0
    j = np.arange(0, 31)[None, :]
    Tm = np.minimum(2.0 ** j, M[:, None])
    Tn = np.clip(np.floor(half / (Tm * acc_bytes[:, None])), 1, N[:, None])
    tiled = Ag[:, None] * np.ceil(N[:, None] / Tn) + Bg[:, None] * np.ceil(M[:, None] / Tm) + Cg[:, None]
    best = tiled.min(axis=1)
    once = Ag + Bg + Cg
    resident = (Ag <= half) | (Bg <= half)
    return np.where(resident, once, np.maximum(best, once)) * count


def run_layers(ctx: PerfContext, wl: Workload, batch: int, source: str | None = None, detail: bool = True) -> dict:
    g = lower(wl, batch)
    chosen = _check_layers(ctx, wl, g, source)
    arch, c = ctx.arch, ctx.arch.core
    n = len(g.M)
    f_hz = ctx.clock_mhz * 1e6
    cycles = np.zeros(n)
    executed = np.zeros(n)
    peak = np.zeros(n)
    a_reads, b_reads, psum, vadds, actions = (np.zeros(n) for _ in range(5))
    fill_a, fill_b, fill_c = (np.zeros(n) for _ in range(3))
    acc_bytes = np.full(n, 4.0)
    e_action = np.zeros(n)
    # the clock network's part of e_action and the actions' worth of clock the unit's cycles tick (0: charged per
    # action, a model without the clock target)
    e_clock, clock_actions = np.zeros(n), np.zeros(n)
    det = [dict() for _ in range(n)]
    mapped = []   # (layers, Mapping): the lines and schedule the bytes per level count
    dens = np.sqrt(g.a_d * g.b_d)
    has_sram = bool(ctx.levels) and ctx.levels[0]["name"] == "sram"
    sram_bpc = ctx.levels[0]["bytes_per_cycle"] if has_sram else np.inf
    for ct in COMPUTE_TYPES:
        idx = np.array([i for i, x in enumerate(chosen) if x == ct], dtype=np.int64)
        if not idx.size:
            continue
        sub = g.subset(idx)
        unit = ctx.compute[ct]
        path = unit.path
        mp = unit.map(sub, MapContext(cores=arch.cores, stages=ctx.stages.get(path, {}), vector_unit=c.vector_unit,
                                      sram_bytes_per_cycle=sram_bpc, sum_bytes=ctx.sum_bytes,
                                      operand_bytes=ctx.operand_bytes))
        if unit.psum_bytes() is not None:
            acc_bytes[idx] = unit.psum_bytes()
        cycles[idx], executed[idx], actions[idx] = mp.cycles, mp.executed_macs, mp.actions
        if mp.fill_a_bytes is not None:
            fill_a[idx], fill_b[idx], fill_c[idx] = mp.fill_a_bytes, mp.fill_b_bytes, mp.fill_c_bytes
        peak[idx] = mp.peak_macs_per_cycle
        a_reads[idx], b_reads[idx], psum[idx], vadds[idx] = (mp.onchip_a_reads, mp.onchip_b_reads,
                                                              mp.onchip_psum_elems, mp.vector_adds)
        mapped.append((idx, mp))
        if ctx.est is not None:
            u = ctx.units[path]   # the model inputs the estimator used for this unit (estimate.compute_units)
            e_action[idx], clk = ctx.action_energies_pj(u.family, {**u.params, **ctx.stages.get(path, {})}, dens[idx],
                                                        path, u.dtype, u.variant)
            if clk is not None and mp.peak_actions_per_cycle is not None:
                # every cycle of the layer clocks all the units of its type, busy or not (no clock gating)
                e_clock[idx], clock_actions[idx] = clk, mp.cycles * mp.peak_actions_per_cycle
        if detail:
            for j, i in enumerate(idx):
                det[i] = {k: (v[j].item() if isinstance(v, np.ndarray) and isinstance(v[j], np.generic) else v[j])
                          for k, v in mp.detail.items()}
    # ---- bytes per level
    A_im2col = g.M * g.K * g.count
    a_data, a_meta = _tensor_bytes(g.a_elems, g.a_d, g.a_pat, g.a_block, g.a_width, g.K, wl.storage)
    ai_data, ai_meta = _tensor_bytes(A_im2col, g.a_d, g.a_pat, g.a_block, g.a_width, g.K, wl.storage)
    b_data, b_meta = _tensor_bytes(g.b_elems, g.b_d, g.b_pat, g.b_block, g.b_width, g.K, wl.storage)
    A, Ai, B = a_data + a_meta, ai_data + ai_meta, b_data + b_meta
    Cb = g.c_elems * g.a_width / 8.0
    meta = a_meta + b_meta
    # on chip, a unit that skips no zeros of a layer reads its operands dense, zeros included: it has no decoder
    # for the compressed form (only off-chip traffic is compressed for it, DRAM_OPERANDS)
    macs = g.macs.astype(float)
    skips = executed < macs * (1.0 - 1e-12)
    Ai_chip = np.where(skips, Ai, A_im2col * g.a_width / 8.0)
    B_chip = np.where(skips, B, g.b_elems * g.b_width / 8.0)
    # the layer's real input (not lowered) in the unit's on-chip form: what a load of it writes on chip
    A_chip = np.where(skips, A, g.a_elems * g.a_width / 8.0)
    byts = {}
    for lv in ctx.levels:
        if lv["name"] == "noc":
            byts["noc"] = lv["remote_fraction"] * Ai_chip * a_reads
    loads_in = np.zeros(n, dtype=bool)     # the layer's input comes from off chip
    stores_out = np.zeros(n, dtype=bool)   # its output goes off chip
    loaded = np.zeros(n)                   # what the off-chip loads write on chip, in the unit's on-chip form
    if arch.chip.offchip:
        if wl.storage == "auto":   # a compressing DMA sends a tensor dense where its compressed form is larger
            A = np.minimum(A, g.a_elems * g.a_width / 8.0)
            B = np.minimum(B, g.b_elems * g.b_width / 8.0)
        tiled = _dram_bytes(A, B, Cb, g.M.astype(float), g.N.astype(float), g.count.astype(float), acc_bytes,
                            ctx.onchip_bytes)
        # activations that fit (input + output in half the on-chip capacity) stay on chip between layers:
        # only the weights move (once); the network's first input and last output always cross
        resident = (A + Cb) <= ctx.onchip_bytes / 2.0
        edge = np.zeros(n)
        edge[0] += A[0]
        edge[-1] += Cb[-1]
        byts["dram"] = np.where(resident, B + edge, tiled)
        loads_in, stores_out = ~resident, ~resident
        loads_in[0] = stores_out[-1] = True
        # a DMA writes every byte it brings into an on-chip memory (and the unit reads it from there): the off-chip
        # reads (all but the output's one write) once each, decompressed where the unit reads its operands dense
        loaded = np.where(resident, B_chip + A_chip * loads_in,
                          (tiled - Cb) * (A_chip + B_chip) / np.maximum(A + B, 1e-30))
    level_pj = {}   # a level's energy (pJ) where it is not its bytes at one energy per byte
    sram_split = {}
    if has_sram:
        byts["sram"], sram_split, sram_pj = onchip_bytes(ctx.levels[0], mapped, g, Ai_chip, B_chip, a_reads, b_reads,
                                                         psum, acc_bytes, Cb, loads_in, stores_out, loaded)
        if sram_pj is not None:
            level_pj["sram"] = sram_pj
    t_compute = cycles / f_hz
    times = {"compute": t_compute}
    for lv in ctx.levels:
        times[lv["name"]] = byts[lv["name"]] / (lv["bandwidth_gbps"] * 1e9)
    # a double-buffered schedule overlaps everything but its fill: the first fold's operands arrive before it starts
    # (the A tile only when the layer's input is in external memory) and the last output tile leaves after it ends
    # (only when the output goes there), each at the off-chip bandwidth; the compute waits for them, the transfers'
    # own time already counts them
    fill_s = np.zeros(n)
    if arch.chip.offchip:
        into, out_of = ~resident, ~resident
        into[0] = out_of[-1] = True
        fill_s = (fill_a * into + fill_b + fill_c * out_of) / (arch.chip.offchip.bandwidth_gbps * 1e9)
        times["compute"] = t_compute + fill_s
    names = list(times)
    tmat = np.stack([times[k] for k in names], axis=1)
    time_s = tmat.max(axis=1)
    bound = [names[i] for i in tmat.argmax(axis=1)]
    ops = 2.0 * macs
    # the useful work: products of two non-zero operands (independent zeros: a fraction d_A d_B of the MACs)
    effectual = macs * g.a_d * g.b_d
    out = {"g": g, "chosen": chosen, "cycles": cycles, "time_s": time_s, "times": times, "bound": bound,
           "fill_s": fill_s,
           "bytes": byts, "sram_split": sram_split, "metadata_bytes": meta, "ops": ops, "macs": macs,
           "executed_macs": executed,
           "effectual_macs": effectual, "onchip_compressed": skips, "peak_macs_per_cycle": peak, "detail": det}
    if ctx.est is not None:
        # the switching per action, and the clock network on every cycle the unit is busy with the layer (its
        # mapping's cycles), whatever its utilization: fold overhead, skew and drain tick the clock as MACs do. At
        # full activity the two give actions x e_action; the switching part is at least 0 (the two fits may cross
        # where almost nothing switches)
        e = {"compute_j": (actions * np.maximum(e_action - e_clock, 0.0) + clock_actions * e_clock) * 1e-12}
        if ctx.pe_memory_per_compute:   # the scratch pads are accessed as the PEs act: per action
            e["pe_memory_j"] = actions * e_action * 1e-12 * ctx.pe_memory_per_compute
        if c.vector_unit and vadds.any():
            v = c.vector_unit
            w = min(v.width, 32)
            e_add = ctx.action_energy_pj("mac", {"a_width": w, "b_width": w, "acc_width": min(64, 2 * w)},
                                         np.ones(n), "core.vector_unit")
            e["vector_j"] = vadds * e_add * 1e-12
        for lv in ctx.levels:
            e[f"{lv['name']}_j"] = level_pj.get(lv["name"], byts[lv["name"]] * lv["energy_pj_per_byte"]) * 1e-12
        activity = LayerActivity(cycles=time_s * f_hz, dram_bytes=byts.get("dram", np.zeros(n)),
                                 outputs=g.c_elems.astype(float),
                                 streamed_bytes=Ai_chip * a_reads, cores=arch.cores)
        charged = [x for u in ctx.listed if (x := u.layer_energy_pj(activity)) is not None]
        if charged:
            e["control_j"] = sum(charged) * ctx.v_dyn * 1e-12
        e["leakage_j"] = ctx.est.leakage_w * time_s
        out["energy"] = e
        out["energy_j"] = sum(e.values())
    return out


def rate_metrics(effectual_ops, dense_ops, time_s, peak_ops_s, energy_j, area_mm2, dense_time_s=None) -> dict:
    """A layer's or a network's rates. ``achieved_tops``: effectual operations (both operands non-zero) per second,
    what the chip did that was useful, so ``utilization`` (achieved over the peak) is at most 1;
    ``dense_equivalent_tops``: the dense work (every MAC of the layers, zeros included) per second, which a chip
    that skips zeros raises above its peak; ``speedup_vs_dense``: the same layers at density 1 on the same chip
    (``dense_time_s``) over this time. Energy efficiencies are of achieved (effectual) operations."""
    ops, dense, time_s = float(effectual_ops), float(dense_ops), float(time_s)
    tops = ops / time_s * 1e-12 if time_s > 0 else 0.0
    m = {"achieved_tops": tops, "utilization": (ops / time_s) / peak_ops_s if time_s > 0 and peak_ops_s else 0.0,
         "dense_equivalent_tops": dense / time_s * 1e-12 if time_s > 0 else 0.0,
         "speedup_vs_dense": float(dense_time_s) / time_s if dense_time_s is not None and time_s > 0 else 1.0}
    if energy_j is not None:
        power = energy_j / time_s if time_s > 0 else 0.0
        m.update(energy_j=energy_j, runtime_power_w=power, tops_per_w=tops / power if power else 0.0,
                 tops_per_mm2=tops / area_mm2, tops_per_tco=tops / area_mm2 ** 2 / power if power else 0.0)
    else:
        m.update(energy_j=None, runtime_power_w=None, tops_per_w=None, tops_per_mm2=None, tops_per_tco=None)
    return m
