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
from ..errors import ConfigError
from ..cosim.systolic import parse_gemm, systolic_table
from ..cosim.systolic import verify as systolic_verify
from ..rtl import MAC, BlockParams, MACParams
from ..rtl.systolic import SystolicArray, SystolicParams
from ..cosim.tensordash import pe_table, sched_table, tile_table
from ..rtl.tensordash import (TensorDashPE, TensorDashPEParams, TensorDashScheduler, TensorDashSchedParams,
                              TensorDashTile, TensorDashTileParams)


@dataclass(frozen=True)
class CosimOption:
    """A family-specific cosim option (``--gemm 64,32,128`` for systolic arrays).

    ``parse`` turns the command-line / YAML text into a value and raises
    ``ValueError`` with a message naming the allowed form.
    """

    name: str
    help: str
    parse: Callable[[str], Any] = str
    multiple: bool = False


@dataclass(frozen=True)
class BlockFamily:
    """Everything accelgen needs to generate, check and synthesize one block family.

    ``cycle_table(params, vectors, seed, **options)`` returns a
    :class:`~accelgen.cosim.vectors.CycleTable`, or ``(table, context)`` when the
    family also has a ``verify(params, table, context, recorded) -> [problems]``
    host-side check on the outputs recorded during simulation (the ports listed
    in ``table.info["record"]``).
    """

    name: str
    summary: str
    params_model: type[BlockParams]
    build_component: Callable[[BlockParams], Any]
    cycle_table: Callable[..., Any]
    verify: Callable[..., list] | None = None
    cosim_options: tuple[CosimOption, ...] = ()
    default_vectors: int = 4096
    vectors_help: str = "random operand vectors (directed vectors are added)"
    #: optional ``activity_table(params, density, cycles, seed) -> fit.activity.Activity``: operand
    #: streams of a given density for switching-activity sweeps (``accelgen sweep``)
    activity_table: Callable[..., Any] | None = None

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
        summary="multiply-accumulate cell (int, or fp16/bf16/fp32 with fp32 accumulation; clear/enable, pipeline registers, zero gating)",
        params_model=MACParams,
        build_component=MAC.from_params,
        cycle_table=mac_table,
    ),
    "systolic": BlockFamily(
        name="systolic",
        summary="systolic array (weight- or output-stationary tensor unit of MAC PEs)",
        params_model=SystolicParams,
        build_component=SystolicArray.from_params,
        cycle_table=systolic_table,
        verify=systolic_verify,
        cosim_options=(CosimOption("gemm", "GEMM shape M,N,K to run (repeatable) [default: directed + random shapes]",
                                   parse=parse_gemm, multiple=True),),
        default_vectors=6,
        vectors_help="random GEMM shapes added to the directed ones (ignored with --gemm)",
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


# --- SIGMA interconnects (issue 4): FAN, its two baselines, and the Benes network
from ..cosim.benes import benes_table  # noqa: E402
from ..cosim.fan import adder_tree_table, fan_linear_table, fan_table  # noqa: E402
from ..rtl.benes import Benes, BenesParams  # noqa: E402
from ..rtl.fan import FAN, AdderTree, AdderTreeParams, FanLinear, FanLinearParams, FANParams  # noqa: E402

FAMILIES["fan"] = BlockFamily(
    name="fan",
    summary="SIGMA forwarding adder network (reduces every vecID cluster in one pass, log2 n + 1 cycles)",
    params_model=FANParams,
    build_component=FAN.from_params,
    cycle_table=fan_table,
)
FAMILIES["fan_linear"] = BlockFamily(
    name="fan_linear",
    summary="linear-chain reduction of vecID clusters (FAN baseline, same interface)",
    params_model=FanLinearParams,
    build_component=FanLinear.from_params,
    cycle_table=fan_linear_table,
)
FAMILIES["adder_tree"] = BlockFamily(
    name="adder_tree",
    summary="plain binary adder tree reducing one dot product (FAN baseline)",
    params_model=AdderTreeParams,
    build_component=AdderTree.from_params,
    cycle_table=adder_tree_table,
)
FAMILIES["benes"] = BlockFamily(
    name="benes",
    summary="SIGMA Benes distribution network (pass/cross/broadcast 2x2 switches, optional pipelining)",
    params_model=BenesParams,
    build_component=Benes.from_params,
    cycle_table=benes_table,
)


# --- SIGMA Flex-DPE (issue 5): Benes + copy network distribution, multipliers, FAN; bitmap sparsity controller
from ..cosim.sigma import flexdpe_table, parse_gemm as sigma_parse_gemm, parse_sparsity, parse_stationary  # noqa: E402
from ..cosim.sigma import verify as flexdpe_verify  # noqa: E402
from ..rtl.flexdpe import FlexDPE, FlexDPEParams  # noqa: E402

FAMILIES["flexdpe"] = BlockFamily(
    name="flexdpe",
    summary="SIGMA Flex-DPE (k multipliers with stationary buffers, copy + Benes distribution, FAN reduction)",
    params_model=FlexDPEParams,
    build_component=FlexDPE.from_params,
    cycle_table=flexdpe_table,
    verify=flexdpe_verify,
    cosim_options=(
        CosimOption("gemm", "GEMM shape M,N,K to run (repeatable) [default: directed + random GEMMs]",
                    parse=sigma_parse_gemm, multiple=True),
        CosimOption("sparsity_a", "fraction of zeros in A (inputs) [default: 0.5 with --gemm, else mixed]",
                    parse=parse_sparsity),
        CosimOption("sparsity_b", "fraction of zeros in B (weights) [default: 0.5 with --gemm, else mixed]",
                    parse=parse_sparsity),
        CosimOption("stationary", "stationary operand: weights, inputs or auto (the faster) [default: auto]",
                    parse=parse_stationary),
    ),
    default_vectors=4,
    vectors_help="random sparse GEMMs added to the directed ones (ignored with --gemm)",
)


# --- activity stimulus for the fitted-model sweeps (issue 7)
from dataclasses import replace as _replace  # noqa: E402

from ..fit.activity import mac_activity, systolic_activity  # noqa: E402

FAMILIES["mac"] = _replace(FAMILIES["mac"], activity_table=mac_activity)
FAMILIES["systolic"] = _replace(FAMILIES["systolic"], activity_table=systolic_activity)

from ..fit.stimuli import tensordash_sched_activity  # noqa: E402

FAMILIES["tensordash_sched"] = _replace(FAMILIES["tensordash_sched"], activity_table=tensordash_sched_activity)

from ..fit.stimuli import flexdpe_activity, reduction_activity  # noqa: E402

# int: the cosim stimulus as before; fp: random_fp_bits operand streams of the swept density (issue 12)
for _name in ("fan", "fan_linear", "adder_tree"):
    FAMILIES[_name] = _replace(FAMILIES[_name], activity_table=reduction_activity)
FAMILIES["flexdpe"] = _replace(FAMILIES["flexdpe"], activity_table=flexdpe_activity)

from ..fit.stimuli import tensordash_activity  # noqa: E402

# fp dtypes: density-aware fp operand streams; int: the cosim stimulus as before
FAMILIES["tensordash_pe"] = _replace(FAMILIES["tensordash_pe"], activity_table=tensordash_activity)
FAMILIES["tensordash_tile"] = _replace(FAMILIES["tensordash_tile"], activity_table=tensordash_activity)


def family(name: str, path: str = "block") -> BlockFamily:
    try:
        return FAMILIES[name]
    except (KeyError, TypeError):
        raise ConfigError([(path, f"unknown block {name!r}; allowed: {', '.join(FAMILIES)}")]) from None
