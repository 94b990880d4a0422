"""The floating-point formats of accelgen: one table for the generators, the golden models, the
co-simulation hosts, the sweeps and the estimator.

Each format is a sign bit, ``exponent_bits`` biased exponent bits and ``fraction_bits`` stored
fraction bits (hidden leading 1 for normal numbers), most significant first; a normal value is
``(-1)**s * 2**(exp - bias) * 1.fraction`` with ``bias = 2**(exponent_bits - 1) - 1``:

* ``fp16``: binary16 of IEEE 754-2008 (IEEE Std 754-2008, "IEEE Standard for Floating-Point
  Arithmetic", table 3.5): 1/5/10 bits, bias 15;
* ``bf16``: bfloat16, the upper half of a binary32 (1/8/7 bits, bias 127, same exponent range as
  fp32). Defined by Google (S. Wang and P. Kanwar, "BFloat16: The secret to high performance on
  Cloud TPUs", Google Cloud blog, 2019) and Intel ("BFLOAT16 - Hardware Numerics Definition",
  document 338302, 2018);
* ``fp32``: binary32 of IEEE 754-2008: 1/8/23 bits, bias 127.

Every floating-point block multiplies its operands into an fp32 product and accumulates in fp32
(:data:`ACC_DTYPE`, :data:`ACC_WIDTH`). Pure Python: no numpy needed.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FPFormat", "FORMATS", "FP_DTYPES", "FIELD_BITS", "ACC_DTYPE", "ACC_FORMAT", "ACC_WIDTH",
           "format_of", "width", "is_fp"]


@dataclass(frozen=True)
class FPFormat:
    """One binary floating-point format: sign, ``exponent_bits``, ``fraction_bits``."""

    #: the dtype name used in parameters and configs (``"bf16"``)
    name: str
    #: biased exponent bits
    exponent_bits: int
    #: stored fraction bits (without the hidden bit)
    fraction_bits: int
    #: where the format is defined
    standard: str

    @property
    def width(self) -> int:
        """Bits of one value: ``1 + exponent_bits + fraction_bits``."""
        return 1 + self.exponent_bits + self.fraction_bits

    @property
    def bias(self) -> int:
        """Exponent bias ``2**(exponent_bits - 1) - 1`` (15 for fp16, 127 for bf16 and fp32)."""
        return (1 << (self.exponent_bits - 1)) - 1

    @property
    def accumulator(self) -> "FPFormat":
        """The format products and sums of this operand format are formed in (fp32 for every format)."""
        return ACC_FORMAT


#: every floating-point dtype, keyed by name, in the order configs and messages list them
FORMATS: dict[str, FPFormat] = {f.name: f for f in (
    FPFormat("fp16", 5, 10, "IEEE 754-2008 binary16"),
    FPFormat("bf16", 8, 7, "bfloat16 (Google Cloud TPU, 2019; Intel BF16 spec 338302, 2018)"),
    FPFormat("fp32", 8, 23, "IEEE 754-2008 binary32"),
)}
#: the floating-point dtype names (``("fp16", "bf16", "fp32")``)
FP_DTYPES: tuple[str, ...] = tuple(FORMATS)
#: ``(exponent bits, fraction bits)`` per dtype: the tuple view older callers unpack
FIELD_BITS: dict[str, tuple[int, int]] = {n: (f.exponent_bits, f.fraction_bits) for n, f in FORMATS.items()}

#: the accumulation format of every floating-point block: products and sums are fp32
ACC_DTYPE = "fp32"
ACC_FORMAT = FORMATS[ACC_DTYPE]
#: bits of an accumulator / product / sum (32)
ACC_WIDTH = ACC_FORMAT.width


def is_fp(dtype: object) -> bool:
    """``dtype`` names a floating-point format (False for ``"int"`` and for anything not a name)."""
    return isinstance(dtype, str) and dtype in FORMATS


def format_of(dtype: object) -> FPFormat:
    """The format named ``dtype``; ``ValueError`` naming the allowed ones if there is none."""
    if not is_fp(dtype):
        raise ValueError(f"dtype {dtype!r} is not a floating-point format; allowed: "
                         + ", ".join(repr(d) for d in FP_DTYPES))
    return FORMATS[dtype]


def width(dtype: object) -> int:
    """Bits of one ``dtype`` value: 16 for fp16 and bf16, 32 for fp32."""
    return format_of(dtype).width
