"""Inter-chip interconnect (``core.units: [{kind: ici, links: 4, gbps_per_link: 496, flit_bits: 768}]``): SerDes
lanes, a network interface per link and a switch, as NeuroMeter models TPU-v2's ICI "link and switch ... by the
components of Network Interface Unit (NIU) and NoC given the bisectional bandwidth at 496Gb/s per direction"
(Tang et al., HPCA 2021, sect. II-C).

* SerDes: ``ceil(gbps_per_link / lane_gbps)`` lanes per link of a published transceiver
  (:data:`accelgen.ppa.components.SERDES`: area per lane, energy per bit); a lane faster than its reference runs is
  refused.
* NIU, per link: the buffers, pipeline registers and allocation of a two-port router (one port to the SerDes, one to
  the switch) of ``flit_bits`` flits: the NoC's router model (:func:`accelgen.ppa.components.router_figures`,
  scaled from the Intel 80-tile router), which the flits cross in both directions.
* Switch: one router of ``links + local_ports`` ports and ``flit_bits`` flits (crossbar and per-port slices, the same
  model); each bit of every link crosses it once.

At full activity every link carries ``gbps_per_link`` each way; the flits must carry it at the clock (``flit_bits x
clock >= gbps_per_link``, checked when the clock is known).
"""

from __future__ import annotations

import math

from ...errors import ConfigError
from ..components import SERDES, Component, router_figures, serdes
from ..process import TechNode
from .base import AnalyticalUnit, register
from .params import InterChipLink


@register
class InterChipInterconnect(AnalyticalUnit):
    kind = "ici"
    params_schema = InterChipLink
    placeable = True
    #: its actions per cycle follow the chip's clock (the estimator passes ``clock_mhz``)
    takes_clock = True

    def __init__(self, params: InterChipLink, *, tech: TechNode, path: str, name: str = "ici",
                 clock_mhz: float | None = None):
        super().__init__(params, path=path, name=name)
        p = params
        ref = SERDES[p.serdes]
        lane_gbps = p.lane_gbps or ref["gbps"]
        if lane_gbps > ref["max_gbps"]:
            msg = f"{lane_gbps:g} is not allowed with serdes {p.serdes!r}; allowed: at most {ref['max_gbps']:g} " \
                  f"({ref['source']})"
            raise ConfigError([(f"{path}.lane_gbps", msg)])
        if clock_mhz and p.flit_bits * clock_mhz * 1e-3 < p.gbps_per_link:
            need = math.ceil(p.gbps_per_link * 1e3 / clock_mhz)
            msg = f"{p.flit_bits} carries {p.flit_bits * clock_mhz * 1e-3:g} Gb/s at {clock_mhz:g} MHz, less than " \
                  f"gbps_per_link {p.gbps_per_link:g}; allowed: at least {need}"
            raise ConfigError([(f"{path}.flit_bits", msg)])
        lanes = math.ceil(p.gbps_per_link / lane_gbps)
        bits_per_cycle = p.gbps_per_link * 1e3 / clock_mhz if clock_mhz else 0.0   # per link, each direction
        links = serdes(tech, kind=p.serdes, lanes=p.links * lanes, lane_gbps=lane_gbps)
        links.actions_per_cycle["bit"] = bits_per_cycle / lanes
        self.component = top = Component(name, "ici", params={"links": p.links, "lanes_per_link": lanes,
                                                              "gbps_per_link": p.gbps_per_link,
                                                              "flit_bits": p.flit_bits})
        top.add(links)
        for part, ports, count, flits in (("niu", 2, p.links, 2 * bits_per_cycle / p.flit_bits),
                                          ("switch", p.links + p.local_ports, 1,
                                           p.links * bits_per_cycle / p.flit_bits)):
            area, leak, e_bit, delay = router_figures(tech, ports, p.flit_bits)
            top.add(Component(part, "router", count=count, area_um2_each=area, leakage_mw_each=leak,
                              energy_pj={"flit": e_bit * p.flit_bits}, actions_per_cycle={"flit": flits},
                              delay_ns=delay, activity_key="noc", params={"ports": ports, "flit_bits": p.flit_bits}))
