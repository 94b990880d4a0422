"""The technology constants of the analytical models, as the ppa modules import them.

Everything here is :mod:`accelgen.technology` (the node table, scaling, FO4 and :func:`check_node`, shared with
the fitted models), re-exported under the names the estimator uses.
"""

from ..technology import (CACTI, LOGIC_LEAKAGE_UW_PER_UM2_45, NODE_TABLE, REF_NM, SOURCES, STD_CELL_UTILIZATION,
                          WIRE_C_FF_PER_UM, TechNode, area_ratio, check_node, energy_ratio, node_range, tech_arrays,
                          technology)

__all__ = ["CACTI", "LOGIC_LEAKAGE_UW_PER_UM2_45", "NODE_TABLE", "REF_NM", "SOURCES", "STD_CELL_UTILIZATION",
           "WIRE_C_FF_PER_UM", "TechNode", "area_ratio", "check_node", "energy_ratio", "node_range", "tech_arrays",
           "technology"]
