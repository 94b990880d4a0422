"""Eyeriss's run-length codec and ReLU at the chip's off-chip boundary (``core.units: [{kind: rlc_codec, ...}]``):
NeuroMeter (Tang et al., HPCA 2021, sect. II-C) models Eyeriss's "Run-Length Code & ReLU" as a chip-level block; the
Eyeriss paper (Chen et al., JSSC 2017) compresses the ofmaps it writes off chip and decompresses the ifmaps it reads.

Structure (cells of :mod:`accelgen.ppa.units.cells`), per codec:

* encoder: the ReLU (an AND2 per level bit gated by the inverted sign), a zero detector (an OR2 tree), a run counter
  of ``run_bits`` with a saturation comparator, and the output word of ``pairs`` (run, level) pairs plus a last-word
  bit in flip-flops with write enables, filled by a pair counter;
* decoder: the input word in flip-flops with write enables, a ``pairs``:1 multiplexer choosing the current pair, a
  loadable run down-counter with its zero detector, an AND2 per level bit emitting zeros while the run lasts, and a
  pair counter.

``encode`` is one value in (a pair written: the upper bound, a zero only counts), ``decode`` one value out (the input
word written once per ``pairs`` values). Full activity: one of each per cycle.
"""

from __future__ import annotations

from ..components import Component
from ..process import TechNode
from .base import AnalyticalUnit, register
from .cells import DATA_TOGGLE, Logic, bits_for, counter, energy_pj, equality, mux_levels, mux_tree, path_delay_ns
from .fifo import counter_step_pj
from .params import RLCCodec


def codec_logic(p: RLCCodec) -> tuple[Logic, Logic]:
    """The encoder's and the decoder's cells."""
    pair = p.run_bits + p.level_bits
    word = Logic({"DFF_X1": p.pairs * pair + 1, "MUX2_X1": p.pairs * pair + 1})
    relu = Logic({"AND2_X1": p.level_bits, "INV_X1": 1}) if p.relu else Logic()
    encoder = (relu + Logic({"OR2_X1": max(0, p.level_bits - 1), "INV_X1": 1}) + counter(p.run_bits)
               + equality(p.run_bits) + word + counter(bits_for(p.pairs)))
    decoder = (word + mux_tree(p.pairs, pair) + counter(p.run_bits) + Logic({"MUX2_X1": p.run_bits})
               + Logic({"OR2_X1": max(0, p.run_bits - 1)}) + Logic({"AND2_X1": p.level_bits})
               + counter(bits_for(p.pairs)))
    return encoder, decoder


@register
class RunLengthCodec(AnalyticalUnit):
    kind = "rlc_codec"
    params_schema = RLCCodec
    placeable = True

    def __init__(self, params: RLCCodec, *, tech: TechNode, path: str, name: str = "rlc_codec"):
        super().__init__(params, path=path, name=name)
        p = params
        pair = p.run_bits + p.level_bits
        encoder, decoder = codec_logic(p)
        logic = encoder + decoder
        levels = mux_levels(p.pairs)
        encode = (energy_pj(tech, {"AND2_X1": DATA_TOGGLE * p.level_bits * p.relu,
                                   "OR2_X1": DATA_TOGGLE * max(0, p.level_bits - 1),
                                   "DFF_X1": DATA_TOGGLE * pair, "MUX2_X1": DATA_TOGGLE * pair}, clocked_flops=pair)
                  + counter_step_pj(tech, p.run_bits))
        decode = (energy_pj(tech, {"MUX2_X1": DATA_TOGGLE * pair * levels, "AND2_X1": DATA_TOGGLE * p.level_bits})
                  + energy_pj(tech, {"DFF_X1": DATA_TOGGLE * (p.pairs * pair + 1),
                                     "MUX2_X1": DATA_TOGGLE * (p.pairs * pair + 1)},
                              clocked_flops=p.pairs * pair + 1) / p.pairs
                  + counter_step_pj(tech, p.run_bits))
        zero_tree = bits_for(p.level_bits)
        delay = path_delay_ns(tech, ["DFF_X1"] + ["AND2_X1"] * p.relu + ["OR2_X1"] * zero_tree
                              + ["MUX2_X1", "DFF_X1"])
        self.component = Component(name, "rlc_codec", count=p.count, area_um2_each=logic.area_um2(tech),
                                   leakage_mw_each=logic.leakage_mw(tech),
                                   energy_pj={"encode": encode, "decode": decode},
                                   actions_per_cycle={"encode": 1.0, "decode": 1.0}, delay_ns=delay,
                                   activity_key="dram",
                                   params={"level_bits": p.level_bits, "run_bits": p.run_bits, "pairs": p.pairs,
                                           "relu": p.relu, "word_bits": p.pairs * pair + 1})
