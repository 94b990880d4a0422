"""A library's FO4 delay, and fitted delays scaled to a node in FO4 of the library they were measured with."""

import pandas as pd
import pytest

from accelgen.errors import ConfigError
from accelgen.fit.api import model_tech
from accelgen.fit.cell_library import Arc, CellTiming, Table, TimingLibrary
from accelgen.fit.cells import load_cells
from accelgen.fit.mapping import default_liberty
from accelgen.fit.model import load_model, shipped_families
from accelgen.fit.sta import fo4_ps, library_fo4_ps
from accelgen.technology import model_scaling, node, scaling, tech_factor


def _library(*cells: CellTiming) -> TimingLibrary:
    return TimingLibrary("toy", {c.name: c for c in cells}, 10.0, Table.linear(0.0))


def _inverter(name: str, cap_ff: float, intrinsic: float, drive: float, slew_factor: float = 0.0) -> CellTiming:
    arc = Arc("A", "negative_unate", (Table.linear(intrinsic, drive, slew_factor, 10.0),) * 2,
              (Table.linear(5.0, 1.0, 0.0, 10.0),) * 2)
    return CellTiming(name, {"A": cap_ff}, ("Y",), {"Y": (arc,)})


def test_fo4_is_the_smallest_inverter_driving_four_of_its_inputs():
    # 10 ps + 2 ps/fF x 4 x 1 fF; the bigger inverter (2 fF input) is not the one measured
    lib = _library(_inverter("INVX2", 2.0, 3.0, 1.0), _inverter("INVX1", 1.0, 10.0, 2.0))
    assert fo4_ps(lib) == pytest.approx(18.0)


def test_fo4_settles_the_slew_of_the_chain():
    # transition 5 + 1 x 4 = 9 ps at the steady state; the delay's slew term is 0.5 x (9 - 10)
    lib = _library(_inverter("INVX1", 1.0, 10.0, 2.0, slew_factor=0.5))
    assert fo4_ps(lib) == pytest.approx(18.0 - 0.5)


def test_a_library_without_an_inverter_is_named():
    buf = CellTiming("BUFX1", {"A": 1.0}, ("Y",), {"Y": (Arc("A", "positive_unate", (Table.linear(1.0),) * 2,
                                                             (Table.linear(1.0),) * 2),)})
    with pytest.raises(ConfigError, match=r"^liberty: 'toy' has no inverter"):
        fo4_ps(_library(buf))


def test_default_library_fo4_from_its_cells_and_its_liberty_file():
    from_cells = fo4_ps(TimingLibrary.from_cells(load_cells()))
    assert from_cells == pytest.approx(library_fo4_ps(default_liberty()), abs=0.05)
    # NanGate45 INV_X1 into four INV_X1 inputs (4 x 1.7 fF): 12.0 + 2.488 x 6.8 rising, 6.7 + 1.494 x 6.8 falling,
    # at slews below the nominal one; slower than the node table's 45 nm figure (Stillmaker & Baas, 12.5 ps)
    assert 21.0 < from_cells < 23.0 and from_cells > 1.5 * node(45).fo4_ps


def test_shipped_models_scale_delay_in_fo4_of_their_library():
    tech = load_model("mac").tech
    assert tech["fo4_ps"]["node"] == pytest.approx(node(45).fo4_ps, abs=1e-3)
    assert tech["fo4_ps"]["library"] == pytest.approx(library_fo4_ps(default_liberty()), abs=1e-3)
    library_speed = node(45).fo4_ps / tech["fo4_ps"]["library"]
    assert tech_factor(tech, 45, "delay") == pytest.approx(library_speed, rel=1e-4)
    assert tech_factor(tech, 65, "delay") == pytest.approx(scaling(65).delay * library_speed, rel=1e-4)
    for quantity in ("area", "energy", "leakage"):
        assert tech_factor(tech, 45, quantity) == pytest.approx(1.0)
    older = {k: v for k, v in tech.items() if k != "fo4_ps"}     # a file written before fo4_ps: the ratio alone
    assert tech_factor(older, 65, "delay") == pytest.approx(scaling(65).delay, rel=1e-4)


def test_model_tech_takes_the_dataset_library_fo4_and_requires_it_for_a_user_library():
    assert model_tech(pd.DataFrame({"library_fo4_ps": [40.0]}))["fo4_ps"] == {"library": 40.0, "node": 12.5}
    with pytest.raises(ConfigError, match=r"^data: the dataset has no library_fo4_ps column"):
        model_tech(pd.DataFrame({"library": ["my.lib"]}), node_nm=180)
    user = model_tech(pd.DataFrame({"library": ["my.lib"], "library_fo4_ps": [99.2]}), node_nm=180)
    assert user["fo4_ps"] == {"library": 99.2, "node": pytest.approx(node(180).fo4_ps, abs=1e-3)}


def test_every_shipped_model_carries_the_node_tables_scaling():
    # a model file keeps the scaling table it was written with; an edit of accelgen/data/nodes.yaml must be carried
    # into every shipped model (refit, or its tech.scaling rewritten), or estimates would mix two node tables
    for name in shipped_families():
        tech = load_model(name).tech
        table = model_scaling(float(tech["node_nm"]))
        assert set(tech["scaling"]) == set(table), name
        for n, factors in table.items():
            assert tech["scaling"][n] == pytest.approx(factors, rel=1e-9), (name, n)
