"""The block families accelgen can generate, check, cover and fit: one complete declaration each.

Each entry names every piece of its family (see :class:`~accelgen.family.BlockFamily`): the
parameter schema and generator (:mod:`accelgen.rtl`), the host side of its co-simulation, its
coverage collector and its activity stimulus (:mod:`accelgen.cosim`, built on the golden models
of :mod:`accelgen.golden`). Adding a family means adding one entry here. The command line and the
build flow look families up here and hand the family object to emission, co-simulation, fitting
and regressions.
"""

from __future__ import annotations

from .cosim import (benes as benes_host, coverage, dot_product as dot_product_host, fan as fan_host, fp_coverage,
                    flexdpe as flexdpe_host, mac as mac_host, systolic as systolic_host, tensordash as tensordash_host)
from .cosim.vectors import parse_gemm
from .family import BlockFamily, CosimOption, find_family
from .rtl import (FAN, MAC, AdderTree, AdderTreeParams, Benes, BenesParams, DotProduct, DotProductParams, FanLinear,
                  FanLinearParams, FANParams, FlexDPE, FlexDPEParams, MACParams, TensorDashPE, TensorDashPEParams,
                  TensorDashSchedParams, TensorDashScheduler, TensorDashTile, TensorDashTileParams)
from .rtl.systolic import SystolicArray, SystolicParams
from .cosim import linear_reduction as linear_reduction_host
from .rtl.linear_reduction import LinearReduction, LinearReductionParams
from .cosim import art as art_host
from .rtl.art import ART, ARTParams

_FAMILIES = (
    BlockFamily(
        name="mac",
        fp_operations=("mul", "add"),
        fp_unreachable=fp_coverage.mac_fp_unreachable,
        summary="multiply-accumulate cell (int, or fp16/bf16/fp32 with fp32 accumulation; clear/enable, "
                "pipeline registers, zero gating)",
        params_model=MACParams,
        build_component=MAC.from_params,
        cycle_table=mac_host.mac_table,
        coverage=coverage.mac_coverage,
        activity_table=mac_host.mac_activity,
    ),
    BlockFamily(
        name="systolic",
        fp_operations=("mul", "add"),
        fp_unreachable=fp_coverage.systolic_fp_unreachable,
        summary="systolic array (weight- or output-stationary tensor unit of MAC PEs)",
        params_model=SystolicParams,
        build_component=SystolicArray.from_params,
        cycle_table=systolic_host.systolic_table,
        verify=systolic_host.verify,
        cosim_options=(CosimOption("gemm", "GEMM shape M,N,K to run (repeatable) [default: directed + random shapes]",
                                   parse=parse_gemm, multiple=True),),
        default_vectors=6,
        vectors_help="random GEMM shapes added to the directed ones (ignored with --gemm)",
        coverage=coverage.systolic_coverage,
        activity_table=systolic_host.systolic_activity,
    ),
    BlockFamily(
        name="tensordash_sched",
        summary="TensorDash combinational scheduler (per-lane selects and AS from Z = ZA|ZB)",
        params_model=TensorDashSchedParams,
        build_component=TensorDashScheduler.from_params,
        cycle_table=tensordash_host.sched_table,
        coverage=coverage.sched_coverage,
        activity_table=tensordash_host.tensordash_sched_activity,
    ),
    BlockFamily(
        name="tensordash_pe",
        fp_operations=("mul", "add"),
        fp_unreachable=fp_coverage.tensordash_fp_unreachable,
        summary="TensorDash sparse-operand PE (staging buffers, lookahead/lookaside muxes, scheduler, accumulator)",
        params_model=TensorDashPEParams,
        build_component=TensorDashPE.from_params,
        cycle_table=tensordash_host.pe_table,
        coverage=coverage.pe_coverage,
        activity_table=tensordash_host.tensordash_activity,
    ),
    BlockFamily(
        name="tensordash_tile",
        fp_operations=("mul", "add"),
        fp_unreachable=fp_coverage.tensordash_fp_unreachable,
        summary="TensorDash tile: R PE rows sharing one B-side staging buffer and schedule",
        params_model=TensorDashTileParams,
        build_component=TensorDashTile.from_params,
        cycle_table=tensordash_host.tile_table,
        coverage=coverage.tile_coverage,
        activity_table=tensordash_host.tensordash_activity,
        # the rows take the scheduler's broadcast operands and selects combinationally: mapped apart, ABC sized
        # the row inputs and the scheduler's outputs for a 3 fF load (2-row fp16 tile at 3+3 stages, 2026-11-24:
        # 1.467 ns apart after repair, 1.267 ns with the rows flattened, its floating-point units still kept)
        map_cells_apart=False,
    ),
    BlockFamily(
        name="fan",
        fp_operations=("add",),
        summary="SIGMA forwarding adder network (reduces every vecID cluster in one pass, 1 + log2 n * (1 + add_stages) cycles)",
        params_model=FANParams,
        build_component=FAN.from_params,
        cycle_table=fan_host.fan_table,
        coverage=coverage.fan_coverage,
        activity_table=fan_host.reduction_activity,
    ),
    BlockFamily(
        name="fan_linear",
        fp_operations=("add",),
        summary="linear-chain reduction of vecID clusters (FAN baseline, same interface)",
        params_model=FanLinearParams,
        build_component=FanLinear.from_params,
        cycle_table=fan_host.fan_linear_table,
        coverage=coverage.fan_coverage,
        activity_table=fan_host.reduction_activity,
    ),
    BlockFamily(
        name="linear_reduction",
        fp_operations=("add",),
        summary="SIGMA linear reduction (FAN baseline): adder chain fed skewed as a systolic column, "
                "O(n) registers, n * (1 + add_stages) cycles",
        params_model=LinearReductionParams,
        build_component=LinearReduction.from_params,
        cycle_table=linear_reduction_host.linear_reduction_table,
        coverage=coverage.linear_reduction_coverage,
        activity_table=linear_reduction_host.linear_reduction_activity,
    ),
    BlockFamily(
        name="art",
        fp_operations=("add",),
        summary="MAERI augmented reduction tree (FAN baseline): adder tree with forwarding links and 3-input "
                "adders between non-sibling neighbours, same interface, 1 + log2 n * (1 + add_stages) cycles",
        params_model=ARTParams,
        build_component=ART.from_params,
        cycle_table=art_host.art_table,
        coverage=coverage.art_coverage,
        activity_table=art_host.art_activity,
    ),
    BlockFamily(
        name="adder_tree",
        fp_operations=("add",),
        summary="plain binary adder tree reducing one dot product (FAN baseline)",
        params_model=AdderTreeParams,
        build_component=AdderTree.from_params,
        cycle_table=fan_host.adder_tree_table,
        coverage=coverage.adder_tree_coverage,
        activity_table=fan_host.reduction_activity,
    ),
    BlockFamily(
        name="dot_product",
        summary="dot-product unit (n multipliers and a binary adder tree: one exact dot product per cycle, "
                "1 + mul_stages + log2 n * (1 + add_stages) cycles)",
        params_model=DotProductParams,
        build_component=DotProduct.from_params,
        cycle_table=dot_product_host.dot_product_table,
        coverage=coverage.dot_product_coverage,
        activity_table=dot_product_host.dot_product_activity,
    ),
    BlockFamily(
        name="benes",
        summary="SIGMA Benes distribution network (pass/cross/broadcast 2x2 switches, optional pipelining)",
        params_model=BenesParams,
        build_component=Benes.from_params,
        cycle_table=benes_host.benes_table,
        coverage=coverage.benes_coverage,
    ),
    BlockFamily(
        name="flexdpe",
        fp_operations=("mul", "add"),
        fp_unreachable=fp_coverage.flexdpe_fp_unreachable,
        summary="SIGMA Flex-DPE (k multipliers with stationary buffers, copy + Benes distribution, FAN reduction)",
        params_model=FlexDPEParams,
        build_component=FlexDPE.from_params,
        cycle_table=flexdpe_host.flexdpe_table,
        verify=flexdpe_host.verify,
        cosim_options=(
            CosimOption("gemm", "GEMM shape M,N,K to run (repeatable) [default: directed + random GEMMs]",
                        parse=parse_gemm, multiple=True),
            CosimOption("sparsity_a", "fraction of zeros in A (inputs) [default: 0.5 with --gemm, else mixed]",
                        parse=flexdpe_host.parse_sparsity),
            CosimOption("sparsity_b", "fraction of zeros in B (weights) [default: 0.5 with --gemm, else mixed]",
                        parse=flexdpe_host.parse_sparsity),
            CosimOption("stationary", "stationary operand: weights, inputs or auto (the faster) [default: auto]",
                        parse=flexdpe_host.parse_stationary),
        ),
        default_vectors=4,
        vectors_help="random sparse GEMMs added to the directed ones (ignored with --gemm)",
        coverage=coverage.flexdpe_coverage,
        activity_table=flexdpe_host.flexdpe_activity,
    ),
)

#: every family by name, in the order ``accelgen blocks`` lists them
FAMILIES: dict[str, BlockFamily] = {fam.name: fam for fam in _FAMILIES}


def family(name: str, path: str = "block") -> BlockFamily:
    """The family called ``name``; an unknown name is a :class:`ConfigError` listing the allowed ones."""
    return find_family(FAMILIES, name, path)
