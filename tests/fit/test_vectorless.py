"""Vectorless activity (fit/vectorless.py): Najm's transition density on tiny netlists written for the test, against
the closed forms (AND2: P = Pa Pb, D = Pb Da + Pa Db; XOR2: D = Da + Db; an inverter chain keeps D and flips P) and
against the bit-parallel simulation of the same netlist; and the one-line errors of ``accelgen synth --vectorless``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from accelgen.cosim.stimulus import Activity
from accelgen.errors import ConfigError
from accelgen.fit.activity import GateSim
from accelgen.fit.vectorless import Sources, activity_of, propagate, simulate_sources, truth_table

#: a, b (inputs) -> AND2 (4), XOR2 (5), NOT (6), NOT (7); q (8) a flip-flop of the AND, NAND of q and a (9)
NETLIST = {"modules": {"t": {
    "ports": {"clk": {"direction": "input", "bits": [10]}, "a": {"direction": "input", "bits": [2]},
              "b": {"direction": "input", "bits": [3]}, "y": {"direction": "output", "bits": [4]},
              "x": {"direction": "output", "bits": [5]}, "z": {"direction": "output", "bits": [7]},
              "w": {"direction": "output", "bits": [9]}},
    "cells": {"and": {"type": "$_AND_", "connections": {"A": [2], "B": [3], "Y": [4]}},
              "xor": {"type": "$_XOR_", "connections": {"A": [2], "B": [3], "Y": [5]}},
              "inv1": {"type": "$_NOT_", "connections": {"A": [4], "Y": [6]}},
              "inv2": {"type": "$_NOT_", "connections": {"A": [6], "Y": [7]}},
              "ff": {"type": "$_DFF_P_", "connections": {"C": [10], "D": [4], "Q": [8]}},
              "nand": {"type": "$_NAND_", "connections": {"A": [8], "B": [2], "Y": [9]}}}}}}


def test_and_xor_inverter_chain_closed_forms():
    pa, da, pb, db = 0.3, 0.2, 0.8, 0.05
    prob, dens = propagate(GateSim(NETLIST, "t"), Sources(toggle_rate=0.1, static_prob=0.5,
                                                          ports={"a": (pa, da), "b": (pb, db)}))
    assert prob[4] == pytest.approx(pa * pb) and dens[4] == pytest.approx(pb * da + pa * db)
    assert prob[5] == pytest.approx(pa * (1 - pb) + pb * (1 - pa)) and dens[5] == pytest.approx(da + db)
    assert (prob[6], prob[7]) == pytest.approx((1 - pa * pb, pa * pb)) and dens[6] == dens[7] == dens[4]
    # the flip-flop output is a source at the given rate, whatever its D input does; NAND: D = Pa Dq + Pq Da
    assert (prob[8], dens[8]) == (0.5, 0.1)
    assert prob[9] == pytest.approx(1 - 0.5 * pa) and dens[9] == pytest.approx(pa * 0.1 + 0.5 * da)


def test_held_port_and_constants():
    prob, dens = propagate(GateSim(NETLIST, "t"), Sources(toggle_rate=0.2, static_prob=0.5, held={"b": 1}))
    assert (prob[3], dens[3]) == (1.0, 0.0)
    assert (prob[4], dens[4]) == pytest.approx((0.5, 0.2))      # a AND 1 = a
    assert (prob[0], prob[1], dens[0], dens[1]) == (0.0, 1.0, 0.0, 0.0)


def test_truth_table_of_a_mux():
    def mux(v):
        return (v[0] & ~v[2]) | (v[1] & v[2])
    # minterm m: A = bit 0, B = bit 1, S = bit 2
    assert truth_table(mux, 3).tolist() == [0, 1, 0, 1, 0, 0, 1, 1]


def test_density_agrees_with_simulation_without_reconvergence():
    """Independent inputs toggling with probability r per cycle: the simulated toggles of the AND, XOR and the
    inverter chain agree with the densities to O(r^2) (two inputs toggling in the same cycle)."""
    rate, cycles, lanes = 0.05, 600, 64
    rng = np.random.default_rng(7)
    stims = []
    for _ in range(lanes):
        cols = {}
        for port in ("a", "b"):
            start = rng.random() < 0.5
            cols[port] = np.logical_xor.accumulate(np.r_[start, rng.random(cycles - 1) < rate]).astype(np.int64)
        stims.append(Activity(cols, ops=cycles, per="cycle", warmup=2))
    sim = GateSim(NETLIST, "t")
    weights = np.zeros(sim.n_nets)
    weights[[4, 5, 7]] = (1.0, 10.0, 100.0)
    simulated = sim.run(stims, weights={"w": weights})["weighted_per_cycle"]["w"]
    propagated = activity_of(sim, Sources(toggle_rate=rate, static_prob=0.5), {"w": weights})
    # AND 0.05, XOR 0.1, chain 0.05: 0.05 + 1 + 5 = 6.05 weighted toggles per cycle
    assert propagated["w"] == pytest.approx(0.05 + 10 * 0.1 + 100 * 0.05)
    assert simulated == pytest.approx(propagated["w"], rel=0.1)


def test_simulated_sources_match_the_densities_on_a_tree():
    """The simulation propagation (DC's) gives the closed forms on a netlist without reconvergence, to O(D^2) (two
    inputs toggling in one cycle) and sampling (25,600 samples a net); the flip-flop output is a source at 0.1."""
    sim = GateSim(NETLIST, "t")
    sources = Sources(ports={"a": (0.3, 0.2), "b": (0.8, 0.05)})
    _, dens = propagate(sim, sources)
    nets = (4, 5, 7, 8, 9)
    unit = {f"n{b}": np.eye(sim.n_nets)[b] for b in nets}
    simulated = simulate_sources(sim, sources, unit)
    for b in nets:
        assert simulated[f"n{b}"] == pytest.approx(dens[b], rel=0.1), b
    assert simulated["n8"] == pytest.approx(0.1, rel=0.05)


def test_reconvergence_density_over_counts_simulation_does_not():
    """x = a XOR BUF(a) is constant 0: the simulation sees no toggle; the density, taking the XOR's inputs as
    independent, counts both (Da + Da)."""
    netlist = {"modules": {"r": {
        "ports": {"a": {"direction": "input", "bits": [2]}, "x": {"direction": "output", "bits": [4]}},
        "cells": {"buf": {"type": "$_BUF_", "connections": {"A": [2], "Y": [3]}},
                  "xor": {"type": "$_XOR_", "connections": {"A": [2], "B": [3], "Y": [4]}}}}}}
    sim = GateSim(netlist, "r")
    sources = Sources(toggle_rate=0.3)
    assert propagate(sim, sources)[1][4] == pytest.approx(0.6)
    assert simulate_sources(sim, sources, {"x": np.eye(sim.n_nets)[4]})["x"] == 0.0


def test_bad_sources_are_one_line_errors():
    with pytest.raises(ConfigError, match=r"--toggle-rate: 2\.5 is not allowed; expected toggles per clock cycle in 0\.\.2"):
        Sources(toggle_rate=2.5)
    with pytest.raises(ConfigError, match=r"--static-prob: -0\.1 is not allowed; expected a probability in 0\.\.1"):
        Sources(static_prob=-0.1)
    with pytest.raises(ConfigError, match=r"--propagation: 'bdd' is not allowed; expected one of simulation, density"):
        Sources(propagation="bdd")


def test_cli_vectorless_errors(accelgen_main, tmp_path):
    adder = Path(__file__).resolve().parents[1] / "data" / "external" / "reg_adder.v"
    base = ("synth", str(adder), "--top", "reg_adder")
    for args, message in (
            (("--toggle-rate", "0.2"), "--toggle-rate: 0.2 is not allowed without --vectorless"),
            (("--vectorless", "--toggle-rate", "3"), "--toggle-rate: 3.0 is not allowed; expected toggles per "
                                                      "clock cycle in 0..2"),
            (("--vectorless", "--static-prob", "1.5"), "--static-prob: 1.5 is not allowed; expected a probability"),
            (("--propagation", "density"), "--propagation: 'density' is not allowed without --vectorless"),
            (("--vectorless", "--activity", "0.1"), "--vectorless: give --vectorless or --activity/--stimulus"),
            (("--vectorless", "--hold", "clk=1"), "--hold: 'clk' is not a data or reset input of reg_adder")):
        r = accelgen_main(*base, *args, cwd=tmp_path)
        assert r.returncode == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
