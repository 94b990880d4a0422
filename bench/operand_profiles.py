"""Operand statistics of real tensors for the ``dnn`` stimulus profile (issue 49, item 3: the stimulus).

    python bench/operand_profiles.py [--epochs 8] [--seed 1] [--out accelgen/data/operand_profiles.json]

No pretrained network reaches this machine (PyPI only), so the tensors come from training one here: a small
convolutional network on scikit-learn's bundled digits (1,797 8x8 images, the UCI "optdigits" test set), in numpy,
seeded. conv 3x3 1->8 (pad 1) -> ReLU -> conv 3x3 8->16 (pad 1) -> ReLU -> 2x2 average pool -> fully connected
256->10 -> softmax cross-entropy; SGD with momentum 0.9, batch 32, learning rate 0.05.

After training, one forward and backward pass over a batch of 256 held-out images records the operands every
multiply of that pass sees:

* ``weight``: every layer's weights;
* ``activation``: every layer's input (the image, then the ReLU outputs and the pooled map): the ReLU zeros are
  the data's own;
* ``gradient``: the gradients a training step multiplies (with respect to each layer's output, after the ReLU's
  mask: the zeros are the data's own).

Per role it writes the zero fraction and the quantiles of the nonzero values, twice: raw (fp operands use the
values as they are) and divided by their tensor's largest magnitude (an integer operand is that value scaled to its
full range: symmetric per-tensor quantization, the common int8 scheme). Values are pooled over layers, each
layer's elements counted once. What the file does not hold: the order of values (a stimulus drawn from it is
independent from one cycle to the next) and a large network's statistics.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import sklearn
from sklearn.datasets import load_digits

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "accelgen" / "data" / "operand_profiles.json"
#: quantile levels stored per role: 0, 1/256, ..., 1 (257 points; a draw interpolates between them)
LEVELS = np.linspace(0.0, 1.0, 257)


def im2col(x: np.ndarray) -> np.ndarray:
    """(N, C, H, W) -> (N, H, W, C*9): the 3x3 neighbourhood of every pixel, zero padded."""
    n, c, h, w = x.shape
    p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = [p[:, :, i:i + h, j:j + w] for i in range(3) for j in range(3)]
    return np.stack(cols, axis=2).reshape(n, c * 9, h, w).transpose(0, 2, 3, 1)


def col2im(cols: np.ndarray, c: int) -> np.ndarray:
    """The adjoint of :func:`im2col`: (N, H, W, C*9) -> (N, C, H, W)."""
    n, h, w, _ = cols.shape
    g = cols.transpose(0, 3, 1, 2).reshape(n, c, 9, h, w)
    p = np.zeros((n, c, h + 2, w + 2))
    for k in range(9):
        i, j = divmod(k, 3)
        p[:, :, i:i + h, j:j + w] += g[:, :, k]
    return p[:, :, 1:-1, 1:-1]


class Net:
    def __init__(self, rng):
        self.w1 = rng.normal(0, np.sqrt(2 / 9), (9, 8))
        self.w2 = rng.normal(0, np.sqrt(2 / 72), (72, 16))
        self.w3 = rng.normal(0, np.sqrt(2 / 256), (256, 10))
        self.params = [self.w1, self.w2, self.w3]

    def forward(self, x):
        n = x.shape[0]
        c1 = im2col(x)                                      # (n, 8, 8, 9)
        z1 = c1 @ self.w1                                    # (n, 8, 8, 8)
        a1 = np.maximum(z1, 0).transpose(0, 3, 1, 2)         # (n, 8, 8, 8)
        c2 = im2col(a1)                                      # (n, 8, 8, 72)
        z2 = c2 @ self.w2                                    # (n, 8, 8, 16)
        a2 = np.maximum(z2, 0)
        pooled = a2.reshape(n, 4, 2, 4, 2, 16).mean(axis=(2, 4)).reshape(n, 256)
        logits = pooled @ self.w3
        return {"x": x, "c1": c1, "z1": z1, "a1": a1, "c2": c2, "z2": z2, "pooled": pooled, "logits": logits}

    def backward(self, f, y):
        n = y.shape[0]
        p = np.exp(f["logits"] - f["logits"].max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        g_logits = p.copy()
        g_logits[np.arange(n), y] -= 1
        g_logits /= n
        g3 = f["pooled"].T @ g_logits
        g_pooled = g_logits @ self.w3.T
        g_a2 = np.repeat(np.repeat(g_pooled.reshape(n, 4, 4, 16), 2, axis=1), 2, axis=2) / 4
        g_z2 = g_a2 * (f["z2"] > 0)
        g2 = f["c2"].reshape(-1, 72).T @ g_z2.reshape(-1, 16)
        g_c2 = g_z2 @ self.w2.T
        g_a1 = col2im(g_c2, 8)
        g_z1 = g_a1.transpose(0, 2, 3, 1) * (f["z1"] > 0)
        g1 = f["c1"].reshape(-1, 9).T @ g_z1.reshape(-1, 8)
        return [g1, g2, g3], {"g_logits": g_logits, "g_z2": g_z2, "g_z1": g_z1}


def train(epochs: int, seed: int):
    digits = load_digits()
    x = (digits.images / 16.0)[:, None, :, :]
    y = digits.target
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    test, trainset = order[:256], order[256:]
    net = Net(rng)
    velocity = [np.zeros_like(w) for w in net.params]
    for epoch in range(epochs):
        for start in range(0, len(trainset), 32):
            idx = trainset[start:start + 32]
            f = net.forward(x[idx])
            grads, _ = net.backward(f, y[idx])
            for w, v, g in zip(net.params, velocity, grads, strict=False):
                v *= 0.9
                v -= 0.05 * g
                w += v
        rng.shuffle(trainset)
    f = net.forward(x[test])
    accuracy = float((f["logits"].argmax(axis=1) == y[test]).mean())
    grads, g = net.backward(f, y[test])
    tensors = {
        "weight": [net.w1, net.w2, net.w3],
        "activation": [f["x"], f["a1"], f["pooled"]],
        "gradient": [g["g_z1"], g["g_z2"], g["g_logits"]],
    }
    return tensors, accuracy


def role_statistics(tensors: list[np.ndarray]) -> dict:
    values = [t.ravel() for t in tensors]
    raw = np.concatenate(values)
    nonzero = raw[raw != 0]
    scaled = np.concatenate([v[v != 0] / np.abs(v).max() for v in values if np.abs(v).max() > 0])
    return {
        "elements": int(raw.size),
        "zero_fraction": round(float(1 - nonzero.size / raw.size), 6),
        "negative_fraction_of_nonzero": round(float((nonzero < 0).mean()), 6),
        "quantiles_raw": [float(f"{q:.6g}") for q in np.quantile(nonzero, LEVELS)],
        "quantiles_scaled": [float(f"{q:.6g}") for q in np.quantile(scaled, LEVELS)],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    tensors, accuracy = train(args.epochs, args.seed)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    out = {
        "about": "Operand statistics of real tensors for the `dnn` stimulus profile (accelgen.operand_profiles): "
                 "a small CNN trained here on scikit-learn's digits, one forward and backward pass over 256 "
                 "held-out images (bench/operand_profiles.py's docstring). Quantiles of the nonzero values at "
                 f"{len(LEVELS)} evenly spaced levels; 'scaled' divides each tensor by its largest magnitude.",
        "command": f"python bench/operand_profiles.py --epochs {args.epochs} --seed {args.seed}",
        "commit": commit,
        "versions": {"numpy": np.__version__, "scikit-learn": sklearn.__version__,
                     "python": sys.version.split()[0]},
        "network": "conv3x3 1->8, ReLU, conv3x3 8->16, ReLU, avgpool 2x2, fc 256->10; SGD momentum 0.9, "
                   f"batch 32, lr 0.05, {args.epochs} epochs",
        "held_out_accuracy": round(accuracy, 4),
        "roles": {role: role_statistics(ts) for role, ts in tensors.items()},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"held-out accuracy {accuracy:.3f}")
    for role, s in out["roles"].items():
        q = s["quantiles_raw"]
        print(f"{role:10s} elements {s['elements']:7d}  zeros {s['zero_fraction']:.3f}  "
              f"negative {s['negative_fraction_of_nonzero']:.3f}  nonzero median {q[128]:.3g}  "
              f"range [{q[0]:.3g}, {q[-1]:.3g}]")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
