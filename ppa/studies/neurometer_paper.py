"""NeuroMeter's datacenter study as published (Tang et al., HPCA 2021, sect. III): the figures
``accelgen study neurometer-datacenter`` puts beside its own, each with where the paper gives it.

The paper's Table I is the design space (``ppa/dse_spaces/neurometer_datacenter.yaml``) and its Table II the
workloads' characteristics (:data:`TABLE_II`). The optima are not in a table: Fig. 10 marks them with coloured
boxes (an image, not in the text) and sect. III-B-2 names them in its prose, fully for some targets and only in
part for others (:data:`OPTIMA`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Fig. 10's batch regimes (sect. III-B-2): small (batch 1), medium (the largest batch meeting 10 ms), large (256);
#: the names are the regimes of the space file
REGIMES = (("batch1", "bs=1"), ("latency", "bs<=10ms"), ("large", "bs=256"))

#: Fig. 10's four metrics (sect. III-B-2): throughput, TU utilization (achieved / peak TOPS), cost efficiency
#: (TOPS/TCO, "approximated as TOPS/mm^4/Watt", sect. III-A-3) and energy efficiency (TOPS/W)
TARGETS = (("achieved_tops", "throughput"), ("utilization", "TU utilization"),
           ("tops_per_tco", "TOPS/TCO"), ("tops_per_w", "TOPS/W"))

#: "Arithmetic mean is used for averaging the throughput and geometric mean is used for averaging other metrics
#: as they are all ratios" (sect. III-B-2)
ARITHMETIC_MEAN = frozenset({"achieved_tops"})


@dataclass(frozen=True)
class PaperOptimum:
    """A design the paper names as the best for one target: the (X, N, Tx, Ty) fields it gives (``point``; a
    partial point when the text names only the TU size), an upper bound on the core count when the text says
    "fewer cores than" a named design, and the sentence that says it."""

    point: dict = field(default_factory=dict)
    max_cores: int | None = None
    quote: str = ""

    @property
    def complete(self) -> bool:
        return set(self.point) == {"X", "N", "Tx", "Ty"}

    def label(self) -> str:
        if self.complete:
            return "({X}, {N}, {Tx}, {Ty})".format(**self.point)
        parts = [f"{k}={v}" for k, v in self.point.items()]
        if self.max_cores is not None:
            parts.append(f"<= {self.max_cores} cores")
        return ", ".join(parts) if parts else "not stated"

    def agreement(self, best: dict) -> str:
        """``yes`` if ``best`` (a point with X, N, Tx, Ty) is this design (or fits every field the text gives),
        ``X only`` if only its TU size agrees, else ``no``."""
        fields_ok = all(best.get(k) == v for k, v in self.point.items())
        cores_ok = self.max_cores is None or best["Tx"] * best["Ty"] <= self.max_cores
        if self.point and fields_ok and cores_ok:
            return "yes"
        if "X" in self.point and best.get("X") == self.point["X"]:
            return "X only"
        return "no"


_THROUGHPUT = ("sect. III-B-2: \"it is the brawny design with 8 cores and two 64x64 TUs per core that has the highest "
               "throughput\" (after \"For all the three batch size categories\"); Fig. 9 and 10(a) call it "
               "(64, 2, 2, 4)")
_UTILIZATION = ("sect. III-B-2: \"For all the three batch size categories, the wimpy design with 32 cores and four "
                "8x8 TUs per core, i.e., (X, N, Tx, Ty) = (8, 4, 4, 8), always has the highest TU utilization\"")
_EFFICIENT_BS1 = ("sect. III-B-2: \"As shown in Fig. 10(a), when choosing the efficiency-optimized design, i.e., "
                  "(64, 4, 1, 2), over the throughput-optimized design, i.e., (64, 2, 2, 4), the target accelerator "
                  "gains 2.1x cost-efficiency improvements and 1.3x power-efficiency improvement\"")
_TCO_LATER = ("sect. III-B-2: \"The cost-efficiency optimized design is similar to the throughput-optimized design as "
              "they both prefer 64x64 TUs, except the former prefers fewer yet larger cores\" (than its 8); the "
              "point itself is only in Fig. 10(b), (c)")
_W_BS1 = ("sect. III-B-2: the energy-efficiency optimum drops \"from 64x64 to 32x32 with both medium and large batch "
          "size\", so it is 64x64 at batch 1; the text does not say whether it is (64, 4, 1, 2)")
_W_LATER = ("sect. III-B-2: \"The energy-efficiency optimized architecture also prefers brawny design with a slight "
            "drop in TU size from 64x64 to 32x32 with both medium and large batch size\"")

_TPUT = PaperOptimum({"X": 64, "N": 2, "Tx": 2, "Ty": 4}, quote=_THROUGHPUT)
_UTIL = PaperOptimum({"X": 8, "N": 4, "Tx": 4, "Ty": 8}, quote=_UTILIZATION)

#: (regime, metric) -> the design the paper finds best (sect. III-B-2, Fig. 10)
OPTIMA: dict[tuple[str, str], PaperOptimum] = {
    ("batch1", "achieved_tops"): _TPUT,
    ("batch1", "utilization"): _UTIL,
    ("batch1", "tops_per_tco"): PaperOptimum({"X": 64, "N": 4, "Tx": 1, "Ty": 2}, quote=_EFFICIENT_BS1),
    ("batch1", "tops_per_w"): PaperOptimum({"X": 64}, quote=_W_BS1),
    ("latency", "achieved_tops"): _TPUT,
    ("latency", "utilization"): _UTIL,
    ("latency", "tops_per_tco"): PaperOptimum({"X": 64}, max_cores=4, quote=_TCO_LATER),
    ("latency", "tops_per_w"): PaperOptimum({"X": 32}, quote=_W_LATER),
    ("large", "achieved_tops"): _TPUT,
    ("large", "utilization"): _UTIL,
    ("large", "tops_per_tco"): PaperOptimum({"X": 64}, max_cores=4, quote=_TCO_LATER),
    ("large", "tops_per_w"): PaperOptimum({"X": 32}, quote=_W_LATER),
}

#: the trade-off at batch 1 (sect. III-B-2, Fig. 10(a)): the efficiency-optimized design against the
#: throughput-optimized one: 2.1x TOPS/TCO, 1.3x TOPS/W, "less than 16% sacrifice" of achieved TOPS
TRADEOFF = {"efficient": {"X": 64, "N": 4, "Tx": 1, "Ty": 2}, "fast": {"X": 64, "N": 2, "Tx": 2, "Ty": 4},
            "tops_per_tco": 2.1, "tops_per_w": 1.3, "achieved_tops": 1.0 - 0.16}

#: Fig. 9 at (64, 2, 2, 4): "the upper-bound batch sizes to meet the 10ms requirement are 16, 4, 32 respectively
#: for ResNet, NasNet, and Inception" (sect. III-B-2)
FIG9_POINT = {"X": 64, "N": 2, "Tx": 2, "Ty": 4}
FIG9_BATCHES = {"resnet50": 16, "nasnet_a_large": 4, "inception_v3": 32}

#: Fig. 8(b): "the design point of (128, 4, 1, 1) ... has the best peak TOPS/Watt and TOPS/TCO" (sect. III-B-1)
PEAK_OPTIMUM = {"X": 128, "N": 4, "Tx": 1, "Ty": 1}

#: Table II (sect. III-A-2): MACs per frame (G), peak transient memory footprint per frame (M), parameters (M,
#: int8). The parameters are the networks' without the classifier: NASNet-A Large's 88.9 M (Zoph et al., CVPR
#: 2018, Table 2) less its 4032 x 1000 fully connected layer is 84.9 M.
TABLE_II = {"resnet50": {"macs_g": 7.8, "data_m": 5.72, "params_m": 23.7},
            "inception_v3": {"macs_g": 5.7, "data_m": 2.93, "params_m": 22.0},
            "nasnet_a_large": {"macs_g": 23.8, "data_m": 5.35, "params_m": 84.9}}
