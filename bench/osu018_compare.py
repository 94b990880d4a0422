"""The default technology scaled to 180 nm against a real 180 nm library nobody here wrote (issue 20 item 5).

    python bench/osu018_compare.py [--lib PATH] [-j N] [--markdown]
    python bench/osu018_compare.py --fo4 [--lib PATH]

Obtains Debian's ``qflow-tech-osu018`` package without installing qflow (``apt-get download`` and ``dpkg -x``
into the accelgen cache) unless ``--lib`` names ``osu018_stdcells.lib``. For mac, systolic, fan and tensordash_pe
it runs the same sweep twice through the sweep flow (:func:`accelgen.fit.api.sweep_dataset`: timing-driven mapping,
static timing, library energy with glitches): with the default NanGate45 library at 1 GHz, and with osu018 at the
same clock in FO4 delays (1 GHz x FO4(NanGate45) / FO4(osu018)). It refits every target on the osu018 data
(``--node-nm 180``), then compares, point by point and density by density, osu018's measurements with the default
library's scaled to 180 nm by the fitted models' own factors (:func:`accelgen.technology.tech_factor`: the node
table's ratios, delays in FO4 of the library, :func:`accelgen.fit.sta.fo4_ps`): area, critical-path delay and energy
per operation. Prints the ratios (median and range) and the osu018 models' held-out errors; ``--markdown`` prints
the table for bench/RESULTS.md. ``--fo4`` prints only the two libraries' FO4 delays and the node table's.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from accelgen.fit.api import fit_model, model_tech, sweep_dataset
from accelgen.fit.mapping import default_liberty
from accelgen.fit.sta import library_fo4_ps
from accelgen.registry import FAMILIES
from accelgen.technology import node, tech_factor
from accelgen.util import cache_dir

#: small grids (train, held out) of the shipped sweeps' families; the targets are the shipped sweeps' own
GRIDS = {
    "mac": {"derived": {"acc_width": "a_width + b_width + 8"},
            "grid": [{"a_width": [4, 8, 16], "b_width": [4, 8, 16], "input_reg": [True], "signed": [True, False]}],
            "heldout": [{"a_width": [6, 12], "b_width": [6, 12], "input_reg": [True], "signed": [True]}]},
    "systolic": {"derived": {"b_width": "a_width", "acc_width": "2*a_width + 8"},
                 "grid": [{"rows": [2, 4, 8], "cols": [2, 4, 8], "dataflow": ["ws", "os"], "a_width": [4, 8]}],
                 "heldout": [{"rows": [3, 6], "cols": [5], "dataflow": ["ws", "os"], "a_width": [6]}]},
    "fan": {"grid": [{"n": [4, 8, 16, 32], "width": [4, 8, 16], "signed": [True, False]}],
            "heldout": [{"n": [8, 16], "width": [6, 12], "signed": [True]}]},
    "tensordash_pe": {"derived": {"b_width": "a_width", "acc_width": "2*a_width + 8"},
                      "grid": [{"lanes": [2, 4, 8], "depth": [2, 3, 4], "a_width": [4, 8], "pattern": ["default"]}],
                      "heldout": [{"lanes": [6], "depth": [3], "a_width": [6], "pattern": ["default"]}]},
}
#: the default library's target clock (MHz at 45 nm), the shipped sweeps'
REF_CLOCK_MHZ = 1000.0
TARGETS = (("area_um2", "area"), ("delay_ns", "delay"), ("energy_pj", "energy"))


def osu018_lib() -> Path:
    """``osu018_stdcells.lib`` from Debian's qflow-tech-osu018, downloaded once into the cache."""
    base = cache_dir("osu018")
    found = list(base.rglob("osu018_stdcells.lib"))
    if found:
        return found[0]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["apt-get", "download", "qflow-tech-osu018"], cwd=tmp, check=True, capture_output=True)
        deb = next(Path(tmp).glob("qflow-tech-osu018_*.deb"))
        subprocess.run(["dpkg", "-x", str(deb), str(base)], check=True)
    return next(base.rglob("osu018_stdcells.lib"))


def grid_file(name: str, clock_mhz: float, out: Path) -> Path:
    shipped = yaml.safe_load((Path(__file__).resolve().parents[1] / "fit" / "sweeps" / f"{name}.yaml").read_text())
    spec = {k: shipped[k] for k in ("family", "densities", "cycles", "lanes", "seed") if k in shipped}
    spec.update(GRIDS[name], clock_mhz=clock_mhz, targets=shipped["targets"])
    spec.setdefault("family", name)
    path = out / f"{name}-{clock_mhz:g}.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def model_factors() -> dict[str, float]:
    """The default library's models' factors from 45 to 180 nm (a model fitted on it carries this tech block)."""
    tech = model_tech(pd.DataFrame())
    return {q: float(tech_factor(tech, 180, q)) for q in ("area", "delay", "energy")}


def compare(name: str, lib: Path, work: Path, jobs: int | None) -> dict:
    factors = model_factors()
    osu_clock = REF_CLOCK_MHZ * library_fo4_ps(default_liberty()) / library_fo4_ps(lib)
    ref = sweep_dataset(name, grid_file(name, REF_CLOCK_MHZ, work), families=FAMILIES, jobs=jobs,
                        out=work / f"{name}-ref.csv")
    osu = sweep_dataset(name, grid_file(name, osu_clock, work), families=FAMILIES, jobs=jobs, liberty=lib,
                        out=work / f"{name}-osu.csv")
    model = fit_model(name, grid_file(name, osu_clock, work), families=FAMILIES, data=osu.dataset,
                      out=work / f"{name}-osu.json", node_nm=180).model
    a, b = pd.read_csv(ref.dataset), pd.read_csv(osu.dataset)
    keys = [c for c in FAMILIES[name].params_model.model_fields if c in a] + ["density"]
    both = a.merge(b, on=keys, suffixes=("_ref", "_osu"))
    out = {"family": name, "points": int(both["key_ref"].nunique()), "osu_clock_mhz": osu_clock,
           "glitch": (float(a["glitch_ratio"].iloc[0]), float(b["glitch_ratio"].iloc[0]))}
    for target, factor in TARGETS:
        rows = both if target == "energy_pj" else both.drop_duplicates("key_ref")
        ratio = rows[f"{target}_osu"] / (rows[f"{target}_ref"] * factors[factor])
        out[target] = {"median": float(np.median(ratio)), "min": float(ratio.min()), "max": float(ratio.max()),
                       "heldout_mape_pct": model["targets"].get(target, {}).get("heldout", {}).get("mape_pct")}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", type=Path, default=None, help="osu018_stdcells.lib (default: apt-get download)")
    ap.add_argument("-j", "--jobs", type=int, default=None, help="parallel sweep processes (default: all cores)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--families", default=",".join(GRIDS), help="comma-separated subset of " + ",".join(GRIDS))
    ap.add_argument("--fo4", action="store_true", help="print the libraries' FO4 delays only")
    args = ap.parse_args()
    lib = args.lib or osu018_lib()
    fo4_ng, fo4_osu = library_fo4_ps(default_liberty()), library_fo4_ps(lib)
    print(f"FO4: NanGate45 (default) {fo4_ng:.1f} ps, osu018 {fo4_osu:.1f} ps, ratio {fo4_osu / fo4_ng:.2f}; "
          f"node table 45 nm {node(45).fo4_ps:.1f} ps, 180 nm {node(180).fo4_ps:.1f} ps, ratio "
          f"{node(180).fo4_ps / node(45).fo4_ps:.2f}")
    if args.fo4:
        return
    factors = model_factors()
    print(f"osu018: {lib}\ndefault library scaled to 180 nm by the models' factors: area x{factors['area']:.2f}, "
          f"delay x{factors['delay']:.2f}, energy x{factors['energy']:.2f}\n")
    work = cache_dir("osu018-bench")
    rows = [compare(name, lib, work, args.jobs) for name in args.families.split(",")]
    head = ["family", "points"] + [f"{t} osu018 / scaled default (median, range)" for t, _ in TARGETS] + \
        ["osu018 model held-out MAPE % (area, delay, energy)", "glitch ratio (default, osu018)"]
    lines = []
    for r in rows:
        cells = [r["family"], str(r["points"])]
        cells += [f"{r[t]['median']:.2f} ({r[t]['min']:.2f}-{r[t]['max']:.2f})" for t, _ in TARGETS]
        cells.append(", ".join("-" if r[t]["heldout_mape_pct"] is None else f"{r[t]['heldout_mape_pct']:.1f}"
                               for t, _ in TARGETS))
        cells.append(f"{r['glitch'][0]:.2f}, {r['glitch'][1]:.2f}")
        lines.append(cells)
    if args.markdown:
        print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
        print("\n".join("| " + " | ".join(c) + " |" for c in lines))
    else:
        for cells in [head, *lines]:
            print("  ".join(cells))


if __name__ == "__main__":
    main()
