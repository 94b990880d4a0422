"""On-chip (SRAM) bytes of a workload's layers, as an accelerator moves them (:mod:`accelgen.ppa.perf`, bytes per
level): the DMA's writes of what it loads, the compute unit's reads of its operands as its mapping reuses them, the
outputs' writes and their reads on the way out, in whole lines of the mapping's array and the memories; with a memory
that ``holds: sums``, the sums at accumulator width in it, each role priced at its own memories' energy per byte."""

from __future__ import annotations

import numpy as np

__all__ = ["onchip_bytes"]


def onchip_bytes(level: dict, mapped: list, g, Ai_chip, B_chip, a_reads, b_reads, psum, acc_bytes, Cb, loads_in,
                 stores_out, loaded) -> tuple[np.ndarray, dict, np.ndarray | None]:
    """``(bytes, split, energy_pj)`` of the SRAM level ``level`` (:class:`accelgen.ppa.perf_layers.PerfContext`'s)
    over the layers ``g``: ``mapped`` each compute type's ``(layer indices, Mapping)``; ``Ai_chip``, ``B_chip`` the
    lowered A and the weights in the unit's on-chip form, read ``a_reads`` / ``b_reads`` times; ``psum`` partial-sum
    elements moved, ``acc_bytes`` each; ``Cb`` the output bytes; ``loads_in`` / ``stores_out`` whether a layer's input
    comes from / its output goes off chip, ``loaded`` what the off-chip loads write on chip. ``split``: operand and
    sum reads and writes; ``energy_pj``: with a sums memory, each role at its own read and write energy per byte
    (None: the level's one energy per byte applies)."""
    n = len(g.M)
    # the mapping's lines and schedule (:class:`accelgen.ppa.mapping.Mapping`; 0 / NaN where it has none)
    line_k, line_n, k_split, n_split = np.zeros(n), np.zeros(n), np.ones(n), np.ones(n)
    writes = {k: np.full(n, np.nan) for k in ("a", "b")}
    sums = np.zeros(n, dtype=bool)
    for idx, mp in mapped:
        if mp.line_k is not None:
            line_k[idx], line_n[idx], k_split[idx], n_split[idx] = mp.line_k, mp.line_n, mp.k_split, mp.n_split
        for k, times in writes.items():
            if getattr(mp, f"onchip_{k}_writes") is not None:
                times[idx] = getattr(mp, f"onchip_{k}_writes")
        sums[idx] = mp.sums_in_memory
    lined = line_k > 0
    mem_line = level["line_bytes"]

    def whole(x, split, line):
        """``x`` elements split over ``split`` units, each share in whole lines of ``line`` elements."""
        line = np.maximum(np.floor(line), 1.0)
        return np.where(lined, split * np.ceil(np.ceil(x / split) / line) * line, x)

    K, N = g.K.astype(float), g.N.astype(float)
    # A's rows in K-slices of the array's rows, or of the operand memory's line where that is narrower; the
    # weights in whole tiles of the array (rows x cols: a weight load fills every row and column); sums in
    # lines of the array's columns, or of their memory's line where that is narrower
    op_line = mem_line.get("operands", mem_line.get("sums", 0))
    sum_line = np.where(sums, mem_line.get("sums", op_line), op_line) / acc_bytes
    pad = {"a": whole(K, k_split, np.minimum(line_k, op_line * 8.0 / g.a_width)) / K,
           "b": whole(K, k_split, line_k) * whole(N, n_split, line_n) / (K * N),
           "c": whole(N, n_split, np.minimum(line_n, sum_line)) / N}
    # the streamed A (lowered) and the weights read as the mapping reuses them; outputs written as activations
    a_rd, b_rd, out_b = Ai_chip * pad["a"] * a_reads, B_chip * pad["b"] * b_reads, Cb
    # the loads' writes: a schedule's own where the mapping knows it (the lines of the lowered A it streams, once
    # where the input comes from off chip, and its weight slices as often as it loads them), else the off-chip
    # reads; a resident input was written by the layer before it (its output)
    sched = ~np.isnan(writes["a"])
    loads = np.where(sched, Ai_chip * pad["a"] * np.nan_to_num(writes["a"]) * loads_in
                     + B_chip * pad["b"] * np.nan_to_num(writes["b"]), loaded)
    # sums in a ``holds: sums`` memory, at the accumulator's width: each fold writes its outputs' sums, each fold
    # but the first of an output tile's K-slices reads them back first (the partial sums), and the store reads
    # them once, through the activation to off chip (or to the operand memory where the output stays on chip)
    sum_rw = np.where(sums, (psum / 2.0 + g.M * g.N * g.count) * acc_bytes * pad["c"], 0.0)
    # without one, the partial sums go to and from the operand memories, every output is written there once
    # and read once more where it goes off chip
    psum_b = np.where(sums, 0.0, psum * acc_bytes * pad["c"])
    op_read = a_rd + b_rd + psum_b / 2.0 + np.where(sums, 0.0, out_b * stores_out)
    op_write = loads + psum_b / 2.0 + np.where(sums & stores_out, 0.0, out_b)
    total = op_read + op_write + 2.0 * sum_rw
    split = {"operands_read": op_read, "operands_write": op_write, "sums_read": sum_rw, "sums_write": sum_rw}
    energy = None
    if "energy_by_role" in level:   # each role at its own memories' read and write energy per byte
        mean = dict.fromkeys(("read_pj_per_byte", "write_pj_per_byte"), level["energy_pj_per_byte"])
        op, sm = level["energy_by_role"].get("operands", mean), level["energy_by_role"]["sums"]
        energy = (op_read * op["read_pj_per_byte"] + op_write * op["write_pj_per_byte"]
                  + sum_rw * (sm["read_pj_per_byte"] + sm["write_pj_per_byte"]))
    return total, split, energy
