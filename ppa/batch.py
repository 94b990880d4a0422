"""Batch evaluation: chip-level area, TDP and peak TOPS of many design points at once (numpy arrays).

Design points: ``cores`` x ``units`` tensor units of ``rows x cols`` (fitted
``systolic`` model), one on-chip SRAM of ``sram_bytes`` per core (``sram_batch``,
evaluated once per distinct SRAM configuration and broadcast back), at
``node_nm`` and ``clock_mhz``, plus a white-space fraction. All arguments
broadcast (numpy rules).
"""

from __future__ import annotations

import numpy as np

from .components import FittedCompute
from .sram import sram_batch


def evaluate_batch(*, rows, cols, units=1, cores=1, sram_bytes, node_nm, clock_mhz, a_width=8, b_width=8,
                   acc_width=32, dataflow="ws", block_bytes=64, sram_banks=4, white_space_fraction=0.1,
                   model_paths: dict | None = None) -> dict[str, np.ndarray]:
    rows, cols, units, cores, sram_bytes, node_nm, clock_mhz = np.broadcast_arrays(
        *(np.asarray(x, dtype=float) for x in (rows, cols, units, cores, sram_bytes, node_nm, clock_mhz)))
    fc = FittedCompute(model_paths)
    model = fc.model("systolic", "batch.systolic")
    inputs = {k: v for k, v in {"rows": rows, "cols": cols, "dataflow": dataflow, "a_width": a_width,
                                "b_width": b_width, "acc_width": acc_width}.items() if k in model.inputs}
    tu = model.predict(node_nm=node_nm, **inputs)
    key = np.stack([sram_bytes.ravel(), node_nm.ravel()], axis=1)
    uniq, inv = np.unique(key, axis=0, return_inverse=True)
    s = sram_batch(uniq[:, 0], block_bytes, sram_banks, uniq[:, 1], cell="sram_lp")
    s = {k: v[inv.ravel()].reshape(rows.shape) for k, v in s.items()}
    macs = rows * cols * units
    f_ghz = clock_mhz * 1e-3
    area_core = units * tu["area_um2"] + s["area_um2"]
    dyn_mw_core = (macs * tu.get("energy_pj", 0.0) + sram_banks * 0.5 * (s["read_energy_pj"] + s["write_energy_pj"])) \
        * f_ghz
    leak_mw_core = units * tu.get("leakage_uw", 0.0) * 1e-3 + s["leakage_mw"]
    area_mm2 = cores * area_core * 1e-6 / (1.0 - white_space_fraction)
    return {"area_mm2": area_mm2, "tdp_w": cores * (dyn_mw_core + leak_mw_core) * 1e-3,
            "peak_tops": 2.0 * macs * cores * clock_mhz * 1e-6}
