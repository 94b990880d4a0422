"""Benes distribution network (SIGMA): 2x2 switches with pass, cross and broadcast settings.

The routing (looping algorithm, multicast passes) is host-side Python in
:mod:`accelgen.cosim.benes_router`; this module only builds the switch fabric.
"""

from __future__ import annotations

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..params.benes import CTRL_WORD_SWITCHES, BenesParams
from ._cells import HierarchicalComponent
from ._generator import FromParams

__all__ = ["BenesParams", "Benes", "BenesSwitch"]

class BenesSwitch(wiring.Component):
    """2x2 switch cell (combinational). ``sel`` bit 0: ``y0`` takes ``b`` (else ``a``);
    bit 1: ``y1`` takes ``a`` (else ``b``). So 0 = pass, 1 = broadcast lower,
    2 = broadcast upper, 3 = cross."""

    def __init__(self, width: int):
        self.width = width
        super().__init__({"a": In(width), "b": In(width), "sel": In(2), "y0": Out(width), "y1": Out(width)})

    def elaborate(self, platform):
        m = Module()
        m.d.comb += [
            self.y0.eq(Mux(self.sel[0], self.b, self.a)),
            self.y1.eq(Mux(self.sel[1], self.a, self.b)),
        ]
        return m


def benes_wiring(n: int) -> tuple[list[tuple[int, int, int, int, int, int]], list[int]]:
    """The recursive Benes as a netlist of integer wires.

    Returns ``(switches, outputs)``: ``switches`` lists ``(stage, index, a, b, y0, y1)``
    (wire ids; inputs are wires ``0..n-1``), ``outputs[d]`` is the wire of output ``d``.
    """
    k = n.bit_length() - 1
    switches = []
    next_id = [n]

    def new():
        next_id[0] += 1
        return next_id[0] - 1

    def sw(stage, index, a, b):
        y0, y1 = new(), new()
        switches.append((stage, index, a, b, y0, y1))
        return y0, y1

    def net(w, depth, index):
        m = len(w)
        if m == 2:
            return list(sw(depth, index, w[0], w[1]))
        half = m // 2
        up_in, lo_in = [], []
        for i in range(half):
            y0, y1 = sw(depth, index * half + i, w[2 * i], w[2 * i + 1])
            up_in.append(y0)
            lo_in.append(y1)
        up = net(up_in, depth + 1, 2 * index)
        lo = net(lo_in, depth + 1, 2 * index + 1)
        out = []
        for j in range(half):
            out.extend(sw(2 * k - 2 - depth, index * half + j, up[j], lo[j]))
        return out

    outputs = net(list(range(n)), 0, 0)
    switches.sort(key=lambda s: (s[0], s[1]))
    return switches, outputs


class Benes(FromParams, HierarchicalComponent):
    """Benes network with ``n`` ports: ``2 log2 n - 1`` stages of ``n/2`` 2x2 switches.

    Topology: the standard recursive Benes. A sub-network of ``m > 2`` wires
    ``w[0..m-1]`` has a first stage (switch ``i`` takes ``w[2i]``, ``w[2i+1]``;
    output 0 goes to input ``i`` of the upper, output 1 to input ``i`` of the
    lower ``m/2`` sub-network), the two sub-networks, and a last stage (switch
    ``j`` takes output ``j`` of the upper and of the lower sub-network and drives
    outputs ``2j``, ``2j+1``); ``m = 2`` is one switch. Stage ``s`` of the whole
    network is recursion depth ``s`` for ``s < log2 n`` and depth
    ``2 log2 n - 2 - s`` after. Within a stage switches are numbered top to
    bottom: the sub-network with index ``q`` at depth ``d`` (upper before lower,
    recursively) owns switches ``q*m/2 .. (q+1)*m/2 - 1``. For ``n = 2`` the
    network is a single switch.

    Every switch is one instance of the cell module ``<top>__switch``.

    Parameters: :class:`~accelgen.params.benes.BenesParams` (a parameter set, or its fields as keywords).

    Ports
    -----
    data_in : In(width).array(n)
        The words at the inputs.
    ctrl : In(min(n, 64)).array(stages * ceil(n/64))
        Switch settings, applied with the words of the same cycle (the control
        of later stages is delayed inside with the data). Word ``s*W + c``
        (``W = ceil(n/64)``) belongs to stage ``s``; its bits ``2i+1:2i`` set
        switch ``32c + i`` of that stage: 0 pass (``y0 = a, y1 = b``),
        1 broadcast lower (both outputs take ``b``), 2 broadcast upper (both
        take ``a``), 3 cross. ``a`` is the switch's upper input. Bit 0 selects
        ``y0``'s source and bit 1 ``y1``'s, so each bit drives one 2:1 mux.
    data_out : Out(width).array(n)
        The delivered words.

    Latency
    -------
    ``(2 log2 n - 1) // pipeline_every`` cycles (0 when unpipelined: the outputs
    follow the inputs combinationally). A new word vector with its settings is
    accepted every cycle.
    """

    params_model = BenesParams

    def __init__(self, params: BenesParams | None = None, /, **kwargs):
        self.params = p = self.validated(params, kwargs)
        super().__init__({
            "data_in": In(p.width).array(p.n),
            "ctrl": In(p.ctrl_word_width).array(p.stages * p.ctrl_words_per_stage),
            "data_out": Out(p.width).array(p.n),
        })

    def elaborate(self, platform):
        p = self.params
        m = Module()
        switches, outputs = benes_wiring(p.n)
        wire = {i: self.data_in[i] for i in range(p.n)}
        # control words of each stage, delayed by the registers in front of that stage
        ctrl = {}
        for s in range(p.stages):
            words = [self.ctrl[s * p.ctrl_words_per_stage + c] for c in range(p.ctrl_words_per_stage)]
            delay = s // p.pipeline_every if p.pipeline_every else 0
            for d in range(delay):
                regs = [Signal.like(w, name=f"ctrl_s{s}_w{c}_d{d + 1}") for c, w in enumerate(words)]
                m.d.sync += [r.eq(w) for r, w in zip(regs, words)]
                words = regs
            ctrl[s] = words
        cell = BenesSwitch(p.width)
        for s in range(p.stages):
            produced = []
            for stage, index, a, b, y0, y1 in (sw for sw in switches if sw[0] == s):
                word, bit = divmod(index, CTRL_WORD_SWITCHES)
                o0 = Signal(p.width, name=f"s{s}_sw{index}_y0")
                o1 = Signal(p.width, name=f"s{s}_sw{index}_y1")
                m.submodules[f"sw_{s}_{index}"] = self.cell_instance(
                    "switch", cell, clocked=False, a=wire.pop(a), b=wire.pop(b),
                    sel=ctrl[s][word][2 * bit:2 * bit + 2], y0=o0, y1=o1)
                produced += [(y0, o0), (y1, o1)]
            for wid, sig in produced:
                if p.registered_after(s):
                    q = Signal(p.width, name=f"{sig.name}_q")
                    m.d.sync += q.eq(sig)
                    sig = q
                wire[wid] = sig
        for d, wid in enumerate(outputs):
            m.d.comb += self.data_out[d].eq(wire.pop(wid))
        return m
