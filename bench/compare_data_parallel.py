#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Data-parallel training throughput: burn-cpp's Learner (LearnerBuilder::data_parallel, started by
burn-run) against PyTorch's DistributedDataParallel (gloo), both with N processes of one thread
each against one process of one thread, in the same run; prints a markdown table.

    python3 bench/compare_data_parallel.py [--build build/default] [--procs 2] [--items 16384]
                                           [--rounds 3]

The model is the guide's (examples/guide/model.hpp; PyTorch: compare_guide.GuideModel), batch 64
per process, Adam. burn-cpp: `burn-run --nproc N examples/data-parallel/data-parallel
--train-items ITEMS --num-workers 0` with BURN_NUM_THREADS=1; its throughput is the training
epoch's items / seconds from experiment.log (Fashion-MNIST, batches built in the training loop).
PyTorch 1.13 (Debian's python3-torch): DDP over gloo (init_method file://), torch.set_num_threads(1),
random batches made before timing, ITEMS / N / 64 steps per process after 5 warm-up steps.
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

from torch_peer import PYTHON, ROOT, reexec_if_needed

BATCH = 64


def torch_rank(rank, world, store, items, out):
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from compare_guide import GuideModel
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    torch.manual_seed(42)
    model = torch.nn.parallel.DistributedDataParallel(GuideModel())
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, eps=1e-5)
    steps = items // world // BATCH
    g = torch.Generator().manual_seed(rank)
    data = [(torch.randn(BATCH, 28, 28, generator=g), torch.randint(0, 10, (BATCH,), generator=g))
            for _ in range(8)]

    def step(k):
        x, y = data[k % len(data)]
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()

    for k in range(5):
        step(k)
    dist.barrier()
    t0 = time.perf_counter()
    for k in range(steps):
        step(k)
    dist.barrier()
    seconds = time.perf_counter() - t0
    if rank == 0:
        with open(out, "w") as f:
            f.write(f"{steps * world * BATCH / seconds}\n")
    dist.destroy_process_group()


def run_torch(world, items):
    with tempfile.TemporaryDirectory() as tmp:
        store, out = os.path.join(tmp, "store"), os.path.join(tmp, "out")
        procs = [subprocess.Popen([PYTHON, __file__, "--torch-rank", str(r), str(world),
                                   store, str(items), out]) for r in range(world)]
        codes = [p.wait() for p in procs]
        if any(codes):
            sys.exit(f"PyTorch rank failed: {codes}")
        with open(out) as f:
            return float(f.read())


def run_burn(build, world, items):
    run = os.path.join(build, "src", "distributed", "burn-run")
    program = os.path.join(build, "examples", "data-parallel", "data-parallel")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, BURN_NUM_THREADS="1")
        subprocess.run([run, "--nproc", str(world), program, "--train-items", str(items),
                        "--test-items", "1024", "--num-workers", "0", "--artifact-dir", tmp],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(tmp, "experiment.log")) as f:
            line = [l for l in f if " train: " in l][-1]
        m = re.search(r"train: (\d+) items in ([0-9.e+-]+) s", line)
        return int(m.group(1)) / float(m.group(2))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--torch-rank":
        rank, world, store, items, out = sys.argv[2:7]
        torch_rank(int(rank), int(world), store, int(items), out)
        return
    reexec_if_needed()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "default"))
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--items", type=int, default=16384)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    results = {}
    for _ in range(a.rounds):
        for world in (1, a.procs):
            results.setdefault(("burn-cpp", world), []).append(run_burn(a.build, world, a.items))
            results.setdefault(("PyTorch", world), []).append(run_torch(world, a.items))
    print(f"| framework | 1 process (items/s) | {a.procs} processes (items/s) | scaling |")
    print("|---|---:|---:|---:|")
    for name in ("burn-cpp", "PyTorch"):
        one = statistics.median(results[(name, 1)])
        many = statistics.median(results[(name, a.procs)])
        print(f"| {name} | {one:.0f} | {many:.0f} | {many / one:.2f}x |")


if __name__ == "__main__":
    main()
