"""Regenerate the shipped workload tables (``python examples/workloads/make_workloads.py``).

Each network is written from its published definition (the source is in each
file's ``source:`` field) into the shipped tables (package data ``ppa/workloads/``,
what ``accelgen perf`` reads by name) and their copies beside this script.
Operands default to 8-bit, dense, batch 1.
"""

from __future__ import annotations

from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
#: the shipped workloads (package data, ``accelgen.shipped``), then their copies in examples/
OUTPUTS = (HERE.parents[1] / "ppa" / "workloads", HERE)


def conv(name, C, H, W, K, R, S=None, stride=1, padding=0, groups=1):
    d = {"name": name, "type": "conv", "C": C, "H": H, "W": W, "K": K, "R": R, "S": S or R}
    if stride != 1:
        d["stride"] = stride
    if padding:
        d["padding"] = padding
    if groups != 1:
        d["groups"] = groups
    return d


def gemm(name, M, N, K, **kw):
    return {"name": name, "type": "gemm", "M": M, "N": N, "K": K, **kw}


def out(h, k, s, p):
    return (h + 2 * p - k) // s + 1


def resnet50():
    L = [conv("conv1", 3, 224, 224, 64, 7, stride=2, padding=3)]
    h, cin = 56, 64
    for stage, (blocks, w) in enumerate(zip((3, 4, 6, 3), (64, 128, 256, 512)), start=2):
        for b in range(blocks):
            s = 2 if (b == 0 and stage > 2) else 1
            p = f"conv{stage}_{b + 1}"
            L.append(conv(f"{p}.a", cin, h, h, w, 1))
            L.append(conv(f"{p}.b", w, h, h, w, 3, stride=s, padding=1))
            ho = out(h, 3, s, 1)
            L.append(conv(f"{p}.c", w, ho, ho, 4 * w, 1))
            if b == 0:
                L.append(conv(f"{p}.down", cin, h, h, 4 * w, 1, stride=s))
            h, cin = ho, 4 * w
    L.append(gemm("fc", 1, 1000, 2048))
    return {"name": "resnet50", "source": "He et al., 'Deep Residual Learning for Image Recognition', CVPR 2016, "
            "Table 1 (50-layer); stride on the 3x3 convolution as in ResNet-50 v1.5 (torchvision, MLPerf); "
            "224x224 input; pooling and element-wise layers omitted", "layers": L}


def mobilenet_v2():
    L = [conv("conv0", 3, 224, 224, 32, 3, stride=2, padding=1)]
    h, cin, i = 112, 32, 0
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                       (6, 320, 1, 1)):
        for j in range(n):
            st = s if j == 0 else 1
            hid = cin * t
            p = f"block{i}"
            if t != 1:
                L.append(conv(f"{p}.expand", cin, h, h, hid, 1))
            L.append(conv(f"{p}.dw", hid, h, h, hid, 3, stride=st, padding=1, groups=hid))
            h = out(h, 3, st, 1)
            L.append(conv(f"{p}.project", hid, h, h, c, 1))
            cin, i = c, i + 1
    L.append(conv("conv_last", cin, h, h, 1280, 1))
    L.append(gemm("fc", 1, 1000, 1280))
    return {"name": "mobilenet_v2", "source": "Sandler et al., 'MobileNetV2: Inverted Residuals and Linear "
            "Bottlenecks', CVPR 2018, Table 2 (width 1.0, 224x224); pooling omitted", "layers": L}


def inception_v3():
    L = []

    def c(name, cin, h, k, r, s=None, stride=1, padding=0):
        L.append(conv(name, cin, h, h, k, r, s, stride=stride, padding=padding))

    c("Conv2d_1a", 3, 299, 32, 3, stride=2)
    c("Conv2d_2a", 32, 149, 32, 3)
    c("Conv2d_2b", 32, 147, 64, 3, padding=1)
    c("Conv2d_3b", 64, 73, 80, 1)
    c("Conv2d_4a", 80, 73, 192, 3)
    h, cin = 35, 192
    for name, pf in (("Mixed_5b", 32), ("Mixed_5c", 64), ("Mixed_5d", 64)):
        c(f"{name}.b1x1", cin, h, 64, 1)
        c(f"{name}.b5x5_1", cin, h, 48, 1)
        c(f"{name}.b5x5_2", 48, h, 64, 5, padding=2)
        c(f"{name}.b3x3dbl_1", cin, h, 64, 1)
        c(f"{name}.b3x3dbl_2", 64, h, 96, 3, padding=1)
        c(f"{name}.b3x3dbl_3", 96, h, 96, 3, padding=1)
        c(f"{name}.pool", cin, h, pf, 1)
        cin = 224 + pf
    c("Mixed_6a.b3x3", cin, h, 384, 3, stride=2)
    c("Mixed_6a.b3x3dbl_1", cin, h, 64, 1)
    c("Mixed_6a.b3x3dbl_2", 64, h, 96, 3, padding=1)
    c("Mixed_6a.b3x3dbl_3", 96, h, 96, 3, stride=2)
    h, cin = 17, 768
    for name, c7 in (("Mixed_6b", 128), ("Mixed_6c", 160), ("Mixed_6d", 160), ("Mixed_6e", 192)):
        c(f"{name}.b1x1", cin, h, 192, 1)
        c(f"{name}.b7x7_1", cin, h, c7, 1)
        c(f"{name}.b7x7_2", c7, h, c7, 1, 7, padding=[0, 3])
        c(f"{name}.b7x7_3", c7, h, 192, 7, 1, padding=[3, 0])
        c(f"{name}.b7x7dbl_1", cin, h, c7, 1)
        c(f"{name}.b7x7dbl_2", c7, h, c7, 7, 1, padding=[3, 0])
        c(f"{name}.b7x7dbl_3", c7, h, c7, 1, 7, padding=[0, 3])
        c(f"{name}.b7x7dbl_4", c7, h, c7, 7, 1, padding=[3, 0])
        c(f"{name}.b7x7dbl_5", c7, h, 192, 1, 7, padding=[0, 3])
        c(f"{name}.pool", cin, h, 192, 1)
    c("Mixed_7a.b3x3_1", cin, h, 192, 1)
    c("Mixed_7a.b3x3_2", 192, h, 320, 3, stride=2)
    c("Mixed_7a.b7x7x3_1", cin, h, 192, 1)
    c("Mixed_7a.b7x7x3_2", 192, h, 192, 1, 7, padding=[0, 3])
    c("Mixed_7a.b7x7x3_3", 192, h, 192, 7, 1, padding=[3, 0])
    c("Mixed_7a.b7x7x3_4", 192, h, 192, 3, stride=2)
    h, cin = 8, 1280
    for name in ("Mixed_7b", "Mixed_7c"):
        c(f"{name}.b1x1", cin, h, 320, 1)
        c(f"{name}.b3x3_1", cin, h, 384, 1)
        c(f"{name}.b3x3_2a", 384, h, 384, 1, 3, padding=[0, 1])
        c(f"{name}.b3x3_2b", 384, h, 384, 3, 1, padding=[1, 0])
        c(f"{name}.b3x3dbl_1", cin, h, 448, 1)
        c(f"{name}.b3x3dbl_2", 448, h, 384, 3, padding=1)
        c(f"{name}.b3x3dbl_3a", 384, h, 384, 1, 3, padding=[0, 1])
        c(f"{name}.b3x3dbl_3b", 384, h, 384, 3, 1, padding=[1, 0])
        c(f"{name}.pool", cin, h, 192, 1)
        cin = 2048
    L.append(gemm("fc", 1, 1000, 2048))
    return {"name": "inception_v3", "source": "Szegedy et al., 'Rethinking the Inception Architecture for "
            "Computer Vision', CVPR 2016 (Table 1, Figs. 5-7), layer shapes as in torchvision's inception_v3 at "
            "299x299; auxiliary classifier and pooling omitted", "layers": L}


def _attention(prefix, seq_q, seq_k, d, heads, layers, cross=False):
    dh = d // heads
    L = [gemm(f"{prefix}.q", seq_q, d, d, count=layers),
         gemm(f"{prefix}.kv", seq_k, 2 * d, d, count=layers) if cross else
         gemm(f"{prefix}.kv", seq_q, 2 * d, d, count=layers),
         gemm(f"{prefix}.scores", seq_q, seq_k, dh, count=heads * layers, weights=False),
         gemm(f"{prefix}.context", seq_q, dh, seq_k, count=heads * layers, weights=False),
         gemm(f"{prefix}.out", seq_q, d, d, count=layers)]
    return L


def bert_base():
    s, d, ff, h, n = 128, 768, 3072, 12, 12
    L = _attention("attn", s, s, d, h, n)
    L += [gemm("ffn1", s, ff, d, count=n), gemm("ffn2", s, d, ff, count=n)]
    return {"name": "bert_base_s128", "source": "Devlin et al., 'BERT', NAACL 2019 (BERT-base: L=12, H=768, A=12, "
            "feed-forward 3072), sequence length 128; each GEMM repeated over the 12 layers (count); softmax, "
            "layer norm and embeddings omitted", "layers": L}


def transformer():
    s, d, ff, h, n, vocab = 128, 512, 2048, 8, 6, 37000
    L = _attention("enc.self", s, s, d, h, n) + [gemm("enc.ffn1", s, ff, d, count=n),
                                                 gemm("enc.ffn2", s, d, ff, count=n)]
    L += _attention("dec.self", s, s, d, h, n) + _attention("dec.cross", s, s, d, h, n, cross=True)
    L += [gemm("dec.ffn1", s, ff, d, count=n), gemm("dec.ffn2", s, d, ff, count=n), gemm("generator", s, vocab, d)]
    return {"name": "transformer_base", "source": "Vaswani et al., 'Attention Is All You Need', NeurIPS 2017 "
            "(base: N=6, d_model=512, d_ff=2048, h=8, shared BPE vocabulary of ~37000); source and target length "
            "128 (our choice); the decoder's GEMMs as in a teacher-forced (training / full-sequence) pass",
            "layers": L}


def gnmt():
    T, H, vocab = 50, 1024, 32000
    L = [gemm("enc0.fwd.x", T, 4 * H, H), gemm("enc0.fwd.h", 1, 4 * H, H, count=T),
         gemm("enc0.bwd.x", T, 4 * H, H), gemm("enc0.bwd.h", 1, 4 * H, H, count=T),
         gemm("enc1.x", T, 4 * H, 2 * H), gemm("enc1.h", 1, 4 * H, H, count=T),
         gemm("enc2_7.x", T, 4 * H, H, count=6), gemm("enc2_7.h", 1, 4 * H, H, count=6 * T),
         gemm("dec.attn.scores", 1, T, H, count=T, weights=False),
         gemm("dec.attn.context", 1, H, T, count=T, weights=False),
         gemm("dec0_7.x", 1, 4 * H, 2 * H, count=8 * T), gemm("dec0_7.h", 1, 4 * H, H, count=8 * T),
         gemm("softmax", T, vocab, H)]
    return {"name": "gnmt", "source": "Wu et al., 'Google's Neural Machine Translation System', arXiv:1609.08144, "
            "2016, sect. 3-4 (8 encoder + 8 decoder LSTM layers of 1024 units, bidirectional bottom encoder layer, "
            "attention context fed to every decoder layer, 32k wordpiece vocabulary); 50 tokens per sentence (our "
            "choice); recurrent GEMMs are one per time step (count); input projections of the encoder are batched "
            "over the sentence", "layers": L}


def irregular():
    shapes = [("gnmt_1", 128, 2048, 4096), ("gnmt_2", 320, 3072, 4096), ("gnmt_3", 1632, 36548, 1024),
              ("gnmt_4", 2048, 4096, 32), ("transformer_1", 31999, 1024, 84), ("transformer_2", 84, 1024, 84),
              ("ncf_1", 2048, 1, 128), ("ncf_2", 256, 256, 2048), ("deepbench_1", 1024, 16, 500000),
              ("deepbench_2", 35, 8457, 2560)]
    return {"name": "irregular_gemms", "source": "Irregular (tall-skinny / short-fat) GEMMs in the spirit of SIGMA "
            "(Qin et al., HPCA 2020, sect. VI workload table: GNMT, Transformer, NCF and Baidu DeepBench shapes, "
            "M-N-K); fixed shapes, not scaled by batch", "layers": [gemm(n, m, nn, k, batched=False)
                                                                   for n, m, nn, k in shapes]}


def alexnet_conv():
    # 227x227 input (the 224 of the paper's text does not give its 55x55 output); CONV2, 4 and 5 are split in
    # two groups, as on the paper's two GPUs and as Eyeriss runs them. a_density: the ifmaps' non-zero share
    # Eyeriss measured on each layer (Chen et al., JSSC 52(1) 2017, Table V, "zeros in ifmaps": 0.01%, 38.7%,
    # 72.5%, 79.3%, 77.6%)
    zeros = (0.0001, 0.387, 0.725, 0.793, 0.776)
    L = [conv("conv1", 3, 227, 227, 96, 11, stride=4),
         conv("conv2", 96, 27, 27, 256, 5, padding=2, groups=2),
         conv("conv3", 256, 13, 13, 384, 3, padding=1),
         conv("conv4", 384, 13, 13, 384, 3, padding=1, groups=2),
         conv("conv5", 384, 13, 13, 256, 3, padding=1, groups=2)]
    for layer, z in zip(L, zeros):
        layer["a_density"] = round(1.0 - z, 4)
    return {"name": "alexnet_conv", "source": "Krizhevsky et al., 'ImageNet Classification with Deep Convolutional "
            "Neural Networks', NIPS 2012, Fig. 2: the five CONV layers; 16-bit operands, batch 4 and the ifmap "
            "densities as Eyeriss runs them (Chen et al., JSSC 52(1) 2017, sect. VI, Table V); pooling, "
            "normalization and FC layers omitted", "layers": L, "batch": 4, "a_width": 16, "b_width": 16}


def main():
    for fn in (resnet50, mobilenet_v2, inception_v3, bert_base, transformer, gnmt, irregular, alexnet_conv):
        wl = fn()
        wl = {"name": wl["name"], "source": wl["source"], "batch": wl.get("batch", 1),
              "a_width": wl.get("a_width", 8), "b_width": wl.get("b_width", 8), "layers": wl["layers"]}
        text = yaml.safe_dump(wl, sort_keys=False, default_flow_style=None, width=200)
        for d in OUTPUTS:
            (d / f"{fn.__name__}.yaml").write_text(
                f"# generated by make_workloads.py from the source below; {len(wl['layers'])} layers\n" + text)
        print(f"{fn.__name__}.yaml", len(wl["layers"]))


if __name__ == "__main__":
    main()
