"""Reduction trees: ``inputs`` products reduced per pass, one unit class per network.

``fan``: SIGMA's Forwarding Adder Network (Qin et al., HPCA 2020); ``fan_linear``: FAN's linear variant;
``adder_tree``: a plain binary adder tree; ``art``: MAERI's augmented reduction tree (Kwon et al., ASPLOS 2018);
``linear_reduction``: the skewed linear chain (SIGMA's linear baseline, Fig. 6b). Each is its block family's
fitted model. FAN and ART reduce several short vectors in one pass (their clusters); the others one vector.
"""

from __future__ import annotations

from ..mapping import reduction_map
from ..pipelining import Unit
from .base import FittedUnit, MapContext, register
from .params import ReductionTreeParams

#: ``core.reduction_trees[i].kind`` -> the unit kind it names
TREE_KINDS = {"fan": "fan", "linear": "fan_linear", "tree": "adder_tree", "art": "art",
              "linear_reduction": "linear_reduction"}


class ReductionUnit(FittedUnit):
    """A reduction network's unit; one subclass per network (:data:`NETWORK_UNITS`), registered under its family."""

    params_schema = ReductionTreeParams
    compute_type = "reduction"
    placeable = True
    #: how the performance model passes vectors through it (:func:`accelgen.ppa.mapping.reduction_map`'s kind)
    passes: str = "tree"

    def spec(self) -> Unit:
        rt = self.params
        return Unit(self.path, self.name, self.family, {"n": rt.inputs, "width": rt.width},
                    "int" if rt.dtype == "int" else "fp32",   # fp products are reduced in fp32
                    rt.pipeline, count=rt.count, edge_bits=rt.inputs * rt.width, functional_units=rt.count)

    def macs_per_cycle(self) -> int:
        return self.params.inputs * self.params.count

    def map(self, gemms, ctx: MapContext):
        return reduction_map(gemms, inputs=self.params.inputs, kind=self.passes, trees=self.params.count * ctx.cores,
                             stage_cycles=self.stage_cycles(ctx))


#: each network's unit class name, its kind (the block family) and how vectors pass through it: ``fan`` packs short
#: vectors into one pass (FAN, ART: their clusters), ``linear`` drains in ``n`` cycles, ``tree`` in ``log2 n + 1``
_NETWORKS = (("FAN", "fan", "fan"), ("FANLinear", "fan_linear", "linear"), ("AdderTree", "adder_tree", "tree"),
             ("ART", "art", "fan"), ("LinearReduction", "linear_reduction", "linear"))

#: kind -> its registered unit class; the networks differ only in their family and how vectors pass
NETWORK_UNITS = {kind: register(type(name, (ReductionUnit,), {"kind": kind, "family": kind, "passes": passes,
                                                                "__module__": __name__}))
                 for name, kind, passes in _NETWORKS}
