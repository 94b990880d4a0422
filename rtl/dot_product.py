"""Dot-product unit: ``n`` multipliers feeding a binary adder tree, one exact dot product per cycle.

NeuroMeter's "reduction-tree unit" and DianNao's NFU neuron: a new pair of ``n``-vectors enters every
cycle, each lane's product goes into a plain binary adder tree (:class:`~accelgen.rtl.AdderTree`'s
structure, one register after every level) and the sum of all ``n`` products leaves, fully pipelined.
Integers only for now (``dtype="int"``); the ``dtype`` field is there so that floating-point
operands can be added without renaming anything.

The multipliers are :class:`~accelgen.rtl.intarith.PipelinedMultiplier` (``mul_stages`` registers,
as in the pipelined systolic PE) and the adders the reduction networks' adder
(:func:`~accelgen.rtl.fan.reduction_adder`: ``a + b``, or a
:class:`~accelgen.rtl.intarith.PipelinedAdder` with ``add_stages`` registers). Widths grow one bit
per level from the exact product width, so nothing overflows.

Cells (:mod:`accelgen.rtl._cells`): the two multipliers of a lane pair and the level-0 adder that adds
their products are one cell, ``<top>__pair`` (``n/2`` instances), and each higher level's adder is
``<top>__add<L>``. Every cell takes its operands straight from registers (the input registers, or
the output register of the level below) and registers its result, so no combinational path crosses
a cell boundary and synthesis can map each cell once, by itself.
"""

from __future__ import annotations

from amaranth import Module, Shape, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..params.dot_product import DotProductParams
from ._cells import HierarchicalComponent
from ._generator import FromParams
from .fan import reduction_adder
from .intarith import PipelinedMultiplier

__all__ = ["DotProduct", "DotProductParams"]


def _sum_shape(p: DotProductParams, grow: int = 0) -> Shape:
    """Shape of a partial sum ``grow`` bits wider than a product."""
    return Shape(p.product_width + grow, p.signed)


class ProductPair(wiring.Component):
    """Two multipliers and the level-0 adder of their products, with its output register:
    ``y = a[0]*b[0] + a[1]*b[1]``, ``mul_stages + add_stages + 1`` cycles after its operands."""

    def __init__(self, a_shape: Shape, b_shape: Shape, mul_stages: int, add_stages: int):
        self.a_shape, self.b_shape = a_shape, b_shape
        self.mul_stages, self.add_stages = mul_stages, add_stages
        signed = a_shape.signed or b_shape.signed
        self.sum_shape = Shape(a_shape.width + b_shape.width + 1, signed)
        super().__init__({"a": In(a_shape).array(2), "b": In(b_shape).array(2), "y": Out(self.sum_shape)})

    def elaborate(self, platform):
        m = Module()
        products = []
        for i in range(2):
            mul = PipelinedMultiplier(self.a_shape, self.b_shape, stages=self.mul_stages)
            m.submodules[f"mul{i}"] = mul
            m.d.comb += [mul.a.eq(self.a[i]), mul.b.eq(self.b[i])]
            products.append(mul.product)
        m.d.sync += self.y.eq(reduction_adder(m, False, products[0], products[1], self.add_stages))
        return m


class LevelAdder(wiring.Component):
    """Adder of tree level ``L >= 1`` with its output register: ``y = a + b`` (one bit wider),
    ``add_stages + 1`` cycles after its operands. The adder tree's cell without valid flags: a dot
    product's one valid bit travels beside the tree, in the top module."""

    def __init__(self, shape: Shape, add_stages: int):
        self.shape, self.add_stages = shape, add_stages
        super().__init__({"a": In(shape), "b": In(shape), "y": Out(Shape(shape.width + 1, shape.signed))})

    def elaborate(self, platform):
        m = Module()
        m.d.sync += self.y.eq(reduction_adder(m, False, self.a, self.b, self.add_stages))
        return m


class DotProduct(FromParams, HierarchicalComponent):
    """Dot-product unit: the exact sum of ``n`` products ``a[i] * b[i]``, one new pair of vectors per cycle.

    Registers ``a``, ``b`` and ``valid``; ``n`` multipliers (``mul_stages`` registers each); a binary
    adder tree of ``n - 1`` adders, ``n / 2**(L+1)`` at level ``L``, each with ``add_stages``
    registers inside and a register after it. The level-0 adders and their two multipliers are
    instances of the cell ``<top>__pair``, the level-``L`` adders of ``<top>__add<L>``. The datapath
    has no enable: it computes in every cycle, and ``valid`` travels beside it in a delay line.

    Parameters: :class:`~accelgen.params.dot_product.DotProductParams` (a parameter set, or its fields as
    keywords); ``mul_stages`` registers inside each :class:`~accelgen.rtl.intarith.PipelinedMultiplier`,
    ``add_stages`` inside each :class:`~accelgen.rtl.intarith.PipelinedAdder`.

    Ports
    -----
    a : In(a_width).array(n), signed if ``signed``
        One vector, sampled every cycle.
    b : In(b_width).array(n), signed if ``signed``
        The other vector, sampled with ``a``.
    valid : In(1)
        This cycle's ``a`` and ``b`` form a dot product to report.
    sum : Out(a_width + b_width + log2 n), signed if ``signed``
        The exact dot product ``sum(a[i] * b[i])`` of the vectors presented ``latency`` cycles earlier;
        defined when ``sum_valid`` is 1.
    sum_valid : Out(1)
        ``valid`` of those vectors; 0 after reset until the first valid vector has passed.

    Latency
    -------
    ``1 + mul_stages + log2 n * (1 + add_stages)`` cycles (input registers; the multipliers'
    registers; per tree level the adders' registers and the level's output register): vectors
    presented in cycle ``t`` have their sum on ``sum`` in cycle ``t + latency``. One new pair of
    vectors per cycle, one result per cycle.
    """

    params_model = DotProductParams

    def __init__(self, params: DotProductParams | None = None, /, **kwargs):
        self.params = p = self.validated(params, kwargs)
        super().__init__({
            "a": In(Shape(p.a_width, p.signed)).array(p.n),
            "b": In(Shape(p.b_width, p.signed)).array(p.n),
            "valid": In(1),
            "sum": Out(_sum_shape(p, p.log2n)),
            "sum_valid": Out(1),
        })

    def elaborate(self, platform):
        p = self.params
        m = Module()
        a_q = [Signal(Shape(p.a_width, p.signed), name=f"a{i}") for i in range(p.n)]
        b_q = [Signal(Shape(p.b_width, p.signed), name=f"b{i}") for i in range(p.n)]
        m.d.sync += [a_q[i].eq(self.a[i]) for i in range(p.n)] + [b_q[i].eq(self.b[i]) for i in range(p.n)]

        # level 0: the multipliers of lanes 2i and 2i+1 and the adder of their products
        pair = ProductPair(Shape(p.a_width, p.signed), Shape(p.b_width, p.signed), p.mul_stages, p.add_stages)
        x = []
        for i in range(p.n // 2):
            y = Signal(_sum_shape(p, 1), name=f"l1_{i}")
            m.submodules[f"pair_{i}"] = self.cell_instance(
                "pair", pair, a__0=a_q[2 * i], a__1=a_q[2 * i + 1], b__0=b_q[2 * i], b__1=b_q[2 * i + 1], y=y)
            x.append(y)
        for level in range(1, p.log2n):
            cell = LevelAdder(_sum_shape(p, level), p.add_stages)
            nx = []
            for i in range(len(x) // 2):
                y = Signal(_sum_shape(p, level + 1), name=f"l{level + 1}_{i}")
                m.submodules[f"add_{level}_{i}"] = self.cell_instance(f"add{level}", cell, a=x[2 * i], b=x[2 * i + 1],
                                                                      y=y)
                nx.append(y)
            x = nx

        # valid beside the datapath: reset registers, so no sum_valid before the first vector has passed
        valid = self.valid
        for k in range(p.latency):
            reg = Signal(name=f"valid_d{k + 1}")
            m.d.sync += reg.eq(valid)
            valid = reg
        m.d.comb += [self.sum.eq(x[0]), self.sum_valid.eq(valid)]
        return m
