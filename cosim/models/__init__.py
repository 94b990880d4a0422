"""Golden models: plain numpy / Python references, independent of the RTL."""

from .mac import mac_reference, wrap
from .tensordash import cycle_counts, simulate_pe

__all__ = ["mac_reference", "wrap"]

__all__ += ["simulate_pe", "cycle_counts"]
