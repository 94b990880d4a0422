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
    cycle ``s + m + rows + c``.

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

from typing import Literal, get_args

from amaranth import Const, Module, Mux, Shape, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from pydantic import Field, model_validator

from ._cells import HierarchicalComponent
from ._params import FPOperandParams, FromParams, MacDtype
from .fp import FPAdder, FPMultiplier
from .mac import MAC

__all__ = ["SystolicParams", "SystolicArray", "WSProcessingElement", "OSProcessingElement", "SYSTOLIC_DTYPES"]

#: operand datatypes of the array; the floating-point ones accumulate in fp32
SYSTOLIC_DTYPES: tuple[str, ...] = get_args(MacDtype)


class SystolicParams(FPOperandParams):
    """Parameters of :class:`SystolicArray`."""

    block = "systolic"

    rows: int = Field(4, ge=1, le=256, description="PE rows (WS: reduction dimension K; OS: M)")
    cols: int = Field(4, ge=1, le=256, description="PE columns (output dimension N)")
    dataflow: Literal["ws", "os"] = Field("ws", description="weight-stationary or output-stationary")
    a_width: int = Field(8, ge=1, le=32, description="width of operand A (activations) in bits")
    b_width: int = Field(8, ge=1, le=32, description="width of operand B (weights) in bits")
    acc_width: int = Field(32, ge=2, le=64, description="partial-sum / accumulator width in bits")
    signed: bool = Field(True, description="two's-complement operands and sums (else unsigned)",
                         json_schema_extra={"cli_negative": "unsigned"})
    weight_load: Literal["shift"] = Field(
        "shift", description="WS weight loading: 'shift' moves weights down the columns, one row per cycle")
    dtype: MacDtype = Field(
        "int", description="operand datatype: 'int' (widths and signed as given) or fp16/bf16/fp32 operands "
                           "with fp32 products and accumulation (widths implied)")

    @model_validator(mode="after")
    def _check_cross_fields(self) -> "SystolicParams":
        if self.dtype == "int" and self.acc_width < self.a_width + self.b_width:
            raise ValueError(
                f"acc_width={self.acc_width} is too narrow for a {self.a_width}x{self.b_width}-bit product; "
                f"allowed: acc_width >= a_width + b_width = {self.a_width + self.b_width}")
        return self

    @property
    def is_fp(self) -> bool:
        """Floating-point operands (fp32 products and accumulation)."""
        return self.dtype != "int"

    @property
    def shapes(self) -> tuple[Shape, Shape, Shape]:
        """Amaranth shapes of operand A, operand B and the partial sums (fp: unsigned bit patterns)."""
        sg = self.signed and not self.is_fp
        return Shape(self.a_width, sg), Shape(self.b_width, sg), Shape(self.acc_width, sg)

    @property
    def pes(self) -> int:
        return self.rows * self.cols


def _pe_mac(p: SystolicParams, *, addend: bool) -> MAC:
    return MAC(a_width=p.a_width, b_width=p.b_width, acc_width=p.acc_width, signed=p.signed, addend_input=addend)


def _fp_units(m: Module, p: SystolicParams):
    """The floating-point datapath of a PE: an ``FPMultiplier`` (operands -> fp32 product, exact for
    fp16/bf16) feeding an fp32 ``FPAdder``, both combinational, between the same registers as the
    integer MAC (so the array's latency and cycle counts are those of the integer array)."""
    m.submodules.mul = mul = FPMultiplier(p.dtype)
    m.submodules.add = add = FPAdder()
    return mul, add


class WSProcessingElement(wiring.Component):
    """Weight-stationary PE: ``psum_out <= psum_in + a_in * w`` (registered), ``a`` forwarded right.

    Ports: ``a_in``/``a_valid_in`` from the left, forwarded (registered) on
    ``a_out``/``a_valid_out``; ``w_in`` from above, loaded into the weight register
    when ``w_load`` is high and shown on ``w_out`` (the shift chain); ``psum_in``
    from above, ``psum_out`` and ``valid_out`` (registered ``a_valid_in``) below.
    Latency 1 cycle in both directions.
    """

    def __init__(self, params: SystolicParams):
        self.params = p = params
        a, b, acc = p.shapes
        super().__init__({
            "a_in": In(a), "a_valid_in": In(1), "w_in": In(b), "w_load": In(1), "psum_in": In(acc),
            "a_out": Out(a), "a_valid_out": Out(1), "w_out": Out(b), "psum_out": Out(acc), "valid_out": Out(1),
        })

    def elaborate(self, platform):
        if self.params.is_fp:
            return self._elaborate_fp()
        m = Module()
        m.submodules.mac = mac = _pe_mac(self.params, addend=True)
        weight = Signal.like(self.w_in, name="weight")
        with m.If(self.w_load):
            m.d.sync += weight.eq(self.w_in)
        m.d.comb += [
            mac.a.eq(self.a_in), mac.b.eq(weight), mac.en.eq(self.a_valid_in),
            mac.clear.eq(1), mac.c_in.eq(self.psum_in),
            self.psum_out.eq(mac.acc), self.w_out.eq(weight),
        ]
        m.d.sync += [self.a_out.eq(self.a_in), self.a_valid_out.eq(self.a_valid_in),
                     self.valid_out.eq(self.a_valid_in)]
        return m

    def _elaborate_fp(self):
        # psum_out <= a_valid ? fp32(psum_in + fp32(a_in * weight)) : psum_in   (RNE, IEEE specials)
        m = Module()
        mul, add = _fp_units(m, self.params)
        weight = Signal.like(self.w_in, name="weight")
        psum = Signal(32, name="psum_q")
        with m.If(self.w_load):
            m.d.sync += weight.eq(self.w_in)
        m.d.comb += [mul.a.eq(self.a_in), mul.b.eq(weight), add.a.eq(self.psum_in), add.b.eq(mul.product),
                     self.psum_out.eq(psum), self.w_out.eq(weight)]
        m.d.sync += [psum.eq(Mux(self.a_valid_in, add.sum, self.psum_in)),
                     self.a_out.eq(self.a_in), self.a_valid_out.eq(self.a_valid_in),
                     self.valid_out.eq(self.a_valid_in)]
        return m


class OSProcessingElement(wiring.Component):
    """Output-stationary PE: accumulates ``a_in * b_in``; a capture/shift chain drains the sums.

    Ports: ``a_in``, ``a_valid_in``, ``a_first_in`` from the left (forwarded,
    registered, on ``a_out``, ``a_valid_out``, ``a_first_out``); ``b_in`` from
    above (forwarded on ``b_out``); ``capture`` (global); ``out_in``/``out_valid_in``
    from the PE above, ``out_out``/``out_valid_out`` to the PE below:
    ``out <= capture ? acc : out_in``. Latency 1 cycle in every direction.
    """

    def __init__(self, params: SystolicParams):
        self.params = p = params
        a, b, acc = p.shapes
        super().__init__({
            "a_in": In(a), "a_valid_in": In(1), "a_first_in": In(1), "b_in": In(b), "capture": In(1),
            "out_in": In(acc), "out_valid_in": In(1),
            "a_out": Out(a), "a_valid_out": Out(1), "a_first_out": Out(1), "b_out": Out(b),
            "out_out": Out(acc), "out_valid_out": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        if self.params.is_fp:
            # acc <= fp32((a_first ? +0.0 : acc) + fp32(a_in * b_in)) when a_valid; +0.0 on a_first alone
            mul, add = _fp_units(m, self.params)
            acc = Signal(32, name="acc_q")
            m.d.comb += [mul.a.eq(self.a_in), mul.b.eq(self.b_in), add.a.eq(Mux(self.a_first_in, 0, acc)),
                         add.b.eq(mul.product)]
            with m.If(self.a_valid_in):
                m.d.sync += acc.eq(add.sum)
            with m.Elif(self.a_first_in):
                m.d.sync += acc.eq(0)
        else:
            m.submodules.mac = mac = _pe_mac(self.params, addend=False)
            m.d.comb += [mac.a.eq(self.a_in), mac.b.eq(self.b_in), mac.en.eq(self.a_valid_in),
                         mac.clear.eq(self.a_first_in)]
            acc = mac.acc
        m.d.sync += [self.a_out.eq(self.a_in), self.a_valid_out.eq(self.a_valid_in),
                     self.a_first_out.eq(self.a_first_in), self.b_out.eq(self.b_in)]
        with m.If(self.capture):
            m.d.sync += [self.out_out.eq(acc), self.out_valid_out.eq(1)]
        with m.Else():
            m.d.sync += [self.out_out.eq(self.out_in), self.out_valid_out.eq(self.out_valid_in)]
        return m


class SystolicArray(FromParams, HierarchicalComponent):
    """A ``rows x cols`` systolic array of MAC processing elements (integer or floating point).

    Parameters
    ----------
    rows, cols : int
        Array size, 1..256 each; non-square arrays are allowed.
    dataflow : ``"ws"`` or ``"os"``
        Weight-stationary (weights preloaded, activations from the left, partial
        sums flow down) or output-stationary (A from the left, B from the top,
        each PE keeps one output element, then drains).
    a_width, b_width, acc_width, signed
        Operand and partial-sum widths, as for :class:`~accelgen.rtl.mac.MAC`.
        Sums wrap around modulo ``2**acc_width``. Implied by a floating-point
        ``dtype`` (16 or 32 / 16 or 32 / 32, no ``signed``); an explicit
        contradictory value is rejected.
    dtype : ``"int"``, ``"fp16"``, ``"bf16"`` or ``"fp32"``
        Operand datatype. With a floating-point dtype every PE multiplies with an
        :class:`~accelgen.rtl.fp.FPMultiplier` (fp32 product: exact for fp16 and
        bf16, RNE for fp32) and adds with an fp32 :class:`~accelgen.rtl.fp.FPAdder`
        (RNE, IEEE signed zeros, infinities, canonical NaN, subnormals exact),
        both combinational between the registers of the integer PE, so latency
        and cycle counts are those of the integer array. Association order (the
        golden model, :func:`accelgen.golden.systolic.fp_gemm_reference`,
        follows it exactly): WS - each column's partial sum enters the top PE as
        +0.0 and PE row ``r`` computes ``psum + A[m, r] * W[r, c]``, rows top to
        bottom (a cycle without ``a_valid`` passes ``psum`` through unchanged);
        OS - each PE computes ``acc <- acc + A[r, k] * B[k, c]`` in ``k`` order
        starting from +0.0 at ``a_first``.
    weight_load : ``"shift"``
        WS weight loading: while ``w_load`` is high, every column's weight
        registers shift down one row per cycle (``rows`` cycles for a full load).

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
    See the module docstring: WS results leave ``rows + c`` cycles after the
    activation entered row 0 of its skew; OS sums leave ``1 + j`` cycles after
    ``capture`` (row ``rows-1-j``). All PEs advance every cycle; there is no stall.
    """

    def __init__(self, *, rows: int = 4, cols: int = 4, dataflow: str = "ws", a_width: int | None = None,
                 b_width: int | None = None, acc_width: int | None = None, signed: bool | None = None,
                 weight_load: str = "shift", dtype: str = "int"):
        # widths and signed left out (None) take the schema default: 8/8/32/signed for "int", implied for fp
        self.params = p = SystolicParams.from_arguments(
            rows=rows, cols=cols, dataflow=dataflow, a_width=a_width, b_width=b_width, acc_width=acc_width,
            signed=signed, weight_load=weight_load, dtype=dtype)
        a, b, acc = p.shapes
        if p.dataflow == "ws":
            members = {"a_in": In(a).array(p.rows), "a_valid": In(1).array(p.rows),
                       "w_in": In(b).array(p.cols), "w_load": In(1),
                       "psum_out": Out(acc).array(p.cols), "out_valid": Out(1).array(p.cols)}
        else:
            members = {"a_in": In(a).array(p.rows), "a_valid": In(1).array(p.rows), "a_first": In(1).array(p.rows),
                       "b_in": In(b).array(p.cols), "capture": In(1),
                       "c_out": Out(acc).array(p.cols), "out_valid": Out(1).array(p.cols)}
        super().__init__(members)

    @property
    def latency(self) -> int:
        """Cycles from an activation entering row 0, column 0 to its result at the bottom of column 0
        (WS), or from ``capture`` to the first drained sum (OS)."""
        return self.params.rows if self.params.dataflow == "ws" else 1

    def elaborate(self, platform):
        p = self.params
        return self._elaborate_ws(p) if p.dataflow == "ws" else self._elaborate_os(p)

    def _grid(self, p, name, shape):
        return [[Signal(shape, name=f"{name}_{r}_{c}") for c in range(p.cols)] for r in range(p.rows)]

    def _elaborate_ws(self, p):
        m = Module()
        a_sh, b_sh, acc_sh = p.shapes
        a_out, av_out = self._grid(p, "a", a_sh), self._grid(p, "av", 1)
        w_out, psum, valid = self._grid(p, "w", b_sh), self._grid(p, "psum", acc_sh), self._grid(p, "v", 1)
        for r in range(p.rows):
            for c in range(p.cols):
                m.submodules[f"pe_{r}_{c}"] = self.cell_instance(
                    "pe", WSProcessingElement(p),
                    a_in=self.a_in[r] if c == 0 else a_out[r][c - 1],
                    a_valid_in=self.a_valid[r] if c == 0 else av_out[r][c - 1],
                    w_in=self.w_in[c] if r == 0 else w_out[r - 1][c],
                    w_load=self.w_load,
                    psum_in=Const(0, acc_sh) if r == 0 else psum[r - 1][c],
                    a_out=a_out[r][c], a_valid_out=av_out[r][c], w_out=w_out[r][c],
                    psum_out=psum[r][c], valid_out=valid[r][c])
        for c in range(p.cols):
            m.d.comb += [self.psum_out[c].eq(psum[p.rows - 1][c]), self.out_valid[c].eq(valid[p.rows - 1][c])]
        return m

    def _elaborate_os(self, p):
        m = Module()
        a_sh, b_sh, acc_sh = p.shapes
        a_out, av_out, af_out = self._grid(p, "a", a_sh), self._grid(p, "av", 1), self._grid(p, "af", 1)
        b_out, out, ov = self._grid(p, "b", b_sh), self._grid(p, "out", acc_sh), self._grid(p, "ov", 1)
        for r in range(p.rows):
            for c in range(p.cols):
                m.submodules[f"pe_{r}_{c}"] = self.cell_instance(
                    "pe", OSProcessingElement(p),
                    a_in=self.a_in[r] if c == 0 else a_out[r][c - 1],
                    a_valid_in=self.a_valid[r] if c == 0 else av_out[r][c - 1],
                    a_first_in=self.a_first[r] if c == 0 else af_out[r][c - 1],
                    b_in=self.b_in[c] if r == 0 else b_out[r - 1][c],
                    capture=self.capture,
                    out_in=Const(0, acc_sh) if r == 0 else out[r - 1][c],
                    out_valid_in=Const(0, 1) if r == 0 else ov[r - 1][c],
                    a_out=a_out[r][c], a_valid_out=av_out[r][c], a_first_out=af_out[r][c], b_out=b_out[r][c],
                    out_out=out[r][c], out_valid_out=ov[r][c])
        for c in range(p.cols):
            m.d.comb += [self.c_out[c].eq(out[p.rows - 1][c]), self.out_valid[c].eq(ov[p.rows - 1][c])]
        return m
