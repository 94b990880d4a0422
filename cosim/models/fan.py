"""Golden models of the reduction networks: segmented sums by vecID, in plain Python integers."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cluster:
    """One reduced cluster: inputs ``start..end`` (inclusive) share ``vec_id``."""

    start: int
    end: int
    vec_id: int
    total: int
    valid: bool


def segmented_sums(values, vec_ids, valid) -> list[Cluster]:
    """Sum every maximal run of adjacent inputs with equal vecID.

    Invalid inputs count as 0 but still belong to their run; a cluster is
    valid when at least one of its inputs is. Sums are exact integers.
    """
    out: list[Cluster] = []
    n = len(values)
    start = 0
    for i in range(1, n + 1):
        if i == n or int(vec_ids[i]) != int(vec_ids[start]):
            members = range(start, i)
            total = sum(int(values[j]) for j in members if valid[j])
            out.append(Cluster(start, i - 1, int(vec_ids[start]), total, any(bool(valid[j]) for j in members)))
            start = i
    return out


def dot_sum(values, valid) -> tuple[int, bool]:
    """The plain adder tree's job: the sum of the valid inputs, and whether any was valid."""
    return sum(int(x) for x, v in zip(values, valid) if v), any(bool(v) for v in valid)
