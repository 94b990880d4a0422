"""The node table (accelgen/data/nodes.yaml), the scaling derived from it and the one node check
(accelgen.technology)."""

import itertools
import math

import pytest

from accelgen.errors import ConfigError
from accelgen.technology import (CACTI, FACTORS, FIGURES, check_node, model_scaling, node, node_table, scaling,
                                 sources, technology)

NODES = [180, 130, 90, 65, 45, 32, 28, 22, 16, 14, 12, 7]
#: one process lineage per era; half nodes (28, 16, 12) are other vendors' processes
FULL_NODES = [180, 130, 90, 65, 45, 32, 22, 14, 7]


def by_node():
    return {int(d.node_nm): d for d in node_table()}


def largest_first(nodes):
    table = by_node()
    return [table[n] for n in nodes]


def test_table_has_every_node_of_the_issue():
    assert sorted(by_node()) == sorted(NODES)


def test_every_figure_has_a_source_or_says_why_not():
    keys = set(sources())
    for d in node_table():
        for name in FIGURES:
            fig = d.figures[name]
            assert fig.kind in {"published", "derived", "model", "assumed", "interpolated", "missing"}, (d, name)
            if fig.kind in ("published", "model", "assumed"):
                assert fig.source in keys, (d.node_nm, name, fig)
            if fig.kind in ("derived", "assumed", "interpolated", "missing"):
                assert fig.note, (d.node_nm, name, "a derived, assumed or missing figure says how or why")
            if fig.via:
                assert fig.via in keys
            assert (fig.value is None) == (fig.kind == "missing"), (d.node_nm, name)


def test_the_figures_scaling_needs_are_present_at_every_node():
    for d in node_table():
        for name in ("cpp_nm", "cell_height_nm", "sram_bitcell_um2", "vdd_v", "fo4_ps"):
            assert getattr(d, name) is not None and getattr(d, name) > 0, (d.node_nm, name)


@pytest.mark.parametrize("name", ["cpp_nm", "mmp_nm", "sram_bitcell_um2", "fo4_ps"])
def test_full_nodes_shrink_and_speed_up(name):
    values = [getattr(d, name) for d in largest_first(FULL_NODES)]
    assert all(a > b for a, b in itertools.pairwise(values)), (name, values)


@pytest.mark.parametrize("name", ["mmp_nm", "sram_bitcell_um2", "fo4_ps", "logic_unit_um2"])
def test_every_node_is_no_larger_or_slower_than_the_one_before(name):
    # half nodes may repeat a pitch (TSMC 16FF+ and GF 14LPP share the 64 nm metal pitch)
    values = [getattr(d, name) for d in largest_first(NODES)]
    assert all(a >= b for a, b in itertools.pairwise(values)), (name, values)


def test_logic_and_sram_area_shrink_strictly_across_the_table():
    for name in ("logic_unit_um2", "sram_bitcell_um2"):
        values = [getattr(d, name) for d in largest_first(NODES)]
        assert all(a > b for a, b in itertools.pairwise(values)), (name, values)


def test_cross_vendor_gate_pitch_inversion_is_the_one_known():
    # TSMC 28 nm's contacted gate pitch (117 nm) is wider than Intel 32 nm's (112.5 nm): node names
    # are not dimensions. Any other inversion would be a data error.
    values = [(int(d.node_nm), d.cpp_nm) for d in largest_first(NODES)]
    inversions = [(a[0], b[0]) for a, b in itertools.pairwise(values) if b[1] > a[1]]
    assert inversions == [(32, 28)]


def test_reference_node_is_the_nangate45_library():
    ref = node(45)
    assert ref.cpp_nm == 190 and ref.mmp_nm == 140 and ref.cell_height_nm == 1400 and ref.track_height == 10
    assert ref.vdd_v == pytest.approx(1.1)                       # the library's typical corner
    assert ref.figures["vdd_itrs_hp_v"].value == pytest.approx(1.0)   # the ITRS HP nominal
    assert ref.figures["fo4_ps"].where == "delay polynomial of the 45 nm model at 1 V"


def test_fo4_is_the_stillmaker_baas_polynomial_at_the_nominal_supply():
    # 45 nm HP at 1.0 V: -501.6 + 1567 - 1619 + 566.1
    assert node(45).fo4_ps == pytest.approx(12.5, abs=1e-9)
    assert node(7).fo4_ps == pytest.approx(-28.58 * 0.343 + 76.6 * 0.49 - 70.26 * 0.7 + 24.69, rel=1e-12)


def test_empty_figures_are_interpolated_between_neighbours_or_left_empty():
    t = by_node()
    fo4_28 = t[28].figures["fo4_ps"]
    assert fo4_28.kind == "interpolated" and t[16].fo4_ps < fo4_28.value < t[32].fo4_ps
    assert t[12].figures["sram_bitcell_um2"].kind == "interpolated"
    # no off-current was found for any FinFET node: nothing to interpolate from below 22 nm
    assert all(t[n].ioff_na_per_um is None for n in (16, 14, 12, 7))


def test_cell_height_is_tracks_times_metal_pitch_when_not_published():
    d = node(65)
    assert d.figures["cell_height_nm"].kind == "derived"
    assert d.cell_height_nm == pytest.approx(d.track_height * d.mmp_nm)


def test_reference_factors_are_one():
    s = scaling(45)
    for f in FACTORS:
        assert getattr(s, f) == pytest.approx(1.0, rel=1e-12), f


def test_factors_follow_their_definitions():
    n, r, s = node(7), node(45), scaling(7)
    assert s.logic_area == pytest.approx(57 * 240 / (190 * 1400), rel=1e-12)
    assert s.sram_area == pytest.approx(0.027 / 0.346, rel=1e-12)
    assert s.delay == pytest.approx(n.fo4_ps / r.fo4_ps, rel=1e-12)
    assert s.energy == pytest.approx(57 * 0.75 ** 2 / (190 * 1.1 ** 2), rel=1e-12)   # N7 library corner 0.75 V
    assert s.leakage is None
    s65 = scaling(65)
    assert s65.leakage == pytest.approx(196 * 1.1 * 2100 / (280 * 1.1 * 1400), rel=1e-12)


def test_other_reference_node():
    s = scaling(7, ref_nm=16)
    assert s.logic_area == pytest.approx(scaling(7).logic_area / scaling(16).logic_area, rel=1e-12)


@pytest.mark.parametrize("n,lo,hi", [(40, 45, 32), (10, 12, 7), (100, 130, 90), (25, 28, 22)])
def test_interpolation_lies_between_neighbours(n, lo, hi):
    s, a, b = scaling(n), scaling(lo), scaling(hi)
    for f in FACTORS:
        x, y, z = getattr(a, f), getattr(s, f), getattr(b, f)
        if x is None or z is None:
            assert y is None
            continue
        assert min(x, z) <= y <= max(x, z), (f, x, y, z)
    # log-linear: at the geometric mean of the neighbours the factor is the geometric mean
    mid = math.sqrt(lo * hi)
    assert scaling(mid).logic_area == pytest.approx(math.sqrt(a.logic_area * b.logic_area), rel=1e-12)


def test_interpolated_node_is_marked():
    d = node(40)
    assert d.figures["cpp_nm"].kind == "interpolated" and 112.5 < d.cpp_nm < 190
    assert "interpolated" in d.process


@pytest.mark.parametrize("bad", [5, 200, 0, -7, 6.99, float("nan"), "45", None, True])
def test_node_outside_the_table_names_it_and_the_range(bad):
    with pytest.raises(ConfigError, match=r"^node_nm: .* is outside the technology table; allowed: 7\.\.180 nm "
                                          r"\(tabulated: 7, 12, 14, 16, 22, 28, 32, 45, 65, 90, 130, 180\)$"):
        scaling(bad)
    with pytest.raises(ConfigError, match=r"allowed: 7\.\.180 nm"):
        node(bad)


def test_bad_node_message_is_one_line_and_shows_the_value():
    with pytest.raises(ConfigError) as err:
        node(3, path="--node")
    assert str(err.value) == ("--node: 3 is outside the technology table; allowed: 7..180 nm "
                              "(tabulated: 7, 12, 14, 16, 22, 28, 32, 45, 65, 90, 130, 180)")


def test_bad_reference_node_is_named():
    with pytest.raises(ConfigError, match=r"^ref_nm: 250 is outside"):
        scaling(45, ref_nm=250)


def test_table_is_cached_and_frozen():
    assert node_table() is node_table()
    with pytest.raises(AttributeError):
        node(45).cpp_nm = 1


def test_model_scaling_is_the_node_factors_with_finfet_leakage_held_at_22nm():
    table = model_scaling()
    assert set(table) == {f"{d.node_nm:g}" for d in node_table()}
    for name in ("180", "65", "28", "22"):
        s = scaling(float(name))
        assert table[name] == {"area": s.logic_area, "delay": s.delay, "energy": s.energy, "leakage": s.leakage}
    n7, n22, ref = node(7), node(22), node(45)
    assert scaling(7).leakage is None
    assert table["7"]["leakage"] == pytest.approx(n22.ioff_na_per_um * n7.vdd_v * n7.cell_height_nm
                                                 / (ref.ioff_na_per_um * ref.vdd_v * ref.cell_height_nm))
    with pytest.raises(ConfigError, match="16 nm has no off-current"):
        model_scaling(16)


def test_one_node_check_for_fit_and_ppa():
    """The estimator's technology and the fitted models' scaling check nodes with the same function and range."""
    from accelgen.ppa import process
    assert process.check_node is check_node and process.node_range() == (7.0, 180.0)
    assert check_node(28) == 28.0 and isinstance(check_node(28), float)
    with pytest.raises(ConfigError, match=r"^sram\.node_nm: 3 is outside the technology table; allowed: 7\.\.180 nm"):
        check_node(3, "sram.node_nm")


def test_another_tables_nodes_bound_the_check():
    """CACTI's own figures (SRAM calibration only) span 22..90 nm: the same check, against that table's nodes."""
    assert technology(45, source=CACTI).vdd_v == pytest.approx(1.0)
    with pytest.raises(ConfigError, match=r"^node_nm: 7 is outside the technology table; allowed: 22\.\.90 nm "
                                          r"\(tabulated: 22, 32, 45, 65, 90\)$"):
        technology(7, source=CACTI)
