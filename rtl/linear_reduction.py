"""SIGMA's linear reduction baseline (Qin et al., HPCA 2020, Fig. 6b): a chain of adders fed skewed, as a
systolic column.

Unlike :class:`~accelgen.rtl.fan_baselines.FanLinear`, which delays every input internally (O(n²)
skew registers) so that a whole vector enters in one cycle, :class:`LinearReduction` expects its
source to present input ``i`` of a vector ``i * (1 + add_stages)`` cycles after input 0, as the
rows of a weight-stationary systolic column deliver their products. The partial sum then advances
one adder per ``1 + add_stages`` cycles and meets each input as it arrives: the only registers are
one partial-sum register (with its valid flag and the vecID of its input) per adder and the adders'
own ``add_stages`` registers, O(n) in all.
"""

from __future__ import annotations

from amaranth import Module, Mux, Signal

from ..params.linear_reduction import LinearReductionParams
from .fan import ReductionNetwork, delayed, reduction_shape
from .fan_baselines import ChainAdder

__all__ = ["LinearReduction", "LinearReductionParams"]


class LinearReduction(ReductionNetwork):
    """SIGMA's linear reduction: a chain of ``n - 1`` adders whose partial sums advance one adder per
    ``1 + add_stages`` cycles, fed skewed as a systolic column.

    Adder ``i`` (1..n-1) computes ``s[i] = value[i] + (link ? s[i-1] : 0)`` where ``link`` says that
    inputs ``i-1`` and ``i`` share a vecID (fp32: ``link ? s[i-1] + value[i] : value[i]``, the first
    input of a cluster passed bit-exactly); ``s[0] = value[0]``. That is the left-to-right order of
    :func:`accelgen.golden.fan.segmented_sums` with ``order="linear"``. Every adder is one instance of
    :class:`~accelgen.rtl.fan_baselines.ChainAdder` (cell module ``<top>__adder``, ``width + log2 n``
    bits wide, ``add_stages`` registers inside); after it, one register holds ``s[i]``, its valid
    flag and the vecID of input ``i`` (delayed alongside the adder's registers). Input 0 has no adder:
    its value waits in ``1 + add_stages`` registers. There are no input registers and no skew lines.

    Parameters: :class:`~accelgen.params.linear_reduction.LinearReductionParams` (as for
    :class:`~accelgen.rtl.fan.FAN`).

    Ports
    -----
    Those of :class:`~accelgen.rtl.fan.FAN`, skewed in time (``d = 1 + add_stages``):

    value, valid, vec_id : In.array(n)
        Input ``i`` of vector ``t`` is presented in cycle ``t + i * d`` (a new vector every cycle;
        ``valid`` 0: the input counts as 0 and does not split its cluster).
    sum : Out(width + log2 n).array(n), signed if ``signed``
        Slot ``j`` holds the sum of the cluster whose *last* input is ``j`` (as
        :class:`~accelgen.rtl.fan_baselines.FanLinear`); the result of vector ``t`` is there in cycle
        ``t + (j + 1) * d``, ``d`` cycles after its input ``j`` was presented.
    sum_id, sum_valid : Out.array(n)
        The vecID of that cluster and whether it has a valid input (the same cycle as ``sum``).
        ``sum_valid[j]`` (``j < n - 1``) also depends combinationally on ``vec_id[j + 1]``, presented
        in that same cycle: whether the cluster ends at ``j`` is known only when input ``j + 1``
        arrives, and deciding it then keeps the one register per adder.

    Latency
    -------
    ``n * (1 + add_stages)`` cycles from input 0 of a vector to its last slot (``n`` with
    combinational adders), one new vector per cycle. A fold of a stationary mapping (``V`` vectors)
    therefore takes ``V + n * (1 + add_stages)`` cycles: after the last vector enters, the chain needs
    ``n`` cycles (``N`` in SIGMA's terms) to drain, against ``log2 n`` for the FAN. After reset
    all ``sum_valid`` are 0.
    """

    params_model = LinearReductionParams

    def elaborate(self, platform):
        p = self.params
        n, stages = p.n, p.add_stages
        m = Module()
        shape = reduction_shape(p, p.log2n)
        cell = ChainAdder(p.sum_width, p.signed, p.fp, stages)
        s_q, vs_q, id_q, link = [], [], [], [None] * n
        for i in range(n):
            x = Signal(shape, name=f"x{i}")        # sum-wide: Instance ports do not sign-extend
            m.d.comb += x.eq(Mux(self.valid[i], self.value[i], 0))
            if i == 0:
                s, vs, ident = delayed(m, stages, s0=x, vs0=self.valid[0], id0=self.vec_id[0])
            else:
                link[i] = Signal(name=f"link{i}")
                m.d.comb += link[i].eq(id_q[i - 1] == self.vec_id[i])
                s, vs = Signal(shape, name=f"s{i}_c"), Signal(name=f"vs{i}_c")
                m.submodules[f"adder_{i}"] = self.cell_instance(
                    "adder", cell, clocked=bool(stages), x=x, vx=self.valid[i], carry=s_q[i - 1], vc=vs_q[i - 1],
                    link=link[i], s=s, vs=vs)
                (ident,) = delayed(m, stages, **{f"id{i}": self.vec_id[i]})   # meets the adder's sum
            regs = (Signal(shape, name=f"s{i}"), Signal(name=f"vs{i}"), Signal(p.id_width, name=f"id{i}_q"))
            m.d.sync += [r.eq(v) for r, v in zip(regs, (s, vs, ident))]
            for lst, r in zip((s_q, vs_q, id_q), regs):
                lst.append(r)
        for j in range(n):
            ends = ~link[j + 1] if j < n - 1 else 1
            m.d.comb += [self.sum[j].eq(s_q[j]), self.sum_id[j].eq(id_q[j]), self.sum_valid[j].eq(vs_q[j] & ends)]
        return m
