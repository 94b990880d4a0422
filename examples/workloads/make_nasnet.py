"""Write ``nasnet_mobile.yaml`` and ``nasnet_a_large.yaml``: NASNet-A Mobile (4 @ 1056) at 224x224 and
NASNet-A Large (6 @ 4032) at 331x331 as layer lists.

Source: Zoph, Vasudevan, Shlens and Le, "Learning Transferable Architectures for Scalable Image
Recognition", CVPR 2018 (Fig. 4: the NASNet-A normal and reduction cells; Table 2: NASNet-A (4 @ 1056),
564 M mult-adds, 5.3 M parameters), with the ImageNet stem, filter counts and cell wiring of the
authors' TF-slim release (``research/slim/nets/nasnet``: ``mobile_imagenet_config``: 12 cells,
44 filters, stem multiplier 1, two stem reduction cells, filter scaling 2 at each reduction).
NASNet-A Large is the same network at Table 2's "6 @ 4032" (23.8 B mult-adds, 88.9 M parameters): the slim
release's ``large_imagenet_config`` (18 cells, 168 filters, stem multiplier 3: 96 stem filters, 331x331 input;
Keras ``NASNetLarge``: penultimate_filters=4032, num_blocks=6, stem_block_filters=96). Its
``skip_reduction_layer_input`` feeds the first cell after a reduction the output of two cells back instead of the
reduction's input: a tensor of the same shape, so the layer shapes do not change.

Only layers with multiply-accumulates are listed: the 3x3 stem convolution, every cell's 1x1 input
projections (a factorized reduction of the previous cell's output where its resolution is twice the
cell's: two 1x1 convolutions of F/2 filters on stride-2 samples), each separable convolution as
NASNet applies it (twice: depthwise KxK then pointwise 1x1, the first depthwise strided in reduction
cells), and the classifier. Pooling, additions, concatenations, batch-norm and the auxiliary head are
omitted. Operands 8-bit, dense, batch 1. Run: ``python examples/workloads/make_nasnet.py``; it writes the
shipped table (package data ``ppa/workloads/``) and its copy beside this script.
"""

from __future__ import annotations

from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
#: the shipped workloads (package data, ``accelgen.shipped``), then their copy in examples/
OUTPUTS = (HERE.parents[1] / "ppa" / "workloads", HERE)
NORMAL_SEPS = (5, 3, 5, 3, 3)          # NASNet-A normal cell: separable 5x5 x2, 3x3 x3 (stride 1)
REDUCTION_SEPS = ((5, 2), (7, 2), (7, 2), (5, 2), (3, 1))   # reduction cell: (kernel, stride of the first layer)


def conv(name, C, H, K, R, stride=1, padding=0, groups=1):
    d = {"name": name, "type": "conv", "C": C, "H": H, "W": H, "K": K, "R": R, "S": R}
    if stride != 1:
        d["stride"] = stride
    if padding:
        d["padding"] = padding
    if groups != 1:
        d["groups"] = groups
    return d


def sep(layers, name, F, H, k, stride):
    """NASNet's ``separable_KxK_2``: two (depthwise KxK, pointwise 1x1) pairs; the first depthwise strided."""
    h = H
    for j in (1, 2):
        s = stride if j == 1 else 1
        layers.append(conv(f"{name}.dw{j}", F, h, F, k, stride=s, padding=k // 2, groups=F))
        h = (h + 2 * (k // 2) - k) // s + 1
        layers.append(conv(f"{name}.pw{j}", F, h, F, 1))
    return h


def cell_base(layers, name, F, net_c, net_h, prev_c, prev_h):
    layers.append(conv(f"{name}.proj", net_c, net_h, F, 1))
    if prev_h != net_h:           # factorized reduction: two stride-2 paths of F/2 filters
        layers.append(conv(f"{name}.prev_path1", prev_c, prev_h, F // 2, 1, stride=2))
        layers.append(conv(f"{name}.prev_path2", prev_c, prev_h, F - F // 2, 1, stride=2))
    elif prev_c != F:
        layers.append(conv(f"{name}.prev_proj", prev_c, prev_h, F, 1))


def nasnet_mobile(filters=44, cells_per_stack=4, image=224, stem_filters=32):
    h0 = (image - 3) // 2 + 1                              # 224 -> 111, 331 -> 165 (VALID)
    L = [conv("conv0", 3, image, stem_filters, 3, stride=2)]
    outs = [(stem_filters, h0), (stem_filters, h0)]        # (channels, resolution) of the last two cell outputs
    for i, scale in enumerate((0.25, 0.5)):                # two stem reduction cells
        F = int(filters * scale)
        (pc, ph), (nc, nh) = outs[-2], outs[-1]
        cell_base(L, f"stem{i}", F, nc, nh, pc, ph)
        h = nh
        for j, (k, s) in enumerate(REDUCTION_SEPS):
            h2 = sep(L, f"stem{i}.sep{j}_{k}x{k}", F, nh if s == 2 else (nh + 1) // 2, k, s)
            h = min(h, h2)
        outs.append((4 * F, (nh + 1) // 2))
    F = filters
    for stack in range(3):
        if stack:
            F *= 2
            (pc, ph), (nc, nh) = outs[-2], outs[-1]
            name = f"reduce{stack}"
            cell_base(L, name, F, nc, nh, pc, ph)
            for j, (k, s) in enumerate(REDUCTION_SEPS):
                sep(L, f"{name}.sep{j}_{k}x{k}", F, nh if s == 2 else (nh + 1) // 2, k, s)
            outs.append((4 * F, (nh + 1) // 2))
        for c in range(cells_per_stack):
            (pc, ph), (nc, nh) = outs[-2], outs[-1]
            name = f"cell{stack}_{c}"
            cell_base(L, name, F, nc, nh, pc, ph)
            for j, k in enumerate(NORMAL_SEPS):
                sep(L, f"{name}.sep{j}_{k}x{k}", F, nh, k, 1)
            outs.append((6 * F, nh))
    L.append({"name": "fc", "type": "gemm", "M": 1, "N": 1000, "K": outs[-1][0]})
    return L


def nasnet_a_large():
    """NASNet-A Large (6 @ 4032): large_imagenet_config (168 filters, 6 cells per stack, 96 stem filters, 331x331)."""
    return nasnet_mobile(filters=168, cells_per_stack=6, image=331, stem_filters=96)


NETWORKS = {
    "nasnet_mobile": (nasnet_mobile, ("NASNet-A Mobile (4 @ 1056), Zoph et al., CVPR 2018 (Fig. 4 cells, Table 2: "
                      "564 M mult-adds); stem, filters and wiring of the TF-slim release (research/slim/nets/nasnet, "
                      "mobile_imagenet_config); generated by make_nasnet.py (MAC layers only)")),
    "nasnet_a_large": (nasnet_a_large, ("NASNet-A Large (6 @ 4032) at 331x331, Zoph et al., CVPR 2018 (Fig. 4 cells, "
                       "Table 2: 23.8 B mult-adds, 88.9 M parameters); stem, filters and wiring of the TF-slim release "
                       "(research/slim/nets/nasnet, large_imagenet_config; Keras NASNetLarge); generated by "
                       "make_nasnet.py (MAC layers only)")),
}


def main():
    for name, (build, source) in NETWORKS.items():
        layers = build()
        doc = {"name": name, "source": source, "batch": 1, "a_width": 8, "b_width": 8, "layers": layers}
        text = f"# generated by make_nasnet.py; {len(layers)} layers\n" + yaml.safe_dump(doc, sort_keys=False,
                                                                                          default_flow_style=None,
                                                                                          width=120)
        for d in OUTPUTS:
            (d / f"{name}.yaml").write_text(text)
        print(f"{name}.yaml: {len(layers)} layers")


if __name__ == "__main__":
    main()
