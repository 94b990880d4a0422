"""Reduction networks: SIGMA's Forwarding Adder Network (FAN) and the two baselines SIGMA compares it with.

* :class:`FAN` reduces every cluster of equal adjacent vecIDs in one pass (any
  number of clusters of any sizes), pipelined one register stage per tree level
  (``1 + add_stages`` with pipelined adders).
* :class:`FanLinear` does the same job with a chain of adders (latency grows
  linearly with ``n``).
* :class:`AdderTree` is a plain binary adder tree that reduces one dot product
  (all ``n`` inputs) per vector.

All three share the input side (``value``, ``valid`` per input; FAN and the
chain also ``vec_id``), the same input register stage and exact output widths,
so that synthesizing them side by side compares them on equal terms.

Datatypes (``dtype``): ``"int"`` (two's-complement or unsigned integers of
``width`` bits, exact sums ``width + log2 n`` bits wide) or ``"fp32"`` (IEEE
binary32 bit patterns in and out, ``width`` 32 and ``signed`` implied). In fp32
every adder is an :class:`~accelgen.rtl.fp.FPAdder` (fp32 adder with
``add_stages`` registers, round to nearest even, subnormals exact, canonical NaN 0x7FC00000) placed
between the same registers as the integer adder, so the latency and the
pipeline are those of the integer network. Bypassed operands (singleton
clusters, level-0 bypasses, the first input of a chain cluster) pass
bit-exactly through the muxes. Because fp32 addition is not associative, the
association order is part of the specification; each network's order is
documented in :mod:`accelgen.golden.fan` (FAN: the in-order tree, a
cluster split recursively at its highest-level adder; chain: left to right;
tree: level by level), and the golden model follows it exactly. Invalid
inputs enter as +0.0 (bit pattern 0) at their position in that order.

Pipelined adders (``add_stages`` = 1..3, default 0). Every adder of a network
gets ``add_stages`` register stages inside it: a
:class:`~accelgen.rtl.intarith.PipelinedAdder` of the network's exact widths
(int) or ``FPAdder(stages=add_stages)`` (fp32). Everything that leaves the adder
cell without passing the adder -- the bypassed operand(s), the valid and
cluster flags -- is delayed inside the cell by the same ``add_stages`` cycles
before the cell's output mux and register, and the network delays what bypasses
a whole cell (forwarded operands, vecIDs, boundary flags, the last input) by the
cells' latency, so every adder still sees the operands of one vector and the
association order, hence every result, is bit-identical to ``add_stages=0``;
only the latency grows (each class's *Latency* section). ``add_stages=0`` emits
the same Verilog as before the option existed.
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Shape, Signal, Value, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..params.fan import AdderTreeParams, FanLinearParams, FANParams, ReductionParams
from ._cells import HierarchicalComponent
from ._generator import FromParams
from .fp import FPAdder
from .intarith import PipelinedAdder

__all__ = ["FANParams", "FanLinearParams", "AdderTreeParams", "FAN", "fan_level", "reduction_shape"]


def fan_level(i: int) -> int:
    """Tree level of FAN adder ``i``: the number of trailing one bits of ``i``."""
    level = 0
    while i >> level & 1:
        level += 1
    return level


# --------------------------------------------------------------------------- shared helpers

class _Pipe:
    """Delay lines created on demand: ``put(key, stage, value)``, then ``at(key, stage)``
    returns the value registered as often as needed to reach ``stage`` (a stage is a cycle
    after the input registers)."""

    def __init__(self, m: Module):
        self.m = m
        self.lines: dict[object, dict[int, object]] = {}

    def put(self, key, stage: int, value) -> None:
        self.lines[key] = {stage: value}

    def at(self, key, stage: int):
        line = self.lines[key]
        last = max(line)
        if stage < min(line):
            raise AssertionError(f"{key} is needed at stage {stage} before it exists (stage {min(line)})")
        while last < stage:
            prev = line[last]
            name = (f"{key[0]}{key[1]}_d{last + 1}" if isinstance(key, tuple) else f"{key}_d{last + 1}")
            reg = Signal.like(prev, name=name)
            self.m.d.sync += reg.eq(prev)
            last += 1
            line[last] = reg
        return line[stage]


def input_stage(m: Module, component, p, with_ids: bool):
    """Input registers (stage 0): values masked by their valid bit, valid bits, vecIDs."""
    x, v, ids = [], [], []
    for i in range(p.n):
        xi = Signal(reduction_shape(p), name=f"x{i}")
        vi = Signal(name=f"v{i}")
        m.d.sync += [xi.eq(Mux(component.valid[i], component.value[i], 0)), vi.eq(component.valid[i])]
        x.append(xi)
        v.append(vi)
        if with_ids:
            idi = Signal(p.id_width, name=f"id{i}")
            m.d.sync += idi.eq(component.vec_id[i])
            ids.append(idi)
    return x, v, ids


def _reduction_ports(p, slots: bool) -> dict:
    """Inputs ``value``/``valid``; with ``slots`` also ``vec_id`` in and a sum per slot out, else one sum."""
    ports = {"value": In(reduction_shape(p)).array(p.n), "valid": In(1).array(p.n)}
    if slots:
        ports["vec_id"] = In(p.id_width).array(p.n)
        ports |= {"sum": Out(reduction_shape(p, p.log2n)).array(p.n), "sum_id": Out(p.id_width).array(p.n),
                  "sum_valid": Out(1).array(p.n)}
    else:
        ports |= {"sum": Out(reduction_shape(p, p.log2n)), "sum_valid": Out(1)}
    return ports


class ReductionNetwork(FromParams, HierarchicalComponent):
    """What the reduction networks share: ports from the parameters, the input stage and, for the
    cluster networks (with ``vec_id``, a sum per output slot), the slot outputs."""

    #: one output slot per input, with vecIDs (FAN, FanLinear); else one sum (AdderTree)
    slots = True

    def __init__(self, params: ReductionParams | None = None, /, **kwargs):
        self.params = self.validated(params, kwargs)
        super().__init__(_reduction_ports(self.params, slots=self.slots))

    def _front(self) -> tuple[Module, _Pipe, tuple[list, list, list]]:
        """A new module, its delay lines and the input stage ``(x, v, ids)``."""
        m = Module()
        return m, _Pipe(m), input_stage(m, self, self.params, with_ids=self.slots)

    def _drive_slots(self, m: Module, pipe: _Pipe, stage: int, keys: list[str]) -> None:
        """Output slot ``j``: the value on line ``(keys[j], j)``, its ``sv`` flag and its vecID at ``stage``."""
        for j, key in enumerate(keys):
            m.d.comb += [self.sum[j].eq(pipe.at((key, j), stage)), self.sum_valid[j].eq(pipe.at(("sv", j), stage)),
                         self.sum_id[j].eq(pipe.at(("id", j), stage))]


def value_shape(width: int, signed: bool, fp: bool) -> Shape:
    return unsigned(32) if fp else Shape(width, signed)


def reduction_shape(p: ReductionParams, grow: int = 0) -> Shape:
    """Shape of a partial sum ``grow`` bits wider than an input (fp32: always 32-bit patterns)."""
    return value_shape(p.width + grow, p.signed, p.fp)


def reduction_adder(m: Module, fp: bool, a, b, stages: int = 0):
    """``a + b`` with ``stages`` pipeline registers: an integer adder (one bit wider; ``a`` and ``b``
    of one shape) or an fp32 adder (:class:`~accelgen.rtl.fp.FPAdder`, round to nearest even). With
    ``stages=0`` the integer adder is Amaranth's ``a + b``; otherwise the unit is submodule ``add``
    (:class:`~accelgen.rtl.intarith.PipelinedAdder` of ``a``'s shape, or ``FPAdder(stages=stages)``)
    and its sum belongs to the operands applied ``stages`` cycles earlier."""
    if fp:
        m.submodules.add = add = FPAdder(stages=stages)
    elif stages:
        shape = Value.cast(a).shape()
        m.submodules.add = add = PipelinedAdder(shape.width, signed=shape.signed, stages=stages)
    else:
        return a + b
    m.d.comb += [add.a.eq(a), add.b.eq(b)]
    return add.sum


def delayed(m: Module, stages: int, **values) -> list:
    """``values`` (in keyword order) delayed by ``stages`` cycles, to meet an adder's sum: each through
    ``stages`` registers named ``<key>_p1..``; with ``stages=0`` the values themselves. The registers
    are reset like the cell's output registers, so that no valid flag is set after reset."""
    out = []
    for key, value in values.items():
        for k in range(1, stages + 1):
            reg = Signal(Value.cast(value).shape(), name=f"{key}_p{k}")
            m.d.sync += reg.eq(value)
            value = reg
        out.append(value)
    return out


# --------------------------------------------------------------------------- FAN cells

class FanNode0(wiring.Component):
    """FAN adder at level 0 (between inputs ``j`` and ``j+1``), with its output register.

    ``eqw`` bits 0, 1, 2 say whether boundaries ``j-1``, ``j``, ``j+1`` join equal
    vecIDs (0 outside the network). When boundary ``j`` joins, both outputs carry
    ``a + b``; otherwise the operands are bypassed upward: ``y = a`` (towards
    adder ``j-1``) and ``yr = b`` (towards adder ``j+1``). ``sv``: ``y`` is a
    finished cluster (the pair, or the singleton ``j``) with a valid member.
    ``stages``: the adder's pipeline registers; the operands and flags wait
    for its sum, so the outputs belong to the inputs ``stages + 1`` cycles earlier.
    """

    def __init__(self, width: int, signed: bool, fp: bool = False, stages: int = 0):
        self.width, self.signed, self.fp, self.stages = width, signed, fp, stages
        super().__init__({
            "a": In(value_shape(width, signed, fp)), "b": In(value_shape(width, signed, fp)), "va": In(1), "vb": In(1),
            "eqw": In(3), "y": Out(value_shape(width + 1, signed, fp)), "yv": Out(1),
            "yr": Out(value_shape(width + 1, signed, fp)), "yrv": Out(1), "sv": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        left, eq, right = self.eqw[0], self.eqw[1], self.eqw[2]
        total = reduction_adder(m, self.fp, self.a, self.b, self.stages)
        both = self.va | self.vb
        yv = Mux(eq, both, self.va)
        occupied = Mux(eq, ~left & ~right, ~left)
        yrv, sv = Mux(eq, both, self.vb), occupied & yv
        # the bypassed operands and the flags meet the adder's sum
        a, b, eq, yv, yrv, sv = delayed(m, self.stages, a=self.a, b=self.b, eq=eq, yv=yv, yrv=yrv, sv=sv)
        m.d.sync += [
            self.y.eq(Mux(eq, total, a)), self.yv.eq(yv),
            self.yr.eq(Mux(eq, total, b)), self.yrv.eq(yrv),
            self.sv.eq(sv),
        ]
        return m


class FanNode(wiring.Component):
    """FAN adder ``j`` at level ``L >= 1``, with its operand muxes and output register.

    ``a_cand[m-1]`` (``m = 1..L``) is the output of adder ``j - 2**(m-1)``
    (the forwarding links into the left subtree's right spine); ``b_cand[m-1]``
    that of adder ``j + 2**(m-1)`` (right subtree's left spine). ``eqw`` bit
    ``t`` says whether boundary ``j - 2**L + t`` joins equal vecIDs. The left
    operand is the candidate with the largest ``m`` whose boundaries
    ``j - 2**(m-1) .. j-1`` all join (default ``m = 1``, which carries input
    ``j`` bypassed by level 0 when boundary ``j-1`` does not join); the right
    operand likewise. ``y = a + b`` when boundary ``j`` joins, else ``a``.
    ``sv``: ``y`` is a finished cluster with a valid member — the cluster
    spans boundary ``j`` but neither boundary ``j - 2**L`` nor ``j + 2**L``
    (``j`` is its highest adder), or input ``j`` is a singleton.
    ``stages``: the adder's pipeline registers, as in :class:`FanNode0` (the
    operand muxes act on the inputs; their choice and the flags wait for the sum).
    """

    def __init__(self, width: int, signed: bool, level: int, fp: bool = False, stages: int = 0):
        self.width, self.signed, self.level, self.fp, self.stages = width, signed, level, fp, stages
        w = width + level
        super().__init__({
            "a_cand": In(value_shape(w, signed, fp)).array(level), "a_v": In(1).array(level),
            "b_cand": In(value_shape(w, signed, fp)).array(level), "b_v": In(1).array(level),
            "eqw": In(2 ** (level + 1) + 1),
            "y": Out(value_shape(w + 1, signed, fp)), "yv": Out(1), "sv": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        L, c, e = self.level, 2 ** self.level, self.eqw
        ea = e[c - 1]   # boundaries j-2^(m-1) .. j-1 all join
        eb = e[c + 1]   # boundaries j+1 .. j+2^(m-1) all join
        a, av = self.a_cand[0], self.a_v[0]
        b, bv = self.b_cand[0], self.b_v[0]
        for mm in range(2, L + 1):
            ea = ea & e[c - 2 ** (mm - 1):c - 2 ** (mm - 2)].all()
            eb = eb & e[c + 2 ** (mm - 2) + 1:c + 2 ** (mm - 1) + 1].all()
            a, av = Mux(ea, self.a_cand[mm - 1], a), Mux(ea, self.a_v[mm - 1], av)
            b, bv = Mux(eb, self.b_cand[mm - 1], b), Mux(eb, self.b_v[mm - 1], bv)
        reach_left = ea & e[0:c - 2 ** (L - 1)].all()
        reach_right = eb & e[c + 2 ** (L - 1) + 1:2 * c + 1].all()
        eq = e[c]
        yv = Mux(eq, av | bv, av)
        occupied = Mux(eq, ~reach_left & ~reach_right, ~e[c - 1])
        total = reduction_adder(m, self.fp, a, b, self.stages)
        sv = occupied & yv
        a, eq, yv, sv = delayed(m, self.stages, a=a, eq=eq, yv=yv, sv=sv)  # meet the adder's sum
        m.d.sync += [self.y.eq(Mux(eq, total, a)), self.yv.eq(yv), self.sv.eq(sv)]
        return m


# --------------------------------------------------------------------------- FAN

class FAN(ReductionNetwork):
    """SIGMA's Forwarding Adder Network: reduces every cluster of equal adjacent vecIDs in one pass.

    ``n - 1`` adders form an in-order binary tree: adder ``j`` (0..n-2) sits
    between inputs ``j`` and ``j+1`` and has level = number of trailing one bits
    of ``j``. Adder ``j`` adds when ``vec_id[j] == vec_id[j+1]``; a level-0 adder
    whose inputs differ bypasses them upward; an adder at level ``L`` has
    forwarding links from adders ``j ± 2**(l-1)`` for ``l = 1..L`` and picks its
    operands among them (see :class:`FanNode`). One instance of the cell module
    ``<top>__node<L>`` per adder (a module per level).

    A *cluster* is a maximal run of adjacent inputs with equal ``vec_id`` (SIGMA
    numbers clusters contiguously; an id that reappears after a different one
    starts a new cluster). Invalid inputs count as 0 and do not split clusters.

    Parameters: :class:`~accelgen.params.fan.FANParams` (a parameter set, or its fields as keywords;
    ``n = 2`` is one level-0 adder; ``dtype`` and ``add_stages`` as in the module docstring).

    Ports
    -----
    value : In(width).array(n), signed if ``signed``
        The inputs of one vector, a new vector every cycle (fp32: bit patterns).
    valid : In(1).array(n)
        Input ``i`` is present (else its value counts as 0).
    vec_id : In(max(1, log2 n)).array(n)
        Cluster of each input; neighbours with equal ids are summed.
    sum : Out(width + log2 n).array(n), signed if ``signed``
        Output slot ``j``: for ``j < n-1`` either the sum of the cluster whose
        highest adder is adder ``j`` (the adder of largest level among the
        cluster's internal boundaries) or, if input ``j`` is a singleton
        cluster, its value; slot ``n-1`` holds input ``n-1`` when it is a
        singleton. Each cluster appears in exactly one slot. Sums are exact
        (fp32: 32-bit patterns, rounded at every adder in the FAN's order).
    sum_id : Out(max(1, log2 n)).array(n)
        The vecID of the cluster in slot ``j`` (that of input ``j``).
    sum_valid : Out(1).array(n)
        Slot ``j`` holds a cluster with at least one valid input. Slot
        contents are unspecified when this is 0.

    Latency
    -------
    ``1 + log2 n * (1 + add_stages)`` cycles: an input register stage, then
    per tree level the ``add_stages`` registers inside its adders and one
    output register (``log2 n + 1`` with combinational adders). A vector
    presented in cycle ``t`` has all its cluster sums in the output slots
    ``latency`` cycles later (all slots at once). One new vector per cycle;
    after reset all ``sum_valid`` are 0.
    """

    params_model = FANParams

    def elaborate(self, platform):
        p = self.params
        n, k, w, stages = p.n, p.log2n, p.width, p.add_stages
        # adders of level L read their operands in cycle at(L) after the input registers
        at = [level * p.level_cycles for level in range(k + 1)]
        m, pipe, (x, v, ids) = self._front()

        # boundary flags: eq[t][j] = inputs j and j+1 of the vector at cycle t share a vecID
        eq0 = Signal(n - 1, name="eq_s0")
        m.d.comb += eq0.eq(Cat(ids[j] == ids[j + 1] for j in range(n - 1)))
        eqs = [eq0]
        for t in range(1, at[k - 1] + 1):
            nxt = Signal(n - 1, name=f"eq_s{t}")
            m.d.sync += nxt.eq(eqs[-1])
            eqs.append(nxt)

        def window(j: int, level: int):
            half = 2 ** level
            flags = eqs[at[level]]
            return Cat((flags[b] if 0 <= b <= n - 2 else Const(0, 1)) for b in range(j - half, j + half + 1))

        for j in range(n):
            pipe.put(("id", j), 0, ids[j])
        # adders, level by level; outputs of level L exist from cycle at(L + 1)
        for level in range(k):
            for j in range(2 ** level - 1, n - 1, 2 ** (level + 1)):
                eqw = Signal(2 ** (level + 1) + 1, name=f"eqw{j}")
                m.d.comb += eqw.eq(window(j, level))
                sv = Signal(name=f"sv{j}")
                if level == 0:
                    y, yr = (Signal(reduction_shape(p, 1), name=nm) for nm in (f"y{j}", f"yr{j}"))
                    yv, yrv = Signal(name=f"yv{j}"), Signal(name=f"yrv{j}")
                    m.submodules[f"node_{j}"] = self.cell_instance(
                        "node0", FanNode0(w, p.signed, p.fp, stages), a=x[j], b=x[j + 1], va=v[j], vb=v[j + 1],
                        eqw=eqw, y=y, yv=yv, yr=yr, yrv=yrv, sv=sv)
                    pipe.put(("yr", j), at[1], yr)
                    pipe.put(("yrv", j), at[1], yrv)
                else:
                    ports = {}
                    for mm in range(1, level + 1):
                        left, right = j - 2 ** (mm - 1), j + 2 ** (mm - 1)
                        lkey = "yr" if mm == 1 else "y"
                        for side, src, key in (("a", left, lkey), ("b", right, "y")):
                            cand = Signal(reduction_shape(p, level), name=f"{side}{j}_{mm}")
                            m.d.comb += cand.eq(pipe.at((key, src), at[level]))
                            ports[f"{side}_cand__{mm - 1}"] = cand
                            ports[f"{side}_v__{mm - 1}"] = pipe.at((key + "v", src), at[level])
                    y = Signal(reduction_shape(p, level + 1), name=f"y{j}")
                    yv = Signal(name=f"yv{j}")
                    m.submodules[f"node_{j}"] = self.cell_instance(
                        f"node{level}", FanNode(w, p.signed, level, p.fp, stages), eqw=eqw, y=y, yv=yv, sv=sv,
                        **ports)
                pipe.put(("y", j), at[level + 1], y)
                pipe.put(("yv", j), at[level + 1], yv)
                pipe.put(("sv", j), at[level + 1], sv)

        last_single = Signal(name="single_last")
        m.d.comb += last_single.eq(~eq0[n - 2] & v[n - 1])
        pipe.put(("x", n - 1), 0, x[n - 1])
        pipe.put(("sv", n - 1), 0, last_single)
        self._drive_slots(m, pipe, at[k], ["y"] * (n - 1) + ["x"])
        return m
