"""``validate-chips``: estimate every shipped chip (:mod:`accelgen.shipped` kind ``chips``, package data
``accelgen/ppa/chips/*.yaml``, copies in ``examples/arch/``) and compare with the published area and power
stored in its ``published:`` block (same technology constants for every chip; no per-chip correction factor;
only each chip's stated white-space fraction)."""

from __future__ import annotations

from pathlib import Path

from .. import shipped
from ..errors import AccelgenError
from .arch import load_arch
from .estimate import estimate


def validate_chips(directory: str | Path | None = None, model_paths: dict | None = None) -> list[dict]:
    """One row per chip of ``directory`` (``*.yaml``; default: the shipped chips)."""
    if directory is None:
        paths = [shipped.path("chips", name) for name in shipped.names("chips")]
    else:
        paths = sorted(Path(directory).glob("*.yaml"))
    rows = []
    for path in paths:
        arch = load_arch(path)
        row = {"chip": arch.name, "file": path.name, "source": arch.sources.get("paper", "")}
        try:
            est = estimate(arch, model_paths=model_paths)
        except AccelgenError as exc:
            row["error"] = str(exc)
            rows.append(row)
            continue
        pub = arch.published
        row.update(area_mm2=est.area_mm2, power_w=est.tdp_w, peak_tops=est.peak_tops, clock_mhz=est.clock_mhz,
                   published_area_mm2=pub.get("area_mm2", float("nan")),
                   published_power_w=pub.get("power_w", float("nan")),
                   published_tops=pub.get("tops", float("nan")))
        row["area_err_pct"] = 100.0 * (est.area_mm2 / row["published_area_mm2"] - 1.0)
        row["power_err_pct"] = 100.0 * (est.tdp_w / row["published_power_w"] - 1.0)
        rows.append(row)
    return rows
