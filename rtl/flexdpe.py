"""SIGMA Flex-DPE: ``k`` multipliers with stationary buffers, a Benes distribution network and a FAN.

One Flex-DPE computes any mix of variable-sized dot products in one pass: the
stationary non-zeros of several rows sit side by side in the multipliers, each
streamed vector is multicast to the multipliers that need its words, and the
Forwarding Adder Network (:class:`~accelgen.rtl.fan.FAN`) reduces every row's
products (a vecID cluster) at once. The host side — the sparsity controller
that maps bitmaps to buffers, routing bits and vecIDs — is
:mod:`accelgen.cosim.flexdpe`; the cycle model is :mod:`accelgen.golden.flexdpe`.

Datapath (one word vector per cycle)::

    data_in/valid_in/head --[reg]--> copy network --[reg]--> Benes --[mult cells: stationary /
    streaming registers, multiplier (mul_stages registers)]--> products --> FAN (input register,
    log2 k levels of 1 + add_stages cycles) --> sum slots

* **Copy network** (multicast in front of the Benes, as docs/architecture.md
  allows): a segmented copy-scan over the ``k`` ports, ``log2 k`` stages of
  2:1 muxes. Every port whose ``head`` bit is set starts a segment; every
  port takes the word (and valid bit) of the nearest head at or before it.
  The controller places each streamed non-zero on the port where its run of
  copies begins (a prefix sum of the fan-outs), so ``f`` copies of a word
  leave ports ``a .. a+f-1``.
* **Benes** (:class:`~accelgen.rtl.benes.Benes`, instance ``<top>__benes``,
  ``width + 1`` bits: word and valid) permutes the copies onto the
  multipliers in one pass (looping algorithm,
  :func:`accelgen.cosim.benes_router.route_permutation`).
* **Multiplier cells** (``<top>__mult``, ``k`` instances). In a ``load`` cycle
  a cell stores the delivered word as its stationary operand (its buffer),
  the word's valid bit as "mapped", and its ``vec_id`` input; otherwise it
  stores the delivered word as the streaming operand. The product
  ``stationary * streaming`` is valid when both are valid. With ``mul_stages``
  the multiplier has that many register stages inside
  (:class:`~accelgen.rtl.intarith.PipelinedMultiplier`,
  :class:`~accelgen.rtl.fp.FPMultiplier`); the product's valid bit and vecID
  are delayed alongside, so a load that follows a streamed vector does not
  relabel that vector's products still in the multiplier.
* **FAN** (:class:`~accelgen.rtl.fan.FAN`, instance ``<top>__fan``,
  ``2*width``-bit products) reduces each run of equal vecIDs. With
  ``add_stages`` every FAN adder has that many registers inside (each tree
  level takes ``1 + add_stages`` cycles); the FAN delays the vecIDs, flags and
  bypassed operands alongside, so the sums (and the fp association order) are
  those of ``add_stages=0``, only later.

Datatypes (``dtype``)
---------------------
``"int"``: two's-complement (or unsigned) ``width``-bit operands, exact
``2*width``-bit products and exact sums. ``"fp16"``, ``"bf16"`` (SIGMA's), ``"fp32"``:
operands are bit patterns of that format (``width`` 16, 16 or 32, implied), the
Benes carries the operand words (``width + 1`` bits with the valid bit), each
multiplier is an :class:`~accelgen.rtl.fp.FPMultiplier` (fp32 product, RNE; fp16
and bf16 products have exact significands) between the same registers as the
integer multiplier, and the FAN is the fp32 FAN (:class:`~accelgen.rtl.fan.FAN`
with ``dtype="fp32"``: FPAdder in every adder, association order as documented
there). Latency and cycle counts are those of the integer Flex-DPE. Zero
operands are never multiplied: the sparsity controller treats every bit pattern
with zero exponent and fraction (+0 and -0) as zero and maps / streams only
non-zeros, so a skipped pair contributes nothing (``Inf x 0`` is never formed)
and a product whose streaming word is absent enters the FAN as +0.0.

Parameters: :class:`~accelgen.params.flexdpe.FlexDPEParams` (a parameter set, or its fields as keywords).

Ports
-----
data_in : In(width).array(k)
    Words of this cycle (stationary values in a load cycle, streamed non-zeros otherwise).
valid_in : In(min(k, 64)).array(ceil(k/64))
    Bit ``p % 64`` of word ``p // 64``: port ``p`` carries a real word.
head : In(min(k, 64)).array(ceil(k/64))
    Bit ``p`` set: port ``p`` starts a copy segment (all ones: no copying).
load : In(1)
    This cycle loads the stationary buffers (and ``vec_id``) instead of streaming.
vec_id : In(max(1, log2 k)).array(k)
    The FAN cluster of each multiplier, captured in load cycles.
ctrl : the Benes ``ctrl`` port (see :class:`~accelgen.rtl.benes.Benes`), applied with this cycle's words.
sum, sum_id, sum_valid : the FAN output slots (see :class:`~accelgen.rtl.fan.FAN`), ``2*width + log2 k`` bits
    (fp: fp32 bit patterns).

Latency
-------
A vector streamed in cycle ``t`` has its cluster sums in the output slots in
cycle ``t + log2 k + 4 + benes_latency + mul_stages + log2 k * add_stages``
(input register, copy register, multiplier operand register, FAN input
register, ``log2 k`` FAN levels; plus the Benes pipeline registers, ``(2 log2
k - 1) // benes_pipeline_every``, the ``mul_stages`` registers inside each
multiplier and the ``add_stages`` registers inside the adders of each FAN
level). A load cycle may directly precede or follow a streaming cycle;
load cycles produce no valid slot. One new vector per cycle.
"""

from __future__ import annotations

from amaranth import Cat, Module, Mux, Shape, Signal, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..params.flexdpe import MASK_WORD_BITS, FlexDPEParams, flexdpe_latency
from ._cells import HierarchicalComponent
from ._generator import FromParams
from .benes import Benes
from .fan import FAN
from .fp import FPMultiplier
from .intarith import PipelinedMultiplier

__all__ = ["FlexDPEParams", "FlexDPE", "FlexMultiplier", "flexdpe_latency"]

class FlexMultiplier(wiring.Component):
    """One Flex-DPE multiplier with its stationary buffer (a register) and streaming operand register.

    Clocked: with ``load`` the cell stores ``word`` as the stationary operand,
    ``wvalid`` as "mapped" and ``vid_in``; without, ``word``/``wvalid`` as the
    streaming operand. Combinational outputs: ``product = stationary *
    streaming`` (``2*width`` bits; fp dtypes: the fp32 product of an
    :class:`~accelgen.rtl.fp.FPMultiplier`, submodule ``mul``), ``pvalid`` = both valid, ``vid``.
    With ``mul_stages`` > 0 the multiplier (submodule ``mul``: ``FPMultiplier`` or
    :class:`~accelgen.rtl.intarith.PipelinedMultiplier`) has that many free-running registers inside,
    and ``pvalid`` / ``vid`` pass as many registers, so all three outputs describe the same operands.
    """

    def __init__(self, width: int, signed: bool, id_width: int, dtype: str = "int", *, mul_stages: int = 0):
        self.width, self.signed, self.id_width, self.dtype = width, signed, id_width, dtype
        self.mul_stages = mul_stages
        fp = dtype != "int"
        super().__init__({"word": In(width), "wvalid": In(1), "load": In(1), "vid_in": In(id_width),
                          "product": Out(unsigned(32) if fp else Shape(2 * width, signed)), "pvalid": Out(1),
                          "vid": Out(id_width)})

    def elaborate(self, platform):
        m = Module()
        fp = self.dtype != "int"
        shape = unsigned(self.width) if fp else Shape(self.width, self.signed)
        stat, stream = Signal(shape, name="stationary"), Signal(shape, name="streaming")
        stat_v, stream_v = Signal(name="stationary_valid"), Signal(name="streaming_valid")
        vid = Signal(self.id_width, name="vid_q")
        with m.If(self.load):
            m.d.sync += [stat.eq(self.word), stat_v.eq(self.wvalid), vid.eq(self.vid_in), stream_v.eq(0)]
        with m.Else():
            m.d.sync += [stream.eq(self.word), stream_v.eq(self.wvalid)]
        if fp:
            m.submodules.mul = mul = FPMultiplier(self.dtype, stages=self.mul_stages)
        elif self.mul_stages:
            m.submodules.mul = mul = PipelinedMultiplier(shape, shape, stages=self.mul_stages)
        else:   # the combinational product, emitted as before pipelining existed
            mul = None
            m.d.comb += self.product.eq(stat * stream)
        if mul is not None:
            m.d.comb += [mul.a.eq(stat), mul.b.eq(stream), self.product.eq(mul.product)]
        # the multiplier's registers run freely: its valid bit and vecID follow through as many registers
        pv, vq = stat_v & stream_v, vid
        for s in range(self.mul_stages):
            npv, nvq = Signal(name=f"pvalid_m{s + 1}"), Signal(self.id_width, name=f"vid_m{s + 1}")
            m.d.sync += [npv.eq(pv), nvq.eq(vq)]
            pv, vq = npv, nvq
        m.d.comb += [self.pvalid.eq(pv), self.vid.eq(vq)]
        return m


class FlexDPE(FromParams, HierarchicalComponent):
    __doc__ = __doc__

    params_model = FlexDPEParams

    def __init__(self, params: FlexDPEParams | None = None, /, **kwargs):
        self.params = p = self.validated(params, kwargs)
        self._benes = Benes(n=p.k, width=p.width + 1, pipeline_every=p.benes_pipeline_every)
        bp = self._benes.params
        super().__init__({
            "data_in": In(p.width).array(p.k),
            "valid_in": In(p.mask_word_width).array(p.mask_words),
            "head": In(p.mask_word_width).array(p.mask_words),
            "load": In(1),
            "vec_id": In(p.id_width).array(p.k),
            "ctrl": In(bp.ctrl_word_width).array(bp.stages * bp.ctrl_words_per_stage),
            "sum": Out(unsigned(32) if p.fp else Shape(p.sum_width, p.signed)).array(p.k),
            "sum_id": Out(p.id_width).array(p.k),
            "sum_valid": Out(1).array(p.k),
        })

    def elaborate(self, platform):
        p = self.params
        k, w = p.k, p.width
        bp = self._benes.params
        m = Module()

        def bit(words, i):
            return words[i // MASK_WORD_BITS][i % MASK_WORD_BITS]

        # stage 1: input registers
        word = [Signal(w + 1, name=f"in{i}") for i in range(k)]      # {valid, data}
        head = [Signal(name=f"head{i}") for i in range(k)]
        load1 = Signal(name="load_s1")
        vid1 = [Signal(p.id_width, name=f"vid{i}_s1") for i in range(k)]
        ctrl1 = [Signal.like(c, name=f"ctrl{j}_s1") for j, c in enumerate(self.ctrl)]
        m.d.sync += [word[i].eq(Cat(self.data_in[i], bit(self.valid_in, i))) for i in range(k)]
        m.d.sync += [head[i].eq(bit(self.head, i)) for i in range(k)]
        m.d.sync += [load1.eq(self.load), *(v.eq(x) for v, x in zip(vid1, self.vec_id)),
                     *(c.eq(x) for c, x in zip(ctrl1, self.ctrl))]

        # copy network: segmented copy-scan (each port takes the word of the nearest head at or before it)
        vals, flags = word, head
        for t in range(p.log2k):
            d = 1 << t
            nv, nf = [], []
            for i in range(k):
                if i < d:
                    nv.append(vals[i])
                    nf.append(flags[i])
                    continue
                v = Signal(w + 1, name=f"copy{t}_{i}")
                f = Signal(name=f"copyf{t}_{i}")
                m.d.comb += [v.eq(Mux(flags[i], vals[i], vals[i - d])), f.eq(flags[i] | flags[i - d])]
                nv.append(v)
                nf.append(f)
            vals, flags = nv, nf

        # stage 2: copy registers
        copied = [Signal(w + 1, name=f"copied{i}") for i in range(k)]
        load2 = Signal(name="load_s2")
        vid2 = [Signal(p.id_width, name=f"vid{i}_s2") for i in range(k)]
        ctrl2 = [Signal.like(c, name=f"ctrl{j}_s2") for j, c in enumerate(ctrl1)]
        m.d.sync += [c.eq(v) for c, v in zip(copied, vals)]
        m.d.sync += [load2.eq(load1), *(a.eq(b) for a, b in zip(vid2, vid1)),
                     *(a.eq(b) for a, b in zip(ctrl2, ctrl1))]

        # Benes (optionally pipelined: delay load and vec_id alongside)
        delivered = [Signal(w + 1, name=f"dist{i}") for i in range(k)]
        ports = {f"data_in__{i}": copied[i] for i in range(k)}
        ports |= {f"data_out__{i}": delivered[i] for i in range(k)}
        ports |= {f"ctrl__{j}": c for j, c in enumerate(ctrl2)}
        m.submodules.benes = self.cell_instance("benes", self._benes, clocked=bp.pipeline_every > 0, **ports)
        load3, vid3 = load2, vid2
        for d in range(bp.latency):
            nl = Signal(name=f"load_b{d + 1}")
            nv = [Signal(p.id_width, name=f"vid{i}_b{d + 1}") for i in range(k)]
            m.d.sync += [nl.eq(load3), *(a.eq(b) for a, b in zip(nv, vid3))]
            load3, vid3 = nl, nv

        # multipliers (stage 3 registers and mul_stages pipeline registers inside), then the FAN (add_stages
        # registers in each adder; it delays its own vecIDs and flags, so nothing here needs delaying)
        cell = FlexMultiplier(w, p.signed, p.id_width, p.dtype, mul_stages=p.mul_stages)
        fan = FAN(n=k, dtype="fp32", add_stages=p.add_stages) if p.fp else \
            FAN(n=k, width=p.product_width, signed=p.signed, add_stages=p.add_stages)
        fan_ports = {}
        for i in range(k):
            prod = Signal(unsigned(32) if p.fp else Shape(p.product_width, p.signed), name=f"prod{i}")
            pv = Signal(name=f"pvalid{i}")
            vid = Signal(p.id_width, name=f"vid{i}")
            m.submodules[f"mult_{i}"] = self.cell_instance(
                "mult", cell, word=delivered[i][:w], wvalid=delivered[i][w], load=load3, vid_in=vid3[i],
                product=prod, pvalid=pv, vid=vid)
            fan_ports |= {f"value__{i}": prod, f"valid__{i}": pv, f"vec_id__{i}": vid,
                          f"sum__{i}": self.sum[i], f"sum_id__{i}": self.sum_id[i],
                          f"sum_valid__{i}": self.sum_valid[i]}
        m.submodules.fan = self.cell_instance("fan", fan, **fan_ports)
        return m
