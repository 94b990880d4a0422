"""The TensorDash PE's lane sum and accumulator (:mod:`accelgen.rtl.tensordash`), shared by the PE and the
tile row: the lane multipliers and how their products reach the accumulator, by ``summation``
(:class:`~accelgen.params.tensordash.TensorDashPEParams`).

* ``"tree"`` (fp) and every integer PE: the lane products summed by an in-order pairwise tree of two-operand
  adders, then one more adder into the accumulator. Pipelined (``mul_stages``, ``add_stages``), the tree
  value of a busy cycle reaches the accumulator ``mul_stages + levels * add_stages`` cycles later; an odd
  value that moves up a level unchanged goes through ``add_stages`` registers to meet its partner in step.
* ``"fused"`` (fp, the default): one :class:`~accelgen.rtl.fp_sum.FPSum` of the accumulator and the ``L``
  lane products, one rounding (Mahmoud et al., MICRO 2020, sect. II-B: the PE amortizes "the cost of the
  summation stage by fusing the MACs"); its ``add_stages`` registers are the accumulator loop's.

With ``add_stages`` the accumulator loop is ``add_stages + 1`` registers long and interleaves that many
partial sums, folded after the last busy cycle (:func:`~accelgen.rtl.tensordash_datapath.interleaved_accumulate`).
"""

from __future__ import annotations

from amaranth import Module, Signal

from .fp import FP32_NEG_ZERO, FPAdder, FPMultiplier
from .fp_sum import FPSum
from .intarith import PipelinedAdder, PipelinedMultiplier
from .tensordash_datapath import AccControl, delay_line, interleaved_accumulate, op_shape

__all__ = ["fp_fused_accumulate", "fp_lane_multipliers", "fp_lane_tree", "int_lane_sum", "lane_accumulate",
           "lane_tree"]


def sum_tree(values: list) -> object:
    while len(values) > 1:
        values = [values[i] + values[i + 1] if i + 1 < len(values) else values[i] for i in range(0, len(values), 2)]
    return values[0]


def lane_tree(m: Module, values: list, add, stages: int) -> object:
    """The in-order pairwise tree over ``values``: level by level ``add(level, k, v[2k], v[2k+1])``; an odd
    last value moves up a level unchanged, through ``stages`` registers (the adders' latency) when pipelined."""
    level = 0
    while len(values) > 1:
        nxt = []
        for i in range(0, len(values), 2):
            if i + 1 < len(values):
                nxt.append(add(level, i // 2, values[i], values[i + 1]))
            else:
                line = delay_line(m, values[i], stages, f"tree_t{level}_pass", reset_less=True)
                nxt.append(line[-1] if line else values[i])
        values, level = nxt, level + 1
    return values[0]


def fp_lane_multipliers(m: Module, a_ops, b_ops, dtype: str, flush: bool, mul_stages: int) -> list[FPMultiplier]:
    """One :class:`~accelgen.rtl.fp.FPMultiplier` per lane (``fpmul<lane>``; its ``product``: fp32 bits).

    No register separates the units: a multiplier takes its operands from the lane muxes (driven by the
    schedule) and feeds an adder (the lane tree's, or the fused sum), which feeds the next level or the
    accumulator. So each unit is pipelined for that context (``input_registered`` / ``output_registered``,
    :func:`~accelgen.rtl.fp.context_cuts`): with enough stages it registers its own result (and a multiplier its
    operands), which keeps a path from running through the normalization of one unit into the alignment of the
    next (measured, fp16 PE at 3 + 3 stages, mapped at 1 GHz: 2.34 ns with the cuts of units alone, 1.28 ns in
    context)."""
    units = []
    for lane, (x, y) in enumerate(zip(a_ops, b_ops)):
        mul = m.submodules[f"fpmul{lane}"] = FPMultiplier(dtype, flush_subnormals=flush, stages=mul_stages,
                                                          input_registered=False, output_registered=False)
        m.d.comb += [mul.a.eq(x), mul.b.eq(y)]
        units.append(mul)
    return units


def fp_lane_tree(m: Module, a_ops, b_ops, dtype: str, flush: bool, *, mul_stages: int = 0,
                 add_stages: int = 0):
    """fp32 lane values (:func:`fp_lane_multipliers`), the lane products summed by an in-order pairwise tree of
    :class:`~accelgen.rtl.fp.FPAdder` (level by level: lanes (0,1), (2,3), ...; an odd last value passes to
    the next level): ``summation: tree``. The adders are pipelined in context as the multipliers are."""
    muls = fp_lane_multipliers(m, a_ops, b_ops, dtype, flush, mul_stages)
    values = [mul.product for mul in muls]
    # a level's operands are registered when its producers (the multipliers, the level below) register results
    registered = {-1: "result" in muls[0].cuts}

    def add(level, k, x, y):
        unit = m.submodules[f"fpadd_t{level}_{k}"] = FPAdder(
            flush_subnormals=flush, stages=add_stages, input_registered=registered[level - 1], output_registered=False)
        registered[level] = "result" in unit.cuts
        m.d.comb += [unit.a.eq(x), unit.b.eq(y)]
        return unit.sum

    return lane_tree(m, values, add, add_stages)


def int_lane_sum(m: Module, a_ops, b_ops, p) -> object:
    """Integer lane products summed by the in-order pairwise tree, with the pipelined units of
    :mod:`~accelgen.rtl.intarith` (``p.mul_stages`` / ``p.add_stages`` registers each). The result is exact
    modulo ``2**acc_width``, which is all the wrapping accumulator keeps: an adder narrower than its exact sum
    needs is never built, an adder wider than the accumulator works on ``acc_width`` bits (at most 64, the
    widest :class:`~accelgen.rtl.intarith.PipelinedAdder`)."""
    a_shape, b_shape = op_shape(p, p.a_width), op_shape(p, p.b_width)
    values = []
    for lane, (x, y) in enumerate(zip(a_ops, b_ops)):
        mul = m.submodules[f"mul{lane}"] = PipelinedMultiplier(a_shape, b_shape, stages=p.mul_stages)
        m.d.comb += [mul.a.eq(x), mul.b.eq(y)]
        values.append(mul.product)

    def add(level, k, x, y):
        width = min(max(len(x), len(y)), p.acc_width)
        unit = m.submodules[f"add_t{level}_{k}"] = PipelinedAdder(width, signed=p.signed, stages=p.add_stages)
        m.d.comb += [unit.a.eq(x), unit.b.eq(y)]
        return unit.sum

    return lane_tree(m, values, add, p.add_stages)


def lane_accumulate(m: Module, p, a_ops, b_ops, ctrl: AccControl) -> Signal:
    """The accumulator of a PE (or tile row) ``p`` over the lane operands ``a_ops`` x ``b_ops``: fp fused
    (:func:`fp_fused_accumulate`), fp through the lane tree, or integer (Amaranth's ``*`` and ``+`` when not
    pipelined, the pipelined units when it is). With ``add_stages`` the accumulator adder is pipelined as well
    and interleaves ``add_stages + 1`` threads (:func:`interleaved_accumulate`); without, it is the
    single-cycle ``acc <- acc + tree``."""
    acc_shape = op_shape(p, p.acc_width)
    if p.fused:
        return fp_fused_accumulate(m, p, a_ops, b_ops, ctrl, acc_shape)
    if p.is_fp:
        tree = fp_lane_tree(m, a_ops, b_ops, p.dtype, p.flush_subnormals, mul_stages=p.mul_stages,
                            add_stages=p.add_stages)
        # the accumulator adder's operands come through the slot muxes, its sum goes to the accumulator register
        adder = m.submodules.fpadd_acc = FPAdder(flush_subnormals=p.flush_subnormals, stages=p.add_stages,
                                                 input_registered=False)
        if ctrl.threads > 1:
            return interleaved_accumulate(m, [tree], ctrl, [adder.a, adder.b], adder.sum, acc_shape, zero=0,
                                          idle=FP32_NEG_ZERO)
        acc = Signal(acc_shape, name="acc_q")
        m.d.comb += [adder.a.eq(acc), adder.b.eq(tree)]
        with m.If(ctrl.clear):
            m.d.sync += acc.eq(0)
        with m.Elif(ctrl.en):
            m.d.sync += acc.eq(adder.sum)
        return acc
    if ctrl.threads > 1:
        adder = m.submodules.add_acc = PipelinedAdder(p.acc_width, signed=p.signed, stages=p.add_stages)
        return interleaved_accumulate(m, [int_lane_sum(m, a_ops, b_ops, p)], ctrl, [adder.a, adder.b], adder.sum,
                                      acc_shape, zero=0, idle=0)
    if p.mul_stages or p.add_stages:
        return accumulate(m, [int_lane_sum(m, a_ops, b_ops, p)], ctrl.clear, ctrl.en, acc_shape)
    return accumulate(m, [x * y for x, y in zip(a_ops, b_ops)], ctrl.clear, ctrl.en, acc_shape)


def fp_fused_accumulate(m: Module, p, a_ops, b_ops, ctrl: AccControl, acc_shape) -> Signal:
    """``summation: fused``: the accumulator and the ``L`` lane products (:func:`fp_lane_multipliers`) summed by one
    :class:`~accelgen.rtl.fp_sum.FPSum` of ``L + 1`` operands (``fpsum_acc``: aligned to the largest exponent
    once, one rounding), as the grouped systolic PE sums its group. The sum's ``add_stages`` registers are the
    accumulator loop's, so the products reach it ``mul_stages`` cycles after their operands, and with
    ``add_stages`` the loop interleaves ``add_stages + 1`` threads and folds them through the same unit
    (:func:`interleaved_accumulate`: a fold add presents the thread and the hold register, the other operands
    -0.0, the identity)."""
    products = [mul.product for mul in fp_lane_multipliers(m, a_ops, b_ops, p.dtype, p.flush_subnormals,
                                                           p.mul_stages)]
    unit = m.submodules.fpsum_acc = FPSum(p.lanes + 1, p.flush_subnormals, stages=p.add_stages)
    if ctrl.threads > 1:
        return interleaved_accumulate(m, products, ctrl, list(unit.operands), unit.sum, acc_shape, zero=0,
                                      idle=FP32_NEG_ZERO)
    acc = Signal(acc_shape, name="acc_q")
    m.d.comb += [unit.operands[0].eq(acc), *(port.eq(x) for port, x in zip(list(unit.operands)[1:], products))]
    with m.If(ctrl.clear):
        m.d.sync += acc.eq(0)
    with m.Elif(ctrl.en):
        m.d.sync += acc.eq(unit.sum)
    return acc


def accumulate(m: Module, products, start, step, acc_shape) -> Signal:
    acc = Signal(acc_shape, name="acc_q")
    with m.If(start):
        m.d.sync += acc.eq(0)
    with m.Elif(step):
        # assigning the wider sum truncates: wrap-around modulo 2**acc_width
        m.d.sync += acc.eq(acc + sum_tree(products))
    return acc
