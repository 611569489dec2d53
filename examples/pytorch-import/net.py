# SPDX-License-Identifier: MIT OR Apache-2.0
"""Shared by train.py and check_safetensors.py: the PyTorch CNN of the pytorch-import example
and a reader of the Fashion-MNIST IDX files (gzip + struct, no torchvision). Not a script.

Net (state dict keys conv1.weight/bias, conv2.weight/bias, fc1.weight/bias, fc2.weight/bias):
    [N,1,28,28] -> conv1 Conv2d(1,8,3) -> ReLU -> MaxPool2d(2)      [N,8,13,13]
                -> conv2 Conv2d(8,16,3) -> ReLU -> MaxPool2d(2)     [N,16,5,5]
                -> flatten -> fc1 Linear(400,32) -> ReLU -> fc2 Linear(32,10)   logits [N,10]
Inputs: pixels / 255, then (x - 0.2860) / 0.3530.
"""
import gzip
import os
import struct

import torch
import torch.nn as nn
import torch.nn.functional as F

DEFAULT_DATA = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530
EVAL_COUNT = 1000  # predictions.json covers the first 1000 test images

# IDX element type codes -> (torch dtype, big-endian struct code)
_IDX_TYPES = {0x08: (torch.uint8, "B"), 0x09: (torch.int8, "b"), 0x0B: (torch.int16, ">h"),
              0x0C: (torch.int32, ">i"), 0x0D: (torch.float32, ">f"), 0x0E: (torch.float64, ">d")}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3)
        self.conv2 = nn.Conv2d(8, 16, 3)
        self.fc1 = nn.Linear(16 * 5 * 5, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


def read_idx(path):
    """An IDX file (optionally gzipped) as a tensor: magic 0x0000 <type> <ndim>, ndim big-endian
    u32 sizes, then the values row-major."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    zero, code, ndim = struct.unpack_from(">HBB", data, 0)
    if zero != 0 or code not in _IDX_TYPES:
        raise ValueError(f"{path}: not an IDX file")
    dims = struct.unpack_from(">" + "I" * ndim, data, 4)
    offset = 4 + 4 * ndim
    dtype, fmt = _IDX_TYPES[code]
    count = 1
    for d in dims:
        count *= d
    if dtype == torch.uint8:
        t = torch.frombuffer(bytearray(data[offset:offset + count]), dtype=torch.uint8)
    else:
        size = struct.calcsize(fmt)
        t = torch.tensor([v[0] for v in struct.iter_unpack(fmt, data[offset:offset + count * size])],
                         dtype=dtype)
    return t.reshape(dims)


def load_split(data_dir, train):
    """(images [N,1,28,28] float32 normalized, labels [N] int64) of the train or test split."""
    prefix = "train" if train else "t10k"
    images = read_idx(os.path.join(data_dir, f"{prefix}-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(data_dir, f"{prefix}-labels-idx1-ubyte.gz"))
    x = (images.to(torch.float32) / 255.0 - MEAN) / STD
    return x.unsqueeze(1), labels.to(torch.int64)


@torch.no_grad()
def predict(model, images, batch_size=500):
    """The argmax class of each image (model in eval mode)."""
    model.eval()
    return torch.cat([model(images[i:i + batch_size]).argmax(1)
                      for i in range(0, len(images), batch_size)])
