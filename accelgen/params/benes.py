"""Parameters of the Benes distribution network (:class:`accelgen.rtl.benes.Benes`)."""

from __future__ import annotations

from pydantic import Field, model_validator

from .base import BlockParams, check_power_of_two, exact_log2

__all__ = ["BenesParams", "CTRL_WORD_SWITCHES"]

#: switches per word of the ``ctrl`` port array (2 bits each, so words are at most 64 bits)
CTRL_WORD_SWITCHES = 32


class BenesParams(BlockParams):
    """Parameters of :class:`~accelgen.rtl.benes.Benes`: ``n`` ports (a power of two in 2..256) of ``width``
    bits. ``pipeline_every`` 0: purely combinational (no clock or reset ports); ``r > 0``: a register after
    every ``r``-th switch stage (after stages ``r-1, 2r-1, ...``, including the last stage when ``r``
    divides the stage count)."""

    block = "benes"

    n: int = Field(8, ge=2, le=256, description="number of ports, a power of two")
    width: int = Field(16, ge=1, le=64, description="word width in bits")
    pipeline_every: int = Field(0, ge=0, le=15, description="register after every this many switch stages; "
                                                           "0: combinational (no clock)")

    @model_validator(mode="after")
    def _check_cross_fields(self) -> "BenesParams":
        check_power_of_two("n", self.n, "2, 4, 8, 16, 32, 64, 128, 256")
        if self.pipeline_every > self.stages:
            raise ValueError(f"pipeline_every={self.pipeline_every} exceeds the {self.stages} stages of an "
                             f"n={self.n} network; allowed: 0..{self.stages}")
        return self

    @property
    def log2n(self) -> int:
        return exact_log2(self.n)

    @property
    def stages(self) -> int:
        """Switch stages: ``2 log2 n - 1``."""
        return 2 * self.log2n - 1

    @property
    def switches_per_stage(self) -> int:
        return self.n // 2

    @property
    def ctrl_words_per_stage(self) -> int:
        return -(-self.switches_per_stage // CTRL_WORD_SWITCHES)

    @property
    def ctrl_word_width(self) -> int:
        return 2 * min(self.switches_per_stage, CTRL_WORD_SWITCHES)

    def registered_after(self, stage: int) -> bool:
        return self.pipeline_every > 0 and (stage + 1) % self.pipeline_every == 0

    @property
    def latency(self) -> int:
        """Cycles from ``data_in``/``ctrl`` to ``data_out``: ``stages // pipeline_every`` (0 if unpipelined)."""
        return self.stages // self.pipeline_every if self.pipeline_every else 0
