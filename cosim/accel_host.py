"""The accelerator's host driver: a GEMM or a convolution (lowered by im2col) tiled into commands, the operands laid
out in external memory, and the tokens that let loads, compute and stores overlap without a hazard.

Layout in external memory (one line = ``rows`` operands = one AXI4 beat, lane ``i`` in bits ``[i*w, (i+1)*w)``):
``A`` by K-slices, ``A_k[m] = A[m, k*R:(k+1)*R]`` at ``A + (k*M + m)``; ``B`` by K- and N-slices, ``B_kn[r] =
B[k*R + r, n*R:(n+1)*R]`` at ``B + ((k*NB + n)*R + r)``; results by N-slices, ``C_n[m]`` at ``C + (n*M + m)`` (line
offsets; operands past K or N are zeros, results past N are dropped).

Schedule (rows of A in the fewest tiles of equal rows (within one), ``Mt``, that fit two A tiles and two weight
slices in the scratchpad and two accumulator buffers in the accumulator): for each tile, for each N-slice, for each K-slice: (for the first
N-slice, load the tile's K-slice of A into one of two A buffers), load the weight slice into one of two weight
buffers and compute the fold into one of two accumulator buffers (accumulating after the first K-slice); after the
last K-slice, store the buffer through the activation stage. The load unit runs ahead as far as the buffers allow,
so a fold's operands (at most ``Mt + rows`` lines) load while the fold before it computes (``rows + Mt + skew - 1``
cycles) and a buffer's store runs during the next N-slice's folds: only the first fold's loads and the last
store are not hidden. :func:`resolve_tokens` derives every token from what each command reads and writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigError
from ..params.accel import AccelParams, encode

__all__ = ["Command", "Program", "conv_im2col", "plan_gemm", "resolve_tokens"]

_UNIT = {"load": "load", "compute": "execute", "store": "store", "config": "store"}
#: (producer unit, what it does to the memory, consumer unit, what the consumer does, memory,
#:  the consumer's flag, the producer's flag): a consumer command waits for the last producer command it conflicts with
_DEPENDENCIES = (
    ("load", "writes", "execute", "reads", "sp", "pop_prev", "push_next"),      # operands in before a fold reads them
    ("execute", "reads", "load", "writes", "sp", "pop_next", "push_prev"),      # a fold done before its lines are reused
    ("execute", "writes", "store", "reads", "acc", "pop_prev", "push_next"),    # sums in before they are stored
    ("store", "reads", "execute", "writes", "acc", "pop_next", "push_prev"),    # stored before the buffer is reused
)
#: DRAM regions start on 4 KB boundaries
_ALIGN = 4096


@dataclass
class Command:
    """A command with the memory lines it reads and writes (``{"sp": [(first, end)], "acc": [...]}``), before its
    token flags are set."""

    op: str
    fields: dict
    reads: dict = field(default_factory=dict)
    writes: dict = field(default_factory=dict)

    @property
    def unit(self) -> str:
        return _UNIT[self.op]


def _overlaps(spans_a, spans_b) -> bool:
    return any(a0 < b1 and b0 < a1 for a0, a1 in spans_a for b0, b1 in spans_b)


def resolve_tokens(commands: list[Command]) -> list[int]:
    """The command words, each with the tokens it waits for and gives (:mod:`accelgen.params.accel`).

    For each pair of units that share a memory, a consumer command waits for the latest earlier producer command
    whose lines it conflicts with; a wait already implied by an earlier wait of the same unit (the units run in
    order) is dropped, so the waits of a unit name strictly later producers, and the n-th token taken is the n-th
    given. Every wait names an earlier command, so a program in this order never deadlocks."""
    flags = [dict() for _ in commands]
    for producer, p_does, consumer, c_does, memory, pop, push in _DEPENDENCIES:
        produced = []   # (index in program, spans) of the producer unit's commands so far, in order
        last_wait = -1
        for i, cmd in enumerate(commands):
            if cmd.unit == consumer and memory in getattr(cmd, c_does):
                mine = getattr(cmd, c_does)[memory]
                dep = max((j for j, (_, spans) in enumerate(produced) if _overlaps(spans, mine)), default=-1)
                if dep > last_wait:
                    flags[i][pop] = 1
                    flags[produced[dep][0]][push] = 1
                    last_wait = dep
            if cmd.unit == producer:
                produced.append((i, getattr(cmd, p_does).get(memory, [])))
    return [encode(cmd.op, **cmd.fields, **flags[i]) for i, cmd in enumerate(commands)]


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _align(n: int) -> int:
    return _cdiv(n, _ALIGN) * _ALIGN


def pack_lines(values: np.ndarray, bits: int) -> bytes:
    """Lines of operands (``(lines, R)`` ints or bit patterns) as bytes, lane ``i`` in bits ``[i*bits, ...)``."""
    mask = (1 << bits) - 1
    line_bytes = values.shape[1] * bits // 8
    out = bytearray()
    for row in values:
        word = 0
        for i, v in enumerate(row):
            word |= (int(v) & mask) << (i * bits)
        out += word.to_bytes(line_bytes, "little")
    return bytes(out)


def unpack_lines(data: bytes, lanes: int, bits: int, signed: bool) -> np.ndarray:
    """The inverse of :func:`pack_lines`: ``(lines, lanes)`` ints (two's complement when ``signed``)."""
    line_bytes = lanes * bits // 8
    mask = (1 << bits) - 1
    rows = []
    for k in range(len(data) // line_bytes):
        word = int.from_bytes(data[k * line_bytes:(k + 1) * line_bytes], "little")
        lane = [(word >> (i * bits)) & mask for i in range(lanes)]
        rows.append([v - (1 << bits) if signed and v >> (bits - 1) else v for v in lane])
    return np.array(rows, dtype=np.int64).reshape(-1, lanes)


@dataclass
class Program:
    """A layer for the accelerator: the command words (and the commands they were resolved from, with the lines each
    reads and writes), the external-memory images (address -> bytes), and where the results are (``c_addr``, ``M``
    lines per N-slice, ``N``)."""

    commands: list[int]
    plan: list[Command]
    images: dict[int, bytes]
    c_addr: int
    M: int
    N: int
    dram_bytes: int
    m_tile: int
    folds: int

    def results(self, read, params: AccelParams) -> np.ndarray:
        """``C[M, N]`` read back with ``read(addr, nbytes) -> bytes`` (ints, or bit patterns for fp)."""
        R = params.array.rows
        slices = []
        for n in range(_cdiv(self.N, R)):
            data = read(self.c_addr + n * self.M * params.line_bytes, self.M * params.line_bytes)
            signed = params.array.dtype == "int" and params.array.signed
            slices.append(unpack_lines(data, R, params.operand_bits, signed))
        return np.concatenate(slices, axis=1)[:, :self.N]


def plan_gemm(params: AccelParams, A: np.ndarray, B: np.ndarray, *, relu: bool = False, shift: int = 0,
              scale: int = 1) -> Program:
    """The program of ``activation(A @ B)`` (``A[M, K]``, ``B[K, N]``: int values, or bit patterns for fp)."""
    R, LB, bits = params.array.rows, params.line_bytes, params.operand_bits
    M, K = A.shape
    N = B.shape[1]
    KB, NB = _cdiv(K, R), _cdiv(N, R)
    m_tile = min(M, (params.sp_lines - 2 * R) // (2 * KB), params.acc_lines // 2)
    if m_tile >= 1:   # the fewest tiles, of equal rows within one: a short last tile would outrun the store before it
        m_tile = _cdiv(M, _cdiv(M, m_tile))
    if m_tile < 1:
        raise ConfigError([("K", f"{K} needs {KB} scratchpad slices per row of A; the scratchpad's {params.sp_lines} "
                                 f"lines hold two {R}-line weight slices and two A tiles of at least one row only for "
                                 f"K <= {(params.sp_lines - 2 * R) // 2 * R}")])
    Ap = np.zeros((M, KB * R), dtype=np.int64)
    Ap[:, :K] = A
    Bp = np.zeros((KB * R, NB * R), dtype=np.int64)
    Bp[:K, :N] = B
    a_lines = np.concatenate([Ap[:, k * R:(k + 1) * R] for k in range(KB)])
    b_lines = np.concatenate([Bp[k * R:(k + 1) * R, n * R:(n + 1) * R] for k in range(KB) for n in range(NB)])
    a_addr = 0
    b_addr = _align(len(a_lines) * LB)
    c_addr = b_addr + _align(len(b_lines) * LB)
    dram_bytes = c_addr + _align(NB * M * LB)
    images = {a_addr: pack_lines(a_lines, bits), b_addr: pack_lines(b_lines, bits)}
    half_acc = params.acc_lines // 2
    cmds = [Command("config", {"relu": int(relu), "shift": shift, "scale": scale})]
    weights = pairs = folds = 0
    for t, m0 in enumerate(range(0, M, m_tile)):
        rows = min(m_tile, M - m0)
        a_buf = 2 * R + (t % 2) * m_tile * KB
        for n in range(NB):
            acc_buf = (pairs % 2) * half_acc
            pairs += 1
            acc_span = [(acc_buf, acc_buf + rows)]
            for k in range(KB):
                a_span = (a_buf + k * m_tile, a_buf + k * m_tile + rows)
                if n == 0:   # each K-slice of the tile's rows of A just before the first fold that reads it
                    cmds.append(Command("load", {"dram_addr": a_addr + (k * M + m0) * LB, "sp_addr": a_span[0],
                                                 "lines": rows, "stride": LB}, writes={"sp": [a_span]}))
                w_buf = (weights % 2) * R
                weights += 1
                cmds.append(Command("load", {"dram_addr": b_addr + (k * NB + n) * R * LB, "sp_addr": w_buf,
                                             "lines": R, "stride": LB}, writes={"sp": [(w_buf, w_buf + R)]}))
                cmds.append(Command("compute", {"a_addr": a_span[0], "w_addr": w_buf, "acc_addr": acc_buf,
                                                "m_len": rows, "accumulate": int(k > 0)},
                                    reads={"sp": [a_span, (w_buf, w_buf + R)]}, writes={"acc": acc_span}))
                folds += 1
            cmds.append(Command("store", {"dram_addr": c_addr + (n * M + m0) * LB, "acc_addr": acc_buf,
                                          "lines": rows, "stride": LB}, reads={"acc": acc_span}))
    return Program(resolve_tokens(cmds), cmds, images, c_addr, M, N, dram_bytes, m_tile, folds)


def conv_im2col(x: np.ndarray, w: np.ndarray, stride=(1, 1), pads=(0, 0, 0, 0)) -> tuple[np.ndarray, np.ndarray,
                                                                                            tuple[int, int]]:
    """A convolution as a GEMM: ``x[C, H, W]``, ``w[K, C, R, S]`` -> ``(A[P*Q, C*R*S], B[C*R*S, K], (P, Q))``; the
    result ``A @ B`` is the output ``[P*Q, K]`` (one group, padding with zeros)."""
    C, H, W = x.shape
    K, _, R, S = w.shape
    t, left, b, r = pads
    sh, sw = stride
    xp = np.zeros((C, H + t + b, W + left + r), dtype=x.dtype)
    xp[:, t:t + H, left:left + W] = x
    P, Q = (H + t + b - R) // sh + 1, (W + left + r - S) // sw + 1
    cols = np.empty((P * Q, C * R * S), dtype=x.dtype)
    for p in range(P):
        for q in range(Q):
            cols[p * Q + q] = xp[:, p * sh:p * sh + R, q * sw:q * sw + S].reshape(-1)
    return cols, w.reshape(K, -1).T.copy(), (P, Q)
