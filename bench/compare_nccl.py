#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""All-reduce of CUDA tensors between processes, one per GPU: burn-cpp's NcclGroup against
PyTorch's nccl process group, in the same run, on this machine; prints a markdown table.

    python3 bench/compare_nccl.py [--bench build/default/bench/burn_bench_distributed]
                                  [--run build/default/src/distributed/burn-run]
                                  [--ranks 2] [--sizes 1048576 ... 1073741824]

Both sides: f32 sum of a tensor on GPU r for rank r, each call on the previous call's result, the
same timing loop (rounds of at least 0.2 s of calls, then a device synchronisation; median of 5
rounds), rendezvous through a fresh directory. Bus bandwidth = bytes * 2 (n - 1) / n / time (as
nccl-tests report it). ratio = burn-cpp bus bandwidth / PyTorch's. NCCL_NVLS_ENABLE=0 is set for
both unless the environment sets it.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def torch_rank(rank, world, store, sizes, out):
    import torch
    import torch.distributed as dist
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"file://{store}", rank=rank, world_size=world)
    lines = []
    for nbytes in sizes:
        t = torch.ones(nbytes // 4, dtype=torch.float32, device="cuda")
        dist.all_reduce(t)
        torch.cuda.synchronize()
        rounds = []
        for _ in range(5):
            calls = 1
            while True:
                dist.barrier()
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                for _ in range(calls):
                    dist.all_reduce(t)
                torch.cuda.synchronize()
                secs = time.perf_counter() - t0
                more = torch.tensor([calls * 2 if secs < 0.2 else 0], device="cuda")
                dist.broadcast(more, 0)
                if int(more.item()) == 0:
                    break
                calls = int(more.item())
            rounds.append(secs / calls)
        tm = statistics.median(rounds)
        lines.append(f"{nbytes} {tm:.9f} {nbytes * 2 * (world - 1) / world / tm / 1e9:.3f}")
    if rank == 0:
        with open(out, "w") as f:
            f.write("\n".join(lines) + "\n")
    dist.destroy_process_group()


def parse(text):
    rows = {}
    for line in text.strip().splitlines():
        b, t, bw = line.split()
        rows[int(b)] = (float(t), float(bw))
    return rows


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--torch-rank":
        rank, world, store, sizes, out = sys.argv[2:7]
        torch_rank(int(rank), int(world), store, [int(s) for s in sizes.split(",")], out)
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default=os.path.join(ROOT, "build/default/bench/burn_bench_distributed"))
    ap.add_argument("--run", default=os.path.join(ROOT, "build/default/src/distributed/burn-run"))
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--sizes", type=int, nargs="*",
                    default=[1 << 20, 16 << 20, 256 << 20, 1 << 30])
    a = ap.parse_args()
    env = dict(os.environ)
    env.setdefault("NCCL_NVLS_ENABLE", "0")
    burn = subprocess.run([a.run, "--nproc", str(a.ranks), a.bench, "--nccl"] +
                          [str(s) for s in a.sizes], env=env, check=True,
                          capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        store, out = os.path.join(tmp, "store"), os.path.join(tmp, "out")
        sizes = ",".join(str(s) for s in a.sizes)
        procs = [subprocess.Popen([sys.executable, __file__, "--torch-rank", str(r), str(a.ranks),
                                   store, sizes, out], env=env) for r in range(a.ranks)]
        if any(p.wait() for p in procs):
            sys.exit("a PyTorch rank failed")
        with open(out) as f:
            torch = f.read()
    b, t = parse(burn), parse(torch)
    print(f"| bytes | burn-cpp | PyTorch | ratio (bus bandwidth, burn-cpp / PyTorch) |")
    print("|---:|---:|---:|---:|")
    for size in a.sizes:
        (tb, bb), (tt, bt) = b[size], t[size]
        print(f"| {size} | {tb * 1e3:.3f} ms ({bb:.1f} GB/s) | {tt * 1e3:.3f} ms ({bt:.1f} GB/s) "
              f"| {bb / bt:.2f} |")


if __name__ == "__main__":
    main()
