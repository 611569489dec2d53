#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Loading a ResNet-18 state dict: burn-cpp's readers (bench/pytorch_import.cpp) against
torch.load in the same run; prints a markdown table.

    python3 bench/compare_pytorch_import.py [--bench build/default/bench/burn_bench] [--repeats 5]

The script writes a ResNet-18 state dict (torchvision's names and shapes, random weights, 11.7M
f32 parameters, 46.8 MB) with torch.save to $TMPDIR (default /tmp) and the same tensors as a
safetensors file, reads both once so that they are in the page cache, then runs burn_bench's
cases with BURN_BENCH_PT_FILE / BURN_BENCH_ST_FILE set, and times in PyTorch:
  torch.load                 torch.load(file) (weights_only=False, the default of torch 1.13)
  torch.load+load_state_dict the same, then model.load_state_dict(...) into a ResNet-18
GB/s counts tensor bytes per second; ratio = PyTorch time / burn-cpp time (above 1: burn-cpp is
faster). Both sides report the median of repeated wall-clock measurements.
"""
import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import time

from torch_peer import ROOT, reexec_if_needed

reexec_if_needed()
import torch  # noqa: E402
from torch import nn  # noqa: E402

UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


class BasicBlock(nn.Module):
    """torchvision.models.resnet.BasicBlock (the parameters; forward is not needed)."""

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


class ResNet18(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        chans = [(64, 64, 1), (64, 128, 2), (128, 256, 2), (256, 512, 2)]
        for i, (cin, cout, stride) in enumerate(chans, 1):
            setattr(self, f"layer{i}", nn.Sequential(BasicBlock(cin, cout, stride),
                                                     BasicBlock(cout, cout, 1)))
        self.fc = nn.Linear(512, 1000)


def write_safetensors(path, state):
    """A safetensors file (the format's spec; the safetensors package is not needed)."""
    names = {torch.float32: "F32", torch.int64: "I64"}
    header, blobs, offset = {}, [], 0
    for key, t in state.items():
        data = t.contiguous().numpy().tobytes()
        header[key] = {"dtype": names[t.dtype], "shape": list(t.shape),
                       "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-(8 + len(text)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def median_time(fn, repeats, min_time):
    samples = []
    for _ in range(repeats):
        n, start = 0, time.perf_counter()
        while True:
            fn()
            n += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                break
        samples.append(elapsed / n)
    return statistics.median(samples)


def run_burn(bench, repeats, env_files):
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env.pop("BURN_COMPARE_REEXEC", None)
    env.update(env_files)
    cmd = [bench, "--benchmark_format=json", f"--benchmark_repetitions={repeats}",
           "--benchmark_report_aggregates_only=true",
           "--benchmark_filter=pytorch_import|safetensors_import"]
    print("+ " + " ".join(cmd), file=sys.stderr)
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    res = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("error_occurred"):
            sys.exit(f"burn_bench: {b['name']}: {b.get('error_message')}")
        if b.get("aggregate_name") == "median" or (repeats == 1 and b.get("run_type") == "iteration"):
            res[b["run_name"].removesuffix("/real_time")] = b["real_time"] * UNIT[b["time_unit"]]
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "default", "bench", "burn_bench"))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.5, help="seconds per PyTorch sample")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    tmp = os.environ.get("TMPDIR") or "/tmp"
    pt = os.path.join(tmp, f"burn_bench_resnet18_{os.getpid()}.pt")
    st = os.path.join(tmp, f"burn_bench_resnet18_{os.getpid()}.safetensors")
    torch.manual_seed(0)
    model = ResNet18()
    state = model.state_dict()
    try:
        torch.save(state, pt)
        write_safetensors(st, state)
        nbytes = sum(t.numel() * t.element_size() for t in state.values())
        for path in (pt, st):  # into the page cache
            with open(path, "rb") as f:
                while f.read(1 << 24):
                    pass
        burn = run_burn(args.bench, args.repeats, {"BURN_BENCH_PT_FILE": pt, "BURN_BENCH_ST_FILE": st})
        t_load = median_time(lambda: torch.load(pt), args.repeats, args.min_time)
        t_full = median_time(lambda: model.load_state_dict(torch.load(pt)), args.repeats, args.min_time)
    finally:
        for path in (pt, st):
            if os.path.exists(path):
                os.remove(path)

    print(f"+ PyTorch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"state dict {nbytes / 1e6:.1f} MB in {len(state)} tensors", file=sys.stderr)
    rows = [("pytorch_import/read", "torch.load", t_load),
            ("pytorch_import/load", "torch.load+load_state_dict", t_full),
            ("safetensors_import/read", "torch.load", t_load)]
    print("| case | burn-cpp ms | burn-cpp GB/s | PyTorch | PyTorch ms | PyTorch GB/s | ratio |")
    print("|---|---|---|---|---|---|---|")
    for name, peer, t_peer in rows:
        t = burn[name]
        print(f"| {name} | {t * 1e3:.1f} | {nbytes / t / 1e9:.2f} | {peer} | {t_peer * 1e3:.1f} | "
              f"{nbytes / t_peer / 1e9:.2f} | {t_peer / t:.2f} |")


if __name__ == "__main__":
    main()
