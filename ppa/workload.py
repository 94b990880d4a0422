"""Workloads: validated layer lists (GEMM and convolution) and their lowering to GEMM arrays.

A workload file (YAML) is::

    name: resnet50
    source: "He et al., CVPR 2016, Table 1"
    batch: 1                      # default batch (``accelgen perf --batch`` overrides)
    a_width: 8                    # default operand widths (bits); A = activations, B = weights
    b_width: 8
    a_density: 1.0                # default per-tensor density (see below)
    b_density: 1.0
    layers:
      - {name: conv1, type: conv, C: 3, H: 224, W: 224, K: 64, R: 7, S: 7, stride: 2, padding: 3}
      - {name: fc, type: gemm, M: 1, N: 1000, K: 2048}

GEMM layers compute ``C[M,N] = A[M,K] @ B[K,N]``; ``M`` is per sample and is
multiplied by the batch unless ``batched: false``; ``count`` repeats the GEMM
(attention heads); ``weights: false`` says B is an activation too (it then
scales with the batch and is not reused across samples).

Convolutions (``C, H, W`` input, ``K`` filters of ``R x S`` (``S`` defaults to ``R``), ``stride``,
``padding`` as an int, ``[ph, pw]`` or ``[top, left, bottom, right]``,
``groups``) are lowered by im2col: per group ``M = batch * P * Q``,
``K = C/groups * R * S``, ``N = K/groups``, repeated ``groups`` times
(depthwise: ``groups = C``). The tensors moved to and from memory are the real
ones (input ``C x H x W``, weights ``K x C/groups x R x S``, output
``K x P x Q`` per sample), not the im2col copy.

Density (the fraction of non-zero elements) is a number or a mapping
``{value: 0.3, pattern: random|nm|block, n: 2, m: 4, block: 16}``: ``random``
independent zeros; ``nm`` N non-zeros in every M consecutive elements along
the reduction dimension (``value = n/m``); ``block`` square ``block x block``
blocks that are wholly zero or not. ``compute`` (optional) names the compute
type a layer must run on: ``tensor`` (systolic tensor units), ``sigma``
(Flex-DPEs), ``tensordash`` or ``reduction`` (reduction trees).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal, Optional, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .. import shipped
from ..errors import ConfigError
from ..problems import schema_problems
from ..util import read_yaml

_STRICT = ConfigDict(extra="forbid", frozen=True)
COMPUTE_TYPES = ("tensor", "sigma", "tensordash", "reduction")
PATTERNS = ("random", "nm", "block")


class Density(BaseModel):
    model_config = _STRICT
    value: Optional[float] = Field(None, ge=0.0, le=1.0)
    pattern: Literal["random", "nm", "block"] = "random"
    n: Optional[int] = Field(None, ge=0)
    m: Optional[int] = Field(None, ge=1)
    block: int = Field(1, ge=1)

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data):
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            return {"value": data}
        return data

    @model_validator(mode="after")
    def _consistent(self):
        if self.pattern == "nm":
            if self.n is None or self.m is None or self.n > self.m:
                raise ValueError(f"pattern 'nm' needs n and m with 0 <= n <= m; got n={self.n!r}, m={self.m!r}")
            if self.value is not None and abs(self.value - self.n / self.m) > 1e-9:
                raise ValueError(f"value {self.value!r} contradicts n/m = {self.n}/{self.m}")
        elif self.value is None:
            raise ValueError("density needs a value in [0, 1]")
        return self

    @property
    def d(self) -> float:
        return self.n / self.m if self.pattern == "nm" else float(self.value)


class _LayerBase(BaseModel):
    model_config = _STRICT
    name: str = Field(min_length=1)
    count: int = Field(1, ge=1)
    a_width: Optional[int] = Field(None, ge=1, le=32)
    b_width: Optional[int] = Field(None, ge=1, le=32)
    a_density: Optional[Density] = None
    b_density: Optional[Density] = None
    compute: Optional[Literal["tensor", "sigma", "tensordash", "reduction"]] = None


class GemmLayer(_LayerBase):
    type: Literal["gemm"]
    M: int = Field(ge=1)
    N: int = Field(ge=1)
    K: int = Field(ge=1)
    batched: bool = True
    weights: bool = True


class ConvLayer(_LayerBase):
    type: Literal["conv"]
    C: int = Field(ge=1)
    H: int = Field(ge=1)
    W: int = Field(ge=1)
    K: int = Field(ge=1)
    R: int = Field(ge=1)
    S: int = Field(ge=1)
    stride: Union[int, list[int]] = 1
    padding: Union[int, list[int]] = 0
    groups: int = Field(1, ge=1)

    @model_validator(mode="before")
    @classmethod
    def _square_default(cls, data):
        if isinstance(data, dict) and "S" not in data and "R" in data:
            data = {**data, "S": data["R"]}  # S defaults to R (square filters)
        return data

    @model_validator(mode="after")
    def _shape(self):
        st = self.strides
        if len(st) != 2 or min(st) < 1:
            raise ValueError(f"stride {self.stride!r} is not allowed; expected an int >= 1 or [sh, sw]")
        pads = self.pads
        if len(pads) != 4 or min(pads) < 0:
            raise ValueError(f"padding {self.padding!r} is not allowed; expected an int >= 0, [ph, pw] or "
                             "[top, left, bottom, right]")
        if self.C % self.groups or self.K % self.groups:
            raise ValueError(f"groups={self.groups} must divide C={self.C} and K={self.K}")
        p, q = self.out_hw
        if p < 1 or q < 1:
            raise ValueError(f"a {self.R}x{self.S} filter on a {self.H}x{self.W} input (padding {self.padding}, "
                             f"stride {self.stride}) has no output")
        return self

    @property
    def strides(self) -> list[int]:
        return [self.stride, self.stride] if isinstance(self.stride, int) else list(self.stride)

    @property
    def pads(self) -> list[int]:
        p = self.padding
        if isinstance(p, int):
            return [p, p, p, p]
        if len(p) == 2:
            return [p[0], p[1], p[0], p[1]]
        return list(p)

    @property
    def out_hw(self) -> tuple[int, int]:
        t, l, b, r = self.pads
        sh, sw = self.strides
        return (self.H + t + b - self.R) // sh + 1, (self.W + l + r - self.S) // sw + 1


Layer = Annotated[Union[GemmLayer, ConvLayer], Field(discriminator="type")]


class Workload(BaseModel):
    """A layer list (see the module docstring)."""

    model_config = _STRICT
    name: str = "workload"
    source: str = ""
    batch: int = Field(1, ge=1)
    a_width: int = Field(8, ge=1, le=32)
    b_width: int = Field(8, ge=1, le=32)
    a_density: Density = Density(value=1.0)
    b_density: Density = Density(value=1.0)
    storage: Literal["auto", "dense", "bitmap", "csr"] = "auto"
    layers: list[Layer] = Field(min_length=1)
    notes: dict[str, str] = {}

    @model_validator(mode="after")
    def _unique(self):
        names = [lay.name for lay in self.layers]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"layer names must be unique; repeated: {', '.join(dup)}")
        return self


def parse_workload(data: dict, source: str | None = None) -> Workload:
    if not isinstance(data, dict):
        raise ConfigError([("", f"expected a mapping at the top level, got {type(data).__name__}")], source)
    try:
        return Workload.model_validate(data)
    except ValidationError as exc:
        # pydantic prefixes union members with the tag (layers.3.conv.R): drop it
        probs = [(p.replace(".gemm.", ".").replace(".conv.", ".").replace(".gemm", "").replace(".conv", ""), m)
                 for p, m in schema_problems(exc, root=Workload)]
        raise ConfigError(probs, source) from None


def resolve_workload_path(name: str | Path) -> Path:
    """A workload file as given, or the name of a shipped workload (``resnet50``) -> its file in the package
    data (``accelgen/ppa/workloads/``); neither is a :class:`ConfigError` listing the shipped names."""
    return shipped.resolve("workloads", name)


def load_workload(path: str | Path) -> Workload:
    """Read and validate a workload file or a shipped workload (by name)."""
    path = resolve_workload_path(path)
    data = read_yaml(path)
    return parse_workload(data, str(path))


def shipped_workloads() -> list[str]:
    """The names of the shipped workloads (``accelgen.shipped.names("workloads")``)."""
    return shipped.names("workloads")


@dataclass
class Gemms:
    """A workload lowered to GEMMs at one batch: numpy arrays over layers (one entry per layer).

    ``M, N, K`` are one GEMM; ``count`` independent GEMMs of that shape make the
    layer (groups x repeats). ``a_elems, b_elems, c_elems`` are the elements of
    the real input, weight and output tensors of the whole layer (all groups).
    Densities: ``*_d`` value, ``*_pat`` index into :data:`PATTERNS`, ``*_n``,
    ``*_m`` (N:M), ``*_block``. ``conv_r, conv_s, conv_p, conv_q``: a convolution's
    filter rows and columns and output rows and columns (0 for a GEMM layer), which
    the im2col shape has folded into ``M`` and ``K`` and a row-stationary schedule needs.
    """

    names: list
    kinds: list
    compute: list
    M: np.ndarray
    N: np.ndarray
    K: np.ndarray
    count: np.ndarray
    a_elems: np.ndarray
    b_elems: np.ndarray
    c_elems: np.ndarray
    a_width: np.ndarray
    b_width: np.ndarray
    a_d: np.ndarray
    b_d: np.ndarray
    a_pat: np.ndarray
    b_pat: np.ndarray
    a_n: np.ndarray
    a_m: np.ndarray
    b_n: np.ndarray
    b_m: np.ndarray
    a_block: np.ndarray
    b_block: np.ndarray
    conv_r: np.ndarray
    conv_s: np.ndarray
    conv_p: np.ndarray
    conv_q: np.ndarray
    batch: int

    @property
    def macs(self) -> np.ndarray:
        """Dense multiply-accumulates of each layer (all groups)."""
        return self.M * self.N * self.K * self.count

    def subset(self, idx) -> "Gemms":
        idx = np.asarray(idx)
        out = {}
        for k, v in self.__dict__.items():
            if isinstance(v, np.ndarray):
                out[k] = v[idx]
            elif isinstance(v, list):
                out[k] = [v[i] for i in idx]
            else:
                out[k] = v
        return Gemms(**out)


def lower(wl: Workload, batch: int | None = None) -> Gemms:
    """Lower every layer to GEMM arrays at ``batch`` (default: the workload's)."""
    b = wl.batch if batch is None else int(batch)
    if b < 1:
        raise ConfigError([("batch", f"{b!r} is not allowed; expected an integer >= 1")])
    rows = []
    for lay in wl.layers:
        ad, bd = lay.a_density or wl.a_density, lay.b_density or wl.b_density
        if isinstance(lay, ConvLayer):
            p, q = lay.out_hw
            g = lay.groups
            M, N, K = b * p * q, lay.K // g, lay.C // g * lay.R * lay.S
            count = g * lay.count
            a_el = b * lay.C * lay.H * lay.W * lay.count
            b_el = lay.K * (lay.C // g) * lay.R * lay.S * lay.count
            c_el = b * lay.K * p * q * lay.count
            geom = (lay.R, lay.S, p, q)
        else:
            M = lay.M * (b if lay.batched else 1)
            N, K, count = lay.N, lay.K, lay.count
            a_el = M * K * count
            b_el = K * N * count * (1 if lay.weights else (b if lay.batched else 1))
            if not lay.weights and lay.batched:
                count *= b  # each sample has its own B: batch x count independent GEMMs of per-sample M
                M = lay.M
                a_el = M * K * count
            c_el = M * N * count
            geom = (0, 0, 0, 0)
        rows.append((lay.name, lay.type, lay.compute, M, N, K, count, a_el, b_el, c_el,
                     lay.a_width or wl.a_width, lay.b_width or wl.b_width, ad, bd, *geom))
    col = list(zip(*rows))

    def arr(i, dtype=np.int64):
        return np.asarray(col[i], dtype=dtype)

    def dens(i):
        ds = col[i]
        return (np.array([x.d for x in ds]), np.array([PATTERNS.index(x.pattern) for x in ds]),
                np.array([x.n or 0 for x in ds]), np.array([x.m or 1 for x in ds]), np.array([x.block for x in ds]))

    a_d, a_pat, a_n, a_m, a_blk = dens(12)
    b_d, b_pat, b_n, b_m, b_blk = dens(13)
    return Gemms(names=list(col[0]), kinds=list(col[1]), compute=list(col[2]), M=arr(3), N=arr(4), K=arr(5),
                 count=arr(6), a_elems=arr(7, float), b_elems=arr(8, float), c_elems=arr(9, float),
                 a_width=arr(10), b_width=arr(11), a_d=a_d, b_d=b_d, a_pat=a_pat, b_pat=b_pat, a_n=a_n, a_m=a_m,
                 b_n=b_n, b_m=b_m, a_block=a_blk, b_block=b_blk, conv_r=arr(14), conv_s=arr(15), conv_p=arr(16),
                 conv_q=arr(17), batch=b)


def zero_prob(d, pat, n, m, block, along_k, across):
    """Probability that a tile of ``along_k`` (reduction dim) x ``across`` elements of a tensor is all zero.

    ``random``: ``(1-d)^(along_k*across)``; ``block``: the tile covers
    ``ceil(along_k/block) * ceil(across/block)`` independent blocks;
    ``nm``: per column, ``along_k`` positions inside one group of ``m`` are all
    zero with probability ``C(m-n, t)/C(m, t)`` (0 once ``t > m - n``).
    Vectorized over layers.
    """
    d, pat, n, m, block = (np.asarray(x, dtype=float) for x in (d, pat, n, m, block))
    along_k = np.asarray(along_k, dtype=float)
    across = np.asarray(across, dtype=float)
    q = np.clip(1.0 - d, 0.0, 1.0)
    rnd = q ** (along_k * across)
    blk = q ** (np.ceil(along_k / block) * np.ceil(across / block))
    # nm: hypergeometric, t = min(along_k, m) positions of one group
    t = np.minimum(along_k, m)
    zeros = m - n
    ratio = np.ones(np.broadcast(t, m).shape)
    tmax = int(np.max(t)) if np.size(t) else 0
    for j in range(min(tmax, 64)):
        ratio = ratio * np.where(j < t, np.clip((zeros - j) / np.maximum(m - j, 1), 0.0, 1.0), 1.0)
    ratio = np.where(t > zeros, 0.0, ratio) if tmax <= 64 else np.where(t > zeros, 0.0, ratio)
    nm = ratio ** across
    return np.where(pat == 0, rnd, np.where(pat == 2, blk, nm))
