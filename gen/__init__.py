"""Configuration and emission: build-config schemas, Verilog rendering and writing, manifests."""

from .config import BuildConfig, load_build_config, parse_build_config
from .emit import Emitted, emit, render, write

__all__ = ["BuildConfig", "Emitted", "emit", "load_build_config", "parse_build_config", "render", "write"]
