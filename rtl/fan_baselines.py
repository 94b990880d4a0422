"""The two baselines SIGMA compares its FAN with (Qin et al., HPCA 2020, Fig. 6b), on the same vecID
interface: the linear reduction chain and a plain binary adder tree reducing one dot product (see the
parameter docs in :mod:`accelgen.rtl.fan`).
"""

from __future__ import annotations

from amaranth import Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..params.fan import AdderTreeParams, FanLinearParams
from .fan import ReductionNetwork, delayed, input_stage, reduction_adder, reduction_shape, value_shape

__all__ = ["FanLinear", "AdderTree"]


# --------------------------------------------------------------------------- linear chain

class ChainAdder(wiring.Component):
    """One adder of the linear chain: ``s = x + (link ? carry : 0)``, combinational with
    ``stages=0``, else ``s`` and ``vs`` belong to the inputs ``stages`` cycles earlier (the adder's
    registers; ``link``, ``x`` and the valid flag are delayed alongside).

    fp32: ``s = link ? carry + x : x`` (the fp32 adder's result, or ``x`` passed bit-exactly
    when the cluster starts here)."""

    def __init__(self, width: int, signed: bool, fp: bool = False, stages: int = 0):
        self.width, self.signed, self.fp, self.stages = width, signed, fp, stages
        sh = value_shape(width, signed, fp)
        super().__init__({"x": In(sh), "vx": In(1), "carry": In(sh),
                          "vc": In(1), "link": In(1), "s": Out(sh), "vs": Out(1)})

    def elaborate(self, platform):
        m = Module()
        if self.fp:
            total = reduction_adder(m, True, self.carry, self.x, self.stages)
            link, x = delayed(m, self.stages, link=self.link, x=self.x)  # meet the adder's sum
            m.d.comb += self.s.eq(Mux(link, total, x))
        else:
            # x + 0 is x exactly: the integer chain needs no bypass
            m.d.comb += self.s.eq(reduction_adder(m, False, self.x, Mux(self.link, self.carry, 0), self.stages))
        (vs,) = delayed(m, self.stages, vs=self.vx | (self.link & self.vc))
        m.d.comb += self.vs.eq(vs)
        return m


class FanLinear(ReductionNetwork):
    """Linear (chain) reduction baseline for :class:`FAN`: same clusters, same interface, O(n) latency.

    Adder ``i`` (1..n-1) computes the running sum ``s[i] = value[i] + s[i-1]``
    when inputs ``i-1`` and ``i`` share a vecID, else ``s[i] = value[i]``
    (``s[0] = value[0]``). A register stage follows every ``stage_adders``
    adders along the chain; inputs and partial results are delayed (skewed)
    so that a new vector enters every cycle. Every adder is one instance of
    the cell module ``<top>__adder`` (``width + log2 n`` bits wide). With
    ``add_stages`` registers inside each adder, adder ``i`` reads its input
    ``add_stages`` cycles later than adder ``i-1`` of the same chain stage
    (the carry's own delay), and each chain stage lasts
    ``1 + (adders in it) * add_stages`` cycles.

    Parameters: :class:`~accelgen.params.fan.FanLinearParams` (as for :class:`FAN`, and ``stage_adders``).

    Ports
    -----
    value, valid, vec_id, sum_id, sum_valid :
        As for :class:`FAN`.
    sum : Out(width + log2 n).array(n)
        Slot ``j`` holds the sum of the cluster whose *last* input is ``j``.

    Latency
    -------
    ``1 + ceil((n-1) / stage_adders) + (n-1) * add_stages`` cycles (input
    registers, then the chain stages, whose ``n-1`` adders the running sum
    passes one after the other), one new vector per cycle.
    """

    params_model = FanLinearParams

    def elaborate(self, platform):
        p = self.params
        n, r, sw, stages = p.n, p.stage_adders, p.sum_width, p.add_stages
        m, pipe, (x, v, ids) = self._front()
        eq = [Signal(name=f"eq{i}") for i in range(n - 1)]
        m.d.comb += [eq[i].eq(ids[i] == ids[i + 1]) for i in range(n - 1)]
        for i in range(n):
            pipe.put(("x", i), 0, x[i])
            pipe.put(("v", i), 0, v[i])
            pipe.put(("id", i), 0, ids[i])
        for i in range(n - 1):
            pipe.put(("eq", i), 0, eq[i])
        final = p.latency - 1              # the cycle (after the input registers) of the last register
        cell = ChainAdder(sw, p.signed, p.fp, stages)
        shape = reduction_shape(p, p.log2n)

        s0 = Signal(shape, name="s0")
        sv0 = Signal(name="sv0")
        m.d.comb += [s0.eq(x[0]), sv0.eq(~eq[0] & v[0])]
        pipe.put(("s", 0), 0, s0)
        pipe.put(("sv", 0), 0, sv0)
        s_prev, v_prev = s0, v[0]
        prev_stage = 0
        for i in range(1, n):
            c = -(-i // r)                 # chain stage of adder i; it reads stage c-1 values
            t = c - 1 + (i - 1) * stages   # ... in this cycle: the registers of stages and of adders 1..i-1
            if prev_stage < c - 1:         # carry crosses a register boundary
                s_prev, v_prev = pipe.at(("s", i - 1), t), pipe.at(("vs", i - 1), t)
            s = Signal(shape, name=f"s{i}_c")
            vs = Signal(name=f"vs{i}_c")
            xi = Signal(shape, name=f"x{i}_ext")   # Instance ports do not sign-extend
            m.d.comb += xi.eq(pipe.at(("x", i), t))
            m.submodules[f"adder_{i}"] = self.cell_instance(
                "adder", cell, clocked=bool(stages), x=xi, vx=pipe.at(("v", i), t),
                carry=s_prev, vc=v_prev, link=pipe.at(("eq", i - 1), t), s=s, vs=vs)
            # register at the end of chain stage c (after the adder's own registers: cycle t + stages)
            s_q = Signal(shape, name=f"s{i}")
            vs_q = Signal(name=f"vs{i}")
            m.d.sync += [s_q.eq(s), vs_q.eq(vs)]
            pipe.put(("vs", i), t + stages + 1, vs_q)
            sv = Signal(name=f"sv{i}")
            ends = ~pipe.at(("eq", i), t + stages) if i < n - 1 else Const(1, 1)
            sv_q = Signal(name=f"sv{i}_q")
            m.d.comb += sv.eq(ends & vs)
            m.d.sync += sv_q.eq(sv)
            pipe.put(("s", i), t + stages + 1, s_q)
            pipe.put(("sv", i), t + stages + 1, sv_q)
            s_prev, v_prev, prev_stage = s, vs, c - 1   # for the next adder of this stage, in cycle t + stages
        self._drive_slots(m, pipe, final, ["s"] * n)
        return m


# --------------------------------------------------------------------------- plain adder tree

class TreeAdder(wiring.Component):
    """Two-input adder with output register: ``y = a + b`` (one bit wider), ``yv = va | vb``;
    with ``stages`` pipeline registers inside the adder (``yv`` delayed alongside) the outputs
    belong to the inputs ``stages + 1`` cycles earlier."""

    def __init__(self, width: int, signed: bool, fp: bool = False, stages: int = 0):
        self.width, self.signed, self.fp, self.stages = width, signed, fp, stages
        super().__init__({"a": In(value_shape(width, signed, fp)), "b": In(value_shape(width, signed, fp)), "va": In(1),
                          "vb": In(1), "y": Out(value_shape(width + 1, signed, fp)), "yv": Out(1)})

    def elaborate(self, platform):
        m = Module()
        total = reduction_adder(m, self.fp, self.a, self.b, self.stages)
        (yv,) = delayed(m, self.stages, yv=self.va | self.vb)
        m.d.sync += [self.y.eq(total), self.yv.eq(yv)]
        return m


class AdderTree(ReductionNetwork):
    """Plain binary adder tree: the sum of all ``n`` inputs (one dot product) per vector.

    The baseline SIGMA compares :class:`FAN` with: it cannot reduce several
    clusters at once. ``n/2**(L+1)`` adders at level ``L``, each an instance of
    the cell module ``<top>__add<L>``, one register stage per level (after the
    ``add_stages`` registers inside its adders).

    Parameters: :class:`~accelgen.params.fan.AdderTreeParams` (as for :class:`FAN`).

    Ports
    -----
    value : In(width).array(n), signed if ``signed``
        The inputs of one vector, a new vector every cycle.
    valid : In(1).array(n)
        Input ``i`` is present (else it counts as 0).
    sum : Out(width + log2 n), signed if ``signed``
        The exact sum of the valid inputs.
    sum_valid : Out(1)
        At least one input of that vector was valid.

    Latency
    -------
    ``1 + log2 n * (1 + add_stages)`` cycles (input registers, then ``1 + add_stages``
    per level), as :class:`FAN`.
    """

    slots = False

    params_model = AdderTreeParams

    def elaborate(self, platform):
        p = self.params
        m = Module()
        x, v, _ = input_stage(m, self, p, with_ids=False)
        for level in range(p.log2n):
            cell = TreeAdder(p.width + level, p.signed, p.fp, p.add_stages)
            nx, nv = [], []
            for i in range(len(x) // 2):
                y = Signal(reduction_shape(p, level + 1), name=f"l{level + 1}_{i}")
                yv = Signal(name=f"l{level + 1}_{i}_v")
                m.submodules[f"add_{level}_{i}"] = self.cell_instance(
                    f"add{level}", cell, a=x[2 * i], b=x[2 * i + 1], va=v[2 * i], vb=v[2 * i + 1], y=y, yv=yv)
                nx.append(y)
                nv.append(yv)
            x, v = nx, nv
        m.d.comb += [self.sum.eq(x[0]), self.sum_valid.eq(v[0])]
        return m
