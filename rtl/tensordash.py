"""TensorDash: hardware scheduler, sparse-operand PE and the tile that shares one schedule.

A TensorDash PE has ``L`` multiplier lanes accumulating into one sum. Each lane
can take its operand pair not only from the current row of the operand stream
(the dense slot) but from a few slots ahead in time (lookahead) and in
neighbouring lanes (lookaside), held in ``D``-row staging buffers for A and B.
A combinational scheduler picks, per cycle, one effectual pair per lane so that
zero operands are skipped; the buffers then drop the rows that are fully used
(``AS`` rows) and load as many new rows. See DESIGN.md, "TensorDash
sparse-operand PE and scheduler".

Connectivity pattern
--------------------
Options are ``(time step ahead, lane offset)`` pairs in static priority order;
lane ``i`` with option ``(s, o)`` reads buffer row ``s``, lane ``(i + o) mod L``.
Named patterns (the ``pattern`` parameter):

``"default"``
    ``(+0,i) (+1,i) (+2,i) (+3,i) (+1,i+1) (+1,i-1) (+2,i+2) (+3,i+3)``: the
    dense slot, three lookahead and four lookaside options.
``"lookahead"``
    ``(+0,i) (+1,i) .. (+4,i)``: lookahead only; lanes never compete.

Options beyond row ``D - 1`` are dropped, offsets are taken modulo ``L``, and an
option naming the same slot as an earlier one is dropped (it could never win),
so ``L = 2`` or ``D < 4`` give fewer options. From Python (not from configs or
the command line) an explicit option list may be given as ``options=`` instead;
it must start with ``(0, 0)`` and contain no other step-0 option, so that the
current row always drains.

Scheduling levels
-----------------
Two lanes conflict when their candidate slot sets intersect. Lanes are grouped
into levels by a minimum colouring of this conflict graph (fewest levels; among
those, each lane in order ``0..L-1`` in the lowest level possible). Levels decide
in order; the lanes of one level decide at the same time, each taking its first
still-effectual option, which is then removed from ``Z`` for later levels.
With the default pattern lanes ``i`` and ``j`` conflict when ``j - i`` is ±1 or
±2 (rows +1, +2) or ±3 (row +3, only when ``D >= 4``), modulo ``L``:

====  =====  ===============================================================
L     D      levels (in order)
====  =====  ===============================================================
4     2..5   (0) (1) (2) (3)
8     2, 3   (0 3) (1 5) (2 6) (4 7)
8     4, 5   (0 4) (1 5) (2 6) (3 7)
16    2, 3   (0 3 6 9 12) (1 4 7 10 13) (2 5 8 11 14) (15)
16    4, 5   (0 4 8 12) (1 5 9 13) (2 6 10 14) (3 7 11 15)
====  =====  ===============================================================

The ``"lookahead"`` pattern has a single level. :attr:`levels` holds the
grouping of a generator.
"""

from __future__ import annotations

from typing import Literal, Sequence

from amaranth import Cat, Const, Module, Mux, Shape, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import bits_for
from pydantic import Field, model_validator

from ._cells import HierarchicalComponent
from ._params import AccWidth, AWidth, BlockParams, BWidth, FPOperandParams, FromParams, MacDtype, Signed
from .fp import FPAdder, FPMultiplier

__all__ = [
    "TENSORDASH_PATTERNS", "TensorDashSchedParams", "TensorDashPEParams", "TensorDashTileParams",
    "TensorDashScheduler", "TensorDashPE", "TensorDashTile", "tensordash_options", "tensordash_levels",
]

#: named connectivity patterns: ``(step, lane offset)`` options in priority order
TENSORDASH_PATTERNS: dict[str, tuple[tuple[int, int], ...]] = {
    "default": ((0, 0), (1, 0), (2, 0), (3, 0), (1, 1), (1, -1), (2, 2), (3, 3)),
    "lookahead": ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0)),
}

PatternName = Literal["default", "lookahead"]


def tensordash_options(pattern: str | Sequence[tuple[int, int]], lanes: int, depth: int) -> tuple[tuple[int, int], ...]:
    """The options a generator builds (truncated to the depth, offsets mod ``lanes``, duplicates dropped)."""
    if isinstance(pattern, str):
        raw = TENSORDASH_PATTERNS[pattern]
    else:
        try:
            raw = [(int(s), int(o)) for s, o in pattern]
        except (TypeError, ValueError):
            raise TypeError(f"options={pattern!r} is not a sequence of (step, lane_offset) integer pairs") from None
    opts: list[tuple[int, int]] = []
    for step, offset in raw:
        if step < 0:
            raise ValueError(f"options: step {step} of option {(step, offset)!r} is negative; allowed: 0..{depth - 1}")
        key = (step, offset % lanes)
        if step < depth and key not in opts:
            opts.append(key)
    if not opts or opts[0] != (0, 0) or sum(1 for s, _ in opts if s == 0) != 1:
        raise ValueError(f"options={list(raw)!r}: the first option must be (0, 0) and no other option may have "
                         "step 0 (only a lane's own dense slot may reach the current row)")
    return tuple(opts)


def tensordash_levels(options: Sequence[tuple[int, int]], lanes: int) -> tuple[tuple[int, ...], ...]:
    """Scheduling levels: minimum, lexicographically first colouring of the lane conflict graph."""
    cand = [frozenset((s, (lane + o) % lanes) for s, o in options) for lane in range(lanes)]
    clash = [[bool(cand[i] & cand[j]) and i != j for j in range(lanes)] for i in range(lanes)]
    for n_levels in range(1, lanes + 1):
        level = [0] * lanes
        # iterative backtracking; a lane may open at most one level beyond those used before it
        lane, trial = 0, [0] * lanes
        while 0 <= lane < lanes:
            top = max(level[:lane], default=-1)
            placed = False
            while trial[lane] < min(n_levels, top + 2):
                c = trial[lane]
                trial[lane] += 1
                if not any(clash[lane][j] and level[j] == c for j in range(lane)):
                    level[lane] = c
                    placed = True
                    break
            if placed:
                lane += 1
                if lane < lanes:
                    trial[lane] = 0
            else:
                lane -= 1
        if lane == lanes:
            return tuple(tuple(i for i in range(lanes) if level[i] == c) for c in range(max(level) + 1))
    raise AssertionError("unreachable")


class TensorDashSchedParams(BlockParams):
    """Parameters of :class:`TensorDashScheduler`."""

    block = "tensordash_sched"

    lanes: int = Field(4, ge=2, le=16, description="multiplier lanes L")
    depth: int = Field(4, ge=2, le=5, description="staging buffer depth D in rows")
    pattern: PatternName = Field("default", description="connectivity pattern (options beyond +D-1 dropped)")


class TensorDashPEParams(TensorDashSchedParams, FPOperandParams):
    """Parameters of :class:`TensorDashPE`.

    With a floating-point ``dtype`` the widths are implied (operands 16 or 32
    bits, fp32 accumulator, ``signed`` true) and filled in when not given; an
    explicit contradictory value is rejected naming the field, the value and what
    the dtype allows.
    """

    block = "tensordash_pe"
    fp_signed = True

    a_width: AWidth = 8
    b_width: BWidth = 8
    acc_width: AccWidth = 32
    signed: Signed = True
    dtype: MacDtype = Field("int", description="operand datatype: 'int', or fp16/bf16/fp32 operands with fp32 "
                                               "products and accumulation (widths implied)")
    flush_subnormals: bool = Field(False, description="fp only: subnormal inputs and results of the multipliers "
                                                      "and adders become zero of the same sign (DAZ+FTZ)")

    @model_validator(mode="before")
    @classmethod
    def _check_flush_int(cls, data):
        if isinstance(data, dict) and data.get("dtype", "int") == "int" and data.get("flush_subnormals") is True:
            raise ValueError("flush_subnormals: true is not allowed with dtype='int'; it needs a "
                             "floating-point dtype ('fp16', 'bf16' or 'fp32')")
        return data

    @property
    def is_fp(self) -> bool:
        return self.dtype != "int"

    @model_validator(mode="after")
    def _check_widths(self):
        need = self.a_width + self.b_width
        if not self.is_fp and self.acc_width < need:
            raise ValueError(f"acc_width={self.acc_width} is too narrow for a {self.a_width}x{self.b_width}-bit "
                             f"product; allowed: acc_width >= a_width + b_width = {need}")
        return self


class TensorDashTileParams(TensorDashPEParams):
    """Parameters of :class:`TensorDashTile`."""

    block = "tensordash_tile"

    rows: int = Field(4, ge=1, le=16, description="PE rows R sharing the B-side schedule")


def _op_shape(p, width: int) -> Shape:
    """Shape of an operand / accumulator port: fp values are unsigned bit patterns."""
    return Shape(width, p.signed and not p.is_fp)


def _nonzero_detect(p, value):
    """Zero detector: integers compare with 0; fp values are zero when exponent and fraction are 0."""
    return value[:-1].any() if p.is_fp else value != 0


def _idle_b(p) -> int:
    """What an idle lane's B mux outputs: 0, or -0.0 in fp (so that the lane's product is -0.0)."""
    return 1 << (p.b_width - 1) if p.is_fp else 0


def _validated(model, options, **kwargs):
    params = model.from_arguments(**kwargs)
    if isinstance(options, str):
        raise TypeError(f"options={options!r} is not a sequence of (step, lane_offset) integer pairs "
                        "(a named pattern goes in pattern=)")
    opts = tensordash_options(params.pattern if options is None else options, params.lanes, params.depth)
    return params, opts, tensordash_levels(opts, params.lanes)


class TensorDashScheduler(FromParams, wiring.Component):
    """Combinational TensorDash scheduler: one movement per lane, and ``AS``.

    Parameters
    ----------
    lanes : int
        Lanes ``L``, 2..16.
    depth : int
        Staging rows ``D``, 2..5.
    pattern : str
        ``"default"`` or ``"lookahead"`` (see the module docstring).
    options : sequence of (step, offset), optional, Python only
        An explicit option list replacing ``pattern``.

    Ports
    -----
    z : In(L).array(D)
        ``z[s]`` bit ``l`` is 1 when the pair in buffer row ``s``, lane ``l`` is
        ineffectual (``Z = ZA | ZB``) or already used.
    sel : Out(bits_for(len(options))).array(L)
        Per lane: 0 = nothing to multiply, ``k + 1`` = option ``k`` of :attr:`options`.
    as_rows : Out(bits_for(D))
        ``AS``: the number of leading rows with no effectual pair left after this
        schedule, 1..D (row 0 always drains).

    Latency
    -------
    Combinational (0 cycles); one schedule per cycle.
    """

    def __init__(self, *, lanes: int = 4, depth: int = 4, pattern: str = "default",
                 options: Sequence[tuple[int, int]] | None = None):
        self.params, self.options, self.levels = _validated(
            TensorDashSchedParams, options, lanes=lanes, depth=depth, pattern=pattern)
        self.sel_width = bits_for(len(self.options))
        super().__init__({
            "z": In(lanes).array(depth),
            "sel": Out(self.sel_width).array(lanes),
            "as_rows": Out(bits_for(depth)),
        })

    @property
    def latency(self) -> int:
        return 0

    def elaborate(self, platform):
        m = Module()
        lanes, depth = self.params.lanes, self.params.depth
        live = [[~self.z[s][l] for l in range(lanes)] for s in range(depth)]
        for n, group in enumerate(self.levels):
            picked = [[Const(0) for _ in range(lanes)] for _ in range(depth)]
            for lane in group:
                earlier = Const(0)
                choice = Const(0, self.sel_width)
                for k, (step, offset) in reversed(list(enumerate(self.options))):
                    choice = Mux(live[step][(lane + offset) % lanes], k + 1, choice)
                for k, (step, offset) in enumerate(self.options):
                    col = (lane + offset) % lanes
                    win = Signal(name=f"l{n}_lane{lane}_opt{k}")
                    m.d.comb += win.eq(live[step][col] & ~earlier)
                    earlier = earlier | live[step][col]
                    picked[step][col] = picked[step][col] | win
                m.d.comb += self.sel[lane].eq(choice)
            after = []
            for s in range(depth):
                row = Signal(lanes, name=f"live_l{n}_r{s}")
                m.d.comb += row.eq(Cat(live[s]) & ~Cat(picked[s]))
                after.append([row[l] for l in range(lanes)])
            live = after
        as_rows = Const(depth, bits_for(depth))
        for s in reversed(range(depth)):
            as_rows = Mux(Cat(live[s]).any(), s, as_rows)
        m.d.comb += self.as_rows.eq(as_rows)
        return m


def _regs(name: str, shape, depth: int, lanes: int) -> list[list[Signal]]:
    return [[Signal(shape, name=f"{name}_r{s}_l{l}") for l in range(lanes)] for s in range(depth)]


def _stage(m: Module, regs, kept, window, start, step, shift) -> None:
    """Staging buffer update: ``start`` loads the window rows; ``step`` drops ``shift`` rows and refills.

    ``kept[s][l]`` is what row ``s`` keeps when it moves up (e.g. the value with
    used pairs cleared); the rows shifted in at the bottom come from the window.
    """
    depth = len(regs)
    with m.If(start):
        for s in range(depth):
            for l, reg in enumerate(regs[s]):
                m.d.sync += reg.eq(window[s][l])
    with m.Elif(step):
        with m.Switch(shift):
            for adv in range(1, depth + 1):
                with m.Case(adv):
                    for s in range(depth):
                        src = s + adv
                        for l, reg in enumerate(regs[s]):
                            m.d.sync += reg.eq(kept[src][l] if src < depth else window[src - depth][l])


def _lane_mux(m: Module, sel, options, regs, lane: int, shape, name: str, idle: int = 0) -> Signal:
    """The operand lane ``lane`` multiplies: option ``sel - 1`` of ``regs``, ``idle`` when ``sel`` is 0."""
    lanes = len(regs[0])
    out = Signal(shape, name=name)
    with m.Switch(sel):
        for k, (step, offset) in enumerate(options):
            with m.Case(k + 1):
                m.d.comb += out.eq(regs[step][(lane + offset) % lanes])
        with m.Default():
            m.d.comb += out.eq(idle)
    return out


def _sum_tree(values: list) -> object:
    while len(values) > 1:
        values = [values[i] + values[i + 1] if i + 1 < len(values) else values[i] for i in range(0, len(values), 2)]
    return values[0]


def _used_slots(sel, options, depth: int, lanes: int) -> list[list[object]]:
    """Which buffer slots the selects consume this cycle."""
    used = [[Const(0) for _ in range(lanes)] for _ in range(depth)]
    for lane in range(lanes):
        for k, (step, offset) in enumerate(options):
            col = (lane + offset) % lanes
            used[step][col] = used[step][col] | (sel[lane] == k + 1)
    return used


def _fp_accumulate(m: Module, a_ops, b_ops, start, step, dtype: str, flush: bool) -> Signal:
    """fp32 datapath: one :class:`~accelgen.rtl.fp.FPMultiplier` per lane, the lane products summed by
    an in-order pairwise tree of :class:`~accelgen.rtl.fp.FPAdder` (level by level: lanes (0,1), (2,3),
    ...; an odd last value passes to the next level), then ``acc + tree`` into the fp32 accumulator.
    ``start`` loads +0.0."""
    values = []
    for lane, (x, y) in enumerate(zip(a_ops, b_ops)):
        mul = m.submodules[f"fpmul{lane}"] = FPMultiplier(dtype, flush_subnormals=flush)
        m.d.comb += [mul.a.eq(x), mul.b.eq(y)]
        values.append(mul.product)
    level = 0
    while len(values) > 1:
        nxt = []
        for i in range(0, len(values), 2):
            if i + 1 < len(values):
                add = m.submodules[f"fpadd_t{level}_{i // 2}"] = FPAdder(flush_subnormals=flush)
                m.d.comb += [add.a.eq(values[i]), add.b.eq(values[i + 1])]
                nxt.append(add.sum)
            else:
                nxt.append(values[i])
        values, level = nxt, level + 1
    acc = Signal(32, name="acc_q")
    add = m.submodules.fpadd_acc = FPAdder(flush_subnormals=flush)
    m.d.comb += [add.a.eq(acc), add.b.eq(values[0])]
    with m.If(start):
        m.d.sync += acc.eq(0)
    with m.Elif(step):
        m.d.sync += acc.eq(add.sum)
    return acc


def _accumulate(m: Module, products, start, step, acc_shape) -> Signal:
    acc = Signal(acc_shape, name="acc_q")
    with m.If(start):
        m.d.sync += acc.eq(0)
    with m.Elif(step):
        # assigning the wider sum truncates: wrap-around modulo 2**acc_width
        m.d.sync += acc.eq(acc + _sum_tree(products))
    return acc


def _stream_ports(p, options, rows: tuple[int, ...]) -> dict:
    """Ports of a PE (``rows`` empty) or of a tile of ``rows[0]`` PE rows (``a_next`` and ``acc`` per row)."""
    return {
        "start": In(1),
        "a_next": In(_op_shape(p, p.a_width)).array(*rows, p.depth, p.lanes),
        "b_next": In(_op_shape(p, p.b_width)).array(p.depth, p.lanes),
        "next_valid": In(p.depth),
        "take": Out(bits_for(p.depth)),
        "sel": Out(bits_for(len(options))).array(p.lanes),
        "done": Out(1),
        "acc": Out(_op_shape(p, p.acc_width)).array(*rows) if rows else Out(_op_shape(p, p.acc_width)),
    }


class _ScheduledBuffers:
    """What the PE and the tile share: the scheduler, one staging buffer per operand stream, the
    ``live`` flags of the effectual pairs and the ``valid`` rows, ``step`` (a busy cycle without
    ``start``), and the ``take`` / ``done`` / ``sel`` outputs.

    ``streams`` maps a buffer name to ``(window port, width)``, in the order the buffers are built. A
    slot enters live when its row exists and every stream's operand there is non-zero (the PE: A and
    B; the tile: B only); it stays live until a lane uses it.
    """

    def __init__(self, m: Module, component, streams: dict[str, tuple[object, int]]):
        p, options = component.params, component.options
        lanes, depth = p.lanes, p.depth
        self.m, self.component, self.options, self.params = m, component, options, p
        start, next_valid = component.start, component.next_valid
        self.sched = sched = m.submodules.sched = TensorDashScheduler(lanes=lanes, depth=depth, options=options)
        self.shapes = {name: _op_shape(p, width) for name, (_, width) in streams.items()}
        self.buffers = {name: _regs(name, self.shapes[name], depth, lanes) for name in streams}
        live = _regs("live", 1, depth, lanes)
        valid = _regs("valid", 1, depth, 1)
        self.busy = valid[0][0]
        self.step = step = Signal(name="step")
        m.d.comb += step.eq(self.busy & ~start)
        for s in range(depth):
            m.d.comb += sched.z[s].eq(~Cat(live[s]))
        used = _used_slots(sched.sel, options, depth, lanes)
        # zero detectors on the rows entering the buffers
        w_live = [[next_valid[s] for _ in range(lanes)] for s in range(depth)]
        for window, _ in streams.values():
            w_live = [[w_live[s][l] & _nonzero_detect(p, window[s][l]) for l in range(lanes)] for s in range(depth)]
        self.shift = shift = sched.as_rows
        for name, (window, _) in streams.items():
            _stage(m, self.buffers[name], self.buffers[name], window, start, step, shift)
        _stage(m, live, [[live[s][l] & ~used[s][l] for l in range(lanes)] for s in range(depth)], w_live,
               start, step, shift)
        _stage(m, valid, valid, [[next_valid[s]] for s in range(depth)], start, step, shift)

    def lane_operands(self, name: str, idle: int = 0) -> list[Signal]:
        """Per lane the operand of buffer ``name`` its select picks (``idle`` for an idle lane)."""
        return [_lane_mux(self.m, self.sched.sel[lane], self.options, self.buffers[name], lane, self.shapes[name],
                          f"{name}_op{lane}", idle=idle) for lane in range(self.params.lanes)]

    def drive_outputs(self, *more) -> None:
        """``take``, ``done`` (and the statements ``more``), then ``sel``."""
        c = self.component
        self.m.d.comb += [
            c.take.eq(Mux(c.start, self.params.depth, Mux(self.busy, self.shift, 0))),
            c.done.eq(~self.busy),
            *more,
        ]
        for lane in range(self.params.lanes):
            self.m.d.comb += c.sel[lane].eq(self.sched.sel[lane])


_FP_DOC = """
    Floating point
    --------------
    With ``dtype`` fp16, bf16 or fp32 the operands are bit patterns of that
    format (``a_width = b_width`` = 16 or 32, ``acc_width = 32``). The zero
    detectors see an operand as zero when its exponent and fraction bits are
    all 0 (+0 or -0); a pair with a zero operand is ineffectual and is never
    multiplied, so a skipped pair contributes nothing (Inf x 0 is never formed
    from a skipped pair; subnormals are not zero). Each lane's
    :class:`~accelgen.rtl.fp.FPMultiplier` forms the fp32 product (RNE; exact
    for fp16). An idle lane (select 0) multiplies +0 by -0: its product is
    -0.0, the exact identity of fp32 RNE addition (x + -0 = x for every x,
    +0 and -0 included), so idle lanes are bypassed without changing the
    pairing. Each busy cycle computes, with fp32 RNE adders::

        tree = pairwise(p[0], ..., p[L-1])   # level by level: (p0+p1), (p2+p3), ...;
                                             # an odd last value moves up a level unchanged
        acc  = acc + tree

    e.g. for ``L = 4``: ``acc <- acc + ((p0 + p1) + (p2 + p3))``, with ``p[l]``
    the product lane ``l`` formed this cycle. ``start`` loads +0.0. NaN results
    are the canonical quiet NaN 0x7FC00000. The schedule, ``take``, ``done`` and
    the cycle counts are those of the integer PE with the same zero pattern.
"""

_STREAM_DOC = """
    Operand streams
    ---------------
    The environment holds each operand stream as ``N`` rows of ``L`` values and a
    read pointer ``p`` (the number of rows the PE has taken). Every cycle it
    presents the next ``D`` rows ``p .. p+D-1`` on ``*_next`` with
    ``next_valid`` bit ``k`` set when row ``p + k`` exists (``p + k < N``), and
    after the clock edge advances ``p`` by ``take``. Values of rows that do not
    exist are ignored. Rows are consumed in order; the last row may be padded
    with zeros.
"""


class TensorDashPE(FromParams, wiring.Component):
    """TensorDash sparse-operand PE: ``L`` lanes, A and B staging buffers, scheduler, one accumulator.

    A pair is ineffectual when either operand is zero (``Z = ZA | ZB``, found by
    zero detectors as rows enter the buffers). Each busy cycle the scheduler
    chooses one effectual pair per lane; the same select drives the lane's A and
    B muxes; the ``L`` products are summed into the accumulator; the ``AS``
    leading rows that have no effectual pair left leave the buffers and ``AS``
    new rows enter. The current row always drains, so a stream of ``N`` rows
    takes between ``ceil(N / D)`` and ``N`` busy cycles.

    Parameters
    ----------
    lanes, depth, pattern, options
        As for :class:`TensorDashScheduler`.
    a_width, b_width : int
        Operand widths in bits, 1..32 each.
    acc_width : int
        Accumulator width, ``a_width + b_width`` .. 64; wraps modulo ``2**acc_width``.
    signed : bool
        Two's-complement operands and accumulator (else unsigned).
    dtype : str
        ``"int"`` (integers as above), or ``"fp16"`` / ``"bf16"`` / ``"fp32"``
        operands with fp32 products and fp32 accumulation (see "Floating point").
    flush_subnormals : bool
        Floating point only: the multipliers and adders treat subnormal inputs
        as zero and flush subnormal results to zero (same sign).

    Ports
    -----
    start : In(1)
        Begin a new dot product: the buffers load window rows ``0..D-1``, the
        accumulator clears (to +0.0 in floating point); ``take`` is ``D`` in this
        cycle. Discards any unfinished dot product.
    a_next : In(a_width).array(D, L), signed if ``signed``
        Window of the A stream: ``a_next[k][l]`` is row ``p + k``, lane ``l``.
    b_next : In(b_width).array(D, L), signed if ``signed``
        Window of the B stream, aligned with ``a_next``.
    next_valid : In(D)
        Bit ``k``: window row ``k`` exists.
    take : Out(bits_for(D))
        Rows the PE takes from the window at the next clock edge: ``D`` with
        ``start``, ``AS`` (1..D) while busy, else 0.
    sel : Out(bits_for(len(options))).array(L)
        Per lane the scheduler's choice this cycle: 0 = idle, ``k + 1`` = option
        ``k`` of :attr:`options`. 0 whenever the PE is not busy.
    done : Out(1)
        No dot product in progress (1 after reset and once the last row has
        left the buffer); ``acc`` then holds the result.
    acc : Out(acc_width), signed if ``signed``
        The running sum; the dot product when ``done``. fp32 bits in floating point.
    """ + _STREAM_DOC + _FP_DOC + """
    Latency
    -------
    1 cycle: the products of a busy cycle are in ``acc`` in the next cycle. A
    dot product started in cycle ``t0`` that needs ``C`` busy cycles is busy in
    cycles ``t0+1 .. t0+C`` and shows ``done`` with its result from cycle
    ``t0 + C + 1`` on, where the next ``start`` may already be given. ``N = 0``
    (``next_valid`` all 0 at start) needs 0 busy cycles.
    """

    def __init__(self, *, lanes: int = 4, depth: int = 4, pattern: str = "default", a_width: int | None = None,
                 b_width: int | None = None, acc_width: int | None = None, signed: bool | None = None,
                 dtype: str = "int", flush_subnormals: bool = False,
                 options: Sequence[tuple[int, int]] | None = None):
        self.params, self.options, self.levels = _validated(
            TensorDashPEParams, options, lanes=lanes, depth=depth, pattern=pattern, a_width=a_width,
            b_width=b_width, acc_width=acc_width, signed=signed, dtype=dtype, flush_subnormals=flush_subnormals)
        super().__init__(_stream_ports(self.params, self.options, rows=()))

    @property
    def latency(self) -> int:
        return 1

    def elaborate(self, platform):
        p = self.params
        m = Module()
        front = _ScheduledBuffers(m, self, {"a": (self.a_next, p.a_width), "b": (self.b_next, p.b_width)})
        xs = front.lane_operands("a")
        ys = front.lane_operands("b", idle=_idle_b(p))
        if p.is_fp:
            acc = _fp_accumulate(m, xs, ys, self.start, front.step, p.dtype, p.flush_subnormals)
        else:
            acc = _accumulate(m, [x * y for x, y in zip(xs, ys)], self.start, front.step,
                              Shape(p.acc_width, p.signed))
        front.drive_outputs(self.acc.eq(acc))
        return m


class TensorDashTileRow(wiring.Component):
    """One PE row of a :class:`TensorDashTile` (emitted once, instantiated ``R`` times).

    Holds the row's A staging buffer, its per-lane A muxes (driven by the
    shared selects), ``L`` multipliers with the shared B operands, and the
    accumulator. Ports: ``a_next`` (window, as in the PE), ``start``, ``step``
    (a busy cycle), ``shift`` (``AS``), ``sel`` (the shared selects), ``b_op``
    (the B operand each lane multiplies), ``acc``.
    """

    def __init__(self, *, params: "TensorDashTileParams", options: tuple[tuple[int, int], ...]):
        p = self.params = params
        self.lanes, self.depth, self.options = p.lanes, p.depth, options
        self.a_shape, self.acc_shape = _op_shape(p, p.a_width), _op_shape(p, p.acc_width)
        super().__init__({
            "a_next": In(self.a_shape).array(p.depth, p.lanes),
            "start": In(1),
            "step": In(1),
            "shift": In(bits_for(p.depth)),
            "sel": In(bits_for(len(options))).array(p.lanes),
            "b_op": In(_op_shape(p, p.b_width)).array(p.lanes),
            "acc": Out(self.acc_shape),
        })

    def elaborate(self, platform):
        m = Module()
        p = self.params
        a = _regs("a", self.a_shape, self.depth, self.lanes)
        _stage(m, a, a, self.a_next, self.start, self.step, self.shift)
        xs = [_lane_mux(m, self.sel[lane], self.options, a, lane, self.a_shape, f"a_op{lane}")
              for lane in range(self.lanes)]
        if p.is_fp:
            acc = _fp_accumulate(m, xs, list(self.b_op), self.start, self.step, p.dtype, p.flush_subnormals)
        else:
            acc = _accumulate(m, [x * y for x, y in zip(xs, self.b_op)], self.start, self.step, self.acc_shape)
        m.d.comb += self.acc.eq(acc)
        return m


class TensorDashTile(FromParams, HierarchicalComponent):
    """``R`` TensorDash PE rows sharing one B stream, B staging buffer and schedule.

    Sparsity is taken from the B side only (a pair is ineffectual when its B
    operand is zero; in floating point a zero A operand is multiplied, so
    ``0 x Inf`` gives NaN in the tile, unlike the PE); every row multiplies the B operands the shared schedule
    picks with its own A operands, selected by per-row A muxes driven by the
    same selects, so all rows advance together and finish together. Row ``r``
    computes ``sum_k A_r[k] * B[k]``. The row datapath is one cell module
    (``<top>__row``) instantiated ``R`` times.

    Parameters
    ----------
    lanes, depth, pattern, options, a_width, b_width, acc_width, signed, dtype, flush_subnormals
        As for :class:`TensorDashPE` (floating point: each row sums its lane
        products and accumulates exactly as the PE does, see there).
    rows : int
        PE rows ``R``, 1..16.

    Ports
    -----
    start, b_next, next_valid, take, sel, done
        As for :class:`TensorDashPE` (``next_valid`` covers all streams: the
        ``R`` A streams and the B stream have the same length).
    a_next : In(a_width).array(R, D, L), signed if ``signed``
        ``a_next[r]`` is the window of row ``r``'s A stream.
    acc : Out(acc_width).array(R), signed if ``signed``
        Running sum of each row; the dot products when ``done``. fp32 bits in floating point.
    """ + _STREAM_DOC + """
    Latency
    -------
    As for :class:`TensorDashPE`: 1 cycle; done ``C + 1`` cycles after start.
    """

    def __init__(self, *, lanes: int = 4, depth: int = 4, pattern: str = "default", a_width: int | None = None,
                 b_width: int | None = None, acc_width: int | None = None, signed: bool | None = None,
                 dtype: str = "int", flush_subnormals: bool = False, rows: int = 4,
                 options: Sequence[tuple[int, int]] | None = None):
        self.params, self.options, self.levels = _validated(
            TensorDashTileParams, options, lanes=lanes, depth=depth, pattern=pattern, a_width=a_width,
            b_width=b_width, acc_width=acc_width, signed=signed, dtype=dtype, flush_subnormals=flush_subnormals,
            rows=rows)
        super().__init__(_stream_ports(self.params, self.options, rows=(self.params.rows,)))

    @property
    def latency(self) -> int:
        return 1

    def elaborate(self, platform):
        p = self.params
        lanes, depth = p.lanes, p.depth
        m = Module()
        front = _ScheduledBuffers(m, self, {"b": (self.b_next, p.b_width)})
        b_op = front.lane_operands("b", idle=_idle_b(p))

        for r in range(p.rows):
            cell = TensorDashTileRow(params=p, options=self.options)
            ports = {"start": self.start, "step": front.step, "shift": front.shift, "acc": self.acc[r]}
            for s in range(depth):
                for l in range(lanes):
                    ports[f"a_next__{s}__{l}"] = self.a_next[r][s][l]
            for l in range(lanes):
                ports[f"sel__{l}"] = front.sched.sel[l]
                ports[f"b_op__{l}"] = b_op[l]
            m.submodules[f"row{r}"] = self.cell_instance("row", cell, **ports)

        front.drive_outputs()
        return m
