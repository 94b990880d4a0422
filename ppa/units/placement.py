"""The compute units of a core, in breakdown order, as unit objects: the fixed fields' units (``tensor_units``,
``reduction_trees``, ``dot_products``, ``flex_dpes``, ``tensordash``), then ``core.units``' compute units in their
order, then the vector unit, whose lanes default to the widest edge of the units of the lowest
:attr:`~accelgen.ppa.units.base.FittedUnit.lane_rank` (the tensor units' columns, else the TensorDash tiles'
lanes, else 8)."""

from __future__ import annotations

from .base import AnalyticalUnit, FittedUnit, PPAUnit, unit_class
from .dot_product import DotProduct
from .flexdpe import FlexDPE
from .reduction import TREE_KINDS
from .systolic import Systolic
from .tensordash import TensorDashTiles
from .vector import VectorLanes

#: the vector unit's lanes when no unit of the core sets them
DEFAULT_VECTOR_LANES = 8


def listed_units(core, base: str = "core") -> list[tuple[int, PPAUnit | type[PPAUnit], object]]:
    """``(i, unit class, parameters)`` of each ``core.units`` entry (validated again: the description keeps them as
    the dicts it was given, with their defaults filled in)."""
    out = []
    for i, entry in enumerate(core.units):
        cls = unit_class(entry["kind"], f"{base}.units[{i}].kind", placeable=True)
        out.append((i, cls, cls.parse({k: v for k, v in entry.items() if k != "kind"}, f"{base}.units[{i}]")))
    return out


def die_block_units(core, tech, clock_mhz: float, base: str = "core") -> list[AnalyticalUnit]:
    """The analytical units of ``core.units`` built at ``tech`` (a unit whose class ``takes_clock`` at the chip's
    clock ``clock_mhz``), in their order: what the estimate places and the performance model charges per layer."""
    return [cls(params, tech=tech, path=f"{base}.units[{i}]",
                **({"clock_mhz": clock_mhz} if getattr(cls, "takes_clock", False) else {}))
            for i, cls, params in listed_units(core, base) if issubclass(cls, AnalyticalUnit)]


def core_units(core, base: str = "core") -> list[FittedUnit]:
    """The core's compute units (see the module docstring)."""
    units: list[FittedUnit] = []
    units += [Systolic(tu, path=f"{base}.tensor_units[{i}]", name=f"tensor_unit{i}")
              for i, tu in enumerate(core.tensor_units)]
    units += [unit_class(TREE_KINDS[rt.kind])(rt, path=f"{base}.reduction_trees[{i}]", name=f"reduction_tree{i}")
              for i, rt in enumerate(core.reduction_trees)]
    units += [DotProduct(dp, path=f"{base}.dot_products[{i}]", name=f"dot_product{i}")
              for i, dp in enumerate(core.dot_products)]
    if core.flex_dpes:
        units.append(FlexDPE(core.flex_dpes, path=f"{base}.flex_dpes", name="flex_dpes"))
    if core.tensordash:
        t = core.tensordash
        units.append(TensorDashTiles(t, path=f"{base}.tensordash",
                                     name="tensordash_tiles" if t.rows > 1 else "tensordash_pes"))
    units += [cls(params, path=f"{base}.units[{i}]", name=f"{cls.kind}{i}")
              for i, cls, params in listed_units(core, base) if issubclass(cls, FittedUnit)]
    if core.vector_unit:
        ranked = [u for u in units if u.lane_rank is not None]
        top = min((u.lane_rank for u in ranked), default=None)
        lanes = max([u.vector_lanes() for u in ranked if u.lane_rank == top] or [DEFAULT_VECTOR_LANES])
        units.append(VectorLanes(core.vector_unit, path=f"{base}.vector_unit", name="vector_unit", lanes=lanes))
    return units


def unit_for(core, compute_type: str) -> FittedUnit | None:
    """The unit a layer of ``compute_type`` runs on: the first of the core's units of that type."""
    return next((u for u in core_units(core) if u.compute_type == compute_type), None)
