"""Systolic arrays (tensor units): weight-stationary and output-stationary.

A ``rows x cols`` grid of processing elements (PEs), each built around the
:class:`~accelgen.rtl.mac.MAC` cell, emitted as one PE module instantiated
``rows * cols`` times (see :mod:`accelgen.rtl._cells`). The array is driven at
its edges only; skewing and de-skewing are done by the host driver
(:mod:`accelgen.cosim.systolic`), whose cycle model
(:mod:`accelgen.golden.systolic`) is the one the estimator uses.

Weight-stationary (``dataflow="ws"``, TPU-like)
    PE ``(r, c)`` holds weight ``W[r, c]``. Weights are loaded by shifting them
    down the columns, one row per cycle while ``w_load`` is high (the row pushed
    first ends up in the bottom row). Activation ``A[m, r]`` enters row ``r`` at
    the left edge and moves one PE to the right per cycle; partial sums move one
    PE down per cycle, so ``sum_r A[m, r] * W[r, c]`` leaves the bottom of column
    ``c``. If ``A[m, r]`` enters row ``r`` in cycle ``s + m + r`` (skewed by row),
    the result for ``(m, c)`` is on ``psum_out[c]`` with ``out_valid[c]`` high in
    cycle ``s + m + rows + c``. With ``sum_group = G`` (fp, TPU v4i) a column's PEs
    are groups of ``G`` rows whose products one multi-operand adder sums with the
    partial sum: the rows of group ``i`` take their activations together, in cycle
    ``s + m + i``, and the result is out in cycle ``s + m + rows / G + c``.

Output-stationary (``dataflow="os"``)
    PE ``(r, c)`` accumulates ``C[r, c] = sum_k A[r, k] * B[k, c]``. ``A[r, k]``
    enters row ``r`` from the left in cycle ``s + k + r`` together with
    ``a_valid`` and ``a_first`` (high for ``k = 0``: start a new sum);
    ``B[k, c]`` enters column ``c`` from the top in cycle ``s + k + c``. The last
    product of PE ``(r, c)`` is in its accumulator from cycle
    ``s + K + r + c``. A one-cycle ``capture`` (any cycle ``X`` in which every
    PE holds its final sum and none has started the next one) copies all sums
    into a per-column output shift chain, which moves down one row per cycle:
    ``c_out[c]`` shows row ``rows-1-j``'s sum with ``out_valid[c]`` high in cycle
    ``X + 1 + j``. Streaming of the next tile overlaps with the drain.
"""

from __future__ import annotations

from dataclasses import dataclass
from amaranth import Const, Module, Shape, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..params.systolic import SYSTOLIC_DTYPES, SystolicParams
from ._cells import HierarchicalComponent
from ._generator import FromParams
from .systolic_pe import (GroupProcessingElement, OSProcessingElement, WSProcessingElement, operand_shapes,
                          stream_shapes)

__all__ = ["SystolicParams", "SystolicArray", "SystolicTile", "WSProcessingElement", "OSProcessingElement",
           "GroupProcessingElement", "SYSTOLIC_DTYPES"]

@dataclass(frozen=True)
class _Flow:
    """How values move through a grid of PEs (or of tiles) for one dataflow: port stems (``a`` is
    ``a_in``/``a_out``) moving right along rows, moving down along columns, leaving only at the
    bottom edge, and broadcast to every block; each with the short name of its inter-block wires."""

    horizontal: tuple[tuple[str, str], ...]
    vertical: tuple[tuple[str, str], ...]
    bottom: tuple[tuple[str, str], ...]
    broadcast: tuple[str, ...]


_STATIONARY_FLOW = _Flow(horizontal=(("a", "a"), ("a_valid", "av")), vertical=(("w", "w"), ("psum", "psum")),
                         bottom=(("valid", "v"),), broadcast=("w_load",))
_FLOWS = {
    "ws": _STATIONARY_FLOW,
    "is": _STATIONARY_FLOW,
    "os": _Flow(horizontal=(("a", "a"), ("a_valid", "av"), ("a_first", "af")),
                vertical=(("b", "b"), ("out", "out"), ("out_valid", "ov")), bottom=(), broadcast=("capture",)),
}


def _flow(p: SystolicParams) -> _Flow:
    flow = _FLOWS[p.dataflow]
    if p.weight_load == "double":  # the swap bit travels right with the activations
        flow = _Flow(horizontal=flow.horizontal[:2] + (("swap", "sw"),) + flow.horizontal[2:],
                     vertical=flow.vertical, bottom=flow.bottom, broadcast=flow.broadcast)
    return flow


def _stem_shapes(p: SystolicParams) -> dict[str, Shape]:
    a, b, acc = operand_shapes(p)
    stream, held = stream_shapes(p) if p.stationary else (a, b)
    one = Shape(1)
    return {"a": stream, "a_valid": one, "a_first": one, "swap": one, "w": held, "b": b, "psum": acc, "out": acc,
            "out_valid": one, "valid": one}


#: the blocks of a grid: whether the cell's ports of values moving right (one lane per row) and of values
#: moving down (one per column) are arrays, and the prefix of its instance names
_BLOCK_KINDS = {"pe": (False, False, "pe"), "group": (True, False, "pe"), "tile": (True, True, "tile")}


def _spans(n: int, tile: int) -> list[int]:
    """Sizes of the tiles covering ``n`` PEs: full tiles, then the remainder."""
    return [tile] * (n // tile) + ([n % tile] if n % tile else [])


def _build_grid(owner: HierarchicalComponent, m: Module, p: SystolicParams, row_spans: list[int],
                col_spans: list[int], block, left: dict, top: dict, broadcast: dict):
    """Instantiate a grid of blocks (PEs, or tiles of PEs) and wire neighbours together.

    ``block(h, w)`` returns ``(key, cell, kind)`` for a block of ``h x w`` PEs, ``kind`` one of
    :data:`_BLOCK_KINDS` (which of the cell's ports are arrays, and the instance names). ``left[stem]``
    and ``top[stem]`` give the edge inputs per array row / column, ``broadcast[stem]`` the global inputs. Returns the
    right-edge outputs per row and the bottom-edge outputs per column, keyed by stem.
    """
    flow, shapes = _flow(p), _stem_shapes(p)
    row_at = [sum(row_spans[:i]) for i in range(len(row_spans))]
    col_at = [sum(col_spans[:j]) for j in range(len(col_spans))]
    port_order = {}
    # wires[stem][i][j][k]: lane k of block (i, j)'s output, named by array row (col) and block col (row)
    wires = {}
    for stem, short in flow.horizontal:
        wires[stem] = [[[Signal(shapes[stem], name=f"{short}_{row_at[i] + k}_{j}") for k in range(h)]
                        for j in range(len(col_spans))] for i, h in enumerate(row_spans)]
    for stem, short in flow.vertical + flow.bottom:
        wires[stem] = [[[Signal(shapes[stem], name=f"{short}_{i}_{col_at[j] + k}") for k in range(w)]
                        for j, w in enumerate(col_spans)] for i in range(len(row_spans))]
    for i, h in enumerate(row_spans):
        for j, w in enumerate(col_spans):
            key, cell, kind = block(h, w)
            h_lanes, v_lanes, prefix = _BLOCK_KINDS[kind]
            hport = (lambda name, k: f"{name}__{k}") if h_lanes else (lambda name, k: name)
            vport = (lambda name, k: f"{name}__{k}") if v_lanes else (lambda name, k: name)
            ports = dict(broadcast)
            for stem, _ in flow.horizontal:
                for k in range(h):
                    ports[hport(f"{stem}_in", k)] = left[stem][row_at[i] + k] if j == 0 else wires[stem][i][j - 1][k]
                    ports[hport(f"{stem}_out", k)] = wires[stem][i][j][k]
            for stem, _ in flow.vertical:
                for k in range(w):
                    ports[vport(f"{stem}_in", k)] = top[stem][col_at[j] + k] if i == 0 else wires[stem][i - 1][j][k]
                    ports[vport(f"{stem}_out", k)] = wires[stem][i][j][k]
            for stem, _ in flow.bottom:
                for k in range(w):
                    ports[vport(f"{stem}_out", k)] = wires[stem][i][j][k]
            if key not in port_order:
                port_order[key] = ["__".join(map(str, path)) for path, _, _ in cell.signature.flatten(cell)]
            # connect in the cell's signature order, whatever order the ports were collected in
            ports = {name: ports[name] for name in port_order[key] if name in ports}
            m.submodules[f"{prefix}_{i}_{j}"] = owner.cell_instance(key, cell, **ports)
    right = {stem: [lane for i in range(len(row_spans)) for lane in wires[stem][i][-1]] for stem, _ in flow.horizontal}
    bottom = {stem: [lane for j in range(len(col_spans)) for lane in wires[stem][-1][j]]
              for stem, _ in flow.vertical + flow.bottom}
    return right, bottom


class SystolicTile(HierarchicalComponent):
    """A ``tile_rows x tile_cols`` block of PEs with every edge exposed: the unit a large array is
    emitted in (see ``emit_tile``). Its ports are the PE's ports as arrays: ``<stem>_in[k]`` /
    ``<stem>_out[k]`` per row for values moving right, per column for values moving down, and the
    broadcast inputs. Combinational between PE registers; latency as for the PEs it contains."""

    shares_parent_cells = True  # every tile shape instantiates the array's one PE module
    registered_cells = True     # every PE output is a register

    def __init__(self, params: SystolicParams, tile_rows: int, tile_cols: int):
        self.params, self.tile_rows, self.tile_cols = params, tile_rows, tile_cols
        flow, shapes = _flow(params), _stem_shapes(params)
        members = {}
        for stem, _ in flow.horizontal:
            members[f"{stem}_in"] = In(shapes[stem]).array(tile_rows)
        for stem, _ in flow.vertical:
            members[f"{stem}_in"] = In(shapes[stem]).array(tile_cols)
        for stem in flow.broadcast:
            members[stem] = In(1)
        for stem, _ in flow.horizontal:
            members[f"{stem}_out"] = Out(shapes[stem]).array(tile_rows)
        for stem, _ in flow.vertical + flow.bottom:
            members[f"{stem}_out"] = Out(shapes[stem]).array(tile_cols)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        p = self.params
        flow = _flow(p)
        pe, kind = _processing_element(p)
        group = p.sum_group
        right, bottom = _build_grid(
            self, m, p, [group] * (self.tile_rows // group), [1] * self.tile_cols, lambda h, w: ("pe", pe, kind),
            left={stem: getattr(self, f"{stem}_in") for stem, _ in flow.horizontal},
            top={stem: getattr(self, f"{stem}_in") for stem, _ in flow.vertical},
            broadcast={stem: getattr(self, stem) for stem in flow.broadcast})
        for stem, lanes in (right | bottom).items():
            m.d.comb += [getattr(self, f"{stem}_out")[k].eq(v) for k, v in enumerate(lanes)]
        return m


def _processing_element(p: SystolicParams) -> tuple[wiring.Component, str]:
    """The array's one PE module (a group of ``sum_group`` rows when that is above 1) and its block kind."""
    if p.sum_group > 1:
        return GroupProcessingElement(p), "group"
    return (WSProcessingElement(p) if p.stationary else OSProcessingElement(p)), "pe"


class SystolicArray(FromParams, HierarchicalComponent):
    """A ``rows x cols`` systolic array of MAC processing elements (integer or floating point).

    Parameters: :class:`~accelgen.params.systolic.SystolicParams` (a parameter set, or its fields as
    keywords).

    Floating point
    --------------
    With a floating-point ``dtype`` every PE multiplies with an :class:`~accelgen.rtl.fp.FPMultiplier`
    (fp32 product: exact for fp16 and bf16, RNE for fp32) and adds with an fp32
    :class:`~accelgen.rtl.fp.FPAdder` (RNE, IEEE signed zeros, infinities, canonical NaN, subnormals exact
    unless ``flush_subnormals``: DAZ + FTZ, as :class:`~accelgen.rtl.mac.MAC`'s option), both combinational
    between the registers of the integer PE, so latency and cycle counts are those of the integer array.
    Association order (the golden model, :func:`accelgen.golden.systolic.fp_gemm_reference`, follows it
    exactly): WS - each column's partial sum enters the top PE as +0.0 and PE row ``r`` computes
    ``psum + A[m, r] * W[r, c]``, rows top to bottom (a cycle without ``a_valid`` passes ``psum`` through
    unchanged); OS - each PE computes ``acc <- acc + A[r, k] * B[k, c]`` in ``k`` order starting from +0.0
    at ``a_first``. With ``sum_group = G`` each column is built of ``rows / G`` group PEs
    (:class:`~accelgen.rtl.systolic_pe.GroupProcessingElement`) whose :class:`~accelgen.rtl.fp_sum.FPSum`
    adds the incoming partial sum and the group's products with a single rounding: group ``i`` computes
    ``FPSum(psum, p[iG], ..., p[iG + G - 1])`` (a row without ``a_valid`` adds -0.0, the identity); the host
    skews group ``i`` by ``i * (add_stages + 1)`` cycles. ``sum_group=1`` emits the Verilog of the array
    without the parameter.

    Weights and pipelining
    ----------------------
    ``weight_load="double"``: the weight shift chain is of shadow registers; the ``a_swap`` bit of a row,
    one cycle ahead of the fold's first activation, travels right with the activations and copies each PE's
    shadow into its weight register as the wavefront passes
    (:func:`accelgen.golden.systolic.systolic_cycles`). ``mul_stages``/``add_stages`` pipeline each PE's
    multiplier and adder (:class:`~accelgen.rtl.intarith.PipelinedMultiplier`,
    :class:`~accelgen.rtl.intarith.PipelinedAdder`, or the fp units with ``stages``). WS/IS: the host skews
    row ``r`` by ``r * (add_stages + 1)`` and the product is added ``mul_stages`` cycles after its activation
    entered. OS: one fold covers ``rows * (add_stages + 1)`` rows of C (the host driver,
    :mod:`accelgen.cosim.systolic`, interleaves them). ``emit_tile``: the array top holds a grid of
    :class:`SystolicTile` modules (one module per tile shape, each instantiating the one PE module, as
    Gemmini builds its mesh of tiles) instead of ``rows x cols`` PEs.

    Ports (``ws``)
    --------------
    a_in[rows] : In(a_width); a_valid[rows] : In(1)
        Left edge: activation for each row and its valid bit (skewed by the host).
    w_in[cols] : In(b_width); w_load : In(1)
        Top edge: the weight row shifted in this cycle.
    psum_out[cols] : Out(acc_width); out_valid[cols] : Out(1)
        Bottom edge: a finished dot product per column when ``out_valid``.

    Ports (``os``)
    --------------
    a_in[rows], a_valid[rows], a_first[rows] : left edge (``a_first`` marks k = 0)
    b_in[cols] : In(b_width), top edge
    capture : In(1), copies every PE's sum into the drain chain
    c_out[cols] : Out(acc_width); out_valid[cols] : Out(1), bottom of the drain chain

    Latency
    -------
    See the module docstring: WS results leave ``rows / sum_group * (add_stages + 1) +
    mul_stages + c`` cycles after the activation entered row 0 of its skew; OS sums leave ``1 + j`` cycles after
    ``capture`` (row ``rows-1-j``). All PEs advance every cycle; there is no stall.
    """

    registered_cells = True  # every PE output is a register: no combinational path crosses a PE

    params_model = SystolicParams

    def __init__(self, params: SystolicParams | None = None, /, **kwargs):
        # widths and signed left out (None) take the schema default: 8/8/32/signed for "int", implied for fp
        self.params = p = self.validated(params, kwargs)
        a, b, acc = operand_shapes(p)
        if p.stationary:
            stream, held = stream_shapes(p)
            members = {"a_in": In(stream).array(p.rows), "a_valid": In(1).array(p.rows)}
            if p.weight_load == "double":
                members["a_swap"] = In(1).array(p.rows)
            members |= {"w_in": In(held).array(p.cols), "w_load": In(1),
                        "psum_out": Out(acc).array(p.cols), "out_valid": Out(1).array(p.cols)}
        else:
            members = {"a_in": In(a).array(p.rows), "a_valid": In(1).array(p.rows), "a_first": In(1).array(p.rows),
                       "b_in": In(b).array(p.cols), "capture": In(1),
                       "c_out": Out(acc).array(p.cols), "out_valid": Out(1).array(p.cols)}
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        p = self.params
        _, _, acc = operand_shapes(p)
        if p.stationary:
            left = {"a": self.a_in, "a_valid": self.a_valid}
            if p.weight_load == "double":
                left["swap"] = self.a_swap
            top = {"w": self.w_in, "psum": [Const(0, acc)] * p.cols}
            broadcast = {"w_load": self.w_load}
        else:
            left = {"a": self.a_in, "a_valid": self.a_valid, "a_first": self.a_first}
            top = {"b": self.b_in, "out": [Const(0, acc)] * p.cols, "out_valid": [Const(0, 1)] * p.cols}
            broadcast = {"capture": self.capture}
        group = p.sum_group
        if p.rows <= p.emit_tile and p.cols <= p.emit_tile:
            pe, kind = _processing_element(p)
            row_spans, col_spans, block = [group] * p.row_groups, [1] * p.cols, lambda h, w: ("pe", pe, kind)
        else:
            tiles = {}
            # a tile holds whole groups: emit_tile rows rounded down to a multiple of sum_group (at least one group)
            tile_rows = max(group, p.emit_tile // group * group)
            row_spans, col_spans = _spans(p.rows, tile_rows), _spans(p.cols, p.emit_tile)

            def block(h, w):
                if (h, w) not in tiles:
                    tiles[h, w] = SystolicTile(p, h, w)
                return f"tile_{h}x{w}", tiles[h, w], "tile"
        _, bottom = _build_grid(self, m, p, row_spans, col_spans, block, left, top, broadcast)
        result, valid = ("psum", "valid") if p.stationary else ("out", "out_valid")
        out = self.psum_out if p.stationary else self.c_out
        for c in range(p.cols):
            m.d.comb += [out[c].eq(bottom[result][c]), self.out_valid[c].eq(bottom[valid][c])]
        return m
