"""Zero-delay energy of integer units under other operand statistics than the sweeps' uniform draw (issue 21).

    python bench/int_stimulus.py

The integer sweeps drive operands uniform over their full range (``cosim.stimulus.sparse_ints``); the fp sweeps
draw normal(0, 1). Real network tensors are narrower than their format: quantized values cluster near zero, and
activations after ReLU or a sigmoid are non-negative. If the uniform draw overstated switching, the integer chips
(DianNao, ShiDianNao, Eyeriss, TPU v1) would come out high for that reason. This maps and simulates an 8-bit MAC
cell and a 16-input 16-bit dot product exactly as a sweep point does (``fit.sweep.run_point``: the default library
at 1 GHz, 64 streams of 256 cycles) under four operand streams, each operand zero with probability 1 - density:

* ``uniform``: the sweeps' draw;
* ``normal/4``, ``normal/16``: round(normal(0, s)) with s = full scale / 4 or / 16 (clipped to the format), a
  quantized tensor whose largest values sit at 4 or 16 standard deviations;
* ``relu/4``: as ``normal/4`` with the first operand (the activation) non-negative, |x|.

Prints the zero-delay energy per operation (switching plus clock network) and the clock network's share. The
stimulus functions are swapped in the activity modules for the run (this script only).
"""

from __future__ import annotations

import numpy as np

import accelgen.cosim.dot_product as dot_product_host
import accelgen.cosim.mac as mac_host
from accelgen.cosim.stimulus import sparse_ints
from accelgen.fit import sweep
from accelgen.registry import family

CASES = [("mac", {"a_width": 8, "b_width": 8, "acc_width": 24, "input_reg": True}),
         ("dot_product", {"n": 16, "a_width": 16, "b_width": 16}),
         ("dot_product", {"n": 16, "a_width": 16, "b_width": 16, "mul_stages": 3, "add_stages": 3})]
DENSITIES = [1.0, 0.5]


def normal_ints(scale_div: float, nonnegative_first: bool = False):
    """A ``sparse_ints`` replacement: round(normal(0, full scale / scale_div)); every other call (the first
    operand of each activity table) non-negative when ``nonnegative_first``."""
    calls = [0]

    def draw(rng, n, width, signed, density):
        calls[0] += 1
        hi = (1 << (width - 1)) - 1 if signed else (1 << width) - 1
        lo = -hi - 1 if signed else 0
        x = np.rint(rng.normal(0.0, hi / scale_div, n))
        if not signed or (nonnegative_first and calls[0] % 2 == 1):
            x = np.abs(x)
        x = np.clip(x, lo, hi).astype(np.int64)
        x[rng.random(n) >= density] = 0
        return x
    return draw


STIMULI = {"uniform": sparse_ints, "normal/4": normal_ints(4), "normal/16": normal_ints(16),
           "relu/4": normal_ints(4, nonnegative_first=True)}


def energy(fam_name: str, params: dict) -> dict[float, tuple[float, float]]:
    """``{density: (zero-delay pJ per operation, clock pJ per operation)}`` of one point."""
    job = {"block": family(fam_name), "family": fam_name, "params": params, "split": "bench", "key": "bench",
           "clock_mhz": 1000.0, "densities": DENSITIES, "cycles": 256, "seed": 1, "lanes": 64, "glitch": False}
    r = sweep.run_point(job)
    clock_fj = r["clock"]["energy_fj"]
    return {float(d): ((run["switching_fj"] + clock_fj) / 1000 / run["ops_per_cycle"],
                       clock_fj / 1000 / run["ops_per_cycle"]) for d, run in r["activity"].items()}


def main() -> None:
    print(f"{"unit":70s} {'stimulus':10s} " + " ".join(f"d={d:<4g} pJ" for d in DENSITIES) + "  clock pJ  vs uniform")
    for fam_name, params in CASES:
        label = f"{fam_name} " + ", ".join(f"{k}={v}" for k, v in params.items())
        base = None
        for name, draw in STIMULI.items():
            mac_host.sparse_ints = dot_product_host.sparse_ints = draw
            e = energy(fam_name, params)
            base = base or e
            ratio = e[1.0][0] / base[1.0][0] - 1
            print(f"{label:70s} {name:10s} " + " ".join(f"{e[d][0]:9.2f}" for d in DENSITIES)
                  + f"  {e[1.0][1]:8.2f}  {ratio:+.1%}", flush=True)
    mac_host.sparse_ints = dot_product_host.sparse_ints = sparse_ints


if __name__ == "__main__":
    main()
