"""Generic-gate statistics (accelgen.fit.generic_gates) of emitted MACs and arrays."""

import pytest

from accelgen.fit.generic_gates import compose_stats, gate_statistics, parse_stats
from accelgen.registry import family
from accelgen.gen import render
from accelgen.rtl import MACParams

pytestmark = pytest.mark.synth


def _stats(**kw):
    params = MACParams(**kw)
    return gate_statistics(render(family("mac"), params, "m").verilog, "m")


def test_flip_flops_equal_register_bits():
    assert _stats(a_width=4, b_width=4, acc_width=10).flip_flops == 10
    # input registers: a, b, en, clear; product register: product, en, clear; output register: acc
    s = _stats(a_width=4, b_width=4, acc_width=10, input_reg=True, product_reg=True, output_reg=True)
    assert s.flip_flops == 10 + (4 + 4 + 2) + (8 + 2) + 10


def test_counts_are_consistent_and_complete():
    s = _stats(a_width=6, b_width=6, acc_width=16)
    assert s.cells == sum(s.cells_by_type.values())
    assert s.transistors_complete and s.transistors > 0
    assert all(t.startswith("$_") for t in s.cells_by_type)  # generic gates only
    assert s.logic_depth > 6


def test_wider_operands_cost_more():
    small, big = _stats(a_width=4, b_width=4, acc_width=8), _stats(a_width=8, b_width=8, acc_width=16)
    assert big.transistors > 2 * small.transistors
    assert big.logic_depth > small.logic_depth


def test_pipelining_shortens_the_longest_path():
    flat = _stats(a_width=8, b_width=8, acc_width=24)
    piped = _stats(a_width=8, b_width=8, acc_width=24, product_reg=True)
    assert piped.logic_depth < flat.logic_depth


def test_parse_stats_marks_incomplete_transistor_estimate():
    stat = {"modules": {"\\t": {"num_cells": 3, "num_cells_by_type": {"$_AND_": 2, "$_SDFF_PP0_": 1},
                                 "estimated_num_transistors": "12+"}}}
    s = parse_stats(stat, "Longest topological path in t (length=4):", "t")
    assert s.transistors == 12 and not s.transistors_complete and s.flip_flops == 1 and s.logic_depth == 4


def test_systolic_synthesis_is_hierarchical_and_composed():
    from accelgen.flow import synthesize_emitted
    from accelgen.rtl.systolic import SystolicParams

    e = render(family("systolic"), SystolicParams(rows=3, cols=2, a_width=4, b_width=4, acc_width=10), "sa")
    assert e.manifest["cells"] == ["sa__pe"]
    s = synthesize_emitted(e)
    pe = s.extra["modules"]["sa__pe"]
    assert s.cells == 6 * pe["cells"]
    assert s.transistors == 6 * int(pe["transistors"])
    # per PE: activation 4 + valid 1 + weight 4 + partial sum 10 (the two identical valid registers merge)
    assert s.flip_flops == 6 * 19
    assert s.logic_depth == max(m["logic_depth"] for m in s.extra["modules"].values())


def test_compose_stats_multiplies_nested_modules():
    modules = {
        "\\top": {"num_cells_by_type": {"$_AND_": 1, "tile": 2}, "estimated_num_transistors": "6"},
        "\\tile": {"num_cells_by_type": {"pe": 3}, "estimated_num_transistors": "0"},
        "\\pe": {"num_cells_by_type": {"$_XOR_": 2, "$_DFF_P_": 1}, "estimated_num_transistors": "40+"},
    }
    by_type, transistors, complete = compose_stats(modules, "top")
    assert by_type == {"$_AND_": 1, "$_DFF_P_": 6, "$_XOR_": 12}
    assert transistors == 6 + 2 * 3 * 40 and not complete


def test_tiled_array_synthesizes_to_the_flat_arrays_totals():
    """A 5x7 array emitted as 2x2 tiles (plus edge tiles) has exactly the gates of the flat one: the PE
    is mapped once and multiplied through tiles and top; the array modules hold no gates."""
    from accelgen.flow import synthesize_emitted
    from accelgen.rtl.systolic import SystolicParams

    fam = family("systolic")
    flat = synthesize_emitted(render(fam, SystolicParams(rows=5, cols=7, a_width=4, b_width=4, acc_width=10), "sa"))
    e = render(fam, SystolicParams(rows=5, cols=7, a_width=4, b_width=4, acc_width=10, emit_tile=2), "sa")
    assert e.manifest["registered_modules"] == ["sa", "sa__tile_1x1", "sa__tile_1x2", "sa__tile_2x1", "sa__tile_2x2"]
    tiled = synthesize_emitted(e)
    assert tiled.cells_by_type == flat.cells_by_type and tiled.transistors == flat.transistors
    assert tiled.logic_depth == flat.logic_depth == tiled.extra["modules"]["sa__pe"]["logic_depth"]
    assert all(m["cells"] == 0 for name, m in tiled.extra["modules"].items() if name != "sa__pe")
