"""The chip's off-chip interfaces: the DRAM PHY and the host's PCIe (:mod:`accelgen.ppa.components`)."""

from __future__ import annotations

import numpy as np

from ..components import dram_phy, pcie
from ..process import TechNode
from .base import AnalyticalUnit, register
from .params import Host, OffChip


@register
class DramPhy(AnalyticalUnit):
    """The off-chip memory PHY and I/O, moving its full bandwidth at full activity (bits per cycle at the clock)."""

    kind = "dram_phy"
    params_schema = OffChip

    def __init__(self, params: OffChip, *, tech: TechNode, clock_mhz: float | None, path: str = "chip.offchip"):
        super().__init__(params, path=path, name=f"{params.type}_phy")
        self.component = dram_phy(tech, kind=params.type, bandwidth_gbps=params.bandwidth_gbps,
                                  channels=params.channels)
        if np.ndim(clock_mhz) or clock_mhz:   # a clock per design point (the batch estimator's), or one
            self.component.actions_per_cycle["bit"] = params.bandwidth_gbps * 8e3 / clock_mhz


@register
class PCIe(AnalyticalUnit):
    """The host interface: ``lanes`` PCIe lanes of generation ``pcie_gen``, both directions at full rate."""

    kind = "pcie"
    params_schema = Host

    def __init__(self, params: Host, *, tech: TechNode, clock_mhz: float | None, path: str = "chip.host"):
        super().__init__(params, path=path, name="pcie")
        self.component = p = pcie(tech, gen=params.pcie_gen, lanes=params.lanes)
        if np.ndim(clock_mhz) or clock_mhz:
            p.actions_per_cycle["bit"] = p.params["gt_per_s"] * 1e3 / clock_mhz * 2  # both directions
