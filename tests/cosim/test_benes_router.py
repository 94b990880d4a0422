"""The Benes router alone (looping algorithm, multicast passes) and the network models."""

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accelgen.cosim.benes_router import (BCAST_LOWER, BCAST_UPPER, CROSS, PASS, ctrl_words, route,
                                         route_permutation, simulate, stages)
from accelgen.golden.benes import benes_reference, deliver, random_multicast

sizes = st.sampled_from([2, 4, 8, 16, 32, 64, 128, 256])


@settings(max_examples=300, deadline=None)
@given(sizes.flatmap(lambda n: st.permutations(range(n))))
def test_every_permutation_routes_in_one_pass(perm):
    n = len(perm)
    r = route(perm)
    assert r.passes == 1
    words = [f"w{i}" for i in range(n)]
    # checked with the naive recursive model, not the router's own simulator
    assert benes_reference(r.settings[0], words) == deliver(perm, words)


@settings(max_examples=200, deadline=None)
@given(sizes.flatmap(lambda n: st.lists(st.integers(-1, n - 1), min_size=n, max_size=n)))
def test_any_multicast_is_delivered_with_reported_passes(sources):
    n = len(sources)
    r = route(sources)
    fanout = max([sources.count(s) for s in set(sources) if s >= 0], default=1)
    assert r.passes == fanout
    words = [f"w{i}" for i in range(n)]
    delivered = [None] * n
    for settings_, sub in zip(r.settings, r.delivers):
        out = benes_reference(settings_, words)
        for d, s in enumerate(sub):
            if s >= 0:
                assert out[d] == words[s]
                delivered[d] = out[d]
    assert delivered == deliver(sources, words)


@settings(max_examples=100, deadline=None)
@given(sizes.flatmap(lambda n: st.lists(st.integers(0, 3), min_size=stages(n) * n // 2,
                                        max_size=stages(n) * n // 2).map(lambda c, n=n: (n, c))))
def test_router_simulator_matches_naive_model_for_any_settings(case):
    n, codes = case
    settings_ = np.array(codes, dtype=np.uint8).reshape(stages(n), n // 2)
    assert simulate(settings_, np.arange(n)).tolist() == benes_reference(settings_, list(range(n)))


def test_switch_codes():
    # one switch: n = 2
    for code, want in [(PASS, ["a", "b"]), (CROSS, ["b", "a"]), (BCAST_UPPER, ["a", "a"]), (BCAST_LOWER, ["b", "b"])]:
        assert benes_reference([[code]], ["a", "b"]) == want
        assert simulate(np.array([[code]]), np.array(["a", "b"])).tolist() == want


def test_two_port_degenerate():
    assert route([1, 0]).settings[0].tolist() == [[CROSS]]
    assert route([0, 1]).settings[0].tolist() == [[PASS]]
    assert route([0, 0]).passes == 2


def test_dont_care_outputs():
    r = route([-1, 3, -1, 0])
    assert r.passes == 1 and r.delivers[0].tolist() == [-1, 3, -1, 0]


def test_ctrl_words_layout():
    s = np.zeros((stages(128), 64), dtype=np.uint8)
    s[2, 33] = CROSS
    s[0, 0] = BCAST_UPPER
    words = ctrl_words(s)
    assert len(words) == stages(128) * 2
    assert words[0] == BCAST_UPPER
    assert words[2 * 2 + 1] == CROSS << 2


@pytest.mark.parametrize("sources,match", [
    ([0, 1, 2], r"n=3 is not allowed; expected a power of two >= 2"),
    ([0, 4, 1, 2], r"sources entry 4 is not allowed; expected -1 \(don't care\) or an input 0\.\.3"),
    ([0, -2], r"sources entry -2 is not allowed"),
])
def test_bad_requests(sources, match):
    with pytest.raises(ValueError, match=match):
        route(sources)


def test_permutation_router_rejects_multicast():
    with pytest.raises(ValueError, match=r"input 1 is requested by several outputs; a multicast needs route\(\)"):
        route_permutation([1, 1, 0, 2])


def test_router_never_returns_a_wrong_route(monkeypatch):
    """If the looping algorithm produced wrong settings, the self-check must refuse them."""
    import accelgen.cosim.benes_router as br
    real = br._route_full

    def broken(perm, settings_, depth, index, k):
        real(perm, settings_, depth, index, k)
        settings_[0, 0] ^= CROSS

    monkeypatch.setattr(br, "_route_full", broken)
    with pytest.raises(RuntimeError, match="failed its own check"):
        br.route(list(range(8))[::-1])


def test_256_ports_route_in_milliseconds():
    rng = np.random.default_rng(0)
    perms = [rng.permutation(256) for _ in range(20)]
    t0 = time.perf_counter()
    for p in perms:
        route(p)
    per = (time.perf_counter() - t0) / len(perms)
    assert per < 0.05, f"{per * 1e3:.1f} ms per 256-port permutation"
    mc = random_multicast(256, rng)
    t0 = time.perf_counter()
    r = route(mc)
    assert time.perf_counter() - t0 < 0.05 * r.passes
