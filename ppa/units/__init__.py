"""PPA units as plug-ins: one unit class per kind of die block, found by name (:mod:`.base` says what a unit
class declares, and how third-party kinds are discovered)."""

from . import die_block, dot_product, flexdpe, io, memory, noc, reduction, scalar, systolic, tensordash, vector
from .base import (ENTRY_POINT_GROUP, AnalyticalUnit, FittedUnit, MapContext, PPAUnit, placeable_kinds, register,
                   unit_class, unit_entry, unit_kinds)
from .placement import core_units, listed_units, unit_for

__all__ = ["ENTRY_POINT_GROUP", "AnalyticalUnit", "FittedUnit", "MapContext", "PPAUnit", "core_units", "die_block",
           "dot_product", "flexdpe", "io", "listed_units", "memory", "noc", "placeable_kinds", "reduction",
           "register", "scalar", "systolic", "tensordash", "unit_class", "unit_entry", "unit_for", "unit_kinds",
           "vector"]
