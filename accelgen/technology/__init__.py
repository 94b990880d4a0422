"""Technology: the node table, the scaling derived from it, FO4, and the constants of the analytical models.

The one place fit and ppa read process data from (a root helper: it imports nothing of accelgen's layers).

* :mod:`.nodes`: published process data per node (7..180 nm, ``accelgen/data/nodes.yaml``), the one node range
  and :func:`check_node`, the scaling factors against the reference node (:func:`scaling`), the table a fitted
  model file carries (:func:`model_scaling`) and the scaling of a fitted prediction to a node
  (:func:`tech_factor`: delays in FO4 delays of the library that measured them).
* :mod:`.constants`: the device and wire constants of the analytical models (SRAM, wires, NoC, PHYs, scalar
  core) per node (:class:`TechNode`, :func:`technology`, vectorized :func:`tech_arrays`), from the node table
  or, to calibrate the SRAM model, from CACTI 7's own figures; the standard-cell utilization and the wire
  capacitance per length the fitted blocks' placement and clock tree assume.
"""

from .constants import (CACTI, LOGIC_LEAKAGE_UW_PER_UM2_45, NODE_TABLE, REF_NM, SOURCES, STD_CELL_UTILIZATION,
                        WIRE_C_FF_PER_UM, TechNode, area_ratio, energy_ratio, tech_arrays, technology)
from .nodes import (FACTORS, FIGURES, LEAKAGE_FALLBACK, Figure, NodeData, Scaling, check_node, model_scaling, node,
                    node_range, node_table, scaling, sources, tech_factor)

__all__ = ["CACTI", "FACTORS", "FIGURES", "LEAKAGE_FALLBACK", "LOGIC_LEAKAGE_UW_PER_UM2_45", "NODE_TABLE", "REF_NM",
           "SOURCES", "STD_CELL_UTILIZATION", "WIRE_C_FF_PER_UM", "Figure", "NodeData", "Scaling", "TechNode",
           "area_ratio", "check_node", "energy_ratio", "model_scaling", "node", "node_range", "node_table", "scaling",
           "sources", "tech_arrays", "tech_factor", "technology"]
