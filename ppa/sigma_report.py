"""SIGMA efficiency study: one Flex-DPE of ``k`` multipliers running GEMM shapes at sparsities.

A performance-model study on :mod:`accelgen.golden.flexdpe` (the cycle model that cosim proves on
the emitted Verilog): random bitmaps at the given fractions of zeros go through the sparsity
controller's mapping (:func:`~accelgen.golden.flexdpe.sigma_cycles`), and each (shape, sparsity
pair) gives the loading / streaming / add cycles and SIGMA's efficiencies.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from ..golden.flexdpe import random_bitmap, sigma_cycles

__all__ = ["DEFAULT_GEMMS", "DEFAULT_SPARSITY_PAIRS", "K_VALUES", "benes_stages", "sigma_report"]

#: multipliers per Flex-DPE the study offers (powers of two)
K_VALUES = (4, 8, 16, 32, 64, 128, 256)
#: ``(M, N, K)`` shapes: square, tall, wide, matrix-vector both ways, odd sizes, a thin K
DEFAULT_GEMMS = ((64, 64, 64), (128, 16, 64), (16, 128, 256), (1, 256, 256), (256, 1, 64), (50, 70, 300), (512, 8, 4))
#: ``(sparsity of A (inputs), sparsity of B (weights))``: fractions of zeros
DEFAULT_SPARSITY_PAIRS = ((0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.8, 0.3), (0.3, 0.8), (0.9, 0.9), (0.95, 0.95))


def benes_stages(k: int) -> int:
    """Stages of the ``k``-port Benes network of a Flex-DPE (``2 log2 k - 1``)."""
    return 2 * (int(k).bit_length() - 1) - 1


def sigma_report(k: int = 32, gemms: Iterable[tuple[int, int, int]] = DEFAULT_GEMMS,
                 pairs: Iterable[tuple[float, float]] = DEFAULT_SPARSITY_PAIRS, stationary: str = "auto",
                 seed: int = 1, benes_pipeline_every: int = 0) -> list[dict]:
    """One row per (shape, sparsity pair): the model's cycles and efficiencies on random bitmaps.

    Each row holds ``M``, ``N``, ``K``, ``sparsity_a``, ``sparsity_b``, every field of
    :class:`~accelgen.golden.flexdpe.SigmaCycles` (stationary choice, folds, Flex-DPEs, cycles,
    useful MACs, utilization and efficiencies) and ``dense_macs``. ``stationary="auto"`` takes the
    faster operand; ``benes_pipeline_every`` (``0..benes_stages(k)``) adds Benes pipeline registers
    to the add latency; ``seed`` seeds the bitmaps (all rows draw from one generator, in order).
    """
    if not 0 <= benes_pipeline_every <= benes_stages(k):
        raise ValueError(f"benes_pipeline_every={benes_pipeline_every!r} is not allowed; expected 0.."
                         f"{benes_stages(k)} (the Benes stages of k={k})")
    pairs = list(pairs)
    rng = np.random.default_rng(seed)
    rows = []
    for M, N, K in gemms:
        for sa, sb in pairs:
            a = random_bitmap((M, K), sa, rng)
            b = random_bitmap((K, N), sb, rng)
            c = sigma_cycles(a, b, k, stationary, benes_pipeline_every)
            rows.append({"M": M, "N": N, "K": K, "sparsity_a": sa, "sparsity_b": sb, **c.as_dict(),
                         "dense_macs": M * N * K})
    return rows
