#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""All-reduce between processes: burn-cpp's Communicator (Gloo) against PyTorch's gloo process
group, in the same run, on this machine; prints a markdown table.

    python3 bench/compare_distributed.py [--bench build/default/bench/burn_bench_distributed]
                                         [--ranks 2] [--sizes 4096 1048576 ...]

Both sides: f32 sum of a host buffer per call, one process per rank started here, rendezvous
through a fresh directory (burn: BURN_STORE_DIR, PyTorch: init_method file://), the same timing
loop (rounds of at least 0.2 s, median of 5). Bus bandwidth = bytes * 2 (n - 1) / n / time (as
nccl-tests report it). ratio = PyTorch time / burn-cpp time: above 1, burn-cpp is faster.

--mpi adds Open MPI's MPI_Allreduce (bench/mpi_allreduce.c, compiled here with mpicc, started
with mpirun; Debian's libopenmpi-dev and openmpi-bin) with the same loop, twice: with its default
transports (shared memory between processes of one machine) and restricted to TCP
(`--mca btl tcp,self`, the transport Gloo uses): the measurement behind the choice of Gloo as the
CPU engine (docs/distributed.md, "Why Gloo").
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

from torch_peer import ROOT, reexec_if_needed


def torch_rank(rank, world, store, sizes, out):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    lines = []
    for nbytes in sizes:
        t = torch.ones(nbytes // 4, dtype=torch.float32)
        dist.all_reduce(t)
        rounds = []
        for _ in range(5):
            calls = 1
            while True:
                dist.barrier()
                t0 = time.perf_counter()
                for _ in range(calls):
                    dist.all_reduce(t)
                secs = time.perf_counter() - t0
                more = torch.tensor([calls * 2 if secs < 0.2 else 0])
                dist.broadcast(more, 0)
                if int(more) == 0:
                    break
                calls = int(more)
            rounds.append(secs / calls)
        rounds.sort()
        lines.append(f"{nbytes} {rounds[len(rounds) // 2]:.9f}")
    if rank == 0:
        with open(out, "w") as f:
            f.write("\n".join(lines) + "\n")
    dist.destroy_process_group()


def run_ranks(cmd_for_rank, world, env_for_rank):
    procs = [subprocess.Popen(cmd_for_rank(r), env=env_for_rank(r), stdout=subprocess.PIPE,
                              text=True) for r in range(world)]
    outs = [p.communicate()[0] for p in procs]
    for r, p in enumerate(procs):
        if p.returncode != 0:
            sys.exit(f"rank {r} failed ({p.returncode})")
    return outs[0]


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--torch-rank":
        rank, world, store, out = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
        torch_rank(rank, world, store, [int(s) for s in sys.argv[6:]], out)
        return
    reexec_if_needed()
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "default", "bench",
                                                    "burn_bench_distributed"))
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--sizes", type=int, nargs="+",
                    default=[4096, 1 << 20, 16 << 20, 64 << 20])
    ap.add_argument("--mpi", action="store_true", help="add Open MPI (shared memory and TCP)")
    args = ap.parse_args()
    sizes = [str(s) for s in args.sizes]
    base = {k: v for k, v in os.environ.items() if not k.startswith("BURN_")}
    base.pop("LD_LIBRARY_PATH", None)  # burn keeps the libraries it was linked with

    with tempfile.TemporaryDirectory() as tmp:
        def burn_env(r):
            return dict(base, BURN_RANK=str(r), BURN_WORLD_SIZE=str(args.ranks),
                        BURN_STORE_DIR=os.path.join(tmp, "burn"), BURN_NUM_THREADS="1")
        burn_out = run_ranks(lambda r: [args.bench] + sizes, args.ranks, burn_env)
        out = os.path.join(tmp, "torch.txt")
        torch_env = dict(os.environ, OMP_NUM_THREADS="1")
        run_ranks(lambda r: [sys.executable, os.path.abspath(__file__), "--torch-rank", str(r),
                             str(args.ranks), os.path.join(tmp, "torch_store"), out] + sizes,
                  args.ranks, lambda r: torch_env)
        with open(out) as f:
            torch_out = f.read()
        mpi_outs = {}
        if args.mpi:
            exe = os.path.join(tmp, "mpi_allreduce")
            subprocess.run(["mpicc", "-O2", os.path.join(ROOT, "bench", "mpi_allreduce.c"), "-o",
                            exe], check=True)
            mpi_env = dict(base, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            for name, mca in (("MPI shm", []), ("MPI tcp", ["--mca", "btl", "tcp,self"])):
                mpi_outs[name] = subprocess.run(
                    ["mpirun", "-np", str(args.ranks), "--bind-to", "none"] + mca + [exe] + sizes,
                    env=mpi_env, check=True, stdout=subprocess.PIPE, text=True).stdout

    import torch

    def parse(text):
        return {int(l.split()[0]): float(l.split()[1]) for l in text.split("\n") if l.strip()}

    burn, peer = parse(burn_out), parse(torch_out)
    mpi = {name: parse(text) for name, text in mpi_outs.items()}
    n = args.ranks
    print(f"all_reduce, f32 sum, {n} processes on this machine; PyTorch {torch.__version__} "
          f"(gloo process group)\n")
    extra = "".join(f" {name} | bus GB/s |" for name in mpi)
    print(f"| bytes | burn-cpp | bus GB/s | PyTorch | bus GB/s | ratio |{extra}")
    print("|---:|---:|---:|---:|---:|---:|" + "---:|---:|" * len(mpi))
    for b in args.sizes:
        tb, tp = burn[b], peer[b]
        bus = lambda t: b * 2 * (n - 1) / n / t / 1e9
        cols = "".join(f" {m[b] * 1e6:.1f} us | {bus(m[b]):.2f} |" for m in mpi.values())
        print(f"| {b} | {tb * 1e6:.1f} us | {bus(tb):.2f} | {tp * 1e6:.1f} us | {bus(tp):.2f} | "
              f"{tp / tb:.2f} |{cols}")


if __name__ == "__main__":
    main()
