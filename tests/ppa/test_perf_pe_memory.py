"""The performance model's energy counts per-PE scratch pads (Eyeriss's), as the validation's activity rule does."""

from __future__ import annotations

import pytest

from accelgen import shipped
from accelgen.ppa.arch import load_arch
from accelgen.ppa.chips import workload_activity
from accelgen.ppa.estimate import dynamic_w_by_activity, estimate
from accelgen.ppa.perf import evaluate
from accelgen.ppa.perf_layers import PerfContext


def test_scratch_pads_follow_the_compute_energy(monkeypatch):
    """In the ratio of the estimate at full activity, to the compute units' energy per action: a scratch pad is
    accessed as its PE acts, not on the idle cycles whose clock the compute energy also charges."""
    arch = load_arch(shipped.path("chips", "eyeriss"))
    rep = evaluate(arch, "alexnet_conv", batch=4)
    e = rep.total["energy_breakdown_j"]
    full = dynamic_w_by_activity(estimate(arch).breakdown)
    assert full["pe_memory"] > 0
    energies = PerfContext.action_energies_pj   # without the clock target: the compute energy is all per action
    monkeypatch.setattr(PerfContext, "action_energies_pj", lambda self, *a, **k: (energies(self, *a, **k)[0], None))
    per_action = evaluate(arch, "alexnet_conv", batch=4).total["energy_breakdown_j"]
    assert e["pe_memory_j"] == pytest.approx(per_action["compute_j"] * full["pe_memory"] / full["tensor"])
    assert e["pe_memory_j"] == pytest.approx(per_action["pe_memory_j"])
    assert e["compute_j"] > per_action["compute_j"]   # the row-stationary passes' idle PEs are clocked
    # the validation's activity of the scratch pads is then the PE array's, as arch.Activity's default has it
    act, _ = workload_activity(arch, arch.published.power, None)
    assert act.pe_memory == pytest.approx(act.tensor)


def test_no_scratch_pads_no_term():
    rep = evaluate(load_arch(shipped.path("chips", "tpu_v1")), "resnet50", batch=1)
    assert "pe_memory_j" not in rep.total["energy_breakdown_j"]
