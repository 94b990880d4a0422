"""SIGMA's reduction networks against their baselines (Qin et al., HPCA 2020, Fig. 6b): the linear chain,
MAERI's augmented reduction tree (ART) and the Forwarding Adder Network (FAN), in fp32, at n = 16 .. 512.

Each network is a chip described as any other (:func:`describe`: one core whose only unit is the network,
``core.units: [{kind: art, inputs: n, dtype: fp32}]``) at 28 nm and :data:`CLOCK_MHZ`, estimated by
:func:`accelgen.ppa.estimate.estimate`: its generator's fitted model (``linear_reduction-fp32``, ``art-fp32``,
``fan-fp32``) with the least pipelining that meets the clock, mapped for that clock. The run follows Fig. 6b:
:data:`FOLDS` stationary folds of :data:`STREAM` vectors each, one vector per cycle; between folds the network
drains, which costs its latency (the golden models' closed forms): ``log2 n`` levels for the trees, ``n`` adders
for the skewed chain. Rows: ``network`` (``linear`` / ``art`` / ``fan``), ``n``, placed ``area_mm2`` (cell area
over the standard-cell utilization, as the estimator places logic), ``power_w`` (energy of the run over its time,
leakage included), ``cycles`` and ``edp`` (energy x time, J s).
"""

from __future__ import annotations

from pathlib import Path

from ...golden.art import art_latency
from ...golden.fan import fan_latency
from ...golden.linear_reduction import linear_reduction_latency
from ..estimate import estimate, walk
from ..perfplot import pyplot, save_png
from .result import Study, StudyResult

#: network -> (model family, latency in cycles of (n, add_stages))
NETWORKS = {"linear": ("linear_reduction", linear_reduction_latency), "art": ("art", art_latency),
            "fan": ("fan", fan_latency)}
SIZES = (16, 32, 64, 128, 256, 512)
#: Fig. 6b's run: stationary folds and the vectors streamed per fold
FOLDS, STREAM = 100, 1000
#: SIGMA's clock and node (sect. V: 500 MHz, 28 nm)
CLOCK_MHZ, NODE_NM = 500.0, 28


def describe(network: str, n: int) -> dict:
    """The chip of one network: a core whose only unit is the ``n``-input fp32 network, at 28 nm and 500 MHz."""
    kind, _ = NETWORKS[network]
    return {"name": f"{network}[n={n}]", "node_nm": NODE_NM, "clock_mhz": CLOCK_MHZ,
            "core": {"units": [{"kind": kind, "inputs": n, "dtype": "fp32"}]}}


def network_row(network: str, n: int) -> dict:
    """The row of one network: its chip estimated (:func:`describe`), run as Fig. 6b runs it."""
    _, latency = NETWORKS[network]
    est = estimate(describe(network, n))
    (stages,) = est.pipelining
    unit = next(node for _, node, _ in walk(est.breakdown) if node["name"] == f"{NETWORKS[network][0]}0")
    # one vector per cycle at full activity: the unit's dynamic power over the clock is its energy per vector
    energy_pj = unit["dynamic_w"] / (est.clock_mhz * 1e6) * 1e12
    cycles = FOLDS * (STREAM + latency(n, stages["add_stages"]))
    time_s = cycles / (CLOCK_MHZ * 1e6)
    energy_j = FOLDS * STREAM * energy_pj * 1e-12 + unit["leakage_w"] * time_s
    return {"network": network, "n": n, "add_stages": stages["add_stages"], "meets_clock": stages["meets_clock"],
            "area_mm2": unit["area_mm2"], "power_w": energy_j / time_s, "cycles": cycles, "energy_j": energy_j,
            "edp": energy_j * time_s, "energy_pj_per_vector": energy_pj, "delay_ns": stages["delay_ns"]}


def run_study(out: Path) -> StudyResult:
    rows = [network_row(net, n) for n in SIZES for net in NETWORKS]
    notes = []
    for n in (SIZES[0], SIZES[-1]):
        at = {r["network"]: r for r in rows if r["n"] == n}
        notes.append(f"n={n}: area linear / ART / FAN = " + " / ".join(f"{at[k]['area_mm2']:.3g}" for k in NETWORKS)
                     + " mm^2; EDP relative to FAN = "
                     + " / ".join(f"{at[k]['edp'] / at['fan']['edp']:.3g}" for k in NETWORKS))
    columns = [("network", "network"), ("n", "n"), ("add_stages", "add stages"), ("area_mm2", "area mm^2"),
               ("power_w", "power W"), ("cycles", "cycles"), ("edp", "EDP J s")]
    return StudyResult("sigma-reduction", STUDIES[0].summary, rows, columns, notes=notes,
                       files=[_plot(rows, out / "sigma_reduction.png")])


def _plot(rows: list[dict], path: Path) -> Path:
    plt = pyplot()
    fig, axes = plt.subplots(1, 4, figsize=(16, 4))
    for ax, (key, label) in zip(axes, (("area_mm2", "area mm^2"), ("power_w", "power W"), ("cycles", "cycles"),
                                      ("edp", "EDP J s"))):
        for net in NETWORKS:
            pts = [r for r in rows if r["network"] == net]
            ax.plot([r["n"] for r in pts], [r[key] for r in pts], marker="o", label=net)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n (inputs)")
        ax.set_title(label)
    axes[0].legend()
    fig.suptitle(f"fp32 reduction networks, {NODE_NM} nm, {CLOCK_MHZ:g} MHz, {FOLDS} folds x {STREAM} vectors")
    fig.tight_layout()
    return save_png(fig, path)


STUDIES = (Study("sigma-reduction",
                 "SIGMA Fig. 6b: linear chain, MAERI's ART and FAN in fp32, n = 16..512, 28 nm, 500 MHz",
                 run_study),)
