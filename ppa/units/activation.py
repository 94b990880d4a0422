"""The compare-and-select stages of an activation pipeline (``core.units: [{kind: activation, lanes: 256, width: 32,
out_bits: 8}]``).

TPU-v1's activation pipeline (NeuroMeter, Tang et al., HPCA 2021, sect. II-C: modelled "with the VU") scales,
biases, applies the nonlinearity and pools the accumulators' results. A vector unit of MAC lanes
(:class:`accelgen.ppa.units.vector.VectorLanes`) costs the multiply-adds (scale, bias, average pooling); it has no
comparator or select path. This unit costs that path per lane (cells of :mod:`accelgen.ppa.units.cells`):

* ReLU: an AND2 per bit gated by the inverted sign;
* clamp to ``out_bits``: two magnitude comparators against the bounds and a 3:1 select of ``out_bits``;
* max pooling: a magnitude comparator against the running maximum, its register and a 2:1 select;
* ``scale: int`` (an accelerator's own activation stage, no vector unit beside it): a ``width x scale_bits``
  multiplier, its product register, the rounding adder and an arithmetic right shifter of the product, and the
  output register; ``scale: fp32``: an fp32 multiplier, its product register, the rounding adder to ``out_bits``
  (bf16) when narrower, and the output register (:mod:`accelgen.ppa.units.cells`' arithmetic).

A magnitude comparator is a tree: per bit an XNOR2 (equal), an INV and an AND2 (greater here), and per combining node
(``bits - 1`` of them, ``ceil(log2 bits)`` levels) two AND2 and an OR2 (greater = greater_hi | equal_hi & greater_lo,
equal = equal_hi & equal_lo). The stages are registered: ReLU and clamp in one, max pooling in the next; the slower
sets the delay. One ``element`` per lane per cycle at full activity, half the bits toggling.
"""

from __future__ import annotations

from ..components import Component
from ..process import TechNode
from .base import AnalyticalUnit, LayerActivity, register
from .cells import DATA_TOGGLE, Logic, adder, bits_for, energy_pj, fp_multiplier, multiplier, path_delay_ns, shifter
from .params import Activation


def comparator(bits: int) -> Logic:
    return Logic({"XNOR2_X1": bits, "INV_X1": bits, "AND2_X1": bits + 2 * (bits - 1), "OR2_X1": bits - 1})


def comparator_path(bits: int) -> list[str]:
    return ["XNOR2_X1"] + ["AND2_X1", "OR2_X1"] * bits_for(bits)


#: the shift an integer scale stage takes (a 6-bit field: 0..63)
MAX_SHIFT = 63


def scale_lane(p: Activation) -> Logic:
    """The scale stage of one lane (module docstring); empty for ``scale: none``."""
    if p.scale == "int":
        product = p.width + p.scale_bits + 1
        return (multiplier(p.width, p.scale_bits) + Logic({"DFF_X1": product + p.out_bits}) + adder(product + 1)
                + shifter(product + 1, MAX_SHIFT))
    if p.scale == "fp32":
        rounding = adder(32) if p.out_bits < 32 else Logic()
        return fp_multiplier(8, 24) + Logic({"DFF_X1": 32 + p.out_bits}) + rounding
    return Logic()


def activation_lane(p: Activation) -> Logic:
    lane = scale_lane(p)
    if p.relu:
        lane += Logic({"AND2_X1": p.width, "INV_X1": 1})
    if p.clamp:
        lane += comparator(p.width).times(2) + Logic({"MUX2_X1": 2 * p.out_bits})
    if p.max_pool:
        lane += comparator(p.width) + Logic({"DFF_X1": p.width, "MUX2_X1": p.width})
    return lane


@register
class ActivationStages(AnalyticalUnit):
    kind = "activation"
    params_schema = Activation
    placeable = True

    def __init__(self, params: Activation, *, tech: TechNode, path: str, name: str = "activation"):
        super().__init__(params, path=path, name=name)
        lane = activation_lane(params)
        toggles = {k: DATA_TOGGLE * n for k, n in lane.cells.items() if k != "DFF_X1"}
        toggles["DFF_X1"] = DATA_TOGGLE * lane.cells.get("DFF_X1", 0)
        element = energy_pj(tech, toggles, clocked_flops=lane.cells.get("DFF_X1", 0))
        # register to register: the ReLU and clamp stage, the max-pooling stage
        cmp = comparator_path(params.width)
        stages = [["DFF_X1"] + ["AND2_X1"] * params.relu + (cmp + ["MUX2_X1", "MUX2_X1"]) * params.clamp + ["DFF_X1"],
                  ["DFF_X1"] + (cmp + ["MUX2_X1", "DFF_X1"]) * params.max_pool]
        delay = max(path_delay_ns(tech, s) for s in stages if len(s) > 2) if params.relu or params.clamp or \
            params.max_pool else 0.0
        self.component = Component(name, "activation", count=params.lanes, area_um2_each=lane.area_um2(tech),
                                   leakage_mw_each=lane.leakage_mw(tech), energy_pj={"element": element},
                                   actions_per_cycle={"element": 1.0},
                                   delay_ns=delay,
                                   activity_key="vector",
                                   params={"width": params.width, "out_bits": params.out_bits,
                                           "relu": params.relu, "clamp": params.clamp, "max_pool": params.max_pool,
                                           "scale": params.scale})

    def layer_energy_pj(self, activity: LayerActivity):
        """Every output element of the layer through a lane."""
        return activity.outputs * self.component.energy_pj["element"]
