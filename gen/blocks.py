"""The block families accelgen can generate, check and synthesize.

A :class:`BlockFamily` ties together what each strand needs for one family: the
parameter schema, the generator, and the host side of its cosim (a function
from validated parameters, vector count and seed to a cycle table). Adding a
family means adding one entry to :data:`FAMILIES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pydantic

from ..cosim.mac import mac_table
from ..cosim.vectors import CycleTable
from ..errors import ConfigError
from ..rtl import MAC, BlockParams, MACParams
from ..cosim.tensordash import pe_table, sched_table, tile_table
from ..rtl.tensordash import (TensorDashPE, TensorDashPEParams, TensorDashScheduler, TensorDashSchedParams,
                              TensorDashTile, TensorDashTileParams)


@dataclass(frozen=True)
class BlockFamily:
    name: str
    summary: str
    params_model: type[BlockParams]
    build_component: Callable[[BlockParams], Any]
    cycle_table: Callable[[BlockParams, int, int], CycleTable]

    def validate(self, params: dict[str, Any], path: str = "params") -> BlockParams:
        """Validate a parameter mapping; raise :class:`ConfigError` listing every problem."""
        if not isinstance(params, dict):
            raise ConfigError([(path, f"expected a mapping of parameters, got {type(params).__name__}")])
        try:
            return self.params_model(**params)
        except pydantic.ValidationError as exc:
            raise ConfigError([(p, m) for p, m, _ in self.params_model.problems(exc, prefix=path)]) from None

    def default_name(self, params: BlockParams) -> str:
        return self.name


FAMILIES: dict[str, BlockFamily] = {
    "mac": BlockFamily(
        name="mac",
        summary="multiply-accumulate cell (integer; clear/enable, pipeline registers, zero gating)",
        params_model=MACParams,
        build_component=MAC.from_params,
        cycle_table=mac_table,
    ),
}

FAMILIES["tensordash_sched"] = BlockFamily(
    name="tensordash_sched",
    summary="TensorDash combinational scheduler (per-lane selects and AS from Z = ZA|ZB)",
    params_model=TensorDashSchedParams,
    build_component=TensorDashScheduler.from_params,
    cycle_table=sched_table,
)
FAMILIES["tensordash_pe"] = BlockFamily(
    name="tensordash_pe",
    summary="TensorDash sparse-operand PE (staging buffers, lookahead/lookaside muxes, scheduler, accumulator)",
    params_model=TensorDashPEParams,
    build_component=TensorDashPE.from_params,
    cycle_table=pe_table,
)
FAMILIES["tensordash_tile"] = BlockFamily(
    name="tensordash_tile",
    summary="TensorDash tile: R PE rows sharing one B-side staging buffer and schedule",
    params_model=TensorDashTileParams,
    build_component=TensorDashTile.from_params,
    cycle_table=tile_table,
)


def family(name: str, path: str = "block") -> BlockFamily:
    try:
        return FAMILIES[name]
    except (KeyError, TypeError):
        raise ConfigError([(path, f"unknown block {name!r}; allowed: {', '.join(FAMILIES)}")]) from None
