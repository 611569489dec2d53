#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Exports the ResNet-18-shaped network that bench/onnx.cpp (burn_bench_onnx) and
bench/compare_onnx.py time against ONNX Runtime: torchvision's ResNet-18 layer for layer (written
out here, torchvision is not needed), random weights (seed 0), eval mode, opset 13, input
`image` float[batch, 3, 224, 224], output `logits` float[batch, 1000], batch dimension dynamic.

    /usr/bin/python3 bench/onnx_models.py --out DIR      # writes DIR/resnet18.onnx (~47 MB)

The file is too large to keep in git: bench/CMakeLists.txt runs this script at build time (when
/usr/bin/python3 imports torch) into <build>/bench/models/. The batch-norm statistics are random
too, so that the export's Conv+BatchNorm folding changes the weights. The MNIST CNN of the same
benchmark is examples/onnx-inference/mnist.onnx (trained by examples/onnx-inference/export.py).
"""
import argparse
import os

import torch
from torch import nn


class BasicBlock(nn.Module):
    """torchvision.models.resnet.BasicBlock."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                            nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + identity)


class ResNet18(nn.Module):
    """torchvision.models.resnet18(num_classes=1000)."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        chans = [(64, 64, 1), (64, 128, 2), (128, 256, 2), (256, 512, 2)]
        for i, (cin, cout, stride) in enumerate(chans, 1):
            setattr(self, f"layer{i}", nn.Sequential(BasicBlock(cin, cout, stride),
                                                     BasicBlock(cout, cout, 1)))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = self.maxpool(torch.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def resnet18(seed=0):
    torch.manual_seed(seed)
    model = ResNet18()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):  # random statistics, kept near identity
                m.weight.uniform_(0.5, 1.0)
                m.bias.uniform_(-0.1, 0.1)
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    return model.eval()


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                 "models"), help="output folder")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "resnet18.onnx")
    tmp = path + ".tmp"
    torch.onnx.export(resnet18(a.seed), torch.zeros(1, 3, 224, 224), tmp, opset_version=13,
                      input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    os.replace(tmp, path)  # a build never sees a half-written model
    print(f"wrote {path} ({os.path.getsize(path)} bytes, PyTorch {torch.__version__})")


if __name__ == "__main__":
    main()
