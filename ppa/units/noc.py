"""The network on chip joining the cores (:func:`accelgen.ppa.components.noc`: routers and links)."""

from __future__ import annotations

import numpy as np

from ..components import noc, noc_flit_bits
from ..process import TechNode
from .base import AnalyticalUnit, register
from .params import NoC


@register
class NetworkOnChip(AnalyticalUnit):
    """A mesh of ``tx x ty`` routers, a ring or a bus; flits widened until the bisection meets ``bisection_gbps``
    at the clock, links as long as a core's side."""

    kind = "noc"
    params_schema = NoC

    def __init__(self, params: NoC, *, tech: TechNode, ty: int, clock_mhz: float | None, link_mm: float,
                 path: str = "chip.noc"):
        super().__init__(params, path=path, name="noc")
        self.flit_bits = noc_flit_bits(params.topology, params.tx, ty, params.flit_bits, params.bisection_gbps,
                                       clock_mhz)
        self.component = noc(tech, topology=params.topology, tx=params.tx, ty=ty, flit_bits=self.flit_bits,
                             link_mm=link_mm)


def noc_rows(topology: str, tx, ty, cores):
    """The NoC's second dimension: the mesh's ``ty``; a ring or bus spans the cores (``cores / tx`` per row, at
    least one). Scalars, or numpy arrays of design points."""
    if topology == "mesh":
        return ty
    return np.maximum(cores // tx, 1) if np.ndim(cores) or np.ndim(tx) else cores // tx or 1
