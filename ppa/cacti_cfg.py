"""CACTI 7 configuration text and output fields (for ``--cacti`` evaluation and the reference grid).

Only configuration *settings* live here, no CACTI code: each configuration
starts from the ``cache.cfg`` that ships with CACTI (its defaults: itrs-hp cells
and peripherals, 360 K, design objective 0:0:0:100:0 with deviation
20:100000:100000:100000:100000) and changes only the cache type (``"ram"``:
scratchpad, no tag array), associativity 1, the ports, the size, the block size,
the bank count, the technology and the output bus width (= block size in bits).

Ports are CACTI's four counts: ``-read-write port`` (``rw``), ``-exclusive read port`` (``r``),
``-exclusive write port`` (``w``) and ``-single ended read ports`` (those of the exclusive read ports
that read through one bit line, an 8T-style cell; CACTI counts them among the read ports).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

CACTI_FIELDS = {
    "access_time_ns": r"Access time \(ns\):\s*([0-9.eE+-]+)",
    "cycle_time_ns": r"Cycle time \(ns\):\s*([0-9.eE+-]+)",
    "read_energy_nj": r"Total dynamic read energy per access \(nJ\):\s*([0-9.eE+-]+)",
    "write_energy_nj": r"Total dynamic write energy per access \(nJ\):\s*([0-9.eE+-]+)",
    "leakage_mw": r"Total leakage power of a bank \(mW\):\s*([0-9.eE+-]+)",
    "gate_leakage_mw": r"Total gate leakage power of a bank \(mW\):\s*([0-9.eE+-]+)",
    "height_mm": r"Cache height x width \(mm\):\s*([0-9.eE+-]+) x",
    "width_mm": r"Cache height x width \(mm\):\s*[0-9.eE+-]+ x ([0-9.eE+-]+)",
    "ndwl": r"Best Ndwl :\s*(\d+)",
    "ndbl": r"Best Ndbl :\s*(\d+)",
    "nspd": r"Best Nspd :\s*([0-9.]+)",
}


def cacti_config(template: str, size: int, block: int, banks: int, node: float, ports: int = 1,
                 read_ports: int = 0, write_ports: int = 0, se_read_ports: int = 0) -> str:
    """The ``cache.cfg`` text for one scratchpad configuration (see module doc); ``ports`` read/write ports,
    ``read_ports`` / ``write_ports`` exclusive ones, ``se_read_ports`` of the read ports single-ended."""
    subs = [
        (r"^-size \(bytes\).*$", f"-size (bytes) {size}"),
        (r"^-block size \(bytes\).*$", f"-block size (bytes) {block}"),
        (r"^-associativity.*$", "-associativity 1"),
        (r"^-read-write port.*$", f"-read-write port {ports}"),
        (r"^-exclusive read port.*$", f"-exclusive read port {read_ports}"),
        (r"^-exclusive write port.*$", f"-exclusive write port {write_ports}"),
        (r"^-single ended read ports.*$", f"-single ended read ports {se_read_ports}"),
        (r"^-UCA bank count.*$", f"-UCA bank count {banks}"),
        (r"^-technology \(u\).*$", f"-technology (u) {node / 1000:.3f}"),
        (r"^-cache type.*$", '-cache type "ram"'),
        (r"^-output/input bus width.*$", f"-output/input bus width {block * 8}"),
    ]
    for pat, rep in subs:
        template, n = re.subn(pat, rep, template, flags=re.M)
        if n != 1:
            raise ValueError(f"cache.cfg template: pattern {pat!r} matched {n} times (not CACTI 7's cache.cfg?)")
    return template


def run_cacti(exe: Path, config: str, timeout: float = 600) -> dict[str, float] | None:
    """Run the CACTI binary ``exe`` (in its own folder, as CACTI expects) on one configuration text: the values of
    :data:`CACTI_FIELDS`, or None when CACTI finds no organization for it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sram.cfg"
        path.write_text(config)
        out = subprocess.run([str(exe), "-infile", str(path)], cwd=exe.parent, capture_output=True, text=True,
                             timeout=timeout).stdout
    vals = {}
    for key, pat in CACTI_FIELDS.items():
        m = re.search(pat, out)
        if not m:
            return None
        vals[key] = float(m.group(1))
    return vals
