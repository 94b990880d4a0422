"""accelgen: verified Verilog generators and PPA models for ML-accelerator blocks.

Subpackages (each a top-level folder of the repository):

- :mod:`accelgen.rtl`   Amaranth generators, one module per block family
- :mod:`accelgen.gen`   config validation, Verilog + manifest emission, the CLI
- :mod:`accelgen.cosim` golden models, cocotb testbenches, simulator runner
- :mod:`accelgen.fit`   synthesis / activity sweeps and fitted component models
- :mod:`accelgen.ppa`   architecture-level PPA estimator (never imports Amaranth)
"""

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("accelgen")
except _metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
