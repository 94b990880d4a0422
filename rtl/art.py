"""MAERI's augmented reduction tree (ART), the second baseline SIGMA compares its FAN with
(Qin et al., HPCA 2020, Fig. 6b), on the FAN's vecID interface (:mod:`accelgen.rtl.fan`).

Structure, from Kwon, Samajdar, Krishna, "MAERI: Enabling Flexible Dataflow Mapping over DNN
Accelerators via Reconfigurable Interconnects", ASPLOS 2018 (the ART: a binary tree of adder
switches augmented with forwarding links between adjacent switches of one level that do not share a
parent, 3-input adders where there are links, any switch can emit a finished virtual-neuron sum), and
its public Bluespec (github.com/maeri-project/MAERI_bsv, ``src/reduction_network``: a linked pair
of switches is one "double reduction switch" with four inputs, the two switches' children, and modes
add-one / add-two / add-three per side, where add-three is ``(own left + own right) + the neighbour's
child next to the link``; the outermost switch of each level is a "single reduction switch" without a
link; ``RN_Types.bsv``: the levels with pairs are those with at least four switches). That
implementation configures the switches from a compiler for equal virtual-neuron sizes; here every
switch computes its mode combinationally from the vecIDs (as the FAN does) so that any contiguous
clusters are reduced, with the rules of :mod:`accelgen.golden.art` (one piece up per switch, one
emitted cluster per switch, a cluster running through a whole linked pair split at the link and
joined higher up).
"""

from __future__ import annotations

from amaranth import Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..params.art import ARTParams
from .fan import ReductionNetwork, delayed, reduction_shape, value_shape
from .fp import FPAdder
from .intarith import PipelinedAdder

__all__ = ["ART", "ARTParams", "ArtSwitch"]


def _adder(m: Module, name: str, fp: bool, a, b, stages: int):
    """``a + b`` with ``stages`` registers: :class:`FPAdder` (fp32) or a :class:`PipelinedAdder` of ``a``'s
    shape, as submodule ``name`` (integers without stages: Amaranth's ``a + b``)."""
    if fp:
        m.submodules[name] = add = FPAdder(stages=stages)
    elif stages:
        shape = a.shape()
        m.submodules[name] = add = PipelinedAdder(shape.width, signed=shape.signed, stages=stages)
    else:
        return a + b
    m.d.comb += [add.a.eq(a), add.b.eq(b)]
    return add.sum


class ArtSwitch(wiring.Component):
    """One ART adder switch with its output register, in its own orientation.

    ``odd``: the switch is a right child (or the root) and sends its piece up to the left; else a
    left child, sending up to the right. ``far_x`` is its child away from the link (odd: left child),
    ``near_x`` the child next to it, ``fwd`` (``linked`` only) the neighbour's child over the link (``near`` is a
    word Verilator's C++ reserves: a port of that name is a lint warning).
    Each piece comes with a valid bit and its vecID. Flags: ``j1`` (far and near are one cluster),
    ``j2`` (near and fwd), ``j3`` (fwd and the piece beyond it), ``far_open`` (far's cluster continues
    on the far side).

    Sum ``s = (j1 ? far + near : near)``, then ``s + fwd`` when the switch takes ``fwd``
    (``j2 & ~j3``, an even switch also needs ``j1``). ``up`` is the piece sent up (``up_far``/
    ``up_near``: open on the far / near side; ``up_v``: valid), ``em`` the cluster emitted (``em_v``:
    present and valid). Selection as in :mod:`accelgen.golden.art`.

    ``width``: the input pieces' integer width; the output pieces are ``out_width`` bits (fp32: 32).
    ``stages``: registers inside the adders; with a link the two adders in series share them (the
    first ``ceil(stages/2)``, the second the rest), so every output belongs to the inputs
    ``stages + 1`` cycles earlier.
    """

    def __init__(self, width: int, out_width: int, id_width: int, signed: bool, fp: bool, *, odd: bool,
                 linked: bool, stages: int = 0):
        self.width, self.out_width, self.signed, self.fp = width, out_width, signed, fp
        self.odd, self.linked, self.stages = odd, linked, stages
        sh_in, sh_out = value_shape(width, signed, fp), value_shape(out_width, signed, fp)
        ports = {"far_x": In(sh_in), "near_x": In(sh_in), "far_v": In(1), "near_v": In(1),
                 "far_id": In(id_width), "near_id": In(id_width), "far_open": In(1), "j1": In(1)}
        if linked:
            ports |= {"fwd": In(sh_in), "fwd_v": In(1), "j2": In(1), "j3": In(1)}
        ports |= {"up": Out(sh_out), "up_v": Out(1), "up_id": Out(id_width), "up_far": Out(1), "up_near": Out(1),
                  "em": Out(sh_out), "em_v": Out(1), "em_id": Out(id_width)}
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        fp, odd, stages = self.fp, self.odd, self.stages
        first = (stages + 1) // 2 if self.linked else stages
        second = stages - first
        j1, far_open = self.j1, self.far_open
        j2, j3 = (self.j2, self.j3) if self.linked else (Const(0, 1), Const(0, 1))
        take = j2 & ~j3 & (j1 if not odd else 1)
        split = j1 & j2 & j3
        alone = ~j1 & (j2 & j3 if odd else j2)          # near went over the link to the neighbour
        up_s = j1 & (far_open | split)
        em_s = (j1 & ~(far_open | split)) | (~j1 & ~alone)
        up_far = ~j1 & (~alone | far_open)
        em_far = ~j1 & alone & ~far_open
        s_v = (j1 & self.far_v) | self.near_v | (take & self.fwd_v if self.linked else 0)

        # the adders, in input order: odd switches have far on the left, even ones on the right
        if fp:
            pair = (self.far_x, self.near_x) if odd else (self.near_x, self.far_x)
            total = _adder(m, "add_children", True, *pair, first)
            near_d, j1_d = delayed(m, first, near=self.near_x, j1=j1)
            t = Mux(j1_d, total, near_d)
        else:
            t = _adder(m, "add_children", False, Mux(j1, self.far_x, 0), self.near_x, first)
        if self.linked:
            fwd_d, take_d = delayed(m, first, fwd=self.fwd, take=take)
            if fp:
                tt = Signal(32, name="t")
                m.d.comb += tt.eq(t)
                s2 = _adder(m, "add_fwd", True, *((tt, fwd_d) if odd else (fwd_d, tt)), second)
                t_d, take_dd = delayed(m, second, t=tt, take2=take_d)
                s = Mux(take_dd, s2, t_d)
            else:
                tt = Signal(value_shape(self.width + 1, self.signed, False), name="t")
                m.d.comb += tt.eq(t)
                s = _adder(m, "add_fwd", False, tt, Mux(take_d, fwd_d, 0), second)
        else:
            s = t
        far, far_v, far_id, near_id, far_open, up_s, em_s, up_far, em_far, split, s_v = delayed(
            m, stages, far=self.far_x, far_v=self.far_v, far_id=self.far_id, near_id=self.near_id,
            far_open=far_open, up_s=up_s, em_s=em_s, up_far=up_far, em_far=em_far, split=split, s_v=s_v)
        m.d.sync += [
            self.up.eq(Mux(up_s, s, far)), self.up_v.eq((up_s & s_v) | (up_far & far_v)),
            self.up_id.eq(Mux(up_s, near_id, far_id)), self.up_far.eq((up_s | up_far) & far_open),
            self.up_near.eq(up_s & split),
            self.em.eq(Mux(em_s, s, far)), self.em_v.eq((em_s & s_v) | (em_far & far_v)),
            self.em_id.eq(Mux(em_s, near_id, far_id)),
        ]
        return m


class ART(ReductionNetwork):
    """MAERI's augmented reduction tree: reduces every cluster of equal adjacent vecIDs in one pass.

    ``n - 1`` adder switches form a binary tree, ``n / 2**h`` at level ``h`` (1..log2 n); switch ``j``
    of level ``h`` adds pieces of its two children (level 1: two inputs). Forwarding links join
    switches ``j`` and ``j+1`` of a level when ``j`` is odd (adjacent, different parents) on levels
    of at least four switches: such switches are 3-input adders (their children and the neighbour's
    child next to the link) -- levels ``1 .. log2 n - 2``, except each level's two outermost
    switches. Every switch derives its mode from the vecIDs: add two, add three over the link, give
    its inner child to the neighbour, pass a piece up, emit a finished cluster (see
    :class:`ArtSwitch` and :mod:`accelgen.golden.art`). One cell module per (level, orientation,
    link): ``<top>__sw<h>o`` / ``sw<h>e`` (odd / even switch without link), ``sw<h>ol`` / ``sw<h>el``.

    Widths: a piece leaving level ``h`` is ``width + min(h + 1, log2 n)`` bits (it may hold inputs
    taken over a link); fp32 pieces are 32-bit patterns. A 3-input fp32 adder is two fp32 adders in
    series: ``(own left + own right) + forwarded`` (the forwarded piece last, as MAERI's add-three);
    see :mod:`accelgen.golden.art` for the whole order.

    Parameters: :class:`~accelgen.params.art.ARTParams` (as for :class:`~accelgen.rtl.fan.FAN`).

    Ports
    -----
    value, valid, vec_id, sum_id, sum_valid :
        As for :class:`~accelgen.rtl.fan.FAN` (one new vector per cycle; ``sum_valid[j]``: slot ``j``
        holds a cluster with at least one valid input).
    sum : Out(width + log2 n).array(n), signed if ``signed``
        Slot ``j`` (``j < n-1``) holds the cluster emitted by the switch whose in-order index is ``j``
        (switch ``i`` of level ``h`` has index ``i * 2**h + 2**(h-1) - 1``); slot ``n-1`` the root's
        second result (the piece it would send up). Each cluster appears in exactly one slot
        (:func:`accelgen.golden.art.art_sums` gives which).

    Latency
    -------
    ``1 + log2 n * (1 + add_stages)`` cycles, as the FAN: input registers, then per level the
    ``add_stages`` registers inside its adders (a 3-input adder's two adders share them) and one
    output register. Clusters emitted below the root wait in registers, so all results of a vector
    leave together. After reset all ``sum_valid`` are 0.
    """

    params_model = ARTParams

    def elaborate(self, platform):
        p = self.params
        n, k, stages = p.n, p.log2n, p.add_stages
        at = [level * p.level_cycles for level in range(k + 1)]
        m, pipe, (x, v, ids) = self._front()
        eq = [Signal(name=f"eq{i}") for i in range(n - 1)]
        m.d.comb += [eq[i].eq(ids[i] == ids[i + 1]) for i in range(n - 1)]
        zero = Const(0, 1)
        # a piece: value, valid, vecID, open on the left, open on the right
        row = [{"x": x[i], "v": v[i], "id": ids[i], "ol": eq[i - 1] if i else zero, "orr": eq[i] if i < n - 1 else zero}
               for i in range(n)]
        for level in range(1, k + 1):
            mm = n >> level
            shape_in, shape_out = reduction_shape(p, p.piece_width(level - 1) - p.width), \
                reduction_shape(p, p.piece_width(level) - p.width)
            out = []
            for j in range(mm):
                odd, linked = j % 2 == 1 or level == k, p.linked(level, j)
                if odd:
                    far, near = row[2 * j], row[2 * j + 1]
                    fwd = row[2 * j + 2] if linked else None
                    inner, outer = "orr", "ol"
                else:
                    far, near = row[2 * j + 1], row[2 * j]
                    fwd = row[2 * j - 1] if linked else None
                    inner, outer = "ol", "orr"
                cell = ArtSwitch(p.piece_width(level - 1), p.piece_width(level), p.id_width, p.signed, p.fp,
                                 odd=odd, linked=linked, stages=stages)
                ports = {"far_x": far["x"], "near_x": near["x"], "far_v": far["v"], "near_v": near["v"],
                         "far_id": far["id"], "near_id": near["id"], "far_open": far[outer], "j1": far[inner]}
                if linked:
                    ports |= {"fwd": fwd["x"], "fwd_v": fwd["v"], "j2": near[inner], "j3": fwd[inner]}
                for name in ("far_x", "near_x", "fwd"):   # Instance ports do not extend: match the cell's width
                    if name in ports and Signal.like(ports[name]).shape() != shape_in:
                        ext = Signal(shape_in, name=f"{name}{level}_{j}")
                        m.d.comb += ext.eq(ports[name])
                        ports[name] = ext
                piece = {"x": Signal(shape_out, name=f"up{level}_{j}"), "v": Signal(name=f"up{level}_{j}_v"),
                         "id": Signal(p.id_width, name=f"up{level}_{j}_id")}
                piece[outer] = Signal(name=f"up{level}_{j}_far")
                piece[inner] = Signal(name=f"up{level}_{j}_near")
                em, em_v, em_id = (Signal(shape_out, name=f"em{level}_{j}"), Signal(name=f"em{level}_{j}_v"),
                                   Signal(p.id_width, name=f"em{level}_{j}_id"))
                key = f"sw{level}{'o' if odd else 'e'}{'l' if linked else ''}"
                m.submodules[f"sw_{level}_{j}"] = self.cell_instance(
                    key, cell, up=piece["x"], up_v=piece["v"], up_id=piece["id"], up_far=piece[outer],
                    up_near=piece[inner], em=em, em_v=em_v, em_id=em_id, **ports)
                slot = j * 2 ** level + 2 ** (level - 1) - 1
                pipe.put(("em", slot), at[level], em)
                pipe.put(("sv", slot), at[level], em_v)
                pipe.put(("id", slot), at[level], em_id)
                out.append(piece)
            row = out
        root = row[0]   # its upward piece is the second result of the root
        pipe.put(("em", n - 1), at[k], root["x"])
        pipe.put(("sv", n - 1), at[k], root["v"])
        pipe.put(("id", n - 1), at[k], root["id"])
        self._drive_slots(m, pipe, at[k], ["em"] * n)
        return m
