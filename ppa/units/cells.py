"""Gate-level figures of the analytical die blocks built from their structure (transpose unit, PE FIFOs, multicast
controllers, run-length codecs, network interfaces): counts of standard cells in, area, leakage, energy per action
and delay at a node out.

The cells are the NanGate 45 nm Open Cell Library's X1 cells as accelgen's cell description gives them
(``fit/tech/nangate45_cells.yaml``, read by :func:`accelgen.fit.cells.load_cells`; every number there names the
Liberty table it was read from, typical corner, 1.1 V): cell area, input pin capacitance, internal energy per output
transition and, for the flip-flop, its clock-pin energy. A block is a :class:`Logic`, counts of cells, and

* area: the cells' area scaled by the node table's logic area (:func:`accelgen.ppa.process.area_ratio`), placed at
  the standard-cell utilization every fitted block is placed at (:data:`accelgen.ppa.process.STD_CELL_UTILIZATION`);
* leakage: the cell area times the node's logic leakage density (the rule of every analytical block here);
* energy: per output transition, the cell's internal energy (mean of rise and fall) plus half the C V^2 of its load
  (one input of a cell of its own kind and the library's wire-load capacitance per fanout), scaled with C V^2
  (:func:`accelgen.ppa.process.energy_ratio`); a flip-flop's clock pin costs its clock energy every clock edge pair;
* delay: a path's cells at that load (intrinsic delay + drive resistance x load, the slower output edge), scaled by
  the node's FO4 against the reference node's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache

from ...fit.cells import load_cells
from ...fit.liberty_read import read_power_library
from ...fit.mapping import default_liberty
from ...fit.power import clock_network
from ..process import REF_NM, STD_CELL_UTILIZATION, TechNode, area_ratio, energy_ratio, technology

#: the cells the die blocks are built of (X1 drive): storage, 2:1 multiplexers, comparator bits, counter bits
CELLS = ("DFF_X1", "MUX2_X1", "XOR2_X1", "XNOR2_X1", "AND2_X1", "OR2_X1", "NOR2_X1", "INV_X1")
#: a random data bit toggles on half the transfers (uniform independent bits)
DATA_TOGGLE = 0.5


@cache
def _library() -> tuple[dict, float, float]:
    lib = load_cells()
    return lib["cells"], float(lib["vdd_v"]), float(lib["wire_cap_per_fanout_ff"])


def _output(cell: dict) -> dict:
    return next(iter(cell["outputs"].values()))


@cache
def cell_figures(name: str) -> dict:
    """One cell at 45 nm: ``area_um2``, ``toggle_fj`` (an output transition driving one input of its own kind),
    ``clock_fj`` (a flip-flop's clock pin per cycle, both edges; 0 otherwise) and ``delay_ps`` (the slower output
    edge at that load)."""
    cells, vdd, wire_ff = _library()
    c = cells[name]
    out = _output(c)
    load_ff = sum(c["inputs"].values()) / len(c["inputs"]) + wire_ff
    internal = (out["energy_fj"]["rise"] + out["energy_fj"]["fall"]) / 2
    clock = sum(c.get("clock_energy_fj", {}).values())
    delay = max(a[0] + a[1] * load_ff for key in ("delay_rise", "delay_fall") for a in out[key].values())
    return {"area_um2": c["area_um2"], "toggle_fj": internal + 0.5 * load_ff * vdd ** 2, "clock_fj": clock,
            "delay_ps": delay, "input_ff": max(c["inputs"].values()),
            "drive_kohm": max(a[1] for key in ("delay_rise", "delay_fall") for a in out[key].values())}


def library_vdd_v() -> float:
    """The supply the cell energies were characterized at."""
    return _library()[1]


@dataclass
class Logic:
    """A block of ``cells`` (cell name -> count)."""

    cells: dict = field(default_factory=dict)

    def __add__(self, other: Logic) -> Logic:
        out = dict(self.cells)
        for k, v in other.cells.items():
            out[k] = out.get(k, 0) + v
        return Logic(out)

    def times(self, n) -> Logic:
        return Logic({k: v * n for k, v in self.cells.items()})

    def cell_area_um2_45(self) -> float:
        return sum(n * cell_figures(k)["area_um2"] for k, n in self.cells.items())

    def area_um2(self, tech: TechNode) -> float:
        """Placed area at ``tech``."""
        return self.cell_area_um2_45() * area_ratio(tech, REF_NM) / STD_CELL_UTILIZATION

    def leakage_mw(self, tech: TechNode) -> float:
        return self.cell_area_um2_45() * area_ratio(tech, REF_NM) * tech.logic_leak_uw_per_um2 * 1e-3


def energy_pj(tech: TechNode, toggles: dict, clocked_flops: float = 0.0) -> float:
    """Energy at ``tech`` of ``toggles`` (cell name -> output transitions) and ``clocked_flops`` flip-flops clocked
    once."""
    fj = sum(n * cell_figures(k)["toggle_fj"] for k, n in toggles.items())
    fj += clocked_flops * cell_figures("DFF_X1")["clock_fj"]
    return fj * 1e-3 * energy_ratio(tech, REF_NM, library_vdd_v())


def path_delay_ns(tech: TechNode, path: list[str]) -> float:
    """Delay at ``tech`` of the cells of ``path`` in series (a flip-flop's clock-to-output and its setup
    included when the path starts or ends with ``DFF_X1``)."""
    ps = sum(cell_figures(k)["delay_ps"] for k in path)
    if path and path[-1] == "DFF_X1":
        cells, _, _ = _library()
        setup = cells["DFF_X1"]["setup_ps"]
        ps += max(setup.values()) - cell_figures("DFF_X1")["delay_ps"]   # the capturing flop: its setup only
    return ps * 1e-3 * tech.fo4_ps / technology(REF_NM, "ref_nm").fo4_ps


def bits_for(n: int) -> int:
    """Bits of a counter or an identifier that takes ``n`` values (at least one)."""
    return max(1, math.ceil(math.log2(n))) if n > 1 else 1


def counter(bits: int) -> Logic:
    """A ``bits``-bit incrementing counter: a flip-flop and a half adder (XOR2 + AND2) per bit."""
    return Logic({"DFF_X1": bits, "XOR2_X1": bits, "AND2_X1": bits})


def equality(bits: int) -> Logic:
    """A ``bits``-bit equality comparator: an XNOR2 per bit and an AND2 tree of ``bits - 1``."""
    return Logic({"XNOR2_X1": bits, "AND2_X1": max(0, bits - 1)})


def mux_tree(inputs: int, bits: int) -> Logic:
    """A ``inputs``:1 multiplexer of ``bits``-bit words: ``inputs - 1`` MUX2 per bit."""
    return Logic({"MUX2_X1": max(0, inputs - 1) * bits})


def mux_levels(inputs: int) -> int:
    return bits_for(inputs) if inputs > 1 else 0


def cap_ratio(tech: TechNode) -> float:
    """Gate capacitance at ``tech`` against the reference node (the node table's energy factor over the supply
    squared: :func:`accelgen.ppa.process.energy_ratio` without the supply)."""
    ref = technology(REF_NM, "ref_nm")
    return (tech.energy_factor / tech.vdd_v ** 2) / (ref.energy_factor / ref.vdd_v ** 2)


# ---- arithmetic, as ripple and array structures of the cells above (what an area-recovered mapping at a relaxed
# clock approaches; a timing-driven mapping at a tight clock spends more)

def full_adders(n: int) -> Logic:
    """``n`` full adders: sum = a ^ b ^ c (two XOR2), carry = a & b | c & (a ^ b) (two AND2, an OR2)."""
    return Logic({"XOR2_X1": 2 * n, "AND2_X1": 2 * n, "OR2_X1": n})


def half_adders(n: int) -> Logic:
    """``n`` half adders (an incrementer's bits): an XOR2 and an AND2 each."""
    return Logic({"XOR2_X1": n, "AND2_X1": n})


def adder(bits: int) -> Logic:
    """A ``bits``-bit ripple-carry adder."""
    return full_adders(bits)


def multiplier(a_bits: int, b_bits: int) -> Logic:
    """An ``a_bits`` x ``b_bits`` array multiplier: an AND2 per partial-product bit, ``(b_bits - 1)`` rows of
    ``a_bits`` full adders reducing them."""
    return Logic({"AND2_X1": a_bits * b_bits}) + full_adders(max(0, b_bits - 1) * a_bits)


def shifter(bits: int, positions: int) -> Logic:
    """A barrel shifter of ``bits`` bits by up to ``positions``: a level of 2:1 multiplexers per shift bit."""
    return Logic({"MUX2_X1": bits * mux_levels(positions + 1)})


#: the bits an IEEE add keeps below the significand when it aligns the smaller addend: guard, round and sticky
GUARD_BITS = 3
#: the word an fp unit packs: sign, exponent, fraction (the fp32 of accelgen.rtl.fp's results)
FP32_BITS = 32


def or_tree(bits: int) -> Logic:
    """A ``bits``-input OR (a sticky bit, a field's non-zero test): ``bits - 1`` OR2."""
    return Logic({"OR2_X1": max(0, bits - 1)})


def leading_zeros(bits: int) -> Logic:
    """A leading-zero count of ``bits`` bits as a tree: per bit an OR2 and an AND2 (each level merges the halves'
    all-zero flags and selects their counts)."""
    return Logic({"OR2_X1": bits, "AND2_X1": bits})


def special_values(exp_bits: int, man_bits: int, operands: int) -> Logic:
    """NaN, infinity and zero tests of ``operands`` inputs (an all-ones AND and an all-zeros OR of the exponent,
    a non-zero OR of the fraction) and the result's select among the special words."""
    per = Logic({"AND2_X1": exp_bits - 1}) + or_tree(exp_bits) + or_tree(man_bits - 1)
    return per.times(operands) + Logic({"MUX2_X1": FP32_BITS})


def round_pack(width: int, exp_bits: int, man_bits: int) -> Logic:
    """Normalize, round and pack a ``width``-bit significand (:mod:`accelgen.rtl.fp`'s shared rounding): a
    leading-zero count and a left shifter, a right shifter into the subnormal range with its sticky OR, the exponent
    adjust (two adders), the round-to-nearest-even incrementer of ``man_bits`` and the packed word's select."""
    return (leading_zeros(width) + shifter(width, width).times(2) + or_tree(width) + adder(exp_bits + 2).times(2)
            + half_adders(man_bits) + Logic({"MUX2_X1": FP32_BITS}))


def fp_adder(exp_bits: int, man_bits: int) -> Logic:
    """An IEEE adder (``man_bits`` with the hidden bit), as :class:`accelgen.rtl.fp.FPAdder` is built: the hidden
    bits (subnormal tests), the exponent difference, the operand swap, the alignment shifter with its sticky OR,
    the conditional negation and the significand adder (:data:`GUARD_BITS` below the significand, a carry above),
    :func:`round_pack`, and the special values."""
    width = man_bits + GUARD_BITS + 1
    return (or_tree(exp_bits).times(2) + adder(exp_bits + 1) + Logic({"MUX2_X1": 2 * (FP32_BITS - 1)})
            + shifter(width, width) + or_tree(width) + Logic({"XOR2_X1": width}) + adder(width)
            + round_pack(width, exp_bits, man_bits) + special_values(exp_bits, man_bits, 2))


def fp_multiplier(exp_bits: int, man_bits: int) -> Logic:
    """An IEEE multiplier (``man_bits`` with the hidden bit), as :class:`accelgen.rtl.fp.FPMultiplier` is built:
    the hidden bits, the significands' product, the exponent sum and its bias, :func:`round_pack` of the
    double-width product, and the special values."""
    return (or_tree(exp_bits).times(2) + multiplier(man_bits, man_bits) + adder(exp_bits + 2).times(2)
            + round_pack(2 * man_bits, exp_bits, man_bits) + special_values(exp_bits, man_bits, 2))


def adder_path(bits: int) -> list[str]:
    """Register to register through a ``bits``-bit adder as a timing-driven mapping builds it: the propagate XOR,
    ``log2(bits)`` levels of a carry tree (an AND2 and an OR2 each), the sum XOR. The ripple structure above counts
    its cells; the tree's extra cells are the price of meeting the clock, not counted."""
    return ["DFF_X1", "XOR2_X1"] + ["AND2_X1", "OR2_X1"] * bits_for(bits) + ["XOR2_X1", "DFF_X1"]


@cache
def _power_library():
    return read_power_library(default_liberty())


def clock_network_fj(flops: int, cell_area_um2: float) -> float:
    """Energy per cycle (fJ, at the cell library's node and supply) of the clock network of ``flops`` flip-flops
    (``DFF_X1``) spread over ``cell_area_um2`` of cells, every one clocked: the model the fitted blocks' clock is
    priced with (:func:`accelgen.fit.power.clock_network`, on the cell library these cells come from): each
    flip-flop's clock-pin internal energy and pin capacitance, an H-tree over the block's placed area and the
    buffers that drive it."""
    plib = _power_library()
    dff = plib.cells["DFF_X1"]
    pin_ff = flops * dff.inputs[dff.ff[0]]
    internal_fj = flops * dff.clock_energy_fj(plib.nominal_slew_ps)
    return clock_network(plib, flops, pin_ff, internal_fj, cell_area_um2)["energy_fj"]


def clock_network_pj(tech: TechNode, logic: Logic) -> float:
    """Energy per cycle at ``tech`` of the clock network of ``logic``'s flip-flops (:func:`clock_network_fj`).
    :func:`energy_pj`'s ``clocked_flops`` counts the pins alone (a clock-gated word's flops, where the tree is
    shared with the rest of the block)."""
    fj = clock_network_fj(logic.cells.get("DFF_X1", 0), logic.cell_area_um2_45())
    return fj * 1e-3 * energy_ratio(tech, REF_NM, library_vdd_v())
