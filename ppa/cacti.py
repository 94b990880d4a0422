"""A CACTI 7 binary as an SRAM model (as Accelergy's CACTI plug-in): run it on one configuration.

The analytical model of :mod:`accelgen.ppa.sram` is calibrated against CACTI 7's outputs on a grid
(:mod:`accelgen.ppa.sram_calibration`); a user who has a ``cacti`` binary can have SRAM components
evaluated by it directly (``SRAM(..., cacti=PATH)``, ``accelgen sram --cacti PATH``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..errors import AccelgenError, ToolNotFoundError
from .cacti_cfg import cacti_config, run_cacti
from .sram_ports import PortConfig


def find_cacti(path: str | os.PathLike | None = None) -> Path | None:
    if path:
        return Path(path)
    found = shutil.which("cacti")
    return Path(found) if found else None


def cacti_eval(cacti, capacity_bytes, block_bytes, banks, node_nm, ports: PortConfig) -> dict:
    """Run a CACTI 7 binary on one configuration (same settings as the committed reference grid; ``ports`` as
    CACTI's read/write, exclusive read and exclusive write ports); the fields of
    :class:`accelgen.ppa.sram.SRAMResult`."""
    exe = Path(cacti)
    if not exe.is_file() or not os.access(exe, os.X_OK):
        raise ToolNotFoundError(f"--cacti: {str(exe)!r} is not an executable CACTI binary")
    template = exe.parent / "cache.cfg"
    if not template.is_file():
        raise ToolNotFoundError(f"--cacti: {str(template)!r} (the cache.cfg shipped beside the binary) is missing")
    vals = run_cacti(exe, cacti_config(template.read_text(), capacity_bytes, block_bytes, banks, node_nm, ports.rw,
                                       ports.r, ports.w))
    if vals is None:
        raise AccelgenError(f"cacti found no organization for capacity_bytes={capacity_bytes}, "
                            f"block_bytes={block_bytes}, banks={banks}, node_nm={node_nm}")
    return dict(capacity_bytes=capacity_bytes, block_bytes=block_bytes, banks=banks, node_nm=float(node_nm),
                ports=ports.label,
                area_mm2=vals["height_mm"] * vals["width_mm"], read_energy_pj=vals["read_energy_nj"] * 1e3,
                write_energy_pj=vals["write_energy_nj"] * 1e3, access_time_ns=vals["access_time_ns"],
                cycle_time_ns=vals["cycle_time_ns"], leakage_mw=vals["leakage_mw"] * banks,
                organization={"ndwl": vals["ndwl"], "ndbl": vals["ndbl"], "nspd": vals["nspd"]},
                source=f"CACTI binary {exe}")
