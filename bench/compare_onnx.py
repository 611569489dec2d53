#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""burn-cpp's ONNX import (bench/onnx.cpp: the code burn_onnx_generate() writes, and
onnx::Graph<Cpu<float>>) against ONNX Runtime's CPU execution provider, on the same .onnx files,
in one invocation.

    python3 bench/compare_onnx.py [--bench build/onnxgen/bench/burn_bench_onnx] [--threads 2]
                                  [--model-dir DIR] [--repeats 5] [--min-time 0.5] [--rounds 1]
                                  [--models mnist,resnet18] [--ort auto|python|node]
                                  [--markdown FILE] [--no-check] [--check-only]

Models: the MNIST CNN (examples/onnx-inference/mnist.onnx) and a ResNet-18 with random weights
(bench/onnx_models.py, exported at build time). Cases: batch 1 (latency, ms per call) and batch 64
(throughput, images/s). Every timed call takes host data and returns host data on both sides:
burn makes the input tensor from a TensorData and reads the output back with to_data();
ONNX Runtime takes and returns arrays.

Threads: the script restricts itself (and so burn_bench_onnx and ONNX Runtime, which inherit it)
to the first --threads CPUs of its affinity mask, or to --cpus (e.g. 0,1), unless --threads is
the number of CPUs it has. burn's oneTBB pool sizes itself to that mask (burn sets OpenBLAS to
one thread per call); ONNX Runtime gets intra_op_num_threads = --threads, inter_op = 1, all graph
optimisations, sequential execution.

ONNX Runtime: the python `onnxruntime` package when importable (--ort python), else
onnxruntime-node through bench/ort_onnx.js (--ort node; node_modules from --ort-modules,
$BURN_ORT_MODULES or bench/node_modules; install with
`ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node`).

Before timing, a correctness check: burn_bench_onnx --check writes a fixed input and the outputs
of both burn paths for batches 1 and 2; ONNX Runtime runs the same input and the largest absolute
difference is printed (the script fails when it exceeds --tolerance relative to the output's
largest magnitude).

Ratios: above 1, burn-cpp is faster (ORT ms / burn ms for latency, burn img/s / ORT img/s for
throughput). With --rounds R the two sides take turns R times and the median is printed.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))
UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
ITEM_SHAPE = {"mnist": (1, 28, 28), "resnet18": (3, 224, 224)}
BATCHES = (1, 64)

try:
    import numpy as np
except ImportError:  # the node path needs no numpy
    np = None


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------- threads
def pin(threads, cpus):
    """Restricts this process (and its children) to `cpus` or the first `threads` CPUs."""
    have = sorted(os.sched_getaffinity(0))
    if cpus:
        want = sorted({int(c) for part in cpus.split(",") for c in _span(part)})
    elif threads < len(have):
        want = have[:threads]
    else:
        want = have
    if len(want) != threads:
        log(f"compare_onnx.py: warning: {len(want)} CPUs ({want}) for {threads} threads")
    os.sched_setaffinity(0, want)
    return want


def _span(part):
    if "-" in part:
        a, b = part.split("-")
        return range(int(a), int(b) + 1)
    return [int(part)]


# ---------------------------------------------------------------------------------- burn
def bench_env():
    env = dict(os.environ)
    return env


def burn_models(bench, model_dir, models):
    """{model: onnx path} of what burn_bench_onnx has (--check with batch 1 lists them)."""
    return {c["model"]: c["onnx"] for c in burn_check(bench, model_dir, [1], None)
            if c["model"] in models}


def burn_check(bench, model_dir, batches, out_dir):
    own = out_dir is None
    out_dir = out_dir or tempfile.mkdtemp(prefix="burn_onnx_check_")
    cmd = [bench, "--check", out_dir, "--batches", ",".join(map(str, batches))]
    if model_dir:
        cmd += ["--model-dir", model_dir]
    log("+ " + " ".join(cmd))
    r = subprocess.run(cmd, env=bench_env(), capture_output=True, text=True)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        sys.exit(f"compare_onnx.py: {bench} --check failed ({r.returncode})")
    cases = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    if own:
        shutil.rmtree(out_dir, ignore_errors=True)
    return cases


def run_burn(bench, model_dir, models, repeats, min_time):
    """{(model, impl, batch): seconds per call} (median of the repetitions)."""
    filt = "^onnx/(" + "|".join(models) + ")/"
    cmd = [bench, "--benchmark_format=json", f"--benchmark_repetitions={repeats}",
           f"--benchmark_min_time={min_time}", "--benchmark_report_aggregates_only=true",
           f"--benchmark_filter={filt}"]
    if model_dir:
        cmd += ["--model-dir", model_dir]
    log("+ " + " ".join(cmd))
    r = subprocess.run(cmd, env=bench_env(), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"compare_onnx.py: {bench} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    res = {}
    for b in json.loads(r.stdout)["benchmarks"]:
        if b.get("aggregate_name") == "median" or (repeats == 1 and b.get("run_type") == "iteration"):
            name = b["run_name"].removesuffix("/real_time")
            _, model, impl, batch = name.split("/")
            res[(model, impl, int(batch))] = b["real_time"] * UNIT[b["time_unit"]]
    return res


# ---------------------------------------------------------------------------------- ORT
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


class PythonOrt:
    def __init__(self, threads):
        import onnxruntime as ort
        self.ort, self.threads = ort, threads
        self.sessions = {}
        self.version = f"onnxruntime {ort.__version__} (python)"

    def session(self, path):
        if path not in self.sessions:
            so = self.ort.SessionOptions()
            so.intra_op_num_threads = self.threads
            so.inter_op_num_threads = 1
            so.execution_mode = self.ort.ExecutionMode.ORT_SEQUENTIAL
            so.graph_optimization_level = self.ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            self.sessions[path] = self.ort.InferenceSession(path, so,
                                                            providers=["CPUExecutionProvider"])
        return self.sessions[path]

    def run(self, path, x):
        s = self.session(path)
        return s.run(None, {s.get_inputs()[0].name: x})[0]

    def run_file(self, path, input_file, shape, output_file):
        x = np.fromfile(input_file, dtype=np.float32).reshape(shape)
        self.run(path, x).astype(np.float32).tofile(output_file)

    def time(self, path, item_shape, batches, repeats, min_time):
        rng = np.random.default_rng(0)
        res = {}
        for b in batches:
            x = rng.uniform(-1, 1, size=(b, *item_shape)).astype(np.float32)
            res[b] = time_loop(lambda: self.run(path, x), repeats, min_time)
        return res


class NodeOrt:
    def __init__(self, threads, modules):
        self.threads, self.modules = threads, modules
        self.env = dict(os.environ, NODE_PATH=modules)
        self.script = os.path.join(HERE, "ort_onnx.js")
        v = os.path.join(modules, "onnxruntime-node", "package.json")
        ver = json.load(open(v)).get("version", "?") if os.path.exists(v) else "?"
        self.version = f"onnxruntime-node {ver}"

    def _node(self, args):
        cmd = ["node", self.script] + [str(a) for a in args]
        log("+ " + " ".join(cmd))
        r = subprocess.run(cmd, env=self.env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"compare_onnx.py: ONNX Runtime (node) failed: {r.stderr.strip()}")
        return json.loads(r.stdout.strip().splitlines()[-1])

    def run_file(self, path, input_file, shape, output_file):
        self._node(["run", path, self.threads, input_file, ",".join(map(str, shape)), output_file])

    def time(self, path, item_shape, batches, repeats, min_time):
        out = self._node(["time", path, self.threads, repeats, min_time,
                          ",".join(map(str, item_shape))] + list(batches))
        return {int(b): t for b, t in out.items()}


def find_ort_modules(arg):
    if not shutil.which("node"):
        return None
    for d in [arg, os.environ.get("BURN_ORT_MODULES"), os.path.join(HERE, "node_modules")]:
        if d and os.path.isdir(os.path.join(d, "onnxruntime-node")):
            return d
    return None


def make_ort(kind, threads, modules_arg):
    if kind in ("auto", "python"):
        try:
            if np is None:
                raise ImportError("numpy")
            return PythonOrt(threads)
        except ImportError as e:
            if kind == "python":
                sys.exit(f"compare_onnx.py: python onnxruntime not importable ({e})")
    modules = find_ort_modules(modules_arg)
    if not modules:
        sys.exit("compare_onnx.py: no ONNX Runtime: neither the python onnxruntime package nor "
                 "node with onnxruntime-node (--ort-modules DIR, $BURN_ORT_MODULES)")
    return NodeOrt(threads, modules)


# ---------------------------------------------------------------------------------- check
def read_f32(path):
    if np is not None:
        return np.fromfile(path, dtype=np.float32).astype(np.float64).tolist()
    from array import array
    a = array("f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return a.tolist()


def max_abs_diff(a, b):
    if len(a) != len(b):
        return float("inf")
    return max((abs(x - y) for x, y in zip(a, b)), default=0.0)


def check(bench, model_dir, models, ort, tolerance):
    rows, ok = [], True
    with tempfile.TemporaryDirectory(prefix="burn_onnx_check_") as tmp:
        for c in burn_check(bench, model_dir, [1, 2], tmp):
            if c["model"] not in models:
                continue
            out = os.path.join(tmp, f"{c['model']}_b{c['batch']}_ort.f32")
            ort.run_file(c["onnx"], c["input"], c["input_shape"], out)
            y = read_f32(out)
            scale = max((abs(v) for v in y), default=0.0)
            d_gen = max_abs_diff(read_f32(c["gen"]), y)
            d_graph = max_abs_diff(read_f32(c["graph"]), y)
            good = max(d_gen, d_graph) <= tolerance * max(1.0, scale)
            ok &= good
            rows.append((c["model"], c["batch"], scale, d_gen, d_graph, good))
    lines = ["| model | batch | max abs ORT output | max abs diff gen vs ORT | "
             "max abs diff Graph vs ORT | within tolerance |", "|---|---:|---:|---:|---:|---|"]
    for m, b, s, dg, dgr, good in rows:
        lines.append(f"| {m} | {b} | {s:.4g} | {dg:.3g} | {dgr:.3g} | {'yes' if good else 'NO'} |")
    return lines, ok


# ---------------------------------------------------------------------------------- table
def median_of_rounds(rounds):
    keys = {k for r in rounds for k in r}
    return {k: statistics.median(r[k] for r in rounds if k in r) for k in keys}


def table(burn, ort, models):
    lines = ["| model | batch | measure | burn generated | burn Graph | ONNX Runtime | "
             "generated / ORT | Graph / ORT |", "|---|---:|---|---:|---:|---:|---:|---:|"]
    for m in models:
        for b in BATCHES:
            g, gr, o = burn.get((m, "gen", b)), burn.get((m, "graph", b)), ort.get((m, b))
            if b == 1:
                measure, fmt = "latency, ms", (lambda t: f"{t * 1e3:.3f}" if t else "n/a")
            else:
                measure, fmt = "throughput, img/s", (lambda t, b=b: f"{b / t:,.0f}" if t else "n/a")

            def ratio(t):
                return f"{o / t:.2f}x" if t and o else "n/a"

            lines.append(f"| {m} | {b} | {measure} | {fmt(g)} | {fmt(gr)} | {fmt(o)} | "
                         f"{ratio(g)} | {ratio(gr)} |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "onnxgen", "bench",
                                                    "burn_bench_onnx"))
    ap.add_argument("--model-dir", help="folder with {mnist,resnet18}.{onnx,mpk} (a bundle)")
    ap.add_argument("--models", default="mnist,resnet18")
    ap.add_argument("--threads", type=int, default=2, help="threads of each side")
    ap.add_argument("--cpus", help="CPU list to pin to (e.g. 0,1 or 0-15); default: the first "
                                   "--threads CPUs of the current mask")
    ap.add_argument("--repeats", type=int, default=5, help="samples per case (median)")
    ap.add_argument("--min-time", type=float, default=0.5, help="seconds per sample")
    ap.add_argument("--rounds", type=int, default=1, help="alternate burn and ORT this many times")
    ap.add_argument("--ort", choices=["auto", "python", "node"], default="auto")
    ap.add_argument("--ort-modules", help="node_modules folder holding onnxruntime-node")
    ap.add_argument("--tolerance", type=float, default=1e-3,
                    help="max abs difference allowed, times max(1, largest |output|)")
    ap.add_argument("--no-check", action="store_true", help="skip the correctness check")
    ap.add_argument("--check-only", action="store_true", help="only the correctness check")
    ap.add_argument("--markdown", help="also write the tables to this file")
    args = ap.parse_args()

    cpus = pin(args.threads, args.cpus)
    ort = make_ort(args.ort, args.threads, args.ort_modules)
    wanted = [m for m in args.models.split(",") if m]
    onnx = burn_models(args.bench, args.model_dir, wanted)
    models = [m for m in wanted if m in onnx]
    for m in wanted:
        if m not in onnx:
            log(f"compare_onnx.py: {m} is not in {args.bench} (left out)")
    header = [f"CPU: {cpu_name()}; pinned to CPUs {cpus}; {args.threads} threads each; "
              f"{ort.version}; burn_bench_onnx {args.bench}", ""]
    out = list(header)
    ok = True
    if not args.no_check:
        lines, ok = check(args.bench, args.model_dir, models, ort, args.tolerance)
        out += ["Correctness (same input, batches 1 and 2):", ""] + lines + [""]
        print("\n".join(out), flush=True)
    if not args.check_only:
        burn_rounds, ort_rounds = [], []
        for r in range(args.rounds):
            burn_rounds.append(run_burn(args.bench, args.model_dir, models, args.repeats,
                                        args.min_time))
            o = {}
            for m in models:
                for b, t in ort.time(onnx[m], ITEM_SHAPE[m], BATCHES, args.repeats,
                                     args.min_time).items():
                    o[(m, b)] = t
            ort_rounds.append(o)
            if args.rounds > 1:
                log(f"+ round {r + 1}: burn " + ", ".join(
                    f"{'/'.join(map(str, k))} {v * 1e3:.3f} ms"
                    for k, v in sorted(burn_rounds[-1].items())) + "; ORT " + ", ".join(
                    f"{'/'.join(map(str, k))} {v * 1e3:.3f} ms" for k, v in sorted(o.items())))
        lines = table(median_of_rounds(burn_rounds), median_of_rounds(ort_rounds), models)
        lines += ["", "Ratios: above 1, burn-cpp is faster (ORT ms / burn ms; burn img/s / ORT "
                  "img/s). Medians of " + f"{args.repeats} samples x {args.rounds} round(s)."]
        print("\n".join(lines if not args.no_check else header + lines), flush=True)
        out += lines
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(out) + "\n")
    if not ok:
        sys.exit("compare_onnx.py: burn's outputs differ from ONNX Runtime's beyond --tolerance")


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


if __name__ == "__main__":
    main()
