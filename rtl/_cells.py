"""Hierarchical emission: a cell emitted once as its own Verilog module, instantiated many times.

Arrays of identical cells (systolic PEs, FAN adders, Benes switches) must not be
flattened into thousands of copies: emission and synthesis time would grow with
the copies. A generator derived from :class:`HierarchicalComponent` instead calls
:meth:`~HierarchicalComponent.cell_instance` in ``elaborate``; that returns an
Amaranth ``Instance`` of a module name and records the cell component, which
:func:`accelgen.gen.emit.render` converts to Verilog once and places in front of
the top module in the same file. Cell module names are prefixed with the top
module's name (``<top>__<cell>``) so that designs emitted side by side never clash.

Cells may be hierarchical themselves.
"""

from __future__ import annotations

from amaranth import ClockSignal, Instance, ResetSignal
from amaranth.lib import wiring

__all__ = ["HierarchicalComponent"]


class HierarchicalComponent(wiring.Component):
    """A component that instantiates separately emitted cell modules."""

    #: set by the emitter before elaboration; empty when simulated from Python
    cell_prefix: str = ""

    def _cells(self) -> dict[str, wiring.Component]:
        if not hasattr(self, "_cell_registry"):
            self._cell_registry = {}
        return self._cell_registry

    @property
    def cells(self) -> dict[str, wiring.Component]:
        """Cells used by the last elaboration, keyed by their full module name."""
        return dict(self._cells())

    def cell_instance(self, key: str, cell: wiring.Component, *, clocked: bool = True, **ports) -> Instance:
        """Instantiate ``cell`` as module ``<cell_prefix><key>``.

        ``ports`` maps the cell's port names (as in its Verilog: array members are
        ``name__i``) to signals of this component. All instances under one ``key``
        must be built from identical parameters; the first ``cell`` given is the
        one emitted. ``clocked`` connects the cell's ``clk`` and ``rst``.
        """
        module = f"{self.cell_prefix}{key}"
        registry = self._cells()
        if registry.setdefault(module, cell) is not cell:
            cell._MustUse__silence = True  # an identical copy: only the registered cell is converted
        directions = {}
        for path, member, _ in cell.signature.flatten(cell):
            directions["__".join(str(p) for p in path)] = member.flow
        kwargs = {}
        if clocked:
            kwargs["i_clk"] = ClockSignal()
            kwargs["i_rst"] = ResetSignal()
        for name, signal in ports.items():
            if name not in directions:
                raise ValueError(f"cell {key!r} has no port {name!r}; ports: {', '.join(directions)}")
            kwargs[("i_" if directions[name] == wiring.In else "o_") + name] = signal
        return Instance(module, **kwargs)
