"""Hierarchical emission: a cell emitted once as its own Verilog module, instantiated many times.

Arrays of identical cells (systolic PEs, FAN adders, Benes switches) must not be
flattened into thousands of copies: emission and synthesis time would grow with
the copies. A generator derived from :class:`HierarchicalComponent` instead calls
:meth:`~HierarchicalComponent.cell_instance` in ``elaborate``; that returns an
Amaranth ``Instance`` of a module name and records the cell component, which
:func:`accelgen.gen.emit.render` converts to Verilog once and places in front of
the top module in the same file. Cell module names are prefixed with the top
module's name (``<top>__<cell>``) so that designs emitted side by side never clash.

Cells may be hierarchical themselves. A cell's own cells are named in its own scope
(``<top>__<cell>__<subcell>``) unless the cell sets :attr:`~HierarchicalComponent.shares_parent_cells`:
then they are named in its parent's scope, so that several cell shapes (the edge tiles of
a systolic array) instantiate one common sub-cell module (the PE), emitted and
synthesized once.
"""

from __future__ import annotations

from amaranth import ClockSignal, Instance, ResetSignal
from amaranth.lib import wiring

__all__ = ["HierarchicalComponent"]


class HierarchicalComponent(wiring.Component):
    """A component that instantiates separately emitted cell modules."""

    #: set by the emitter before elaboration; empty when simulated from Python
    cell_prefix: str = ""
    #: as a cell, name this component's own cells in the parent's scope (see the module docstring)
    shares_parent_cells: bool = False
    #: every path from a port or a cell instance to another cell instance or a port passes a register
    #: inside a cell (systolic arrays and their tiles): the module is wiring between registered cells,
    #: so synthesis measures no logic depth through its instances (the manifest lists such modules)
    registered_cells: bool = False

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
        directions = self._cell_ports(module)
        kwargs = {}
        if clocked:
            kwargs["i_clk"] = ClockSignal()
            kwargs["i_rst"] = ResetSignal()
        for name, signal in ports.items():
            if name not in directions:
                raise ValueError(f"cell {key!r} has no port {name!r}; ports: {', '.join(directions)}")
            kwargs[("i_" if directions[name] == wiring.In else "o_") + name] = signal
        return Instance(module, **kwargs)

    def _cell_ports(self, module: str) -> dict[str, object]:
        """Port name -> flow (``In``/``Out``) of registered cell ``module``, in signature order; computed
        once per module, since arrays instantiate one cell thousands of times."""
        if not hasattr(self, "_cell_port_cache"):
            self._cell_port_cache = {}
        ports = self._cell_port_cache.get(module)
        if ports is None:
            cell = self._cells()[module]
            ports = {"__".join(str(p) for p in path): member.flow for path, member, _ in cell.signature.flatten(cell)}
            self._cell_port_cache[module] = ports
        return ports
