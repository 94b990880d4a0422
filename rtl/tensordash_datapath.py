"""The TensorDash PE's datapath pieces (:mod:`accelgen.rtl.tensordash`): staging-buffer registers and their
row shifts, per-lane operand multiplexers over the connectivity options, zero detectors, and the accumulator's
control, shared by the PE and the tile (the lane multipliers and the lane sum:
:mod:`~accelgen.rtl.tensordash_sum`).

Pipelining (``mul_stages``, ``add_stages``): the lane multipliers and the adders are the pipelined units, whose
registers run freely. So the lane sum of a busy cycle reaches the accumulator some cycles later
(:attr:`~accelgen.params.tensordash.TensorDashPEParams.pipeline_delay`), and the accumulator's control (clear,
enable) travels beside it through a shift register of the same length (:meth:`OperandFront.pipeline`).

The accumulator adder is pipelined too (:func:`interleaved_accumulate`): its feedback loop ``acc <- acc +
sum`` is then ``T = add_stages + 1`` registers long, so it holds ``T`` interleaved partial sums ("threads",
the C-slow arrangement of the MAC) that take the busy cycles in turn, and after the last busy cycle the
same adder folds the threads into one sum by an in-order pairwise tree (:data:`FOLD_SCHEDULE`). That
costs :func:`accumulator_fold_cycles` cycles per dot product instead of a single-cycle fp32 adder in the loop, which
would be the clock's floor.
"""

from __future__ import annotations

from dataclasses import dataclass

from amaranth import Cat, Const, Module, Mux, Shape, Signal, Value
from amaranth.lib.wiring import In, Out
from amaranth.utils import bits_for

from .tensordash_sched import TensorDashScheduler


def op_shape(p, width: int) -> Shape:
    """Shape of an operand / accumulator port: fp values are unsigned bit patterns."""
    return Shape(width, p.signed and not p.is_fp)


def nonzero_detect(p, value):
    """Zero detector: integers compare with 0; fp values are zero when exponent and fraction are 0."""
    return value[:-1].any() if p.is_fp else value != 0


def idle_b(p) -> int:
    """What an idle lane's B mux outputs: 0, or -0.0 in fp (so that the lane's product is -0.0)."""
    return 1 << (p.b_width - 1) if p.is_fp else 0


def regs(name: str, shape, depth: int, lanes: int) -> list[list[Signal]]:
    return [[Signal(shape, name=f"{name}_r{s}_l{l}") for l in range(lanes)] for s in range(depth)]


def stage(m: Module, regs, kept, window, start, step, shift) -> None:
    """Staging buffer update: ``start`` loads the window rows; ``step`` drops ``shift`` rows and refills.

    ``kept[s][l]`` is what row ``s`` keeps when it moves up (e.g. the value with
    used pairs cleared); the rows shifted in at the bottom come from the window.
    """
    depth = len(regs)
    with m.If(start):
        for s in range(depth):
            for l, reg in enumerate(regs[s]):
                m.d.sync += reg.eq(window[s][l])
    with m.Elif(step), m.Switch(shift):
        for adv in range(1, depth + 1):
            with m.Case(adv):
                for s in range(depth):
                    src = s + adv
                    for l, reg in enumerate(regs[s]):
                        m.d.sync += reg.eq(kept[src][l] if src < depth else window[src - depth][l])


def lane_mux(m: Module, sel, options, regs, lane: int, shape, name: str, idle: int = 0) -> Signal:
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


def used_slots(sel, options, depth: int, lanes: int) -> list[list[object]]:
    """Which buffer slots the selects consume this cycle."""
    used = [[Const(0) for _ in range(lanes)] for _ in range(depth)]
    for lane in range(lanes):
        for k, (step, offset) in enumerate(options):
            col = (lane + offset) % lanes
            used[step][col] = used[step][col] | (sel[lane] == k + 1)
    return used


def delay_line(m: Module, value, cycles: int, name: str, *, reset_less: bool = False) -> list[Signal]:
    """A shift register: element ``k`` is ``value`` as it was ``k + 1`` clock edges ago (``cycles`` elements).

    Control bits (``reset_less=False``) reset to 0, so that no phantom clear or enable leaves the line after
    reset; data beside the free-running arithmetic units needs no reset."""
    value = Value.cast(value)
    line = []
    for k in range(cycles):
        reg = Signal(value.shape(), name=f"{name}_d{k + 1}", reset_less=reset_less)
        m.d.sync += reg.eq(line[-1] if line else value)
        line.append(reg)
    return line


#: The fold of ``T = add_stages + 1`` threads after the last busy cycle, as ``T: (captures, adds)`` in slots
#: counted from the first slot after it (offset 0). In offset ``k`` the loop presents thread ``u[k mod T]``
#: (``u[0]`` is the thread of offset 0); a capture copies it into the hold register, an add presents
#: ``thread + hold``, whose sum is that thread's value ``T`` slots later. This is the in-order pairwise tree
#: over ``u[0] .. u[T-1]``, each offset placed at the first slot where its operand is in the loop and the
#: hold register is free:
#:
#: * T = 2: ``u0 -> h`` (0); ``u1 + h`` (1); the sum is in ``acc`` from offset 3.
#: * T = 3: ``u0 -> h`` (0); ``r = u1 + h`` (1, back at 4); ``u2 -> h`` (2); ``r + h`` (4); sum from 7.
#: * T = 4: ``u0 -> h`` (0); ``r0 = u1 + h`` (1, back at 5); ``u2 -> h`` (2); ``r1 = u3 + h`` (3, back at
#:   7); ``r0 -> h`` (5); ``r1 + h`` (7); sum from 11 (``r1 + r0 = r0 + r1``: one addition commutes).
FOLD_SCHEDULE: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {
    2: ((0,), (1,)), 3: ((0, 2), (1, 4)), 4: ((0, 2, 5), (1, 3, 7)),
}


def accumulator_fold_cycles(add_stages: int) -> int:
    """Cycles the accumulator's fold adds after the last busy value reached it: 0 for a single-cycle
    accumulator, else the offset after the last add's sum is back in the loop (:data:`FOLD_SCHEDULE`)."""
    if not add_stages:
        return 0
    _, adds = FOLD_SCHEDULE[add_stages + 1]
    return adds[-1] + add_stages + 1


@dataclass
class AccControl:
    """What drives an accumulator: ``clear`` / ``en`` (its clear and its busy slots, delayed to meet the tree
    value), and for an interleaved accumulator (``threads > 1``, :func:`interleaved_accumulate`) the derived
    per-slot selects: ``a_zero`` (the thread's first slot of a dot product: add to zero, not to the stale
    loop value), ``b_hold`` (a fold add: add the hold register), ``h_load`` (a fold capture) and ``load``
    (the loop register follows the adder; it holds once the fold's sum is in it)."""

    clear: object
    en: object
    threads: int = 1
    a_zero: object = None
    b_hold: object = None
    h_load: object = None
    load: object = None
    draining: object = None

    #: names of the selects an interleaved accumulator's row takes as ports (the tile)
    SELECTS = ("en", "a_zero", "b_hold", "h_load", "load")


def accumulator_control(m: Module, clear, en, threads: int) -> AccControl:
    """The selects of an interleaved accumulator of ``threads`` threads (:class:`AccControl`). Busy slots
    follow the clear slot without a gap, so the fold starts in the first slot after the clear or the last
    busy slot that is neither; a new clear cancels a fold in progress."""
    if threads == 1:
        return AccControl(clear, en)
    captures, adds = FOLD_SCHEDULE[threads]
    last = accumulator_fold_cycles(threads - 1) - 1  # the last offset in which the loop register loads
    was_active = Signal(name="acc_was_active")
    m.d.sync += was_active.eq(clear | en)
    fold_start = Signal(name="acc_fold_start")
    m.d.comb += fold_start.eq(was_active & ~clear & ~en)
    folding = Signal(name="acc_folding")
    offset = Signal(range(last + 1), name="acc_fold_offset")
    with m.If(clear):
        m.d.sync += folding.eq(0)
    with m.Elif(fold_start):
        m.d.sync += [folding.eq(1), offset.eq(1)]
    with m.Elif(folding):
        m.d.sync += offset.eq(offset + 1)
        with m.If(offset == last):
            m.d.sync += folding.eq(0)

    def at(offsets):
        return Cat(*(fold_start if k == 0 else folding & (offset == k) for k in offsets)).any()

    fresh = Cat(clear, *delay_line(m, clear, threads - 1, "acc_fresh")).any()
    return AccControl(clear, en, threads, a_zero=fresh, b_hold=at(adds), h_load=at(captures),
                      load=clear | en | fold_start | folding, draining=fold_start | folding)


def interleaved_accumulate(m: Module, values: list, ctrl: AccControl, operands: list, total, shape, zero: int,
                           idle: int) -> Signal:
    """The accumulator loop through a pipelined adder (``add_stages`` registers, then ``acc_q``) whose operand
    ports are ``operands`` (the loop's, then one per busy value) and whose sum is ``total``: each slot adds the
    busy ``values`` (the lane tree's one value, or the fused sum's lane products), the hold register (a fold
    add: on the first value's operand) or ``idle`` (the identity: -0.0 in fp, 0 in integers) to the thread in
    the loop, or to ``zero`` in the thread's first slot of a dot product."""
    acc = Signal(shape, name="acc_q")
    hold = Signal(shape, name="acc_hold", reset_less=True)
    a_val = Signal(shape, name="acc_a")
    b_val = Signal(shape, name="acc_b")
    m.d.comb += [
        a_val.eq(Mux(ctrl.a_zero, zero, acc)),
        b_val.eq(Mux(ctrl.en, values[0], Mux(ctrl.b_hold, hold, idle))),
        operands[0].eq(a_val), operands[1].eq(b_val),
        *(port.eq(Mux(ctrl.en, value, idle)) for port, value in zip(operands[2:], values[1:])),
    ]
    with m.If(ctrl.h_load):
        m.d.sync += hold.eq(a_val)
    with m.If(ctrl.load):
        m.d.sync += acc.eq(total)  # an integer sum is one bit wider: the accumulator wraps
    return acc


def stream_ports(p, options, rows: tuple[int, ...]) -> dict:
    """Ports of a PE (``rows`` empty) or of a tile of ``rows[0]`` PE rows (``a_next`` and ``acc`` per row)."""
    return {
        "start": In(1),
        "a_next": In(op_shape(p, p.a_width)).array(*rows, p.depth, p.lanes),
        "b_next": In(op_shape(p, p.b_width)).array(p.depth, p.lanes),
        "next_valid": In(p.depth),
        "take": Out(bits_for(p.depth)),
        "sel": Out(bits_for(len(options))).array(p.lanes),
        "done": Out(1),
        "acc": Out(op_shape(p, p.acc_width)).array(*rows) if rows else Out(op_shape(p, p.acc_width)),
    }


class OperandFront:
    """The front of a PE or tile, in front of its lane multipliers: what feeds the lanes, ``busy`` (the
    current row exists), ``step`` (a busy cycle without ``start``), ``shift`` (rows taken per busy cycle)
    and ``selects`` (the per-lane ``sel`` outputs); :meth:`pipeline` and :meth:`drive_outputs` are shared.
    :class:`ScheduledBuffers` is TensorDash's, :class:`~accelgen.rtl.tensordash_dense.DenseRow` the dense
    baseline's (``depth`` 1)."""

    busy: Signal
    step: Signal
    shift: Value
    selects: list

    def __init__(self, m: Module, component):
        self.m, self.component, self.options, self.params = m, component, component.options, component.params
        self.pending = None  # accumulator control still in the pipeline (:meth:`pipeline`)

    def pipeline(self, delay: int, threads: int = 1) -> AccControl:
        """The accumulator's control: ``start`` and ``step`` delayed by ``delay`` cycles, so that they meet
        the tree value of their cycle after the pipelined multipliers and adders, and for an interleaved
        accumulator of ``threads`` threads its selects (:func:`accumulator_control`). While any of them is
        still on its way or the threads are being folded, ``done`` stays low (:meth:`drive_outputs`). An
        interleaved accumulator without a delay (the fused sum with ``mul_stages`` 0: its stages are all in
        the loop) takes ``start`` and ``step`` as they are."""
        c = self.component
        clear = delay_line(self.m, c.start, delay, "acc_clear")
        en = delay_line(self.m, self.step, delay, "acc_en")
        ctrl = accumulator_control(self.m, clear[-1] if delay else c.start, en[-1] if delay else self.step, threads)
        pending = [Cat(*clear, *en).any()] if delay else []
        if ctrl.draining is not None:
            pending.append(ctrl.draining)
        self.pending = Cat(*pending).any() if pending else None
        return ctrl

    def drive_outputs(self, *more) -> None:
        """``take``, ``done`` (and the statements ``more``), then ``sel``."""
        c = self.component
        self.m.d.comb += [
            c.take.eq(Mux(c.start, self.params.depth, Mux(self.busy, self.shift, 0))),
            c.done.eq(~self.busy if self.pending is None else ~self.busy & ~self.pending),
            *more,
        ]
        for lane in range(self.params.lanes):
            self.m.d.comb += c.sel[lane].eq(self.selects[lane])


class ScheduledBuffers(OperandFront):
    """What the TensorDash PE and tile share: the scheduler, one staging buffer per operand stream, the
    ``live`` flags of the effectual pairs and the ``valid`` rows, ``step`` (a busy cycle without
    ``start``), and the ``take`` / ``done`` / ``sel`` outputs.

    ``streams`` maps a buffer name to ``(window port, width)``, in the order the buffers are built. A
    slot enters live when its row exists and every stream's operand there is non-zero (the PE: A and
    B; the tile: B only); it stays live until a lane uses it.
    """

    def __init__(self, m: Module, component, streams: dict[str, tuple[object, int]]):
        super().__init__(m, component)
        p, options = self.params, self.options
        lanes, depth = p.lanes, p.depth
        start, next_valid = component.start, component.next_valid
        self.sched = sched = m.submodules.sched = TensorDashScheduler(lanes=lanes, depth=depth, options=options)
        self.selects = list(sched.sel)
        self.shapes = {name: op_shape(p, width) for name, (_, width) in streams.items()}
        self.buffers = {name: regs(name, self.shapes[name], depth, lanes) for name in streams}
        live = regs("live", 1, depth, lanes)
        valid = regs("valid", 1, depth, 1)
        self.busy = valid[0][0]
        self.step = step = Signal(name="step")
        m.d.comb += step.eq(self.busy & ~start)
        for s in range(depth):
            m.d.comb += sched.z[s].eq(~Cat(live[s]))
        used = used_slots(sched.sel, options, depth, lanes)
        # zero detectors on the rows entering the buffers
        w_live = [[next_valid[s] for _ in range(lanes)] for s in range(depth)]
        for window, _ in streams.values():
            w_live = [[w_live[s][l] & nonzero_detect(p, window[s][l]) for l in range(lanes)] for s in range(depth)]
        self.shift = shift = sched.as_rows
        for name, (window, _) in streams.items():
            stage(m, self.buffers[name], self.buffers[name], window, start, step, shift)
        stage(m, live, [[live[s][l] & ~used[s][l] for l in range(lanes)] for s in range(depth)], w_live,
               start, step, shift)
        stage(m, valid, valid, [[next_valid[s]] for s in range(depth)], start, step, shift)

    def lane_operands(self, name: str, idle: int = 0) -> list[Signal]:
        """Per lane the operand of buffer ``name`` its select picks (``idle`` for an idle lane)."""
        return [lane_mux(self.m, self.sched.sel[lane], self.options, self.buffers[name], lane, self.shapes[name],
                          f"{name}_op{lane}", idle=idle) for lane in range(self.params.lanes)]

