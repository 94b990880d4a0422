"""Synthesis and activity sweeps, datasets, and fitted component models."""

from .synth import SynthStats, synthesize

__all__ = ["SynthStats", "synthesize"]
