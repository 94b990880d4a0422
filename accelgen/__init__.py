"""accelgen: verified Verilog generators and PPA models for ML-accelerator blocks.

One import package; the top-level folders of the repository are its subpackages
(docs/architecture.md has the whole tree and the rules between them):

- :mod:`accelgen.params` block parameter schemas (pydantic, no Amaranth), read by every layer
- :mod:`accelgen.technology` the node table, scaling and FO4, shared by fit and ppa
- :mod:`accelgen.rtl`    Amaranth generators, one module per block family
- :mod:`accelgen.gen`    build-config validation, Verilog + manifest emission
- :mod:`accelgen.cosim`  simulators, cocotb and native testbenches, host drivers, regressions
- :mod:`accelgen.fit`    synthesis / activity sweeps and fitted component models
- :mod:`accelgen.ppa`    architecture-level PPA estimator (never imports Amaranth)
- :mod:`accelgen.golden` golden and cycle models, numpy only (shared by cosim and ppa)
- :mod:`accelgen.cli`    the ``accelgen`` command line, the only place that imports everything
"""

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("accelgen")
except _metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
