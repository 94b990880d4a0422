"""TensorDash's dense baseline in the estimator: ``core.tensordash.depth: 1`` selects the ``dense`` model variant
(``tensordash_tile-dense``, ``tensordash_tile-dense_fp16``), the performance model counts every MAC as executed,
and a variant that is not shipped is a one-line error naming the depth."""

from __future__ import annotations

import warnings

import pytest

from accelgen.errors import ConfigError
from accelgen.fit.model import FitRangeWarning
from accelgen.ppa import estimate, parse_arch
from accelgen.ppa.components import model_name
from accelgen.ppa.perf import evaluate


def _arch(td: dict) -> dict:
    return {"name": "t", "node_nm": 65, "clock_mhz": 500,
            "core": {"tensordash": {"count": 4, "lanes": 4, "rows": 4, "cols": 4, **td},
                     "memories": [{"name": "buf", "capacity_bytes": 1 << 20, "block_bytes": 64, "banks": 16}]}}


@pytest.mark.parametrize("args, name", [
    (("tensordash_tile", "int"), "tensordash_tile"),
    (("tensordash_tile", "fp16"), "tensordash_tile-fp16"),
    (("tensordash_tile", "int", "dense"), "tensordash_tile-dense"),
    (("tensordash_tile", "bf16", "dense"), "tensordash_tile-dense_bf16"),
])
def test_model_name(args, name):
    assert model_name(*args) == name


@pytest.mark.parametrize("dtype, model", [("int", "tensordash_tile-dense"), ("fp16", "tensordash_tile-dense_fp16"),
                                          ("bf16", "tensordash_tile-dense_bf16")])
def test_depth_one_uses_the_dense_model(dtype, model):
    widths = {"a_width": 8, "b_width": 8, "acc_width": 24} if dtype == "int" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitRangeWarning)
        dense = estimate(parse_arch(_arch({"depth": 1, "dtype": dtype, **widths})))
        td = estimate(parse_arch(_arch({"depth": 4, "dtype": dtype, **widths})))
    assert {t["model"] for t in dense.compute_models} == {model}
    assert {t["model"] for t in td.compute_models} == {model_name("tensordash_tile", dtype)}
    # no staging buffers, operand muxes or scheduler: a smaller tile
    area = lambda e: e.breakdown["children"][0]["area_mm2"]  # noqa: E731
    assert area(dense) < area(td)


def test_dense_tile_multiplies_every_pair():
    """At depth 1 the time and the executed MACs do not depend on the zeros; at depth 4 B's zeros are skipped."""
    wl = lambda d: {"name": "w", "a_width": 16, "b_width": 16, "a_density": 1.0, "b_density": d,  # noqa: E731
                    "layers": [{"name": "g", "type": "gemm", "M": 64, "N": 64, "K": 1024}]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitRangeWarning)
        dense, td = (parse_arch(_arch({"depth": depth, "dtype": "fp16"})) for depth in (1, 4))
        d_full, d_sparse = evaluate(dense, wl(1.0)).layers[0], evaluate(dense, wl(0.3)).layers[0]
        t_sparse = evaluate(td, wl(0.3)).layers[0]
    assert d_sparse["compute_time_s"] == d_full["compute_time_s"]
    assert d_sparse["executed_macs"] == d_full["executed_macs"] == 64 * 64 * 1024
    assert t_sparse["compute_time_s"] < d_sparse["compute_time_s"] / 2
    assert t_sparse["executed_macs"] == pytest.approx(0.3 * 64 * 64 * 1024)


def test_missing_dense_variant_names_the_depth():
    """Single PEs (rows 1) have no dense model: the error names the depth and the model to fit, on one line."""
    arch = _arch({"depth": 1, "rows": 1})
    with pytest.raises(ConfigError, match=r"core\.tensordash\.depth: 1 needs the fitted model variant "
                                          r"'tensordash_pe-dense', which is not shipped; fit it with "
                                          r"`accelgen sweep tensordash_pe-dense && accelgen fit tensordash_pe-dense"):
        estimate(parse_arch(arch))


def test_depth_zero_is_refused():
    with pytest.raises(ConfigError, match=r"core\.tensordash\.depth"):
        parse_arch(_arch({"depth": 0}))
