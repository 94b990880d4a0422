"""cocotb testbenches. These modules are imported inside the simulator process."""
