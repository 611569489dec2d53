#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Data-parallel training throughput: burn-cpp's Learner (LearnerBuilder::data_parallel, started by
burn-run) against PyTorch's DistributedDataParallel, both with N processes against one process, in
the same run; prints a markdown table.

    python3 bench/compare_data_parallel.py [--build build/default] [--procs 2] [--items N]
                                           [--rounds 3] [--model guide|resnet18] [--batch B]
                                           [--image-size S] [--device cpu|cuda]
                                           [--run BURN_RUN --program DATA_PARALLEL]

--model guide (default): the guide's model (examples/guide/model.hpp; PyTorch:
compare_guide.GuideModel), batch 64 per process, Adam; burn-cpp trains on Fashion-MNIST (batches
built in the training loop), PyTorch on 8 random batches made before timing.
--model resnet18: ResNet-18 (examples/data-parallel/resnet.hpp; PyTorch: onnx_models.ResNet18,
torchvision's resnet18 layer for layer), 1000 classes, random images of --image-size pixels
drawn on the device for every batch on both sides, Adam lr 1e-3, batch --batch per process.

--device cpu: one thread per process (BURN_NUM_THREADS=1, torch.set_num_threads(1)); PyTorch DDP
over gloo. --device cuda: process r on GPU r, burn-cpp over NCCL (NcclGroup), PyTorch DDP over
nccl; TF32 off on both sides (PyTorch's cuDNN default is on; burn-cpp's is off).

burn-cpp: `burn-run --nproc N data-parallel --model M ...` with 2 epochs; its throughput is the
last training epoch's items / seconds from experiment.log. PyTorch: ITEMS / N / B steps per
process after 5 warm-up steps (timed between barriers, synchronised with the device). Both include
each step's loss read back to the host (the Learner's metrics; `loss.item()` in PyTorch).
scaling = N-process throughput / 1-process throughput of the same framework.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from torch_peer import ROOT, reexec_if_needed


def torch_rank(rank, world, store, a, out):
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    cuda = a.device == "cuda"
    if cuda:
        torch.cuda.set_device(rank)
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
        device = torch.device("cuda", rank)
    else:
        torch.set_num_threads(1)
        device = torch.device("cpu")
    dist.init_process_group("nccl" if cuda else "gloo", init_method=f"file://{store}", rank=rank,
                            world_size=world)
    torch.manual_seed(42)
    if a.model == "guide":
        from compare_guide import GuideModel
        net, classes, shape = GuideModel(), 10, (a.batch, 28, 28)
    else:
        from onnx_models import ResNet18  # torchvision's resnet18, layer for layer
        net, classes, shape = ResNet18(1000), 1000, (a.batch, 3, a.image_size, a.image_size)
    net = net.to(device)
    model = torch.nn.parallel.DistributedDataParallel(net, device_ids=[rank] if cuda else None)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3 if a.model == "resnet18" else 1e-4, eps=1e-5)
    steps = a.items // world // a.batch
    g = torch.Generator().manual_seed(rank)
    data = [(torch.randn(*shape, generator=g).to(device),
             torch.randint(0, classes, (a.batch,), generator=g).to(device))
            for _ in range(8)] if a.model == "guide" else None

    def step(k):
        if data is not None:
            x, y = data[k % len(data)]
        else:  # drawn on the device for every batch, as burn-cpp's RandomImageBatcher
            x = torch.randn(*shape, device=device)
            y = torch.randint(0, classes, (a.batch,), device=device)
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loss.item()

    for k in range(5):
        step(k)
    dist.barrier()
    if cuda:
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for k in range(steps):
        step(k)
    if cuda:
        torch.cuda.synchronize()
    dist.barrier()
    seconds = time.perf_counter() - t0
    if rank == 0:
        with open(out, "w") as f:
            f.write(f"{steps * world * a.batch / seconds}\n")
    dist.destroy_process_group()


def run_torch(world, a):
    with tempfile.TemporaryDirectory() as tmp:
        store, out = os.path.join(tmp, "store"), os.path.join(tmp, "out")
        env = dict(os.environ)
        env.setdefault("NCCL_NVLS_ENABLE", "0")
        procs = [subprocess.Popen([sys.executable, __file__, "--torch-rank", str(r), str(world),
                                   store, out] + sys.argv[1:], env=env) for r in range(world)]
        codes = [p.wait() for p in procs]
        if any(codes):
            sys.exit(f"PyTorch rank failed: {codes}")
        with open(out) as f:
            return float(f.read())


def run_burn(world, a):
    run = a.run or os.path.join(a.build, "src", "distributed", "burn-run")
    program = a.program or os.path.join(a.build, "examples", "data-parallel", "data-parallel")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        env.setdefault("NCCL_NVLS_ENABLE", "0")
        if a.device == "cpu":
            env["BURN_NUM_THREADS"] = "1"
        args = [run, "--nproc", str(world), program, "--backend", a.device, "--model", a.model,
                "--epochs", "2", "--batch-size", str(a.batch), "--train-items", str(a.items),
                "--num-workers", "0", "--artifact-dir", tmp]
        if a.model == "guide":
            args += ["--test-items", "1024"]
        else:
            args += ["--test-items", str(world * a.batch), "--image-size", str(a.image_size)]
        subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(tmp, "experiment.log")) as f:
            line = [l for l in f if " train: " in l][-1]
        m = re.search(r"train: (\d+) items in ([0-9.e+-]+) s", line)
        return int(m.group(1)) / float(m.group(2))


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "default"))
    ap.add_argument("--run", help="burn-run (default: BUILD/src/distributed/burn-run)")
    ap.add_argument("--program", help="data-parallel (default: BUILD/examples/data-parallel/...)")
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--items", type=int, help="training items per epoch (all processes)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--model", choices=("guide", "resnet18"), default="guide")
    ap.add_argument("--batch", type=int, help="batch per process (guide 64, resnet18 128)")
    ap.add_argument("--image-size", type=int, default=224)
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    a = ap.parse_args(argv)
    if a.batch is None:
        a.batch = 64 if a.model == "guide" else 128
    if a.items is None:
        a.items = 16384 if a.model == "guide" else 32 * a.batch * a.procs
    return a


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--torch-rank":
        rank, world, store, out = sys.argv[2:6]
        torch_rank(int(rank), int(world), store, parse(sys.argv[6:]), out)
        return
    if parse(sys.argv[1:]).device == "cpu":
        reexec_if_needed()
    a = parse(sys.argv[1:])
    results = {}
    for _ in range(a.rounds):
        for world in (1, a.procs):
            results.setdefault(("burn-cpp", world), []).append(run_burn(world, a))
            results.setdefault(("PyTorch", world), []).append(run_torch(world, a))
    one, many = ("GPU", "GPUs") if a.device == "cuda" else ("process", "processes")
    print(f"| framework | 1 {one} (items/s) | {a.procs} {many} (items/s) | scaling |")
    print("|---|---:|---:|---:|")
    for name in ("burn-cpp", "PyTorch"):
        one = statistics.median(results[(name, 1)])
        many = statistics.median(results[(name, a.procs)])
        print(f"| {name} | {one:.0f} | {many:.0f} | {many / one:.2f}x |")


if __name__ == "__main__":
    main()
