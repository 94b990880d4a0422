"""Benes parameter validation, ports and latency."""

import pytest

from accelgen.rtl import Benes


@pytest.mark.parametrize("n,every,latency", [(2, 0, 0), (2, 1, 1), (8, 0, 0), (8, 1, 5), (8, 2, 2), (8, 5, 1),
                                             (256, 4, 3), (256, 15, 1)])
def test_latency(n, every, latency):
    assert Benes(n=n, pipeline_every=every).latency == latency


@pytest.mark.parametrize("n,words,word_width", [(2, 1, 2), (8, 5, 8), (64, 11, 64), (128, 26, 64), (256, 60, 64)])
def test_ctrl_bus_layout(n, words, word_width):
    b = Benes(n=n)
    ctrl = b.signature.members["ctrl"]
    assert ctrl.dimensions == (words,)
    assert b.params.ctrl_word_width == word_width


@pytest.mark.parametrize("kw,match", [
    ({"n": 12}, r"n=12 is not a power of two; allowed: 2, 4, 8, 16, 32, 64, 128, 256"),
    ({"n": 512}, r"benes\.n: 512 is not allowed; expected an integer in 2\.\.256"),
    ({"width": 65}, r"width: 65 is not allowed; expected an integer in 1\.\.64"),
    ({"n": 4, "pipeline_every": 4}, r"pipeline_every=4 exceeds the 3 stages of an n=4 network; allowed: 0\.\.3"),
])
def test_impossible_values_raise_value_error(kw, match):
    with pytest.raises(ValueError, match=match):
        Benes(**kw)


def test_wrong_type_raises_type_error():
    with pytest.raises(TypeError, match=r"benes\.n: '8' is not allowed"):
        Benes(n="8")
