"""Published figures of a chip, each with its scope and kind, for ``validate-chips`` to compare like with like.

A description's ``published:`` block says what the paper measured, not only how
much. Each figure has

* a **scope**: the part of the breakdown tree it covers -- ``chip`` (the whole
  die, white space included), ``core`` (every core: what sits inside the core
  boundary of a die photo, without the chip's I/O, NoC and white space) or
  ``compute_array`` (the fitted compute units of every core: tensor units,
  reduction trees, Flex-DPEs, TensorDash units; no memories, no vector unit);
* a **kind**: for area ``die`` (a measured die or core outline), ``upper_bound``
  (a "<=" figure), ``layout`` (post-layout area of a design that was not
  fabricated) or ``synthesis``; for power ``tdp`` (thermal design power: the
  estimate at full activity), ``measured`` (average on a named ``workload`` at a
  stated clock and supply: the estimate is the runtime power of that workload at
  that operating point) or ``post_layout`` / ``synthesis`` (a tool's average:
  on its ``workload`` when one is named, else at full activity). A figure on a
  workload may give the rate the chip ran it at (``inferences_per_s``): average
  power is energy over time, and the comparison then shows both, the performance
  model's rate and the energy per inference, so that a power error is split into
  what the run costs and how long it takes; ``layers`` gives the run's published
  per-layer latency and power, each compared with the same layer of the run;
* a **switching** count: how the figure's flow counted toggles. Silicon
  (``tdp``, ``measured``) switches with its glitches: ``timed``. A tool's
  average (``post_layout``, ``synthesis``) is ``zero_delay`` unless the paper
  says it simulated the gate-level netlist with SDF delays: averaged-mode power
  analysis reads zero-delay (RTL) or vectorless activity, in which every net
  changes at most once per cycle, and glitch power needs "gate-level simulation
  with timing delays", which comes "very late in the flow" (Synopsys, "What is
  glitch power?", synopsys.com/ai/what-is-glitch-power.html; SemiEngineering,
  "Which Glitch Is Which?": zero-delay vectors serve average power analysis, SDF
  timing is needed for glitch power). The estimate counts the same way
  (``activity.switching``: the fitted ``energy_zero_delay_pj``);
* **include**: breakdown paths the figure covers beyond its scope (a block
  the paper counts with its compute array);
* **parts**: the published per-component figures (a share of the total, or an
  absolute value), each matched to the breakdown nodes it covers by path globs
  relative to the chip (``core/memories/unified_buffer``);

and ``unmodelled`` lists the die's blocks the description leaves out, with
their published share, so that the gap they leave is visible.

``evidence`` says how far the description could be checked: ``paper`` when every
field was read against a paper kept with the project's sources and cited by
section or table; ``abstract`` when its source could not be read (an abstract, a
summary, figures recalled), with what it takes on trust in ``unverified``.
``validate-chips`` reports the two apart and takes its headline means over the
``paper`` descriptions only. ``reference`` gives another tool's published estimate
of the same chip (NeuroMeter's of TPU-v2), printed beside accelgen's.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

_STRICT = ConfigDict(extra="forbid", frozen=True)

Scope = Literal["chip", "core", "compute_array"]
AREA_KINDS = ("die", "upper_bound", "layout", "synthesis")
POWER_KINDS = ("tdp", "measured", "post_layout", "synthesis")
#: how each kind of power figure counted switching when the paper does not say (module docstring)
SWITCHING_BY_KIND = {"tdp": "timed", "measured": "timed", "post_layout": "zero_delay", "synthesis": "zero_delay"}


class Part(BaseModel):
    """One published component figure: a share of the figure's total or an absolute value."""

    model_config = _STRICT
    name: str                                  # the paper's label
    match: list[str] = Field(min_length=1)     # breakdown paths (globs) relative to the chip
    share: float | None = Field(None, gt=0, le=1)
    value: float | None = Field(None, ge=0)  # in the figure's unit (mm^2 or W)
    source: str = ""

    @model_validator(mode="after")
    def _one_value(self):
        if (self.share is None) == (self.value is None):
            raise ValueError(f"part {self.name!r}: give exactly one of share and value")
        return self


class LayerFigure(BaseModel):
    """One layer of a workload figure's run, as published: its latency (the whole batch) and its average power."""

    model_config = _STRICT
    name: str                                         # the workload's layer name
    latency_ms: float | None = Field(None, gt=0)
    power_w: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _something(self):
        if self.latency_ms is None and self.power_w is None:
            raise ValueError(f"layer {self.name!r}: give latency_ms, power_w or both")
        return self


class _Figure(BaseModel):
    """What every published figure has: the part of the chip it covers, its source and its per-component parts."""

    model_config = _STRICT
    scope: Scope
    source: str
    parts: list[Part] = []
    #: breakdown paths (globs) the figure covers beyond its scope (TensorDash's Table IV counts its transposers with
    #: the compute array)
    include: list[str] = []


class AreaFigure(_Figure):
    mm2: float = Field(gt=0)
    kind: Literal[AREA_KINDS]  # type: ignore[valid-type]


class PowerFigure(_Figure):
    w: float = Field(gt=0)
    kind: Literal[POWER_KINDS]  # type: ignore[valid-type]
    workload: str | None = None      # shipped workload name or file: the figure is its average power
    batch: int | None = Field(None, ge=1)
    #: the rate the chip ran the workload at while the figure was taken (frames/s of a CNN), if published
    inferences_per_s: float | None = Field(None, gt=0)
    #: the run's off-chip traffic, if published: DRAM accesses per (dense) MAC of the workload, an access being one
    #: word of ``dram_word_bits``
    dram_accesses_per_mac: float | None = Field(None, gt=0)
    dram_word_bits: int | None = Field(None, ge=1)
    clock_mhz: float | None = Field(None, gt=0)   # operating point of the figure (default: the description's)
    vdd_v: float | None = Field(None, gt=0.3, le=2.0)
    #: how the figure's flow counted toggles (module docstring); None: by kind (:data:`SWITCHING_BY_KIND`)
    switching: Literal["timed", "zero_delay"] | None = None
    #: the run's published per-layer figures
    layers: list[LayerFigure] = []
    layers_source: str = ""
    #: the time the run's activity is spread over: ``model``, the performance model's; ``published``, the paper's
    #: (the whole run's from ``inferences_per_s``, each layer's from its ``latency_ms``), as NeuroMeter computes the
    #: activity of Eyeriss from its published processing time (sect. II-C, footnote 3), so that an error of the
    #: performance model's time is not carried into the power
    activity_time: Literal["model", "published"] = "model"

    @property
    def counted_switching(self) -> str:
        return self.switching or SWITCHING_BY_KIND[self.kind]

    @model_validator(mode="after")
    def _switching(self):
        if self.kind in ("tdp", "measured") and self.switching == "zero_delay":
            raise ValueError(f"kind {self.kind!r} is silicon, which switches with its glitches: switching is 'timed'")
        return self

    @model_validator(mode="after")
    def _workload(self):
        if self.kind == "measured" and self.workload is None:
            raise ValueError("kind 'measured' needs the workload it was measured on (workload: NAME)")
        if self.kind == "tdp" and self.workload is not None:
            raise ValueError("kind 'tdp' is full-activity power; a figure on a workload is 'measured' or "
                             "'post_layout'")
        if self.inferences_per_s is not None and self.workload is None:
            raise ValueError("inferences_per_s is the rate of a workload run; name the workload (workload: NAME)")
        if self.dram_accesses_per_mac is not None and self.workload is None:
            raise ValueError("dram_accesses_per_mac is the traffic of a workload run; name the workload "
                             "(workload: NAME)")
        if self.layers and self.workload is None:
            raise ValueError("layers are the layers of a workload run; name the workload (workload: NAME)")
        if self.activity_time == "published" and self.inferences_per_s is None:
            raise ValueError("activity_time 'published' spreads the run's energy over its published time; give the "
                             "rate it ran at (inferences_per_s)")
        if (self.dram_accesses_per_mac is None) != (self.dram_word_bits is None):
            raise ValueError("dram_accesses_per_mac needs dram_word_bits (the bits of one access), and only it")
        return self


class Unmodelled(BaseModel):
    """A block of the real die that the description does not model, with its published share of the area (``None``:
    the block is known to be there, its share is not published)."""

    model_config = _STRICT
    name: str
    share: float | None = Field(default=None, gt=0, lt=1)
    source: str


class ReferenceEstimate(BaseModel):
    """Another tool's published estimate of the chip, at the scopes of the published figures."""

    model_config = _STRICT
    tool: str
    area_mm2: float | None = Field(None, gt=0)
    power_w: float | None = Field(None, gt=0)
    source: str


class Published(BaseModel):
    """What the paper reports (see the module docstring); ``comparison`` says why a chip has no absolute figure."""

    model_config = _STRICT
    source: str
    area: AreaFigure | None = None
    power: PowerFigure | None = None
    tops: float | None = Field(None, gt=0)
    clock_mhz: float | None = Field(None, gt=0)
    vdd_v: float | None = Field(None, gt=0.3, le=2.0)
    dtype: str | None = None
    unmodelled: list[Unmodelled] = []
    comparison: str | None = None
    evidence: Literal["paper", "abstract"] = "paper"
    unverified: list[str] = []
    reference: list[ReferenceEstimate] = []

    @model_validator(mode="after")
    def _something(self):
        if self.area is None and self.power is None and self.comparison is None:
            raise ValueError("give area, power, or comparison (why the paper has no absolute figure)")
        if self.evidence == "abstract" and not self.unverified:
            raise ValueError("evidence 'abstract': list what the description takes on trust (unverified: [...])")
        if self.evidence == "paper" and self.unverified:
            raise ValueError("unverified lists what an 'abstract' description takes on trust; this one says "
                             "evidence 'paper'")
        return self
