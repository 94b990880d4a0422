"""Golden models: plain numpy / Python references, independent of the RTL."""

from .mac import mac_reference, wrap

__all__ = ["mac_reference", "wrap"]
