#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Times the MNIST guide model in burn-cpp (bench/guide.cpp) and in PyTorch, in one invocation.

    python3 bench/compare_guide.py [--bench build/default/bench/burn_bench] [--repeats 5]
    python3 bench/compare_guide.py --accuracy [--guide build/default/examples/guide/guide]

The model (examples/guide/model.hpp): conv 1->8 3x3, dropout, conv 8->16 3x3, dropout, ReLU,
adaptive average pool 8x8, linear 1024->512, dropout, ReLU, linear 512->10; dropout 0.5. Both
sides use the same parameter shapes and PyTorch's default initialisation (Burn's defaults match
it), Adam with lr 1e-4 and eps 1e-5 (Burn's AdamConfig default), cross-entropy, batch 64 of
normalised 28x28 images.

  train      one optimizer step in train mode (dropout active): forward, loss, backward, step
  infer 64   eval mode under torch.no_grad(), batch 64 (burn: model.valid() on Cpu<float>)
  infer 1    the same for one image (latency)

Both sides run 2 threads (--threads): PyTorch 1.13 (Debian's python3-torch under
/usr/bin/python3) with OpenBLAS-OpenMP (LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp,
the script re-executes itself that way) and torch.set_num_threads; burn_bench's TBB pool takes
every core of its affinity mask (run under `taskset` when --threads is below the core count).
Each side reports the median of --repeats samples of at least --min-time seconds; with
--rounds R the three runtimes take turns R times and the median over the rounds is printed.

ONNX Runtime (optional): when `node` exists and onnxruntime-node is found (--ort-modules, default
$BURN_ORT_MODULES or bench/node_modules), the PyTorch model is exported with torch.onnx.export
and bench/ort_guide.js times inference; otherwise the column says "n/a".

--accuracy trains the PyTorch model for 2 epochs on Fashion-MNIST
(/usr/share/datasets/fashion-mnist, normalised (x/255 - 0.1307)/0.3081, shuffled, batch 64,
Adam 1e-4, seed 42) and prints the test accuracy after each epoch, then runs the burn guide
(`guide train --epochs 2 --artifact-dir <tmp>`) and prints its validation accuracy per epoch
(the batch-size-weighted mean of <artifact>/valid/epoch-<N>/Accuracy.log).
"""
import argparse
import gzip
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

from torch_peer import ROOT, reexec_if_needed
DATA_DIR = "/usr/share/datasets/fashion-mnist"
BATCH = 64


reexec_if_needed()
import torch  # noqa: E402  (after the re-exec: the BLAS is chosen at load time)
import torch.nn.functional as F  # noqa: E402


class GuideModel(torch.nn.Module):
    """The guide model, layer for layer as examples/guide/model.hpp."""

    def __init__(self, num_classes=10, hidden_size=512, dropout=0.5):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 8, 3)
        self.conv2 = torch.nn.Conv2d(8, 16, 3)
        self.pool = torch.nn.AdaptiveAvgPool2d((8, 8))
        self.dropout = torch.nn.Dropout(dropout)
        self.linear1 = torch.nn.Linear(16 * 8 * 8, hidden_size)
        self.linear2 = torch.nn.Linear(hidden_size, num_classes)
        self.activation = torch.nn.ReLU()

    def forward(self, images):
        b, h, w = images.shape
        x = images.reshape(b, 1, h, w)
        x = self.dropout(self.conv1(x))
        x = self.dropout(self.conv2(x))
        x = self.pool(self.activation(x))
        x = x.reshape(b, 16 * 8 * 8)
        x = self.activation(self.dropout(self.linear1(x)))
        return self.linear2(x)


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-4, eps=1e-5)


def normalised_images(batch):
    return (torch.rand(batch, 28, 28) - 0.1307) / 0.3081


def labels(batch):
    return torch.tensor([(i * 7 + 3) % 10 for i in range(batch)])


# ---------------------------------------------------------------------------------- timing
def time_loop(op, repeats, min_time):
    """Median over `repeats` samples of the mean time of op(); each sample lasts >= min_time."""
    for _ in range(5):  # warm-up
        op()
    t0 = time.perf_counter()
    op()
    once = max(time.perf_counter() - t0, 1e-7)
    iters = max(1, int(min_time / once))
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(iters):
            op()
        samples.append((time.perf_counter() - t0) / iters)
    return statistics.median(samples)


def time_torch(repeats, min_time):
    torch.manual_seed(42)
    model = GuideModel().train()
    optimizer = make_optimizer(model)
    x, y = normalised_images(BATCH), labels(BATCH)

    def train_step():
        optimizer.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
        optimizer.step()

    res = {"train": time_loop(train_step, repeats, min_time)}
    model.eval()
    for b in (256, 64, 1):
        xb = normalised_images(b)

        def infer():
            with torch.no_grad():
                return model(xb)

        res[f"infer/{b}"] = time_loop(infer, repeats, min_time)
    return res, model


UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
BURN_NAMES = {"BM_guide_train_step": "train", "BM_guide_infer/256": "infer/256",
              "BM_guide_infer/64": "infer/64", "BM_guide_infer/1": "infer/1",
              "BM_guide_batcher": "batcher"}


def run_burn(bench, repeats, min_time, threads, cpus=None):
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)  # keep the OpenBLAS burn_bench was linked with
    env.pop("BURN_COMPARE_REEXEC", None)
    env["BURN_NUM_THREADS"] = str(threads)
    cmd = [bench, "--benchmark_format=json", f"--benchmark_repetitions={repeats}",
           f"--benchmark_min_time={min_time}", "--benchmark_report_aggregates_only=true",
           "--benchmark_filter=BM_guide"]
    if cpus:
        cmd = ["taskset", "-c", cpus] + cmd
    elif threads < (os.cpu_count() or threads):  # one CPU per thread, as PyTorch below
        cmd = ["taskset", "-c", f"0-{threads - 1}"] + cmd
    print("+ " + " ".join(cmd), file=sys.stderr)
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    res = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") == "median" or (repeats == 1 and b.get("run_type") == "iteration"):
            name = b["run_name"].removesuffix("/real_time")
            if name in BURN_NAMES:
                res[BURN_NAMES[name]] = b["real_time"] * UNIT[b["time_unit"]]
    return res


def find_ort_modules(arg):
    """The node_modules folder holding onnxruntime-node, or None (then ONNX Runtime is skipped)."""
    if not shutil.which("node"):
        return None
    for d in [arg, os.environ.get("BURN_ORT_MODULES"), os.path.join(ROOT, "bench", "node_modules")]:
        if d and os.path.isdir(os.path.join(d, "onnxruntime-node")):
            return d
    return None


def run_ort(model, modules, threads, repeats, min_time):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "guide.onnx")
        model.eval()
        torch.onnx.export(model, normalised_images(1), path, input_names=["images"],
                          output_names=["logits"], dynamic_axes={"images": {0: "batch"}},
                          opset_version=13)
        env = dict(os.environ, NODE_PATH=modules)
        env.pop("LD_LIBRARY_PATH", None)
        cmd = ["node", os.path.join(ROOT, "bench", "ort_guide.js"), path, str(threads),
               str(repeats), str(min_time), "64", "1"]
        print("+ " + " ".join(cmd), file=sys.stderr)
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"compare_guide.py: ONNX Runtime skipped: {r.stderr.strip()}", file=sys.stderr)
            return {}
        out = json.loads(r.stdout.strip().splitlines()[-1])
        return {f"infer/{b}": t for b, t in out.items()}


def median_of_rounds(rounds):
    """{key: median over the rounds that measured it} of a list of {key: seconds}."""
    keys = {k for r in rounds for k in r}
    return {k: statistics.median(r[k] for r in rounds if k in r) for k in keys}


def parse_cpus(text):
    """'0,2,4-7' -> {0, 2, 4, 5, 6, 7}."""
    out = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def benchmark(args):
    if args.cpus:  # both sides on the same CPUs (burn_bench through taskset)
        os.sched_setaffinity(0, parse_cpus(args.cpus))
    torch.set_num_threads(args.threads)
    print(f"+ PyTorch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"LD_LIBRARY_PATH={os.environ.get('LD_LIBRARY_PATH')}", file=sys.stderr)
    modules = None if args.no_ort else find_ort_modules(args.ort_modules)
    if not modules and not args.no_ort:
        print("compare_guide.py: ONNX Runtime skipped (node or onnxruntime-node not found; see "
              "--ort-modules)", file=sys.stderr)
    # Rounds alternate the three runtimes, so that a disturbance of a shared machine hits them
    # alike; each figure is the median over the rounds of each round's median.
    burn_rounds, pt_rounds, ort_rounds = [], [], []
    for r in range(args.rounds):
        burn_rounds.append(run_burn(args.bench, args.repeats, args.min_time, args.threads,
                                    args.cpus))
        pt, model = time_torch(args.repeats, args.min_time)
        pt_rounds.append(pt)
        if modules:
            ort_rounds.append(run_ort(model, modules, args.threads, args.repeats, args.min_time))
        if args.rounds > 1:
            print(f"+ round {r + 1}: " + ", ".join(
                f"{name} {k} {v * 1e3:.4f} ms" for name, d in
                (("burn", burn_rounds[-1]), ("torch", pt), ("ort", ort_rounds[-1] if modules else {}))
                for k, v in sorted(d.items())), file=sys.stderr)
    burn, pt = median_of_rounds(burn_rounds), median_of_rounds(pt_rounds)
    ort = median_of_rounds(ort_rounds) if ort_rounds else {}

    def cell(d, k, f):
        return f(d[k]) if k in d else "n/a"

    def img_s(t):
        return f"{BATCH / t:,.0f}"

    def img_s256(t):
        return f"{256 / t:,.0f}"

    def ms(t):
        return f"{t * 1e3:.4f}"

    def vs(peer, k):  # peer time / burn time: above 1, burn-cpp is faster
        return f"{peer[k] / burn[k]:.2f}x" if k in peer else "n/a"

    print("| measure | burn-cpp | PyTorch | ONNX Runtime | burn vs PyTorch | burn vs ORT |")
    print("|---|---:|---:|---:|---:|---:|")
    print(f"| train, img/s (batch 64) | {img_s(burn['train'])} | {img_s(pt['train'])} | n/a | "
          f"{vs(pt, 'train')} | n/a |")
    if "infer/256" in burn and "infer/256" in pt:
        print(f"| infer, img/s (batch 256) | {img_s256(burn['infer/256'])} | "
              f"{img_s256(pt['infer/256'])} | n/a | {vs(pt, 'infer/256')} | n/a |")
    print(f"| infer, img/s (batch 64) | {img_s(burn['infer/64'])} | {img_s(pt['infer/64'])} | "
          f"{cell(ort, 'infer/64', img_s)} | {vs(pt, 'infer/64')} | {vs(ort, 'infer/64')} |")
    print(f"| infer, ms (batch 1) | {ms(burn['infer/1'])} | {ms(pt['infer/1'])} | "
          f"{cell(ort, 'infer/1', ms)} | {vs(pt, 'infer/1')} | {vs(ort, 'infer/1')} |")
    if "batcher" in burn:
        print(f"| batcher, us per batch of 64 (burn only) | {burn['batcher'] * 1e6:.1f} | | | | |")
    print()
    print("Ratios: the peer's time / burn-cpp's time (above 1: burn-cpp is faster; for throughput "
          "the img/s ratio burn/peer, for latency peer ms / burn ms).")


# ---------------------------------------------------------------------------------- accuracy
def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, n = struct.unpack(">II", data[:8])
    if magic == 2051:
        rows, cols = struct.unpack(">II", data[8:16])
        return torch.frombuffer(bytearray(data[16:]), dtype=torch.uint8).reshape(n, rows, cols)
    if magic == 2049:
        return torch.frombuffer(bytearray(data[8:]), dtype=torch.uint8).reshape(n).long()
    raise ValueError(f"{path}: not an IDX image or label file (magic {magic})")


def load_split(split):
    images = read_idx(os.path.join(DATA_DIR, f"{split}-images-idx3-ubyte.gz"))
    targets = read_idx(os.path.join(DATA_DIR, f"{split}-labels-idx1-ubyte.gz"))
    return (images.float() / 255.0 - 0.1307) / 0.3081, targets


def torch_accuracy(epochs, threads):
    torch.set_num_threads(threads)
    torch.manual_seed(42)
    train_x, train_y = load_split("train")
    test_x, test_y = load_split("t10k")
    model = GuideModel()
    optimizer = make_optimizer(model)
    generator = torch.Generator().manual_seed(42)
    accs = []
    for epoch in range(1, epochs + 1):
        t0 = time.perf_counter()
        model.train()
        order = torch.randperm(len(train_x), generator=generator)
        for i in range(0, len(order), BATCH):
            idx = order[i:i + BATCH]
            optimizer.zero_grad(set_to_none=True)
            F.cross_entropy(model(train_x[idx]), train_y[idx]).backward()
            optimizer.step()
        train_s = time.perf_counter() - t0
        model.eval()
        correct = 0
        with torch.no_grad():
            for i in range(0, len(test_x), BATCH):
                correct += (model(test_x[i:i + BATCH]).argmax(1) == test_y[i:i + BATCH]).sum().item()
        accs.append((100.0 * correct / len(test_x), train_s))
        print(f"+ PyTorch epoch {epoch}: test accuracy {accs[-1][0]:.2f} %, train {train_s:.1f} s",
              file=sys.stderr)
    return accs


def burn_accuracy(guide, epochs):
    with tempfile.TemporaryDirectory() as tmp:
        artifact = os.path.join(tmp, "artifact")
        env = dict(os.environ)
        env.pop("LD_LIBRARY_PATH", None)
        cmd = [guide, "train", "--epochs", str(epochs), "--artifact-dir", artifact]
        print("+ " + " ".join(cmd), file=sys.stderr)
        t0 = time.perf_counter()
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit(f"compare_guide.py: {guide} failed ({r.returncode}):\n{r.stdout[-2000:]}\n"
                     f"{r.stderr[-2000:]}")
        accs = []
        for epoch in range(1, epochs + 1):
            path = os.path.join(artifact, "valid", f"epoch-{epoch}", "Accuracy.log")
            total = weight = 0.0
            with open(path) as f:
                for line in f:
                    line = line.strip()
                    if not line:
                        continue
                    value, batch = line.split(",")
                    total += float(value) * float(batch)
                    weight += float(batch)
            accs.append(total / weight if weight else float("nan"))
        return accs, wall


def accuracy(args):
    if not os.path.exists(args.guide):
        sys.exit(f"compare_guide.py: {args.guide} not found (build the guide example first, or "
                 "pass --guide)")
    pt = torch_accuracy(args.epochs, args.threads)
    burn, wall = burn_accuracy(args.guide, args.epochs)
    print("| epoch | burn-cpp test accuracy | PyTorch test accuracy |")
    print("|---:|---:|---:|")
    for e in range(args.epochs):
        print(f"| {e + 1} | {burn[e]:.2f} % | {pt[e][0]:.2f} % |")
    print()
    print(f"Wall time: burn-cpp guide {wall:.1f} s in all (training, validation, data loading); "
          f"PyTorch training {sum(t for _, t in pt):.1f} s (validation and loading excluded).")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "default", "bench", "burn_bench"))
    ap.add_argument("--guide", default=os.path.join(ROOT, "build", "default", "examples", "guide", "guide"))
    ap.add_argument("--repeats", type=int, default=5, help="repetitions (median reported)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="alternate burn-cpp, PyTorch and ONNX Runtime this many times (median)")
    ap.add_argument("--min-time", type=float, default=1.0, help="seconds per sample")
    ap.add_argument("--threads", type=int, default=2, help="threads of each side")
    ap.add_argument("--cpus", help="CPU list for both sides (taskset syntax, e.g. 0,8); default: "
                    "burn-cpp on CPUs 0..threads-1, PyTorch unpinned")
    ap.add_argument("--ort-modules", help="node_modules folder holding onnxruntime-node")
    ap.add_argument("--no-ort", action="store_true", help="skip ONNX Runtime")
    ap.add_argument("--accuracy", action="store_true", help="train 2 epochs on Fashion-MNIST instead")
    ap.add_argument("--epochs", type=int, default=2, help="epochs of --accuracy")
    args = ap.parse_args()
    if args.accuracy:
        accuracy(args)
    else:
        benchmark(args)


if __name__ == "__main__":
    main()
