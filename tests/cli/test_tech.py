"""``accelgen tech show``: every node with its sources, one node against generic45.yaml, bad nodes.

The commands run in the test process (tests/conftest.py's ``accelgen_main``).
"""

import json

import pytest

NODES = ["180", "130", "90", "65", "45", "32", "28", "22", "16", "14", "12", "7"]


@pytest.fixture
def accelgen(accelgen_main):
    return accelgen_main


def test_show_prints_every_node_and_the_sources(accelgen):
    proc = accelgen("tech", "show")
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("│")]
    assert [r.split("│")[1].strip() for r in rows] == NODES
    assert "NanGate45" in proc.stdout and "Stillmaker" in proc.stdout and "References" in proc.stdout
    for n in NODES:
        assert f"\n{n} nm: " in proc.stdout, n          # a sources block per node
    assert proc.stdout.count("cpp_nm = ") == len(NODES)


def test_show_json_has_every_node_figure_and_source(accelgen):
    proc = accelgen("tech", "show", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [f"{n['node_nm']:g}" for n in data["nodes"]] == sorted(NODES, key=float)
    for n in data["nodes"]:
        assert set(n["sources"]) >= {"cpp_nm", "mmp_nm", "cell_height_nm", "sram_bitcell_um2", "vdd_v", "fo4_ps",
                                     "ioff_na_per_um"}
    assert data["scaling"]["45"]["logic_area"] == pytest.approx(1.0)
    assert "sb17" in data["sources"]


def test_show_one_node_against_generic45(accelgen):
    proc = accelgen("tech", "show", "--node", "16", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["node"]["node_nm"] == 16
    assert data["generic45_scaling"]["logic_area"] == pytest.approx(0.126)     # generic45.yaml's 16 nm area
    assert data["scaling"]["logic_area"] > data["generic45_scaling"]["logic_area"]
    assert data["model_scaling"]["area"] == pytest.approx(data["scaling"]["logic_area"])
    # delays carry in FO4 of the models' library (NanGate45, 21.7 ps) to the node's: slower than the 45 nm node
    assert data["model_scaling"]["delay"] == pytest.approx(data["scaling"]["delay"] * 12.5 / 21.657, rel=1e-3)
    assert data["scaling"]["leakage"] is None and data["model_scaling"]["leakage"] > 0    # the stated fallback
    text = accelgen("tech", "show", "--node", "16")
    assert text.returncode == 0 and "fitted models use" in text.stdout and "logic_area" in text.stdout
    assert "off-current of the nearest larger node" in " ".join(text.stdout.split())


def test_node_outside_generic45_shows_no_old_factor(accelgen):
    data = json.loads(accelgen("tech", "show", "--node", "180", "--json").stdout)
    assert data["generic45_scaling"]["logic_area"] is None and data["scaling"]["logic_area"] > 1


@pytest.mark.parametrize("value,fragment", [("3", "--node: 3 is outside the technology table; allowed: 7..180 nm"),
                                            ("500", "500 is outside"),
                                            ("abc", "is not a valid float")])
def test_bad_node_is_a_one_line_error(value, fragment, accelgen):
    proc = accelgen("tech", "show", "--node", value)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert fragment in lines[0] and lines[0].startswith(("accelgen: error:", "accelgen tech show: error:"))
