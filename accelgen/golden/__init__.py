"""Golden and cycle models: plain numpy / Python references, independent of the RTL.

It imports numpy, ml_dtypes and the parameter schemas (:mod:`accelgen.params`, whose declared latencies
the cycle models evaluate) only, so that the co-simulation hosts (:mod:`accelgen.cosim`) and the estimator
(:mod:`accelgen.ppa`) share the same models.
"""

from .benes import benes_reference, deliver
from .dot_product import dot_product_latency, dot_products
from .fan import Cluster, dot_sum, segmented_sums
from .flexdpe import map_gemm, sigma_cycles
from .mac import mac_reference, mac_reference_fp, wrap
from .tensordash import cycle_counts, simulate_pe

__all__ = ["mac_reference", "mac_reference_fp", "wrap", "segmented_sums", "dot_sum", "Cluster", "deliver",
           "benes_reference", "dot_products", "dot_product_latency", "simulate_pe", "cycle_counts", "map_gemm",
           "sigma_cycles"]
