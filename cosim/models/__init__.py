"""Golden models: plain numpy / Python references, independent of the RTL."""

from .benes import benes_reference, deliver
from .fan import Cluster, dot_sum, segmented_sums
from .mac import mac_reference, mac_reference_fp, wrap
from .tensordash import cycle_counts, simulate_pe

__all__ = ["mac_reference", "mac_reference_fp", "wrap", "segmented_sums", "dot_sum", "Cluster", "deliver", "benes_reference"]

__all__ += ["simulate_pe", "cycle_counts"]

from .sigma import map_gemm, sigma_cycles  # noqa: E402

__all__ += ["map_gemm", "sigma_cycles"]
