"""Estimator: validation errors, component scaling, breakdown sums, JSON shape, CLI, import isolation."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from accelgen.errors import ConfigError
from accelgen.cli import main
from accelgen.ppa import components, estimate, parse_arch
from accelgen.ppa.estimate import flatten
from accelgen.ppa.process import technology

sys.path.insert(0, str(Path(__file__).parent))
import ppa_models  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    return ppa_models.write_models(tmp_path_factory.mktemp("models"))


def _arch(**over):
    a = {"name": "t", "node_nm": 28, "clock_mhz": 500,
         "core": {"tensor_units": [{"rows": 32, "cols": 32}], "vector_unit": {}, "scalar_unit": True,
                  "memories": [{"name": "buf", "capacity_bytes": 2**20, "block_bytes": 64, "banks": 4}]},
         "chip": {"offchip": {"type": "ddr4", "bandwidth_gbps": 25.6}, "host": {"pcie_gen": 3, "lanes": 8},
                  "white_space_fraction": 0.1}}
    a.update(over)
    return a


def test_import_ppa_leaves_amaranth_out():
    code = "import sys, accelgen.ppa, accelgen.ppa.estimate; print('amaranth' in sys.modules, 'cocotb' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


@pytest.mark.parametrize("patch, match", [
    ({"node_nm": 3}, r"node_nm: 3(\.0)? is outside the technology table; allowed: 7\.\.180"),
    ({"bogus": 1}, r"bogus: unknown field"),
    ({"clock_mhz": None}, r"give exactly one of clock_mhz and target_tops"),
    ({"core": {"tensor_units": [{"rows": 0, "cols": 4}]}}, r"core\.tensor_units\[0\]\.rows: 0 is not allowed; .*greater than or equal to 1"),
    ({"core": {"tensor_units": [{"rows": 4, "cols": 4, "dataflow": "xs"}]}}, r"core\.tensor_units\[0\]\.dataflow: 'xs' is not allowed"),
    ({"core": {"tensor_units": [{"rows": 4, "cols": 4}], "memories": [{"name": "m", "capacity_bytes": 4096, "banks": 0}]}},
     r"core\.memories\[0\]\.banks: 0 is not allowed; .*greater than or equal to 1"),
    ({"chip": {"offchip": {"type": "ddr4", "bandwidth_gbps": -1}}}, r"chip\.offchip\.bandwidth_gbps: -1"),
    ({"core": {}}, r"core: a core needs at least one compute unit"),
    ({"core": {"tensor_units": [{"rows": 4, "cols": 4, "dataflow": "os", "weight_load": "double"}]}},
     r"core\.tensor_units\[0\].*weight_load: 'double' is not allowed with dataflow='os'"),
    ({"core": {"tensor_units": [{"rows": 4, "cols": 4, "dataflow": "ws", "schedule": "row_stationary"}]}},
     r"core\.tensor_units\[0\].*schedule: 'row_stationary' is not allowed with dataflow='ws'; allowed: dataflow 'os'"),
    ({"core": {"tensor_units": [{"rows": 4, "cols": 4, "dataflow": "os", "schedule": "row_stationary",
                                 "zero_skipping": "block"}]}},
     r"core\.tensor_units\[0\].*schedule: 'row_stationary' is not allowed with zero_skipping='block'"),
])
def test_validation_errors_name_the_field(patch, match):
    with pytest.raises(ConfigError, match=match):
        parse_arch(_arch(**patch))


def test_missing_fitted_model_is_a_one_line_error(tmp_path, capsys):
    p = tmp_path / "a.yaml"
    # the systolic model is shipped now: point the family at a model file that does not exist
    p.write_text(json.dumps(_arch(models={"systolic": str(tmp_path / "missing.json")})))
    assert main(["estimate", str(p)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "core.tensor_units[0]: needs the fitted model of 'systolic'" in err[0]


def test_a_memory_too_shallow_for_an_sram_is_a_one_line_error(tmp_path, capsys):
    """16 words per bank: no SRAM organization holds it. The CLI names the memory's field and says what is allowed
    (a flip-flop register file of the same shape is costed)."""
    shallow = {"name": "m", "capacity_bytes": 4096, "block_bytes": 256, "banks": 1}
    p = tmp_path / "a.yaml"
    p.write_text(json.dumps(_arch(core={"tensor_units": [{"rows": 4, "cols": 4}], "memories": [shallow]})))
    assert main(["estimate", str(p)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "core.memories[0].capacity_bytes: 4096 B in 1 bank(s) of 256 B words is 16 words" in err[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert estimate(_arch(core={"tensor_units": [{"rows": 4, "cols": 4}],
                                    "memories": [{**shallow, "cell": "dff", "banks": None,
                                                  "bandwidth_gbps": 100}]})).area_mm2 > 0


def test_breakdown_sums_to_total(models):
    est = estimate(_arch(), model_paths=models)
    for _, node in flatten(est.breakdown):
        kids = node.get("children", [])
        if kids:
            own = 0.0  # groups have no own area in this design except leaves
            assert node["area_mm2"] == pytest.approx(node["count"] * (own + sum(k["area_mm2"] for k in kids)),
                                                     rel=1e-9) or node["kind"] not in ("group", "chip")
    tree = est.breakdown
    assert tree["area_mm2"] == pytest.approx(sum(c["area_mm2"] for c in tree["children"]), rel=1e-9)
    assert tree["tdp_w"] == pytest.approx(sum(c["tdp_w"] for c in tree["children"]), rel=1e-9)
    assert est.tdp_w == pytest.approx(tree["dynamic_w"] + tree["leakage_w"])
    assert est.peak_tops == pytest.approx(2 * 32 * 32 * 500e6 / 1e12 + 2 * 32 * 500e6 / 1e12)


def test_json_shape_and_traceability(models, tmp_path, capsys):
    p = tmp_path / "a.yaml"
    arch = _arch(models=models)
    p.write_text(json.dumps(arch))
    assert main(["estimate", str(p), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert list(d)[:5] == ["area_mm2", "tdp_w", "clock_mhz", "peak_tops", "breakdown"]
    assert d["inputs"]["node_nm"] == 28
    fams = {t["family"] for t in d["compute_models"]}
    assert fams == {"systolic", "mac"}
    for t in d["compute_models"]:
        assert t["model_file"].endswith(".json") and "area_um2" in t["heldout_error"] and t["fitted_range"]


def test_out_of_range_prediction_warns(models):
    with pytest.warns(UserWarning, match="outside the fitted range"):
        estimate(_arch(core={"tensor_units": [{"rows": 512, "cols": 32}]}), model_paths=models)


def test_target_tops_sets_clock_or_explains(models):
    # 0.5 TOPS: 244 MHz, within the 321 MHz of the 256 kB banks' macro cycle (1 TOPS was before the memories
    # were timed paths)
    est = estimate(_arch(clock_mhz=None, target_tops=0.5), model_paths=models)
    assert est.peak_tops == pytest.approx(0.5)
    with pytest.raises(ConfigError, match=r"target_tops: 1000 TOPS needs .* MHz but t/core/memories/buf limits the "
                                          r"clock to"):
        estimate(_arch(clock_mhz=None, target_tops=1000.0), model_paths=models)


def test_die_budget(models):
    with pytest.raises(ConfigError, match=r"chip\.die_budget_mm2: the design needs"):
        estimate(_arch(chip={"die_budget_mm2": 0.5}), model_paths=models)


def test_more_cores_cost_more(models):
    one = estimate(_arch(), model_paths=models)
    four = estimate(_arch(cores=4, chip={"noc": {"tx": 2, "ty": 2}}), model_paths=models)
    core1, core4 = one.breakdown["children"][0], four.breakdown["children"][0]
    assert core4["area_mm2"] == pytest.approx(4 * core1["area_mm2"], rel=1e-6)
    assert four.peak_tops == pytest.approx(4 * one.peak_tops)
    assert any(c["name"] == "noc" for c in four.breakdown["children"])


@pytest.mark.parametrize("make", [
    lambda t, s: components.wire("w", t, bits=64, length_mm=s),
    lambda t, s: components.noc(t, topology="mesh", tx=2, ty=2, flit_bits=int(64 * s), link_mm=1.0),
    lambda t, s: components.dram_phy(t, kind="hbm2", bandwidth_gbps=100 * s, channels=1),
    lambda t, s: components.pcie(t, gen=3, lanes=int(4 * s)),
])
def test_component_scaling(make):
    t45 = technology(45)
    small, big = make(t45, 1), make(t45, 2)
    assert big.area_um2 > small.area_um2
    assert big.dynamic_mw(1000) >= small.dynamic_mw(1000)
    a65, a22 = make(technology(65), 1).area_um2, make(technology(22), 1).area_um2
    assert a22 <= a65


def test_router_is_its_reference_at_the_reference_and_grows_as_buffers_plus_crossbar():
    """The Intel 80-tile router (5 ports of 39 bits, 0.34 mm^2 at 65 nm) is reproduced at its own configuration;
    a wider router grows with its width (buffers, registers) plus the square of its crossbar, not as a crossbar
    alone: 13x the width is 13-25x the area at one node, not 172x."""
    ref = components.router_area_um2(technology(65), 5, 39)
    assert ref == pytest.approx(0.34e6)
    wide = components.router_area_um2(technology(65), 5, 512)
    assert 512 / 39 < wide / ref < (512 / 39) * 2
    xbar = components._crossbar_um2(technology(65), 5, 512)
    assert wide == pytest.approx((ref - components._crossbar_um2(technology(65), 5, 39)) * 512 / 39 + xbar)


def test_scalar_core_across_nodes():
    areas = [components.scalar_core(technology(n)).area_um2 for n in (90, 65, 45, 22, 7)]
    assert areas == sorted(areas, reverse=True)
    assert components.scalar_core(technology(45)).area_um2 == pytest.approx(0.39e6)


def test_sram_cli_json(capsys):
    assert main(["sram", "--capacity-bytes", "65536", "--node", "45", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert {"area_mm2", "read_energy_pj", "write_energy_pj", "access_time_ns", "cycle_time_ns", "leakage_mw"} <= set(d)
    assert main(["sram", "--capacity-bytes", "65536", "--banks", "0"]) == 2


@pytest.mark.parametrize("chip", ["tpu_v1", "tpu_v2", "eyeriss", "sigma", "tensordash"])
def test_shipped_examples_run(chip, models, tmp_path):
    est = estimate(ROOT / "examples" / "arch" / f"{chip}.yaml", model_paths=models)
    assert est.area_mm2 > 0 and est.tdp_w > 0 and est.peak_tops > 0
    if chip == "tpu_v1":
        assert est.peak_tops == pytest.approx(92.1, rel=0.01)


def test_validate_chips_and_plot(models, tmp_path, capsys):
    args = [f"--model={k}={v}" for k, v in models.items()]
    assert main(["validate-chips", *args]) == 0
    out = capsys.readouterr().out
    assert "tpu_v1" in out and "sigma" in out
    png = tmp_path / "b.png"
    p = tmp_path / "a.yaml"
    p.write_text(json.dumps(_arch(models=models)))
    assert main(["estimate", str(p), "--plot", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_memory_count_is_identical_instances(models):
    """``count`` private memories (one per PE): count x the area, leakage and power of one; the breakdown sums."""
    def mem(count):
        a = _arch()
        a["core"] = dict(a["core"], memories=[{"name": "spad", "capacity_bytes": 4096, "block_bytes": 8, "banks": 1,
                                               "count": count}])
        e = estimate(a, model_paths=models)
        return next(n for _, n in flatten(e.breakdown) if n["name"] == "spad"), e
    one, _ = mem(1)
    many, est = mem(168)
    assert many["count"] == 168
    for k in ("area_mm2", "tdp_w", "leakage_w"):
        assert many[k] == pytest.approx(168 * one[k], rel=1e-9), k
    tree = est.breakdown
    assert tree["area_mm2"] == pytest.approx(sum(c["area_mm2"] for c in tree["children"]), rel=1e-9)
    with pytest.raises(ConfigError, match=r"core\.memories\[0\]\.count: 0"):
        parse_arch(_arch(core={"tensor_units": [{"rows": 4, "cols": 4}],
                               "memories": [{"name": "m", "capacity_bytes": 4096, "count": 0}]}))


def test_fitted_logic_area_is_placed_area(models):
    """Synthesized cell area / standard-cell utilization, for every fitted unit (same factor for every chip)."""
    from accelgen.ppa.process import STD_CELL_UTILIZATION
    e = estimate(_arch(), model_paths=models)
    tu = next(n for _, n in flatten(e.breakdown) if n["name"] == "tensor_unit0")
    cell = components.FittedCompute(models).predict("systolic", {"rows": 32, "cols": 32}, 28, "x")[0]["area_um2"]
    assert tu["area_mm2"] == pytest.approx(cell / STD_CELL_UTILIZATION * 1e-6, rel=1e-9)
    assert 0.5 <= STD_CELL_UTILIZATION <= 0.9
