"""``accelgen.flow`` from Python: one design, and every block of a config (``accelgen cosim|synth --config``)."""

import pytest

from accelgen.flow import cosim_config, cosim_design, synthesize_config, synthesize_design
from accelgen.gen.config import parse_build_config
from accelgen.gen.emit import render
from accelgen.registry import FAMILIES

#: the names and parameters of tests/cosim/test_mac.py's ``s4`` and ``u4_pipe`` variants: same Verilog, one
#: simulator build (and one synthesis) for both files
CONFIG = {"cosim": {"vectors": 40, "seed": 3}, "blocks": [
    {"name": "mac", "block": "mac", "params": {"a_width": 4, "b_width": 4, "acc_width": 10}},
    {"name": "mac_u4_pipe", "block": "mac", "params": {"a_width": 4, "b_width": 4, "acc_width": 9, "signed": False,
                                                       "input_reg": True, "product_reg": True}}]}


@pytest.mark.cosim
def test_cosim_config_checks_every_block_in_order():
    results = list(cosim_config(parse_build_config(CONFIG, FAMILIES)))
    assert [r.passed for r in results] == [True, True], [r.error for r in results]
    assert all(r.sim == "verilator" and r.seed == 3 and r.run_dir is None for r in results)


@pytest.mark.cosim
def test_cosim_design_renders_with_the_given_generator():
    fam = FAMILIES["mac"]
    params = fam.validate({"a_width": 4, "b_width": 4, "acc_width": 10})
    names = []

    def spy(fam, params, name):
        names.append(name)
        return render(fam, params, name)

    res = cosim_design(fam, params, vectors=30, seed=2, render=spy)
    assert res.passed and names == [fam.default_name(params)]


@pytest.mark.synth
def test_synthesize_config_matches_one_design_at_a_time():
    cfg = parse_build_config(CONFIG, FAMILIES)
    stats = list(synthesize_config(cfg))
    assert [s.top for s in stats] == ["mac", "mac_u4_pipe"]
    assert stats[1].flip_flops > stats[0].flip_flops   # the input and product registers
    blk = cfg.blocks[0]
    assert synthesize_design(blk.family, blk.params, blk.name).to_dict() == stats[0].to_dict()
