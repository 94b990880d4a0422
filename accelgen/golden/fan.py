"""Golden models of the reduction networks: segmented sums by vecID.

Integers (``dtype="int"``) are summed exactly in plain Python integers; the
association order does not matter. With ``dtype="fp32"`` the values are fp32
bit patterns (``uint32``) and every addition is one IEEE-754 binary32 addition
with round-to-nearest-even (:func:`accelgen.golden.fp.fp_add`), so the
result depends on the association order, which is part of each network's
specification and is reproduced here exactly:

``order="fan"`` — SIGMA's Forwarding Adder Network (Qin et al., SIGMA, HPCA 2020, sect. IV-A, Fig. 6a). Adder
``i`` (0..n-2) sits between inputs ``i`` and ``i+1``; its level ``L`` is the
number of trailing one bits of ``i``, so it is the root of the in-order subtree
over inputs ``i-2**L+1 .. i+2**L`` whose left half ends at ``i`` and whose right
half starts at ``i+1``. Adder ``i`` adds (when ``vecID[i] == vecID[i+1]``) the
cluster's partial sum over its left half to the cluster's partial sum over its
right half; the forwarding links deliver those partial sums from whichever
adder of the half produced them (level 0 bypasses single inputs upward).
Hence the sum of a cluster ``s..e`` (``s < e``) is::

    h = the adder of highest level among s..e-1      (unique: the cluster's top adder)
    fan_sum(s, e) = fan_sum(s, h) + fan_sum(h+1, e)    (one fp32 addition, RNE)
    fan_sum(i, i) = value[i]                          (a single input, bypassed bit-exactly)

e.g. for n = 8 the cluster 1..6 is ``(x1 + (x2 + x3)) + ((x4 + x5) + x6)``: top
adder 3 (level 2), left half 1..3 split at adder 1 (level 1), right half 4..6
split at adder 5 (level 1), and so on down.

``order="linear"`` — the chain (:class:`~accelgen.rtl.fan.FanLinear`): left to right,
``((x_s + x_{s+1}) + x_{s+2}) + ...``; the first input of a cluster is taken as it is.

``order="tree"`` — the plain adder tree (:class:`~accelgen.rtl.fan.AdderTree`), all ``n``
inputs, level by level: level 1 adds pairs ``(x0, x1), (x2, x3), ...``, level 2 pairs of
those, and so on.

Cycle model (closed form, :func:`fan_latency`, :func:`linear_latency`, :func:`tree_latency`):
every network takes a new vector every cycle and presents all its results a fixed
number of cycles later, one input register stage plus, per adder the results
pass, the ``add_stages`` registers inside the adder and one output register;
the chain registers once per ``stage_adders`` adders. Everything that bypasses
an adder is delayed alike, so the results do not depend on ``add_stages``.

Invalid inputs enter every network as the value 0 (the input registers mask them):
integer 0, or fp32 +0.0 (bit pattern 0) at their position in the order. They
do not split clusters. A singleton cluster (and a bypassed input in general)
is passed bit-exactly, so an input NaN keeps its payload there; a NaN out of
any adder is the canonical quiet NaN 0x7FC00000.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..params.fan import AdderTreeParams, FanLinearParams, FANParams
from .fp import is_recording, record_add

__all__ = ["Cluster", "segmented_sums", "dot_sum", "fan_top_adder", "fan_order_sum", "linear_order_sum",
           "tree_order_sum", "ORDERS", "fp32_add", "fan_latency", "linear_latency", "tree_latency"]

ORDERS = ("fan", "linear", "tree")


def _log2(n: int) -> int:
    if n < 2 or n & (n - 1):
        raise ValueError(f"n={n!r} is not allowed; allowed: a power of two >= 2")
    return n.bit_length() - 1


def fan_latency(n: int, add_stages: int = 0) -> int:
    """Cycles from a vector at the FAN's inputs to its cluster sums at the outputs:
    ``1 + log2 n * (1 + add_stages)`` (:attr:`accelgen.params.fan.FANParams.latency`)."""
    _log2(n)
    return FANParams.model_construct(n=n, add_stages=add_stages).latency


def tree_latency(n: int, add_stages: int = 0) -> int:
    """The plain adder tree's latency, as :func:`fan_latency` (:attr:`accelgen.params.fan.AdderTreeParams.latency`)."""
    _log2(n)
    return AdderTreeParams.model_construct(n=n, add_stages=add_stages).latency


def linear_latency(n: int, stage_adders: int = 1, add_stages: int = 0) -> int:
    """The linear chain's latency: ``1 + ceil((n-1) / stage_adders) + (n-1) * add_stages``
    (:attr:`accelgen.params.fan.FanLinearParams.latency`)."""
    _log2(n)
    return FanLinearParams.model_construct(n=n, stage_adders=stage_adders, add_stages=add_stages).latency


@dataclass(frozen=True)
class Cluster:
    """One reduced cluster: inputs ``start..end`` (inclusive) share ``vec_id``.

    ``total`` is an exact integer (``dtype="int"``) or the fp32 bit pattern of the sum."""

    start: int
    end: int
    vec_id: int
    total: int
    valid: bool


def _ones(i: int) -> int:
    t = 0
    while i >> t & 1:
        t += 1
    return t


def fan_top_adder(start: int, end: int) -> int:
    """The top adder of cluster ``start..end`` (``start < end``): the one of highest level among
    ``start..end-1`` (the cluster's output slot in the FAN)."""
    return max(range(start, end), key=_ones)


_F32 = np.dtype(np.float32)


def fp32_add(a: int, b: int) -> int:
    """One fp32 addition of two bit patterns: numpy float32 arithmetic (IEEE 754 RNE, subnormals
    exact), a NaN result as the canonical 0x7FC00000 — the scalar form of
    :func:`accelgen.golden.fp.fp_add` (the tests check they agree)."""
    x = np.array([a, b], dtype=np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        s = x[0] + x[1]
    out = 0x7FC0_0000 if s != s else int(np.float32(s).view(np.uint32))
    if is_recording():
        record_add(np.uint32(a), np.uint32(b), np.uint32(out))
    return out


def fan_order_sum(values, start: int, end: int, add=fp32_add):
    """``values[start..end]`` reduced in the FAN's association order (module docstring)."""
    if start == end:
        return values[start]
    h = fan_top_adder(start, end)
    return add(fan_order_sum(values, start, h, add), fan_order_sum(values, h + 1, end, add))


def linear_order_sum(values, start: int, end: int, add=fp32_add):
    """``values[start..end]`` reduced left to right (the linear chain)."""
    acc = values[start]
    for j in range(start + 1, end + 1):
        acc = add(acc, values[j])
    return acc


def tree_order_sum(values, add=fp32_add):
    """All ``values`` (a power of two of them) reduced level by level in pairs (the plain adder tree)."""
    level = list(values)
    while len(level) > 1:
        level = [add(level[2 * i], level[2 * i + 1]) for i in range(len(level) // 2)]
    return level[0]


def _masked(values, valid, dtype):
    if dtype == "int":
        return [int(x) if v else 0 for x, v in zip(values, valid)]
    if dtype != "fp32":
        raise ValueError(f"dtype={dtype!r} is not allowed; allowed: 'int', 'fp32'")
    return [int(x) & 0xFFFF_FFFF if v else 0 for x, v in zip(values, valid)]


def segmented_sums(values, vec_ids, valid, dtype: str = "int", order: str = "fan") -> list[Cluster]:
    """Sum every maximal run of adjacent inputs with equal vecID.

    Invalid inputs count as 0 (fp32: +0.0) but still belong to their run; a
    cluster is valid when at least one of its inputs is. ``dtype="int"``: exact
    integer sums; ``dtype="fp32"``: ``values`` are fp32 bit patterns, summed in the
    network's ``order`` (``"fan"`` or ``"linear"``; module docstring).
    """
    if order not in ("fan", "linear"):
        raise ValueError(f"order={order!r} is not allowed; allowed: 'fan', 'linear'")
    x = _masked(values, valid, dtype)
    out: list[Cluster] = []
    n = len(x)
    start = 0
    for i in range(1, n + 1):
        if i == n or int(vec_ids[i]) != int(vec_ids[start]):
            end = i - 1
            if dtype == "int":
                total = sum(x[start:i])
            elif order == "fan":
                total = fan_order_sum(x, start, end)
            else:
                total = linear_order_sum(x, start, end)
            out.append(Cluster(start, end, int(vec_ids[start]), total, any(bool(valid[j]) for j in range(start, i))))
            start = i
    return out


def dot_sum(values, valid, dtype: str = "int") -> tuple[int, bool]:
    """The plain adder tree's job: the sum of all inputs (invalid ones as 0; fp32: level by level),
    and whether any was valid."""
    x = _masked(values, valid, dtype)
    total = sum(x) if dtype == "int" else tree_order_sum(x)
    return total, any(bool(v) for v in valid)
