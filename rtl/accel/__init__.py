"""The generated accelerator: a weight-stationary systolic tensor unit with banked scratchpad and accumulator
memories, a DMA over an AXI4 master, a command queue and an activation stage (:class:`Accelerator`; parameters and
command set: :mod:`accelgen.params.accel`)."""

from .top import Accelerator

__all__ = ["Accelerator"]
