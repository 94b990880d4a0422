"""Processing elements of the systolic arrays (:mod:`accelgen.rtl.systolic`): the weight-/input-stationary
PE (partial sums flowing down) and the output-stationary PE (accumulator plus drain chain), each in its
unpipelined form (the MAC-based integer PE, the fp units between the same registers) and in its pipelined
form (``mul_stages``/``add_stages`` registers inside the units, double-buffered weights); and the group PE of
``sum_group`` rows whose products one multi-operand fp32 adder sums (TPU v4i).
"""

from __future__ import annotations

from amaranth import Module, Mux, Shape, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .fp import FP32_NEG_ZERO, FPAdder, FPMultiplier
from .fp_sum import FPSum
from .intarith import PipelinedAdder, PipelinedMultiplier
from ..params.systolic import SystolicParams
from .mac import MAC

__all__ = ["GroupProcessingElement", "OSProcessingElement", "WSProcessingElement", "operand_shapes", "stream_shapes"]


def operand_shapes(p: SystolicParams) -> tuple[Shape, Shape, Shape]:
    """Amaranth shapes of operand A, operand B and the partial sums (fp: unsigned bit patterns)."""
    sg = p.signed and not p.is_fp
    return Shape(p.a_width, sg), Shape(p.b_width, sg), Shape(p.acc_width, sg)


def stream_shapes(p: SystolicParams) -> tuple[Shape, Shape]:
    """Shapes of the operand streamed along the rows and of the one held in the PEs (stationary
    dataflows): WS streams A and holds B; IS streams B and holds A."""
    a, b, _ = operand_shapes(p)
    return (b, a) if p.dataflow == "is" else (a, b)


def _pe_mac(p: SystolicParams, *, addend: bool) -> MAC:
    """The integer MAC of an unpipelined PE; its ``a`` is the streamed operand (B in an IS array)."""
    a_width, b_width = (p.b_width, p.a_width) if p.dataflow == "is" else (p.a_width, p.b_width)
    return MAC(a_width=a_width, b_width=b_width, acc_width=p.acc_width, signed=p.signed, addend_input=addend)


def _fp_units(m: Module, p: SystolicParams):
    """The floating-point datapath of an unpipelined PE: an ``FPMultiplier`` (operands -> fp32 product,
    exact for fp16/bf16) feeding an fp32 ``FPAdder``, both combinational, between the same registers as
    the integer MAC (so the array's latency and cycle counts are those of the integer array)."""
    m.submodules.mul = mul = FPMultiplier(p.dtype, p.flush_subnormals)
    m.submodules.add = add = FPAdder(p.flush_subnormals)
    return mul, add


#: fp32 -0.0: the adder operand of a cycle without a product. ``x + -0.0 = x`` in round to nearest
#: even for every x but a NaN payload (+0 + -0 = +0, -0 + -0 = -0, Inf and subnormals unchanged), and
# FP32_NEG_ZERO (from .fp): every value a pipelined PE adds it to is +0.0 or an FPAdder result (canonical
# NaN), so it is an exact identity there and saves carrying the bypassed value beside the pipelined adder.


def _delayed(m: Module, value, cycles: int, name: str):
    """``value`` through ``cycles`` free-running registers (the valid bits beside a pipelined unit)."""
    for i in range(cycles):
        q = Signal.like(value, name=f"{name}_d{i + 1}")
        m.d.sync += q.eq(value)
        value = q
    return value


def _pipelined_units(m: Module, p: SystolicParams, x, y, valid, first=None):
    """The pipelined multiply-add of a PE: the product of ``x`` and ``y`` (``mul_stages`` registers),
    with ``valid`` (and ``first``) delayed alongside, and an adder of ``add_stages`` registers whose
    ``b`` operand is the product when valid, else the additive identity (0, or fp32 -0.0, see
    :data:`~accelgen.rtl.fp.FP32_NEG_ZERO`). Returns ``(adder, valid, first)`` with the adder's ``a`` left to the caller."""
    if p.is_fp:
        m.submodules.mul = mul = FPMultiplier(p.dtype, p.flush_subnormals, stages=p.mul_stages)
        m.submodules.add = add = FPAdder(p.flush_subnormals, stages=p.add_stages)
        identity = FP32_NEG_ZERO
    else:
        m.submodules.mul = mul = PipelinedMultiplier(x.shape(), y.shape(), stages=p.mul_stages)
        m.submodules.add = add = PipelinedAdder(p.acc_width, signed=p.signed, stages=p.add_stages)
        identity = 0
    valid = _delayed(m, valid, p.mul_stages, "valid_m")
    first = None if first is None else _delayed(m, first, p.mul_stages, "first_m")
    m.d.comb += [mul.a.eq(x), mul.b.eq(y), add.b.eq(Mux(valid, mul.product, identity))]
    return add, valid, first


class WSProcessingElement(wiring.Component):
    """Weight-stationary PE: ``psum_out <= psum_in + a_in * w`` (registered), ``a`` forwarded right.

    Ports: ``a_in``/``a_valid_in`` from the left, forwarded (registered) on
    ``a_out``/``a_valid_out``; ``w_in`` from above, loaded into the weight register
    when ``w_load`` is high and shown on ``w_out`` (the shift chain); ``psum_in``
    from above, ``psum_out`` and ``valid_out`` (``a_valid_in`` delayed as the sum) below.
    With ``weight_load="double"`` the chain is of shadow registers and ``swap_in`` (forwarded
    right on ``swap_out``, one cycle ahead of a fold's first activation) copies the shadow into
    the weight register. In the input-stationary array the same PE holds A and streams B.

    Latency: ``a`` one cycle to the right; the sum of the activation presented in cycle ``t`` is on
    ``psum_out`` from cycle ``t + mul_stages + add_stages + 1``, and ``psum_in`` is taken in cycle
    ``t + mul_stages`` (so rows are skewed by ``add_stages + 1``).
    """

    def __init__(self, params: SystolicParams):
        self.params = p = params
        stream, held = stream_shapes(p)
        _, _, acc = operand_shapes(p)
        members = {"a_in": In(stream), "a_valid_in": In(1)}
        if p.weight_load == "double":
            members["swap_in"] = In(1)
        members |= {"w_in": In(held), "w_load": In(1), "psum_in": In(acc),
                    "a_out": Out(stream), "a_valid_out": Out(1)}
        if p.weight_load == "double":
            members["swap_out"] = Out(1)
        members |= {"w_out": Out(held), "psum_out": Out(acc), "valid_out": Out(1)}
        super().__init__(members)

    def elaborate(self, platform):
        p = self.params
        if p.pipelined:
            return self._elaborate_pipelined()
        if p.is_fp:
            return self._elaborate_fp()
        m = Module()
        m.submodules.mac = mac = _pe_mac(self.params, addend=True)
        weight = Signal.like(self.w_in, name="weight")
        with m.If(self.w_load):
            m.d.sync += weight.eq(self.w_in)
        m.d.comb += [
            mac.a.eq(self.a_in), mac.b.eq(weight), mac.en.eq(self.a_valid_in),
            mac.clear.eq(1), mac.c_in.eq(self.psum_in),
            self.psum_out.eq(mac.acc), self.w_out.eq(weight),
        ]
        m.d.sync += [self.a_out.eq(self.a_in), self.a_valid_out.eq(self.a_valid_in),
                     self.valid_out.eq(self.a_valid_in)]
        return m

    def _elaborate_fp(self):
        # psum_out <= a_valid ? fp32(psum_in + fp32(a_in * weight)) : psum_in   (RNE, IEEE specials)
        m = Module()
        mul, add = _fp_units(m, self.params)
        weight = Signal.like(self.w_in, name="weight")
        psum = Signal(32, name="psum_q")
        with m.If(self.w_load):
            m.d.sync += weight.eq(self.w_in)
        m.d.comb += [mul.a.eq(self.a_in), mul.b.eq(weight), add.a.eq(self.psum_in), add.b.eq(mul.product),
                     self.psum_out.eq(psum), self.w_out.eq(weight)]
        m.d.sync += [psum.eq(Mux(self.a_valid_in, add.sum, self.psum_in)),
                     self.a_out.eq(self.a_in), self.a_valid_out.eq(self.a_valid_in),
                     self.valid_out.eq(self.a_valid_in)]
        return m

    def _elaborate_pipelined(self):
        # psum_out <= psum_in + (valid ? a_in * weight : 0), the product mul_stages and the sum
        # add_stages + 1 cycles after a_in; a cycle without a valid activation adds the identity
        p = self.params
        m = Module()
        weight = Signal.like(self.w_in, name="weight")
        if p.weight_load == "double":
            shadow = Signal.like(self.w_in, name="shadow")
            with m.If(self.w_load):
                m.d.sync += shadow.eq(self.w_in)
            with m.If(self.swap_in):
                m.d.sync += weight.eq(shadow)
            m.d.sync += self.swap_out.eq(self.swap_in)
            m.d.comb += self.w_out.eq(shadow)
        else:
            with m.If(self.w_load):
                m.d.sync += weight.eq(self.w_in)
            m.d.comb += self.w_out.eq(weight)
        add, _, _ = _pipelined_units(m, p, self.a_in, weight, self.a_valid_in)
        psum = Signal.like(self.psum_out, name="psum_q")
        m.d.comb += [add.a.eq(self.psum_in), self.psum_out.eq(psum)]
        # the integer adder's extra carry bit is dropped: partial sums wrap modulo 2**acc_width
        m.d.sync += [psum.eq(add.sum[:len(psum)]), self.a_out.eq(self.a_in), self.a_valid_out.eq(self.a_valid_in),
                     self.valid_out.eq(_delayed(m, self.a_valid_in, p.mul_stages + p.add_stages, "valid_p"))]
        return m


def _stationary_weight(m: Module, p: SystolicParams, w_in, w_load, swap, row: int):
    """The held operand of a group's ``row`` and what it passes down the chain (``(weight, chain_out)``): with
    ``weight_load="shift"`` the weight register itself, loaded while ``w_load``; with ``"double"`` a shadow
    register on the chain, copied into the weight register when ``swap`` is high."""
    weight = Signal.like(w_in, name=f"weight{row}")
    if p.weight_load == "double":
        shadow = Signal.like(w_in, name=f"shadow{row}")
        with m.If(w_load):
            m.d.sync += shadow.eq(w_in)
        with m.If(swap):
            m.d.sync += weight.eq(shadow)
        return weight, shadow
    with m.If(w_load):
        m.d.sync += weight.eq(w_in)
    return weight, weight


class GroupProcessingElement(wiring.Component):
    """``sum_group`` (``G``) rows of a WS/IS column whose products one fp32 adder sums with a single rounding.

    ``psum_out <= FPSum(G + 1)(psum_in, p_0, ..., p_{G-1})`` (registered; :class:`~accelgen.rtl.fp_sum.FPSum`),
    ``p_k = a_in[k] * weight[k]`` (:class:`~accelgen.rtl.fp.FPMultiplier`) when ``a_valid_in[k]``, else fp32 -0.0
    (:data:`~accelgen.rtl.fp.FP32_NEG_ZERO`, the sum's identity for every value a column carries: +-0, canonical
    NaN, and subnormals only when they are not flushed; so a group without valid activations passes ``psum_in`` on
    unchanged, as a PE without one does).

    Ports: the PE's (:class:`WSProcessingElement`) with one lane per row for what moves right: ``a_in[G]``,
    ``a_valid_in[G]`` (and ``swap_in[G]``) from the left, forwarded (registered) on ``a_out[G]``,
    ``a_valid_out[G]`` (``swap_out[G]``); ``w_in``/``w_out`` the column's weight chain through the group's rows
    top to bottom (``w_out`` the last row's weight, or shadow with ``weight_load="double"``; loaded, shifted and
    swapped per row as in ``G`` PEs); ``psum_in`` from above; ``psum_out`` and ``valid_out`` below, ``valid_out``
    the OR of ``a_valid_in`` registered with the sum (the sum leaving holds at least one of the group's products).

    Latency: as one PE: ``a`` one cycle to the right, the sum of the activations presented in cycle ``t`` on
    ``psum_out`` from cycle ``t + mul_stages + add_stages + 1``, ``psum_in`` taken in cycle ``t + mul_stages``
    (groups are skewed by ``add_stages + 1``). The rows of one group take their activations in the same cycle.
    ``mul_stages`` registers inside each row's multiplier, ``add_stages`` inside the group's adder
    (:class:`~accelgen.rtl.fp_sum.FPSum`'s cut points).
    """

    def __init__(self, params: SystolicParams):
        self.params = p = params
        stream, held = stream_shapes(p)
        _, _, acc = operand_shapes(p)
        g = p.sum_group
        members = {"a_in": In(stream).array(g), "a_valid_in": In(1).array(g)}
        if p.weight_load == "double":
            members["swap_in"] = In(1).array(g)
        members |= {"w_in": In(held), "w_load": In(1), "psum_in": In(acc),
                    "a_out": Out(stream).array(g), "a_valid_out": Out(1).array(g)}
        if p.weight_load == "double":
            members["swap_out"] = Out(1).array(g)
        members |= {"w_out": Out(held), "psum_out": Out(acc), "valid_out": Out(1)}
        super().__init__(members)

    def elaborate(self, platform):
        p = self.params
        m = Module()
        g, double = p.sum_group, p.weight_load == "double"
        # the products mul_stages after their activations, the sum add_stages after them (as the PE's units)
        m.submodules.adder = total = FPSum(g + 1, p.flush_subnormals, stages=p.add_stages)
        chain = self.w_in
        valid_any = 0
        for k in range(g):
            weight, chain = _stationary_weight(m, p, chain, self.w_load, self.swap_in[k] if double else None, k)
            m.submodules[f"mul{k}"] = mul = FPMultiplier(p.dtype, p.flush_subnormals, stages=p.mul_stages)
            valid = _delayed(m, self.a_valid_in[k], p.mul_stages, f"valid{k}_m")
            m.d.comb += [mul.a.eq(self.a_in[k]), mul.b.eq(weight),
                         total.operands[k + 1].eq(Mux(valid, mul.product, FP32_NEG_ZERO))]
            m.d.sync += [self.a_out[k].eq(self.a_in[k]), self.a_valid_out[k].eq(self.a_valid_in[k])]
            if double:
                m.d.sync += self.swap_out[k].eq(self.swap_in[k])
            valid_any = valid_any | self.a_valid_in[k]
        psum = Signal(32, name="psum_q")
        m.d.comb += [total.operands[0].eq(self.psum_in), self.psum_out.eq(psum), self.w_out.eq(chain)]
        m.d.sync += [psum.eq(total.sum),
                     self.valid_out.eq(_delayed(m, valid_any, p.mul_stages + p.add_stages, "valid_p"))]
        return m


class OSProcessingElement(wiring.Component):
    """Output-stationary PE: accumulates ``a_in * b_in``; a capture/shift chain drains the sums.

    Ports: ``a_in``, ``a_valid_in``, ``a_first_in`` from the left (forwarded,
    registered, on ``a_out``, ``a_valid_out``, ``a_first_out``); ``b_in`` from
    above (forwarded on ``b_out``); ``capture`` (global); ``out_in``/``out_valid_in``
    from the PE above, ``out_out``/``out_valid_out`` to the PE below:
    ``out <= capture ? acc : out_in``. Latency 1 cycle in every direction.

    With ``add_stages = s > 0`` the accumulator loop is ``L = s + 1`` cycles long and holds ``L``
    interleaved sums (C-slow, as :class:`~accelgen.rtl.mac.MAC`): the pair presented in cycle ``t``
    goes to sum ``t mod L``, and the accumulator shows each sum every ``L`` cycles, ``1 +
    mul_stages + add_stages`` cycles after its last pair.
    """

    def __init__(self, params: SystolicParams):
        self.params = p = params
        a, b, acc = operand_shapes(p)
        super().__init__({
            "a_in": In(a), "a_valid_in": In(1), "a_first_in": In(1), "b_in": In(b), "capture": In(1),
            "out_in": In(acc), "out_valid_in": In(1),
            "a_out": Out(a), "a_valid_out": Out(1), "a_first_out": Out(1), "b_out": Out(b),
            "out_out": Out(acc), "out_valid_out": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        p = self.params
        if p.pipelined:
            # acc <= (first ? 0 : acc) + (valid ? a*b : identity), free running: a cycle without a
            # product adds the identity, so every sum in the loop holds its value
            add, _, first = _pipelined_units(m, p, self.a_in, self.b_in, self.a_valid_in, self.a_first_in)
            acc = Signal(Shape(p.acc_width, p.signed and not p.is_fp), name="acc_q")
            m.d.comb += add.a.eq(Mux(first, 0, acc))
            m.d.sync += acc.eq(add.sum[:len(acc)])
        elif p.is_fp:
            # acc <= fp32((a_first ? +0.0 : acc) + fp32(a_in * b_in)) when a_valid; +0.0 on a_first alone
            mul, add = _fp_units(m, self.params)
            acc = Signal(32, name="acc_q")
            m.d.comb += [mul.a.eq(self.a_in), mul.b.eq(self.b_in), add.a.eq(Mux(self.a_first_in, 0, acc)),
                         add.b.eq(mul.product)]
            with m.If(self.a_valid_in):
                m.d.sync += acc.eq(add.sum)
            with m.Elif(self.a_first_in):
                m.d.sync += acc.eq(0)
        else:
            m.submodules.mac = mac = _pe_mac(self.params, addend=False)
            m.d.comb += [mac.a.eq(self.a_in), mac.b.eq(self.b_in), mac.en.eq(self.a_valid_in),
                         mac.clear.eq(self.a_first_in)]
            acc = mac.acc
        m.d.sync += [self.a_out.eq(self.a_in), self.a_valid_out.eq(self.a_valid_in),
                     self.a_first_out.eq(self.a_first_in), self.b_out.eq(self.b_in)]
        with m.If(self.capture):
            m.d.sync += [self.out_out.eq(acc), self.out_valid_out.eq(1)]
        with m.Else():
            m.d.sync += [self.out_out.eq(self.out_in), self.out_valid_out.eq(self.out_valid_in)]
        return m
