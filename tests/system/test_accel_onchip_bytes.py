"""The performance model's on-chip traffic against the generated accelerator's (issue 52): for each memory, the lines
the layer's commands read and write (:func:`accelgen.system.synthesis.memory_accesses`) times the memory's line, and
their energy at the SRAM model's macros (as :func:`accelgen.system.synth.block_figures` sets them beside
``accelgen perf``), without a synthesis."""

import pytest

from accelgen.cosim.accel_host import plan_gemm
from accelgen.ppa.arch import load_arch
from accelgen.ppa.estimate import estimate, memory_component
from accelgen.ppa.perf import evaluate
from accelgen.ppa.process import technology
from accelgen.shipped import path
from accelgen.system.arch import accel_params
from accelgen.system.layers import gemm_layer, onnx_conv_layers
from accelgen.system.synthesis import memory_accesses

#: the bytes are counted the way the commands move them (whole lines, the schedule's loads): they agree closely
BYTES_TOLERANCE = 0.05
#: the energy also carries the macros' read and write energies per role
ENERGY_TOLERANCE = 0.10


def _layer(params, name):
    if name == "gemm":   # 3 K-slices (K padded 45 -> 48), 2 N-slices (29 -> 32), one tile
        return gemm_layer(params, 37, 29, 45)
    return onnx_conv_layers(params, "tiny_cnn", [name])[0]


@pytest.mark.parametrize("accelerator, layer", [("int8_ws16", "gemm"), ("int8_ws16", "conv1"),
                                                ("bf16_ws8", "conv2")])
def test_perf_counts_the_lines_each_memory_moves(accelerator, layer):
    # conv1 on int8_ws16 runs in 4 tiles, conv2 on bf16_ws8 in 5: each tile loads and reads every weight slice again
    src = path("accelerators", accelerator)
    arch = load_arch(src)
    params = accel_params(arch, str(src))
    lay = _layer(params, layer)
    accesses = memory_accesses(plan_gemm(params, lay.A, lay.B), params)
    widths = {"a_width": params.operand_bits, "b_width": params.operand_bits}
    row = evaluate(arch, {"name": lay.name, "layers": [lay.workload_layer | widths]}, batch=1).layers[0]
    split = row["sram_bytes_split"]
    est = estimate(arch)
    tech = technology(arch.node_nm)
    hw_energy = 0.0
    for i, m in enumerate(arch.core.memories):
        counts = accesses[m.name]
        perf = {d: split[f"{m.holds}_{d}"] for d in ("read", "write")}
        for d in ("read", "write"):
            assert perf[d] == pytest.approx(counts[d] * m.block_bytes, rel=BYTES_TOLERANCE), (m.name, d)
        macro = memory_component(m, tech, f"core.memories[{i}]", est.clock_mhz)
        hw_energy += counts["read"] * macro.energy_pj["read"] + counts["write"] * macro.energy_pj["write"]
    v_dyn = (est.vdd_v / tech.vdd_v) ** 2
    assert row["energy_breakdown_j"]["sram_j"] * 1e12 == pytest.approx(hw_energy * v_dyn, rel=ENERGY_TOLERANCE)
    assert row["sram_bytes"] == pytest.approx(sum(split.values()))
