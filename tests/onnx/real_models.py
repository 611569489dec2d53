#!/usr/bin/python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Exports real models (torchvision's classifiers and segmenters, recurrent, attention and 1-D
convolution models written with torch.nn; random weights) to ONNX in the layout of the ONNX
backend test suite, so that burn_onnx_conformance runs them:

    ROOT/models/test_NAME/model.onnx
    ROOT/models/test_NAME/test_data_set_0/{input_0.pb,output_0.pb}   batch 1 (2 for the small ones)
    ROOT/models/test_NAME/test_data_set_1/{input_0.pb,output_0.pb}   batch 3 (dynamic-batch models)

The expected outputs are PyTorch's. Needs Debian's python3-torch, python3-torchvision and
python3-onnx; the files take about 1.9 GB.

    /usr/bin/python3 tests/onnx/real_models.py ROOT [NAME ...]
    build/default/tests/burn_onnx_conformance --root ROOT --folders models [--verbose]
"""
import os
import sys

import torch
import torchvision
from onnx import numpy_helper

tvm = torchvision.models


class TinyViT(torch.nn.Module):
    """A ViT: patch convolution, class token, pre-norm encoder layers with GELU."""

    def __init__(self):
        super().__init__()
        self.patch = torch.nn.Conv2d(3, 64, 8, 8)
        self.cls = torch.nn.Parameter(torch.randn(1, 1, 64))
        self.pos = torch.nn.Parameter(torch.randn(1, 17, 64) * 0.02)
        layer = torch.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True,
                                                 activation="gelu", norm_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, 2)
        self.head = torch.nn.Linear(64, 10)

    def forward(self, x):
        p = self.patch(x).flatten(2).transpose(1, 2)
        p = torch.cat([self.cls.expand(x.shape[0], -1, -1), p], 1) + self.pos
        return self.head(self.enc(p)[:, 0])


class LstmTagger(torch.nn.Module):
    """Embedding, a 2-layer bidirectional LSTM, a GRU and log-softmax over tags."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(100, 32)
        self.lstm = torch.nn.LSTM(32, 48, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = torch.nn.GRU(96, 24, batch_first=True)
        self.out = torch.nn.Linear(24, 5)

    def forward(self, t):
        h, _ = self.lstm(self.emb(t))
        g, _ = self.gru(h)
        return torch.log_softmax(self.out(g), -1)


class CausalAttention(torch.nn.Module):
    """MultiheadAttention with a causal mask built from the input's length, then LayerNorm."""

    def __init__(self):
        super().__init__()
        self.mha = torch.nn.MultiheadAttention(32, 4, batch_first=True)
        self.ln = torch.nn.LayerNorm(32)

    def forward(self, x):
        mask = torch.triu(torch.ones(x.shape[1], x.shape[1], dtype=torch.bool), 1)
        y, _ = self.mha(x, x, x, attn_mask=mask)
        return self.ln(x + y)


class Audio1d(torch.nn.Module):
    """1-D convolutions (one grouped), batch norm, SiLU, adaptive pooling, a linear head."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.net = nn.Sequential(nn.Conv1d(1, 16, 9, 2, 4), nn.BatchNorm1d(16), nn.ReLU(),
                                 nn.Conv1d(16, 32, 5, 2, 2, groups=4), nn.SiLU(),
                                 nn.AdaptiveAvgPool1d(10), nn.Flatten(), nn.Linear(320, 4))

    def forward(self, x):
        return self.net(x)


def img(n=224):
    return torch.rand(1, 3, n, n)


# name: (constructor, example input, opset, dynamic batch)
CASES = {
    "resnet50": (tvm.resnet50, img(), 13, True),
    "mobilenet_v2": (tvm.mobilenet_v2, img(), 13, True),
    "mobilenet_v3_small": (tvm.mobilenet_v3_small, img(), 13, True),
    "squeezenet1_1": (tvm.squeezenet1_1, img(), 13, True),
    "shufflenet_v2": (tvm.shufflenet_v2_x1_0, img(), 13, True),
    "efficientnet_b0": (tvm.efficientnet_b0, img(), 13, True),
    "densenet121": (tvm.densenet121, img(), 13, True),
    "googlenet": (lambda: tvm.googlenet(aux_logits=False, init_weights=True), img(), 13, True),
    "inception_v3": (lambda: tvm.inception_v3(aux_logits=False, init_weights=True), img(299),
                     13, True),
    "vgg11_bn": (tvm.vgg11_bn, img(), 13, True),
    "alexnet": (tvm.alexnet, img(), 13, True),
    "regnet_y_400mf": (tvm.regnet_y_400mf, img(), 13, True),
    "mnasnet0_5": (tvm.mnasnet0_5, img(), 13, True),
    "convnext_tiny": (tvm.convnext_tiny, img(), 17, True),
    "swin_t": (tvm.swin_t, img(), 17, True),
    "vit_b_16": (tvm.vit_b_16, img(), 17, True),
    "deeplabv3_mobilenet_v3": (
        lambda: tvm.segmentation.deeplabv3_mobilenet_v3_large(
            weights_backbone=None, num_classes=5, aux_loss=False), img(128), 13, True),
    "lraspp_mobilenet_v3": (
        lambda: tvm.segmentation.lraspp_mobilenet_v3_large(weights_backbone=None, num_classes=5),
        img(128), 13, True),
    "tiny_vit": (TinyViT, torch.rand(2, 3, 32, 32), 17, False),
    "lstm_tagger": (LstmTagger, torch.randint(0, 100, (2, 7)), 13, False),
    "causal_attention": (CausalAttention, torch.rand(2, 6, 32), 14, False),
    "audio1d": (Audio1d, torch.rand(2, 1, 400), 13, True),
}


def run(model, x):
    with torch.no_grad():
        y = model(x)
    return y["out"] if isinstance(y, dict) else y


def save(folder, x, y):
    os.makedirs(folder, exist_ok=True)
    for name, value, tag in (("input_0.pb", x, "x"), ("output_0.pb", y, "y")):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(numpy_helper.from_array(value.numpy(), tag).SerializeToString())


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root, only = sys.argv[1], set(sys.argv[2:])
    failed = 0
    for name, (make, x, opset, dynamic) in CASES.items():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        folder = os.path.join(root, "models", "test_" + name)
        os.makedirs(folder, exist_ok=True)
        try:
            model = make().eval()
            y = run(model, x)
            # Exported with gradients enabled: under no_grad, PyTorch's fused inference paths
            # of the transformer layers have no ONNX export.
            torch.onnx.export(model, x, os.path.join(folder, "model.onnx"), opset_version=opset,
                              input_names=["x"], output_names=["y"],
                              dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}
                              if dynamic else None)
            save(os.path.join(folder, "test_data_set_0"), x, y)
            if dynamic:
                x3 = torch.rand((3,) + tuple(x.shape[1:]))
                save(os.path.join(folder, "test_data_set_1"), x3, run(model, x3))
            print("exported", name, flush=True)
        except Exception as e:  # report every model, then fail
            failed += 1
            print("FAILED", name, repr(e)[:300], flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
