# SPDX-License-Identifier: MIT OR Apache-2.0
"""Trains the pytorch-import example's CNN (net.py) on Fashion-MNIST in PyTorch and writes, next
to this script (or into --out):
  * model.pt          the state dict (torch.save): the file the C++ program imports
  * predictions.json  {"count": 1000, "predicted": [argmax class of each of the first 1000 test
                      images], "accuracy": their accuracy}: what the C++ program must reproduce

Run with Debian's torch (about 15 s; one torch thread by default, --threads N):
    /usr/bin/python3 examples/pytorch-import/train.py [--data DIR] [--epochs N]
DIR holds the IDX files train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz,
t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz (default /usr/share/datasets/fashion-mnist).
Adam, lr 1e-3, batch 64, seed 42, 1 epoch by default.
"""
import argparse
import json
import os
import time

import torch
import torch.nn.functional as F

from net import DEFAULT_DATA, EVAL_COUNT, Net, load_split, predict

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default=DEFAULT_DATA, help="folder of the Fashion-MNIST IDX .gz files")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads (1: fastest on a busy 2-core machine, and reproducible)")
    p.add_argument("--out", default=HERE, help="where model.pt and predictions.json go")
    args = p.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    train_x, train_y = load_split(args.data, train=True)
    test_x, test_y = load_split(args.data, train=False)

    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    g = torch.Generator().manual_seed(args.seed)
    start = time.time()
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(train_x), generator=g)
        total, steps = 0.0, 0
        for i in range(0, len(order), args.batch_size):
            idx = order[i:i + args.batch_size]
            loss = F.cross_entropy(model(train_x[idx]), train_y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            steps += 1
        print(f"epoch {epoch + 1}/{args.epochs}: mean loss {total / steps:.4f} "
              f"({time.time() - start:.1f} s)")

    predicted = predict(model, test_x[:EVAL_COUNT])
    accuracy = int((predicted == test_y[:EVAL_COUNT]).sum()) / EVAL_COUNT
    full = (predict(model, test_x) == test_y).float().mean().item()
    print(f"test accuracy: {accuracy:.4f} on the first {EVAL_COUNT} test images "
          f"({full:.4f} on all {len(test_x)})")

    os.makedirs(args.out, exist_ok=True)
    model_path = os.path.join(args.out, "model.pt")
    torch.save(model.state_dict(), model_path)
    pred_path = os.path.join(args.out, "predictions.json")
    with open(pred_path, "w") as f:
        json.dump({"count": EVAL_COUNT, "predicted": predicted.tolist(), "accuracy": accuracy}, f)
        f.write("\n")
    for path in (model_path, pred_path):
        print(f"wrote {path}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
