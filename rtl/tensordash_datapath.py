"""The TensorDash PE's datapath pieces (:mod:`accelgen.rtl.tensordash`): staging-buffer registers and their
row shifts, per-lane operand multiplexers over the connectivity options, zero detectors, the lane adder tree
and the accumulator (integer, or fp32 through :class:`~accelgen.rtl.fp.FPAdder`), shared by the PE and the tile.
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Shape, Signal
from amaranth.lib.wiring import In, Out
from amaranth.utils import bits_for

from .fp import FPAdder, FPMultiplier
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
    with m.Elif(step):
        with m.Switch(shift):
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


def sum_tree(values: list) -> object:
    while len(values) > 1:
        values = [values[i] + values[i + 1] if i + 1 < len(values) else values[i] for i in range(0, len(values), 2)]
    return values[0]


def used_slots(sel, options, depth: int, lanes: int) -> list[list[object]]:
    """Which buffer slots the selects consume this cycle."""
    used = [[Const(0) for _ in range(lanes)] for _ in range(depth)]
    for lane in range(lanes):
        for k, (step, offset) in enumerate(options):
            col = (lane + offset) % lanes
            used[step][col] = used[step][col] | (sel[lane] == k + 1)
    return used


def fp_accumulate(m: Module, a_ops, b_ops, start, step, dtype: str, flush: bool) -> Signal:
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


def accumulate(m: Module, products, start, step, acc_shape) -> Signal:
    acc = Signal(acc_shape, name="acc_q")
    with m.If(start):
        m.d.sync += acc.eq(0)
    with m.Elif(step):
        # assigning the wider sum truncates: wrap-around modulo 2**acc_width
        m.d.sync += acc.eq(acc + sum_tree(products))
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


class ScheduledBuffers:
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
