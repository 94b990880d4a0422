"""TensorDash's dense baseline (``depth: 1``): parameters, ports, and the hardware it does not have.

Fast: no simulator. The emitted Verilog of the depth-1 PE and tile has no scheduler, no staging rows beyond
the current one, no zero detectors or live flags and no operand multiplexers; the same checks on a depth-2
design find each of them, so the names looked for are the right ones. One Yosys run (``synth``, ~6 s) counts
the dense PE's flip-flops: the current row and the accumulator, nothing else.
"""

import re

import pytest
from amaranth.hdl import Fragment, Shape

from accelgen.errors import ConfigError
from accelgen.fit.generic_gates import gate_statistics
from accelgen.gen import render
from accelgen.registry import FAMILIES
from accelgen.rtl.tensordash import (
    TensorDashPE,
    TensorDashPEParams,
    TensorDashSchedParams,
    TensorDashScheduler,
    TensorDashTile,
    TensorDashTileParams,
)

SCHED_DEPTH_ONE = (r"^tensordash_sched\.depth: 1 is not allowed; expected an integer in 2\.\.5 \(depth 1 is the "
                   r"dense baseline of tensordash_pe and tensordash_tile, which has no scheduler\)$")


# --------------------------------------------------------------------------- parameters

@pytest.mark.parametrize("model", [TensorDashPEParams, TensorDashTileParams])
def test_depth_one_allowed_for_pe_and_tile(model):
    p = model(depth=1)
    assert p.depth == 1 and p.dense
    assert not model(depth=2).dense
    fam = FAMILIES[model.block]
    assert fam.validate({"depth": 1, "dtype": "fp16", "mul_stages": 2, "add_stages": 1}).depth == 1
    with pytest.raises(ValueError, match=rf"^{model.block}\.depth: 0 is not allowed; expected an integer in 1\.\.5$"):
        model.validate_kwargs({"depth": 0})


def test_sched_refuses_depth_one_in_one_line():
    with pytest.raises(ValueError, match=SCHED_DEPTH_ONE) as err:
        TensorDashScheduler(depth=1)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match=SCHED_DEPTH_ONE):
        TensorDashSchedParams.validate_kwargs({"depth": 1})
    # a config names the field path the same way
    with pytest.raises(ConfigError, match=r"depth: 1 is not allowed; expected an integer in 2\.\.5 \(depth 1 is the "
                                          r"dense baseline"):
        FAMILIES["tensordash_sched"].validate({"depth": 1})
    # the other bounds keep the plain message
    with pytest.raises(ValueError, match=r"^tensordash_sched\.depth: 0 is not allowed; expected an integer in "
                                         r"2\.\.5$"):
        TensorDashSchedParams.validate_kwargs({"depth": 0})


# --------------------------------------------------------------------------- ports

@pytest.mark.parametrize("cls", [TensorDashPE, TensorDashTile])
def test_dense_ports_are_the_tensordash_ports_with_one_row(cls):
    dense, sparse = cls(depth=1), cls(depth=4)
    members, sparse_members = dense.signature.members, sparse.signature.members
    assert set(members) == set(sparse_members)
    width = {name: Shape.cast(members[name].shape).width for name in ("next_valid", "take", "sel")}
    assert width == {"next_valid": 1, "take": 1, "sel": 1} and members["sel"].dimensions == (4,)
    rows = (4,) if cls is TensorDashTile else ()
    assert members["a_next"].dimensions == (*rows, 1, 4) and members["b_next"].dimensions == (1, 4)
    assert dense.latency == sparse.latency == 1
    assert cls(depth=1, dtype="fp16", mul_stages=2, add_stages=1).latency == 8  # the tree: 1 + 2 + 2 * 1 + fold 3
    assert cls(depth=1, dtype="fp16", mul_stages=2, add_stages=1, summation="fused").latency == 6  # 1 + 2 + fold 3


# --------------------------------------------------------------------------- the hardware that is not there

#: names the TensorDash front gives its signals: staging rows 1.., live flags, valid rows, the lane muxes'
#: outputs, the scheduler's ports and levels
TENSORDASH_NAMES = re.compile(r"\b(a_r1_l\d|b_r1_l\d|live_r\d|valid_r\d|[ab]_op\d|z__\d|as_rows|live_l\d|"
                              r"l\d_lane\d_opt\d)")


def _verilog(family, **kw):
    fam = FAMILIES[family]
    p = fam.validate(kw)
    return render(fam, p, fam.default_name(p)).verilog


def _modules(verilog):
    return re.findall(r"^module (\S+)\(", verilog, re.MULTILINE)


@pytest.mark.parametrize("family, kw", [
    ("tensordash_pe", {}),
    ("tensordash_tile", {}),
    ("tensordash_tile", {"dtype": "fp16", "rows": 2, "mul_stages": 2, "add_stages": 1, "summation": "fused"}),
    ("tensordash_tile", {"dtype": "fp16", "rows": 2, "mul_stages": 2, "add_stages": 1}),
], ids=["pe_int", "tile_int", "tile_fp16_m2a1_fused", "tile_fp16_m2a1_tree"])
def test_dense_has_no_scheduler_buffers_or_muxes(family, kw):
    dense = _verilog(family, depth=1, **kw)
    sparse = _verilog(family, depth=2, **kw)
    # the scheduler is a submodule of the TensorDash front: present at depth 2, absent at depth 1
    assert "sched" in sparse and "sched" not in dense
    assert TENSORDASH_NAMES.search(sparse) and not TENSORDASH_NAMES.search(dense)
    # the sparse design's modules are the dense one's and the scheduler's: the top first, then (the tile) its row
    # cell and, pipelined fp, the row's fp units (multipliers and the lane tree's adders, or the fused sum)
    sched = f"{family}__sched"
    assert _modules(sparse) == [family, sched] + _modules(dense)[1:] and sched not in _modules(dense)
    cells = _modules(dense)[1:]
    assert cells[:1] == ([f"{family}__row"] if "tile" in family else [])
    units = "sum_acc" if kw.get("summation") == "fused" else r"add_\w+"
    assert all(re.fullmatch(rf"{family}__row__fp(mul\d|{units})", m) for m in cells[1:]) and \
        bool(cells[1:]) == ("dtype" in kw)
    # no select logic: the depth-2 designs switch on the selects (lane muxes, staging shifts), the dense ones
    # have no case statement at all
    # (a select decoded against its lanes' codes: Yosys writes the muxes as comparisons since every process is
    # netlist logic)
    assert re.search(r"\bsel__\d == \d+'h", sparse) and not re.search(r"\bsel__\d == ", dense)
    assert not re.search(r"\bcasez? \(", dense)
    # the operands reach the multipliers straight from the current row's registers (a pipelined fp row: the
    # registers take the names of the multiplier inputs they drive, since the Verilog keeps one name per net)
    if "dtype" in kw:
        row = re.search(rf"^module {family}__row\(.*?^endmodule", dense, re.MULTILINE | re.DOTALL).group(0)
        operands = re.findall(r"__fpmul\d fpmul\d \((.*?)\);", row, re.DOTALL)
        assert operands
        for ports in operands:
            a = re.search(r"\.a\(([^)]*?)\s*\)", ports).group(1)
            assert re.search(rf"^\s*reg \[\d+:0\] {re.escape(a)}\s*= ", row, re.MULTILINE), a
    else:
        assert "a_row_l0" in dense and "b_row_l0" in dense


def test_dense_pe_hierarchy_has_no_scheduler_submodule():
    """Amaranth's own hierarchy: the dense PE's only submodules are the lane arithmetic."""
    def names(component):
        frag = Fragment.get(component, None)
        return {name for _, name, _ in frag.subfragments}

    assert "sched" in names(TensorDashPE(depth=2))
    assert names(TensorDashPE(depth=1)) == set()  # integer, unpipelined: `*` and `+` in the PE itself
    piped = names(TensorDashPE(depth=1, dtype="fp16", mul_stages=1, add_stages=1))
    assert "sched" not in piped and {"fpmul0", "fpadd_acc"} <= piped
    fused = names(TensorDashPE(depth=1, dtype="fp16", mul_stages=1, add_stages=1, summation="fused"))
    assert fused == {"fpmul0", "fpmul1", "fpmul2", "fpmul3", "fpsum_acc"}  # one multi-operand adder, no tree


@pytest.mark.synth
def test_dense_pe_flip_flops_are_the_current_row_and_the_accumulator():
    """Synthesized (Yosys): the dense PE's only registers are the current row of A and B, its valid bit and the
    accumulator; the TensorDash PE of depth 2 has a second staging row, live and valid flags besides."""
    def flip_flops(depth):
        fam = FAMILIES["tensordash_pe"]
        p = fam.validate({"depth": depth})
        return gate_statistics(render(fam, p, "td").verilog, "td").flip_flops

    assert flip_flops(1) == 4 * 8 + 4 * 8 + 1 + 32
    assert flip_flops(2) == 2 * (4 * 8 + 4 * 8) + 2 * 4 + 2 + 32
