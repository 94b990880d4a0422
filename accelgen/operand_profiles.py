"""Stimulus profiles: what the nonzero operands of an activity simulation look like (issue 49, item 3).

How often an operand is zero is the ``density`` of a sweep or a chip description; a *profile* says how the nonzero
values are drawn, which sets how many bits toggle and how far fp exponents spread:

* ``uniform``: every bit pattern of the operand equally likely (integers: uniform over the range; fp: uniform bit
  patterns, NaNs and infinities included). Every bit toggles with probability 1/2: the worst case, what the
  integer sweeps and the operator ladder have always used.
* ``normal``: fp values drawn from normal(0, 1) and rounded to the format, what the fp sweeps have always used
  (``accelgen.golden.fp.random_fp_bits``); integers have no such profile.
* ``dnn``: values drawn from real tensors' distributions (``accelgen/data/operand_profiles.json``, made by
  ``bench/operand_profiles.py``: a CNN trained on scikit-learn's digits): an operand has a *role* (activation,
  weight, gradient) and its value is an inverse-CDF draw from that role's nonzero values. fp operands take the
  values as they are; an integer operand takes the value divided by its tensor's largest magnitude, scaled to the
  operand's full range and rounded (symmetric per-tensor quantization). Draws are independent from cycle to cycle
  (the file holds distributions, not sequences).

This module draws *values* (floats for fp, Python-sized integers for ints); packing fp values into bit patterns is
the golden model's (``accelgen.cosim.stimulus.operand_fp_bits``).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

import numpy as np

from .errors import ConfigError

PROFILES = {
    "uniform": "every bit pattern of a nonzero operand equally likely (each bit a fair coin): the worst case",
    "normal": "fp operands normal(0, 1), rounded to the format",
    "dnn": "nonzero operands drawn from real tensors (accelgen/data/operand_profiles.json: a CNN trained on "
           "scikit-learn's digits; activations after ReLU, weights, gradients), independent per cycle",
}
ROLES = ("activation", "weight", "gradient")
#: the profile each kind of operand used before profiles existed (and still uses by default)
DEFAULT_INT, DEFAULT_FP = "uniform", "normal"


def check_profile(profile: str, *, fp: bool, where: str = "profile") -> str:
    """``profile`` if it names a profile that applies to the operand kind, else a one-line ConfigError."""
    allowed = [p for p in PROFILES if fp or p != "normal"]
    if profile not in allowed:
        raise ConfigError([(where, (f"{profile!r} is not a stimulus profile for {'fp' if fp else 'integer'} "
                                   f"operands; allowed: {', '.join(allowed)}"))])
    return profile


@cache
def tensor_statistics() -> dict:
    """The ``dnn`` profile's data file, read once."""
    path = resources.files("accelgen") / "data" / "operand_profiles.json"
    return json.loads(path.read_text())


def describe(profile: str) -> dict:
    """What a model file records about the profile it was fitted with."""
    out = {"profile": profile, "description": PROFILES[profile]}
    if profile == "dnn":
        data = tensor_statistics()
        out.update(source=data["command"], commit=data["commit"], network=data["network"])
    return out


def draw_nonzero(rng: np.random.Generator, n: int, role: str, *, scaled: bool) -> np.ndarray:
    """``n`` nonzero values of a ``dnn`` role: an inverse-CDF draw between its stored quantiles."""
    if role not in ROLES:
        raise ValueError(f"role {role!r}: allowed {', '.join(ROLES)}")
    q = np.asarray(tensor_statistics()["roles"][role]["quantiles_scaled" if scaled else "quantiles_raw"])
    x = np.interp(rng.random(n), np.linspace(0.0, 1.0, len(q)), q)
    # an interpolated draw can land on 0 between a negative and a positive quantile: nudge it to the nearer one
    tiny = x == 0
    x[tiny] = q[np.searchsorted(q, 0.0)]
    return x


def dnn_ints(rng: np.random.Generator, n: int, width: int, signed: bool, role: str) -> np.ndarray:
    """Integers of a role's nonzero values, symmetric per-tensor quantization to ``width`` bits. A value smaller
    than half a step rounds to 0, as it does in a quantized network. An unsigned operand holds a negative value's
    magnitude (a role with negative values, e.g. weights, on an unsigned port)."""
    full = (1 << (width - 1)) - 1 if signed else (1 << width) - 1
    x = draw_nonzero(rng, n, role, scaled=True)
    if not signed:
        x = np.abs(x)
    return np.rint(x * full).astype(np.int64)
