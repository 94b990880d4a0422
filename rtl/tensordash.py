"""TensorDash: hardware scheduler, sparse-operand PE and the tile that shares one schedule.

A TensorDash PE has ``L`` multiplier lanes accumulating into one sum. Each lane
can take its operand pair not only from the current row of the operand stream
(the dense slot) but from a few slots ahead in time (lookahead) and in
neighbouring lanes (lookaside), held in ``D``-row staging buffers for A and B.
A combinational scheduler picks, per cycle, one effectual pair per lane so that
zero operands are skipped; the buffers then drop the rows that are fully used
(``AS`` rows) and load as many new rows. See docs/architecture.md, "TensorDash",
and Mahmoud et al., MICRO 2020, sect. III-A, Figs. 5-6.

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

from collections.abc import Sequence

from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import bits_for

from ..params.tensordash import TensorDashPEParams, TensorDashSchedParams, TensorDashTileParams
from ._cells import HierarchicalComponent
from ._generator import FromParams
from .tensordash_datapath import (
    AccControl,
    ScheduledBuffers,
    idle_b,
    lane_mux,
    op_shape,
    regs,
    stage,
    stream_ports,
)
from .tensordash_dense import DenseRow, operand_row
from .tensordash_sum import lane_accumulate
from .tensordash_sched import (
    TENSORDASH_PATTERNS,
    TensorDashScheduler,
    tensordash_levels,
    tensordash_options,
    with_options,
)

__all__ = [
    "TENSORDASH_PATTERNS",
    "TensorDashPE",
    "TensorDashPEParams",
    "TensorDashSchedParams",
    "TensorDashScheduler",
    "TensorDashTile",
    "TensorDashTileParams",
    "tensordash_levels",
    "tensordash_options",
]

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
    pairing. Each busy cycle computes, by ``summation``:

    ``"fused"`` (the default; the paper's PE, Mahmoud et al., MICRO 2020, sect. II-B)::

        acc = fp_sum(acc, p[0], ..., p[L-1])   # one FPSum(L + 1): align to the largest
                                               # exponent once, add, one RNE rounding

    (:class:`~accelgen.rtl.fp_sum.FPSum`, the grouped systolic PE's adder;
    golden :func:`accelgen.golden.fp.fp_sum`). ``"tree"``, with fp32 RNE adders::

        tree = pairwise(p[0], ..., p[L-1])   # level by level: (p0+p1), (p2+p3), ...;
                                             # an odd last value moves up a level unchanged
        acc  = acc + tree

    e.g. for ``L = 4``: ``acc <- acc + ((p0 + p1) + (p2 + p3))``. ``p[l]`` is
    the product lane ``l`` formed this cycle (with ``add_stages``: into one of
    the interleaved partial sums, folded at the end, see "Pipelining" of the
    PE). ``start`` loads +0.0. NaN results
    are the canonical quiet NaN 0x7FC00000. The schedule, ``take``, ``done`` and
    the cycle counts are those of the integer PE with the same zero pattern.
"""

_DENSE_DOC = """
    Dense baseline (``depth`` 1)
    ----------------------------
    The same block without TensorDash (:mod:`accelgen.rtl.tensordash_dense`):
    no staging rows beyond the current one, no zero detectors, no scheduler
    (no ``sched`` submodule) and no operand multiplexers. Each lane multiplies
    its own pair of the current row every busy cycle, zeros included (in
    floating point ``0 x Inf`` is NaN and zero products keep their signs), into
    the same lane sum (``summation``) and accumulator with the same pipelining, latency and
    fold. The ports keep their names; with ``D = 1`` the windows ``a_next`` /
    ``b_next`` are one row, ``next_valid`` one bit, ``take`` is 1 at ``start``
    and in every busy cycle (a stream of ``N`` rows takes ``N`` busy cycles),
    and ``sel`` (1 bit per lane) is 1 in every busy cycle (option 0, the dense
    slot), else 0. ``pattern`` and ``options`` have no effect.
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
    __doc__ = """TensorDash sparse-operand PE: ``L`` lanes, A and B staging buffers, scheduler, one accumulator.

    A pair is ineffectual when either operand is zero (``Z = ZA | ZB``, found by
    zero detectors as rows enter the buffers). Each busy cycle the scheduler
    chooses one effectual pair per lane; the same select drives the lane's A and
    B muxes; the ``L`` products are summed into the accumulator; the ``AS``
    leading rows that have no effectual pair left leave the buffers and ``AS``
    new rows enter. The current row always drains, so a stream of ``N`` rows
    takes between ``ceil(N / D)`` and ``N`` busy cycles.

    Parameters: :class:`~accelgen.params.tensordash.TensorDashPEParams` (a parameter set, or its fields as
    keywords), and ``options=`` as for :class:`TensorDashScheduler`. ``dtype`` ``"int"``: integers wrapping
    modulo ``2**acc_width``; fp16/bf16/fp32: see "Floating point".

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
    Pipelining
    ----------
    ``mul_stages`` (0..3) register stages inside every lane multiplier
    (:class:`~accelgen.rtl.fp.FPMultiplier`, integers
    :class:`~accelgen.rtl.intarith.PipelinedMultiplier`) and ``add_stages``
    (0..3) inside every adder of the lane tree (:class:`~accelgen.rtl.fp.FPAdder`,
    :class:`~accelgen.rtl.intarith.PipelinedAdder`) or inside the fused sum
    (:class:`~accelgen.rtl.fp_sum.FPSum`). The front (buffers,
    scheduler, muxes, ``take``, ``sel``) is not delayed: the schedule and the
    busy cycles are those of the unpipelined PE. The accumulator's clear
    (``start``) and enable (a busy cycle) follow the lane sum through a shift
    register of ``P = mul_stages + ceil(log2(L)) * add_stages`` stages (the
    fused sum: ``P = mul_stages``, its stages are the accumulator loop's), and an
    odd lane value that skips a tree level waits ``add_stages`` cycles. With
    ``add_stages = 0`` ``acc`` therefore shows exactly what the unpipelined
    PE's ``acc`` showed ``P`` cycles earlier.

    The accumulator adder (the fused sum) has ``add_stages`` registers as well. Its feedback
    loop ``acc <- acc + tree`` is then ``T = add_stages + 1`` registers long,
    so it keeps ``T`` interleaved partial sums ("threads"): busy cycle ``j`` of
    a dot product (``j = 1 .. C``) adds its tree value to thread ``j mod T``
    (each thread starts from +0.0). After the last busy value the same adder
    folds the threads by the in-order pairwise tree over ``u[0] .. u[T-1]``,
    ``u[i]`` the thread ``(C + 1 + i) mod T``: e.g. ``T = 4``: ``(u0 + u1) +
    (u2 + u3)``. That takes :attr:`fold_cycles` cycles (3, 7, 11 for
    ``add_stages`` 1, 2, 3), during which ``done`` is low. In floating point
    the association order differs from the single-cycle accumulator's (the
    golden model follows it; a fold add of the fused sum presents the two threads and -0.0 on its other
    operands); integers are exact either way. While a dot
    product is in progress ``acc`` shows one of the threads (not the running
    sum); when ``done`` it shows the dot product.

    Latency
    -------
    ``1 + P + F`` cycles (:attr:`latency`; 1 without pipelining), ``F`` =
    :attr:`fold_cycles`: the last busy cycle's products are in the dot product
    in ``acc`` ``1 + P + F`` cycles later. A dot product started in cycle
    ``t0`` that needs ``C`` busy cycles is busy in cycles ``t0+1 .. t0+C`` and
    shows ``done`` with its result from cycle ``t0 + C + 1 + P + F`` on, where
    the next ``start`` may already be given (``done`` is low while a clear or
    an accumulation is still in the pipeline or the threads are folding, so
    each dot product costs ``C + 1 + P + F`` cycles back to back: the drain is
    not overlapped with the next stream). ``N = 0`` (``next_valid`` all 0 at
    start) needs 0 busy cycles.
""" + _DENSE_DOC

    params_model = TensorDashPEParams

    def __init__(self, params: TensorDashPEParams | None = None, /, *,
                 options: Sequence[tuple[int, int]] | None = None, **kwargs):
        self.params, self.options, self.levels = with_options(self.validated(params, kwargs), options)
        super().__init__(stream_ports(self.params, self.options, rows=()))

    def elaborate(self, platform):
        p = self.params
        m = Module()
        streams = {"a": (self.a_next, p.a_width), "b": (self.b_next, p.b_width)}
        front = DenseRow(m, self, streams) if p.dense else ScheduledBuffers(m, self, streams)
        xs = front.lane_operands("a")
        ys = front.lane_operands("b", idle=idle_b(p))
        ctrl = front.pipeline(p.pipeline_delay, p.threads)
        acc = lane_accumulate(m, p, xs, ys, ctrl)
        front.drive_outputs(self.acc.eq(acc))
        return m


class TensorDashTileRow(wiring.Component):
    """One PE row of a :class:`TensorDashTile` (emitted once, instantiated ``R`` times).

    Holds the row's A staging buffer, its per-lane A muxes (driven by the
    shared selects), ``L`` multipliers with the shared B operands, the lane
    tree and the accumulator. Ports: ``a_next`` (window, as in the PE),
    ``start``, ``step`` (a busy cycle), ``shift`` (``AS``), ``sel`` (the shared
    selects), ``b_op`` (the B operand each lane multiplies), ``acc``; when
    pipelined also the accumulator's control from the tile (one for all rows):
    ``acc_clear`` and ``acc_en`` (clear and enable, delayed), or with an
    interleaved accumulator (``add_stages``) its selects ``acc_en``,
    ``acc_a_zero``, ``acc_b_hold``, ``acc_h_load`` and ``acc_load``
    (:class:`~accelgen.rtl.tensordash_datapath.AccControl`). The dense baseline's row (``depth`` 1) holds
    the current A row instead of a staging buffer and has no muxes, so no ``shift`` and ``sel`` ports.
    """

    def __init__(self, *, params: TensorDashTileParams, options: tuple[tuple[int, int], ...]):
        p = self.params = params
        self.lanes, self.depth, self.options = p.lanes, p.depth, options
        self.a_shape, self.acc_shape = op_shape(p, p.a_width), op_shape(p, p.acc_width)
        pipelined = {}
        if p.threads > 1:
            pipelined = {f"acc_{name}": In(1) for name in AccControl.SELECTS}
        elif p.pipeline_delay:
            pipelined = {"acc_clear": In(1), "acc_en": In(1)}
        scheduled = {} if p.dense else {"shift": In(bits_for(p.depth)),
                                        "sel": In(bits_for(len(options))).array(p.lanes)}
        super().__init__({
            "a_next": In(self.a_shape).array(p.depth, p.lanes),
            "start": In(1),
            "step": In(1),
            **scheduled,
            "b_op": In(op_shape(p, p.b_width)).array(p.lanes),
            "acc": Out(self.acc_shape),
            **pipelined,
        })

    def elaborate(self, platform):
        m = Module()
        p = self.params
        if p.dense:
            xs = operand_row(m, "a", self.a_shape, self.a_next[0], self.start | self.step)
        else:
            a = regs("a", self.a_shape, self.depth, self.lanes)
            stage(m, a, a, self.a_next, self.start, self.step, self.shift)
            xs = [lane_mux(m, self.sel[lane], self.options, a, lane, self.a_shape, f"a_op{lane}")
                  for lane in range(self.lanes)]
        if p.threads > 1:
            ctrl = AccControl(None, **{name: getattr(self, f"acc_{name}") for name in AccControl.SELECTS},
                              threads=p.threads)
        elif p.pipeline_delay:
            ctrl = AccControl(self.acc_clear, self.acc_en)
        else:
            ctrl = AccControl(self.start, self.step)
        acc = lane_accumulate(m, p, xs, list(self.b_op), ctrl)
        m.d.comb += self.acc.eq(acc)
        return m


class TensorDashTile(FromParams, HierarchicalComponent):
    __doc__ = """``R`` TensorDash PE rows sharing one B stream, B staging buffer and schedule.

    Sparsity is taken from the B side only (a pair is ineffectual when its B
    operand is zero; in floating point a zero A operand is multiplied, so
    ``0 x Inf`` gives NaN in the tile, unlike the PE); every row multiplies the B operands the shared schedule
    picks with its own A operands, selected by per-row A muxes driven by the
    same selects, so all rows advance together and finish together. Row ``r``
    computes ``sum_k A_r[k] * B[k]``. The row datapath is one cell module
    (``<top>__row``) instantiated ``R`` times.

    Parameters: :class:`~accelgen.params.tensordash.TensorDashTileParams` (as for :class:`TensorDashPE`, and
    ``rows``, 1..16), and ``options=``. Floating point: each row sums its lane products and accumulates
    exactly as the PE does; one shift register in the tile delays the accumulators' clear and enable for
    all rows.

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
    As for :class:`TensorDashPE`: ``1 + P + F`` cycles with ``P = mul_stages +
    ceil(log2(L)) * add_stages`` (``mul_stages`` fused) and ``F`` the accumulators' fold
    (:attr:`latency`; 1 without pipelining); done ``C + 1 + P + F`` cycles
    after start.
""" + _DENSE_DOC

    params_model = TensorDashTileParams

    def __init__(self, params: TensorDashTileParams | None = None, /, *,
                 options: Sequence[tuple[int, int]] | None = None, **kwargs):
        self.params, self.options, self.levels = with_options(self.validated(params, kwargs), options)
        super().__init__(stream_ports(self.params, self.options, rows=(self.params.rows,)))

    def elaborate(self, platform):
        p = self.params
        lanes, depth = p.lanes, p.depth
        m = Module()
        streams = {"b": (self.b_next, p.b_width)}
        front = DenseRow(m, self, streams) if p.dense else ScheduledBuffers(m, self, streams)
        b_op = front.lane_operands("b", idle=idle_b(p))
        ctrl = front.pipeline(p.pipeline_delay, p.threads)

        for r in range(p.rows):
            cell = TensorDashTileRow(params=p, options=self.options)
            ports = {"start": self.start, "step": front.step, "acc": self.acc[r]}
            if not p.dense:
                ports["shift"] = front.shift
            if p.threads > 1:
                ports |= {f"acc_{name}": getattr(ctrl, name) for name in AccControl.SELECTS}
            elif p.pipeline_delay:
                ports |= {"acc_clear": ctrl.clear, "acc_en": ctrl.en}
            for s in range(depth):
                for l in range(lanes):
                    ports[f"a_next__{s}__{l}"] = self.a_next[r][s][l]
            for l in range(lanes):
                if not p.dense:
                    ports[f"sel__{l}"] = front.sched.sel[l]
                ports[f"b_op__{l}"] = b_op[l]
            m.submodules[f"row{r}"] = self.cell_instance("row", cell, **ports)

        front.drive_outputs()
        return m
