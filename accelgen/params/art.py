"""Parameters of MAERI's augmented reduction tree (:class:`accelgen.rtl.art.ART`)."""

from __future__ import annotations

from .fan import FANParams

__all__ = ["ARTParams"]


class ARTParams(FANParams):
    """Parameters of :class:`~accelgen.rtl.art.ART`: the FAN's (``n`` a power of two in 2..512; ``n = 2`` is
    one switch, ``n = 4`` has no links), with the FAN's latency ``1 + log2 n * (1 + add_stages)`` (a 3-input
    adder's two adders share a level's ``add_stages`` registers)."""

    block = "art"

    def linked(self, level: int, j: int) -> bool:
        """Switch ``j`` of ``level`` has a forwarding link (a level of at least 4 switches, not at its ends)."""
        m = self.n >> level
        return m >= 4 and 0 < j < m - 1

    def piece_width(self, level: int) -> int:
        """Integer width of a piece leaving ``level`` (0: the inputs): ``width + min(level + 1, log2 n)``
        (a piece may hold what its switch took over a link: up to ``2**(level+1) - 1`` inputs)."""
        return self.width if level == 0 else self.width + min(level + 1, self.log2n)
