#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Runs burn_bench_vulkan (bench/vulkan.cpp) and the same cases in PyTorch on CUDA, in one run on
one GPU; prints a table and the headline ratios, optionally as markdown (--markdown PATH).

    python3 bench/compare_vulkan.py [BENCH] [--markdown results.md] [--repeats 5] [--filter RE]

BENCH defaults to build/default/bench/burn_bench_vulkan. The sizes of each case are read from the
names burn_bench_vulkan reports (BM_VkMatmul/4096, BM_VkSoftmax/4096/4096, ...), so PyTorch always
runs the shapes that burn ran (also with burn's --small sizes: --small here passes it on).

PyTorch side: fp32 without TF32 (torch.backends.cuda.matmul.allow_tf32 = False and likewise for
cuDNN, or fp32_precision = "ieee" on PyTorch >= 2.9), cudnn.benchmark on; each case is warmed
up, then timed with CUDA events over R ops per sample (R chosen for about 4 ms of work, as burn
does), median of --repeats samples. burn's value is the
median of --repeats Google Benchmark repetitions. Both report rates: TFLOPS (matmul, conv) or
GB/s (bytes read + written, 1e9 bytes per GB). ratio = burn / PyTorch: above 1, burn is faster.

--dry-run checks the arguments, the binary (its case list) and PyTorch/CUDA without timing
anything. --torch-device cpu times the PyTorch side on the CPU (to test this script without a
GPU; pair it with --small). --burn-json PATH reads burn's results from a file instead of running.
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BENCH = os.path.join(ROOT, "build", "default", "bench", "burn_bench_vulkan")
TARGET_SECONDS = 4e-3  # work per timed sample, as in bench/vulkan.cpp
MAX_REPS = 200


# ------------------------------------------------------------------------------ the cases
# family -> (metric, make(torch, device, args) -> (op, work per op)); work in TFLOP or GB.
def _rand(torch, dev, *shape):
    return torch.rand(*shape, dtype=torch.float32, device=dev)


def _flat(torch, dev, n):
    cols = 4096 if n % 4096 == 0 else n
    return _rand(torch, dev, n // cols, cols)


def _matmul(torch, dev, args):
    (n,) = args
    a, b = _rand(torch, dev, n, n), _rand(torch, dev, n, n)
    return (lambda: torch.matmul(a, b)), 2.0 * n ** 3 * 1e-12


def _copy(torch, dev, args):
    (n,) = args
    src, dst = _flat(torch, dev, n), _flat(torch, dev, n)
    return (lambda: dst.copy_(src)), 2.0 * 4 * n * 1e-9


def _add(torch, dev, args):
    (n,) = args
    a, b = _flat(torch, dev, n), _flat(torch, dev, n)
    return (lambda: a + b), 3.0 * 4 * n * 1e-9


def _mul_scalar(torch, dev, args):
    (n,) = args
    a = _flat(torch, dev, n)
    return (lambda: a * 2.0), 2.0 * 4 * n * 1e-9


def _exp(torch, dev, args):
    (n,) = args
    a = _flat(torch, dev, n)
    return (lambda: torch.exp(a)), 2.0 * 4 * n * 1e-9


def _gelu_custom(compiled):
    """Burn's README GELU: PyTorch eager (five kernels), or torch.compile's fused kernel."""
    def make(torch, dev, args):
        (n,) = args
        x = _flat(torch, dev, n)

        def custom_gelu(t):
            return t * (torch.erf(t / math.sqrt(2.0)) + 1.0) / 2.0
        fn = torch.compile(custom_gelu) if compiled else custom_gelu
        return (lambda: fn(x)), 2.0 * 4 * n * 1e-9
    return make


def _cat(torch, dev, args):
    (n,) = args
    a, b = _flat(torch, dev, n // 2), _flat(torch, dev, n - n // 2)
    return (lambda: torch.cat([a, b])), 2.0 * 4 * n * 1e-9


def _softmax(torch, dev, args):
    r, c = args
    x = _rand(torch, dev, r, c)
    return (lambda: torch.softmax(x, -1)), 2.0 * 4 * r * c * 1e-9


def _sum(torch, dev, args):
    (n,) = args
    x = _flat(torch, dev, n)
    return (lambda: x.sum()), 4.0 * n * 1e-9


def _sum_dim1(torch, dev, args):
    r, c = args
    x = _rand(torch, dev, r, c)
    return (lambda: x.sum(1, keepdim=True)), 4.0 * r * c * 1e-9


def _conv_chain(layers):
    """layers: (cin, cout, side, padding) of 3x3 stride-1 convolutions applied in turn."""
    def make(torch, dev, args):
        import torch.nn.functional as F
        (batch,) = args
        x = _rand(torch, dev, batch, layers[0][0], layers[0][2], layers[0][2]) * 2 - 1
        params, flops = [], 0.0
        for cin, cout, side, pad in layers:
            w = _rand(torch, dev, cout, cin, 3, 3) * 2 - 1
            b = _rand(torch, dev, cout) * 2 - 1
            params.append((w, b, pad))
            out = side + 2 * pad - 2
            flops += 2.0 * batch * cout * out * out * cin * 9

        def op():
            with torch.no_grad():
                y = x
                for w, b, pad in params:
                    y = F.conv2d(y, w, b, padding=pad)
                return y
        return op, flops * 1e-12
    return make


CASES = {
    "BM_VkMatmul": ("TFLOPS", _matmul, "torch.matmul(a, b), fp32, TF32 off"),
    "BM_VkCopy": ("GBps", _copy, "dst.copy_(src)"),
    "BM_VkAdd": ("GBps", _add, "a + b"),
    "BM_VkMulScalar": ("GBps", _mul_scalar, "a * 2.0"),
    "BM_VkExp": ("GBps", _exp, "torch.exp(a)"),
    "BM_VkGeluCustom": ("GBps", _gelu_custom(False),
                        "x * (erf(x / sqrt 2) + 1) / 2, eager (five kernels)"),
    "BM_VkFusionGeluCustom": ("GBps", _gelu_custom(True),
                              "the same in torch.compile (one Triton kernel)"),
    "BM_VkCat": ("GBps", _cat, "torch.cat([a, b]) of two dense halves"),
    "BM_VkSoftmax": ("GBps", _softmax, "torch.softmax(x, -1)"),
    "BM_VkSum": ("GBps", _sum, "x.sum()"),
    "BM_VkSumDim1": ("GBps", _sum_dim1, "x.sum(1, keepdim=True)"),
    "BM_VkConv2dGuide": ("TFLOPS", _conv_chain([(1, 8, 28, 0), (8, 16, 26, 0)]),
                         "F.conv2d 1->8 (28x28) then 8->16 (26x26), no_grad"),
    "BM_VkConv2dResnet": ("TFLOPS", _conv_chain([(64, 64, 56, 1)]),
                          "F.conv2d 64->64, 56x56, padding 1, no_grad"),
}


def parse_name(name):
    """'BM_VkSoftmax/4096/4096/real_time' -> ('BM_VkSoftmax', (4096, 4096))."""
    parts = [p for p in name.split("/") if p and not p.startswith("real_time")]
    family, args = parts[0], []
    for p in parts[1:]:
        if re.fullmatch(r"\d+", p):
            args.append(int(p))
    return family, tuple(args)


# ------------------------------------------------------------------------------ burn side
def run_burn(bench, repeats, filt, small, extra):
    cmd = [bench, "--benchmark_format=json", f"--benchmark_filter={filt}",
           f"--benchmark_repetitions={repeats}", "--benchmark_report_aggregates_only=true"]
    if small:
        cmd.append("--small")
    cmd += extra
    print("running:", " ".join(cmd), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit(f"compare_vulkan.py: {bench} exited with status {proc.returncode}")
    return json.loads(proc.stdout)


def burn_results(report):
    """run name -> {'family', 'args', 'counters': {...} (median), 'error': str|None}."""
    runs = {}
    samples = {}
    for b in report.get("benchmarks", []):
        run = b.get("run_name", b["name"])
        entry = runs.setdefault(run, {"counters": None, "error": None})
        if b.get("error_occurred"):
            entry["error"] = b.get("error_message", "error")
            continue
        counters = {k: v for k, v in b.items() if k in ("TFLOPS", "GBps", "reps")}
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                entry["counters"] = counters
        else:
            samples.setdefault(run, []).append(counters)
    for run, entry in runs.items():
        if entry["counters"] is None and samples.get(run):  # no aggregates: median of samples
            keys = samples[run][0].keys()
            entry["counters"] = {k: statistics.median(s[k] for s in samples[run]) for k in keys}
    return runs


# ------------------------------------------------------------------------------ PyTorch side
def setup_torch(device_kind):
    try:
        import torch
    except ImportError as e:
        sys.exit(f"compare_vulkan.py: cannot import torch ({e})")
    if device_kind == "cuda":
        if not torch.cuda.is_available():
            sys.exit("compare_vulkan.py: PyTorch sees no CUDA device (torch "
                     f"{torch.__version__}, built for CUDA {torch.version.cuda}). Run it on the "
                     "GPU machine, or use --torch-device cpu (a test of this script, not a "
                     "comparison) or --no-torch (burn's numbers only).")
        # No TF32: PyTorch >= 2.9 has the fp32_precision settings (the allow_tf32 flags are
        # deprecated there, and mixing the two APIs can raise); older ones only the flags.
        if hasattr(torch.backends.cuda.matmul, "fp32_precision"):
            torch.backends.cuda.matmul.fp32_precision = "ieee"
            torch.backends.cudnn.conv.fp32_precision = "ieee"
        else:
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
        torch.backends.cudnn.benchmark = True
    return torch


def time_torch(torch, dev, make, args, repeats):
    """Median over `repeats` samples of the rate (work / second) of R ops."""
    op, work = make(torch, dev, args)
    cuda = dev == "cuda"

    def sample(reps):
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(reps):
                op()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) * 1e-3
        t0 = time.perf_counter()
        for _ in range(reps):
            op()
        return time.perf_counter() - t0

    for _ in range(3):  # warm-up: kernels, cuDNN algorithm search, the caching allocator
        op()
    if cuda:
        torch.cuda.synchronize()
    per_op = sample(2) / 2
    reps = max(1, min(MAX_REPS, math.ceil(TARGET_SECONDS / max(per_op, 1e-9))))
    rates = [work * reps / sample(reps) for _ in range(repeats)]
    return statistics.median(rates), reps


# ------------------------------------------------------------------------------ report
def fmt(v):
    if v is None:
        return "n/a"
    return f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", nargs="?", default=DEFAULT_BENCH, help="burn_bench_vulkan binary")
    ap.add_argument("--markdown", metavar="PATH", help="also write the table as markdown here")
    ap.add_argument("--repeats", type=int, default=5, help="samples per case (median reported)")
    ap.add_argument("--filter", default=".", help="regex on burn's case names")
    ap.add_argument("--small", action="store_true", help="burn_bench_vulkan --small sizes")
    ap.add_argument("--torch-device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--no-torch", action="store_true", help="report burn's numbers only")
    ap.add_argument("--burn-json", metavar="PATH", help="burn's results from this file (no run)")
    ap.add_argument("--bench-arg", action="append", default=[],
                    help="extra argument for burn_bench_vulkan (repeatable)")
    ap.add_argument("--dry-run", action="store_true",
                    help="check the binary and PyTorch, list the cases, time nothing")
    opts = ap.parse_args()
    if opts.repeats < 1:
        ap.error("--repeats must be at least 1")
    try:
        re.compile(opts.filter)
    except re.error as e:
        ap.error(f"--filter: {e}")

    runnable = os.path.isfile(opts.bench) and os.access(opts.bench, os.X_OK)
    if opts.burn_json is None and not runnable:
        sys.exit(f"compare_vulkan.py: no executable {opts.bench} (build the target "
                 "burn_bench_vulkan with -DBURN_WITH_VULKAN=ON, or pass its path)")

    if opts.dry_run:
        print(f"burn_bench_vulkan: {opts.bench if opts.burn_json is None else opts.burn_json}")
        if opts.burn_json is None:
            cmd = [opts.bench, "--benchmark_list_tests=true", f"--benchmark_filter={opts.filter}"]
            if opts.small:
                cmd.append("--small")
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=True)
            names = proc.stdout.split()
        else:
            with open(opts.burn_json) as f:
                names = [b["name"] for b in json.load(f)["benchmarks"]]
        for name in names:
            family, args = parse_name(name)
            case = CASES.get(family)
            print(f"  {name}: " + (f"{case[0]}; PyTorch {case[2]}, args {args}" if case
                                   else "no PyTorch case"))
        if not opts.no_torch:
            try:
                import torch
                cuda = torch.cuda.is_available()
                print(f"torch {torch.__version__}, CUDA build {torch.version.cuda}, CUDA device: "
                      + (torch.cuda.get_device_name() if cuda else "none"))
                if opts.torch_device == "cuda" and not cuda:
                    print("note: no CUDA device here: a real run needs the GPU machine "
                          "(or --torch-device cpu / --no-torch)")
            except ImportError as e:
                print(f"torch: not importable ({e})")
        return 0

    torch = None if opts.no_torch else setup_torch(opts.torch_device)

    if opts.burn_json:
        with open(opts.burn_json) as f:
            report = json.load(f)
    else:
        report = run_burn(opts.bench, opts.repeats, opts.filter, opts.small, opts.bench_arg)
    runs = burn_results(report)
    ctx = report.get("context", {})

    rows = []  # (case, metric, burn, torch, ratio, note)
    values = {}  # (family, args) -> (burn, torch)
    for run, entry in runs.items():
        family, args = parse_name(run)
        case = CASES.get(family)
        metric = case[0] if case else "?"
        burn_v = entry["counters"].get(metric) if entry["counters"] else None
        torch_v, note = None, entry["error"] or ""
        if case and torch is not None:
            try:
                torch_v, _ = time_torch(torch, opts.torch_device, case[1], args, opts.repeats)
            except Exception as e:  # noqa: BLE001  (report it in the table and go on)
                note = (note + "; " if note else "") + f"PyTorch: {type(e).__name__}: {e}"
            if opts.torch_device == "cuda":
                torch.cuda.empty_cache()
        ratio = burn_v / torch_v if burn_v and torch_v else None
        case_name = run.replace("/real_time", "")
        rows.append((case_name, metric, burn_v, torch_v, ratio, note))
        values[(family, args)] = (burn_v, torch_v)
        print(f"  {case_name}: burn {fmt(burn_v)} {metric}, PyTorch {fmt(torch_v)}",
              file=sys.stderr, flush=True)

    gpu = None
    if torch is not None and opts.torch_device == "cuda":
        gpu = torch.cuda.get_device_name()
    torch_label = "PyTorch " + (opts.torch_device.upper() if torch is not None else "(not run)")

    def ratio(a, b):
        return a / b if a and b else None

    def find(family):
        hits = [(args, v) for (f, args), v in values.items() if f == family]
        return max(hits)[1] if hits else (None, None)  # the largest size

    mm_burn, mm_torch = find("BM_VkMatmul")
    add_burn, _ = find("BM_VkAdd")
    copy_burn, copy_torch = find("BM_VkCopy")
    mm_args = max((a for f, a in values if f == "BM_VkMatmul"), default=None)
    headlines = [
        (f"SGEMM {mm_args[0] if mm_args else '?'} TFLOPS, burn / cuBLAS (PyTorch)",
         ratio(mm_burn, mm_torch)),
        ("elementwise add GB/s / PyTorch copy GB/s", ratio(add_burn, copy_torch)),
        ("elementwise add GB/s / burn Vulkan copy GB/s", ratio(add_burn, copy_burn)),
    ]

    lines = []
    lines.append(f"GPU (torch.cuda.get_device_name()): {gpu or 'n/a'}")
    lines.append(f"burn Vulkan device: {ctx.get('vulkan_device', '?')} "
                 f"({ctx.get('vulkan_driver', '?')}); sizes: {ctx.get('burn_sizes', '?')}")
    if torch is not None:
        lines.append(f"torch {torch.__version__} (CUDA {torch.version.cuda}), device "
                     f"{opts.torch_device}" + (", TF32 off" if opts.torch_device == "cuda" else "")
                     + f"; medians of {opts.repeats} samples")
    lines.append("")
    lines.append(f"| case | unit | burn Vulkan | {torch_label} | burn / PyTorch | note |")
    lines.append("|---|---|---:|---:|---:|---|")
    for case_name, metric, b, t, r, note in rows:
        note = note.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| `{case_name}` | {metric} | {fmt(b)} | {fmt(t)} | {fmt(r)} | {note} |")
    lines.append("")
    lines.append("| headline | ratio |")
    lines.append("|---|---:|")
    for label, r in headlines:
        lines.append(f"| {label} | {fmt(r)} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if opts.markdown:
        with open(opts.markdown, "w") as f:
            f.write("<!-- written by bench/compare_vulkan.py -->\n" + text)
        print(f"wrote {opts.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
