"""PPA units as plug-ins: one unit class per kind of die block, found by name (:mod:`.base` says what a unit
class declares, and how third-party kinds are discovered)."""

from . import (activation, array_io, codec, die_block, dma, dot_product, fifo, flexdpe, ici, io, memory, multicast, noc,
               reduction, scalar, systolic, tensordash, transpose, vector)
from .base import (ENTRY_POINT_GROUP, AnalyticalUnit, FittedUnit, LayerActivity, MapContext, PPAUnit, placeable_kinds,
                   register, unit_class, unit_entry, unit_kinds)
from .placement import core_units, die_block_units, listed_units, unit_for

__all__ = ["ENTRY_POINT_GROUP", "AnalyticalUnit", "FittedUnit", "LayerActivity", "MapContext", "PPAUnit", "activation",
           "array_io", "codec", "core_units", "die_block", "die_block_units", "dma", "dot_product", "fifo", "flexdpe",
           "ici", "io", "listed_units", "memory", "multicast", "noc", "placeable_kinds", "reduction", "register",
           "scalar", "systolic", "tensordash", "transpose", "unit_class", "unit_entry", "unit_for", "unit_kinds",
           "vector"]
