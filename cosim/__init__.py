"""Co-simulation of emitted Verilog against golden models (cocotb on Verilator or Icarus)."""

from .run import CosimResult, run_cosim
from .simulators import SIMULATORS, available_simulators, simulator_version
from .vectors import CycleTable

__all__ = ["CosimResult", "CycleTable", "SIMULATORS", "available_simulators", "run_cosim", "simulator_version"]
