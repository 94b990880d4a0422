"""Config loading and validation, Verilog emission with manifests, and the CLI."""

from .blocks import FAMILIES, BlockFamily, family
from .config import BuildConfig, load_build_config, parse_build_config
from .emit import Emitted, emit, render, write

__all__ = ["FAMILIES", "BlockFamily", "BuildConfig", "Emitted", "emit", "family", "load_build_config",
           "parse_build_config", "render", "write"]
