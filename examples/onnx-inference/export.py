#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Trains a small CNN on Fashion-MNIST with PyTorch, exports it as mnist.onnx (opset 13) and
writes the logits and predicted classes of the first test images (predictions.json), which
main.cpp compares with what the generated burn-cpp model computes.

    python3 examples/onnx-inference/export.py          # about a minute on one CPU thread

Reads Debian's /usr/share/datasets/fashion-mnist/*.gz (or --data DIR with the same IDX files).
"""
import argparse
import gzip
import json
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


class Net(nn.Module):
    """conv(1->8, 3x3) relu maxpool2 -> conv(8->16, 3x3) relu maxpool2 -> fc(400->64) relu -> fc(64->10)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3)
        self.conv2 = nn.Conv2d(8, 16, 3)
        self.fc1 = nn.Linear(16 * 5 * 5, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


def normalize(images):
    return torch.from_numpy(images.astype(np.float32) / 255.0).unsqueeze(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--train-items", type=int, default=20000)
    p.add_argument("--count", type=int, default=200, help="test images whose logits are saved")
    p.add_argument("--out", default=HERE)
    a = p.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)

    x_train = normalize(read_idx(os.path.join(a.data, "train-images-idx3-ubyte.gz"))[: a.train_items])
    y_train = torch.from_numpy(read_idx(os.path.join(a.data, "train-labels-idx1-ubyte.gz"))[: a.train_items].astype(np.int64))
    x_test = normalize(read_idx(os.path.join(a.data, "t10k-images-idx3-ubyte.gz")))
    y_test = torch.from_numpy(read_idx(os.path.join(a.data, "t10k-labels-idx1-ubyte.gz")).astype(np.int64))

    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for epoch in range(a.epochs):
        perm = torch.randperm(len(x_train))
        model.train()
        for i in range(0, len(x_train), 64):
            idx = perm[i:i + 64]
            loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            acc = (model(x_test).argmax(1) == y_test).float().mean().item()
        print(f"epoch {epoch + 1}: loss {loss.item():.4f}, test accuracy {100 * acc:.2f}%")

    model.eval()
    onnx_path = os.path.join(a.out, "mnist.onnx")
    torch.onnx.export(model, torch.zeros(1, 1, 28, 28), onnx_path, opset_version=13,
                      input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    with torch.no_grad():
        logits = model(x_test[: a.count])
    out = {
        "source": "examples/onnx-inference/export.py (PyTorch %s)" % torch.__version__,
        "count": a.count,
        "labels": y_test[: a.count].tolist(),
        "predictions": logits.argmax(1).tolist(),
        "logits": [[round(float(v), 6) for v in row] for row in logits],
    }
    with open(os.path.join(a.out, "predictions.json"), "w") as f:
        json.dump(out, f)
        f.write("\n")
    print(f"wrote {onnx_path} ({os.path.getsize(onnx_path)} bytes) and predictions.json")


if __name__ == "__main__":
    main()
