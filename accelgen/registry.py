"""The block families accelgen can generate, check, cover and fit: one complete declaration each.

Each entry names every piece of its family (see :class:`~accelgen.family.BlockFamily`): the
parameter schema and generator (:mod:`accelgen.rtl`), its golden model (:mod:`accelgen.golden`), the
host side of its co-simulation with its coverage collector, fp-unreachable rules and activity stimulus
(the family's module of :mod:`accelgen.cosim`), its sweep variants and the PPA unit that costs it.
``tests/test_family_complete.py`` checks every entry complete; ``docs/adding-a-family.md`` walks through
adding one. The command line and the build flow look families up here and hand the family object to
emission, co-simulation, fitting and regressions.
"""

from __future__ import annotations

from .cosim import (art as art_host, benes as benes_host, dot_product as dot_product_host, fan as fan_host,
                    flexdpe as flexdpe_host, linear_reduction as linear_reduction_host, mac as mac_host,
                    systolic as systolic_host, tensordash as tensordash_host)
from .cosim.vectors import parse_gemm
from .family import BlockFamily, CosimOption, find_family
from .rtl import (FAN, MAC, AdderTree, AdderTreeParams, Benes, BenesParams, DotProduct, DotProductParams, FanLinear,
                  FanLinearParams, FANParams, FlexDPE, FlexDPEParams, MACParams, TensorDashPE, TensorDashPEParams,
                  TensorDashSchedParams, TensorDashScheduler, TensorDashTile, TensorDashTileParams)
from .rtl.art import ART, ARTParams
from .rtl.linear_reduction import LinearReduction, LinearReductionParams
from .rtl.systolic import SystolicArray, SystolicParams

#: ``*_host``: the family's module of :mod:`accelgen.cosim` (cycle table, coverage, fp rules, activity stimulus);
#: ``ppa_unit``: the kind of :mod:`accelgen.ppa.units` that costs the block (benes: part of the Flex-DPE; the
#: scheduler: part of the TensorDash PE; the MAC: the vector unit's lanes)
_FAMILIES = (
    BlockFamily(
        name="mac", summary="multiply-accumulate cell (int, or fp16/bf16/fp32 with fp32 accumulation; "
                            "clear/enable, pipeline registers, zero gating)",
        params_model=MACParams, build_component=MAC.from_params, golden="accelgen.golden.mac",
        cycle_table=mac_host.mac_table, coverage=mac_host.mac_coverage, activity_table=mac_host.mac_activity,
        fp_operations=("mul", "add"), fp_unreachable=mac_host.mac_fp_unreachable,
        sweep_variants=("bf16", "fp16", "fp32", "dnn"), ppa_unit="vector_unit",
    ),
    BlockFamily(
        name="systolic", summary="systolic array (weight- or output-stationary tensor unit of MAC PEs)",
        params_model=SystolicParams, build_component=SystolicArray.from_params, golden="accelgen.golden.systolic",
        cycle_table=systolic_host.systolic_table, verify=systolic_host.verify,
        cosim_options=(CosimOption("gemm", "GEMM shape M,N,K to run (repeatable) [default: directed + random shapes]",
                                   parse=parse_gemm, multiple=True),),
        default_vectors=6, vectors_help="random GEMM shapes added to the directed ones (ignored with --gemm)",
        coverage=systolic_host.systolic_coverage, activity_table=systolic_host.systolic_activity,
        fp_operations=("mul", "add"), fp_unreachable=systolic_host.systolic_fp_unreachable,
        sweep_variants=("bf16", "grouped_bf16", "dnn"), ppa_unit="systolic",
    ),
    BlockFamily(
        name="tensordash_sched",
        summary="TensorDash combinational scheduler (per-lane selects and AS from Z = ZA|ZB)",
        params_model=TensorDashSchedParams, build_component=TensorDashScheduler.from_params,
        golden="accelgen.golden.tensordash",
        cycle_table=tensordash_host.sched_table, coverage=tensordash_host.sched_coverage,
        activity_table=tensordash_host.tensordash_sched_activity, ppa_unit="tensordash",
    ),
    BlockFamily(
        name="tensordash_pe",
        summary="TensorDash sparse-operand PE (staging buffers, lookahead/lookaside muxes, scheduler, accumulator)",
        params_model=TensorDashPEParams, build_component=TensorDashPE.from_params, golden="accelgen.golden.tensordash",
        cycle_table=tensordash_host.pe_table, coverage=tensordash_host.pe_coverage,
        activity_table=tensordash_host.tensordash_activity,
        fp_operations=("mul", "add"), fp_unreachable=tensordash_host.tensordash_fp_unreachable,
        sweep_variants=("fp16",), ppa_unit="tensordash",
    ),
    BlockFamily(
        name="tensordash_tile", summary="TensorDash tile: R PE rows sharing one B-side staging buffer and schedule",
        params_model=TensorDashTileParams, build_component=TensorDashTile.from_params,
        golden="accelgen.golden.tensordash",
        cycle_table=tensordash_host.tile_table, coverage=tensordash_host.tile_coverage,
        activity_table=tensordash_host.tensordash_activity,
        fp_operations=("mul", "add"), fp_unreachable=tensordash_host.tensordash_fp_unreachable,
        sweep_variants=("bf16", "dense", "dense_bf16", "dense_fp16", "fp16"), ppa_unit="tensordash",
        # the rows take the scheduler's broadcast operands and selects combinationally: mapped apart, ABC sized
        # the row inputs and the scheduler's outputs for a 3 fF load (2-row fp16 tile at 3+3 stages, 2026-11-24:
        # 1.467 ns apart after repair, 1.267 ns with the rows flattened, its floating-point units still kept)
        map_cells_apart=False,
    ),
    BlockFamily(
        name="fan", summary="SIGMA forwarding adder network (reduces every vecID cluster in one pass, "
                            "1 + log2 n * (1 + add_stages) cycles)",
        params_model=FANParams, build_component=FAN.from_params, golden="accelgen.golden.fan",
        cycle_table=fan_host.fan_table, coverage=fan_host.fan_coverage, activity_table=fan_host.reduction_activity,
        fp_operations=("add",), sweep_variants=("fp32",), ppa_unit="fan",
    ),
    BlockFamily(
        name="fan_linear", summary="linear-chain reduction of vecID clusters (FAN baseline, same interface)",
        params_model=FanLinearParams, build_component=FanLinear.from_params, golden="accelgen.golden.fan",
        cycle_table=fan_host.fan_linear_table, coverage=fan_host.fan_coverage,
        activity_table=fan_host.reduction_activity, fp_operations=("add",), ppa_unit="fan_linear",
    ),
    BlockFamily(
        name="linear_reduction", summary="SIGMA linear reduction (FAN baseline): adder chain fed skewed as a "
                                         "systolic column, O(n) registers, n * (1 + add_stages) cycles",
        params_model=LinearReductionParams, build_component=LinearReduction.from_params,
        golden="accelgen.golden.linear_reduction",
        cycle_table=linear_reduction_host.linear_reduction_table,
        coverage=linear_reduction_host.linear_reduction_coverage,
        activity_table=linear_reduction_host.linear_reduction_activity,
        fp_operations=("add",), sweep_variants=("fp32",), ppa_unit="linear_reduction",
    ),
    BlockFamily(
        name="art", summary="MAERI augmented reduction tree (FAN baseline): adder tree with forwarding links and "
                            "3-input adders between non-sibling neighbours, same interface, "
                            "1 + log2 n * (1 + add_stages) cycles",
        params_model=ARTParams, build_component=ART.from_params, golden="accelgen.golden.art",
        cycle_table=art_host.art_table, coverage=art_host.art_coverage, activity_table=art_host.art_activity,
        fp_operations=("add",), sweep_variants=("fp32",), ppa_unit="art",
    ),
    BlockFamily(
        name="adder_tree", summary="plain binary adder tree reducing one dot product (FAN baseline)",
        params_model=AdderTreeParams, build_component=AdderTree.from_params, golden="accelgen.golden.fan",
        cycle_table=fan_host.adder_tree_table, coverage=fan_host.adder_tree_coverage,
        activity_table=fan_host.reduction_activity, fp_operations=("add",), ppa_unit="adder_tree",
    ),
    BlockFamily(
        name="dot_product", summary="dot-product unit (n multipliers and a binary adder tree: one exact dot product "
                                    "per cycle, 1 + mul_stages + log2 n * (1 + add_stages) cycles)",
        params_model=DotProductParams, build_component=DotProduct.from_params, golden="accelgen.golden.dot_product",
        cycle_table=dot_product_host.dot_product_table, coverage=dot_product_host.dot_product_coverage,
        activity_table=dot_product_host.dot_product_activity, ppa_unit="dot_product",
    ),
    BlockFamily(
        name="benes",
        summary="SIGMA Benes distribution network (pass/cross/broadcast 2x2 switches, optional pipelining)",
        params_model=BenesParams, build_component=Benes.from_params, golden="accelgen.golden.benes",
        cycle_table=benes_host.benes_table, coverage=benes_host.benes_coverage,
        no_activity="a routing network, no operations to count: a sweep drives the cosim stimulus (routed "
                    "permutations and multicasts) and reports energy per cycle",
        ppa_unit="flexdpe",
    ),
    BlockFamily(
        name="flexdpe",
        summary="SIGMA Flex-DPE (k multipliers with stationary buffers, copy + Benes distribution, FAN reduction)",
        params_model=FlexDPEParams, build_component=FlexDPE.from_params, golden="accelgen.golden.flexdpe",
        cycle_table=flexdpe_host.flexdpe_table, verify=flexdpe_host.verify,
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
        default_vectors=4, vectors_help="random sparse GEMMs added to the directed ones (ignored with --gemm)",
        coverage=flexdpe_host.flexdpe_coverage, activity_table=flexdpe_host.flexdpe_activity,
        fp_operations=("mul", "add"), fp_unreachable=flexdpe_host.flexdpe_fp_unreachable,
        sweep_variants=("bf16",), ppa_unit="flexdpe",
    ),
)

#: every family by name, in the order ``accelgen blocks`` lists them
FAMILIES: dict[str, BlockFamily] = {fam.name: fam for fam in _FAMILIES}


def family(name: str, path: str = "block") -> BlockFamily:
    """The family called ``name``; an unknown name is a :class:`ConfigError` listing the allowed ones."""
    return find_family(FAMILIES, name, path)
