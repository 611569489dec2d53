#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Runs burn_bench_cuda (bench/cuda.cpp) and the same cases in PyTorch on CUDA, in one run on one
GPU; prints a markdown table (optionally written to --markdown PATH) and the GPU's name.

    python3 bench/compare_cuda.py --bench PATH/burn_bench_cuda [--markdown FILE] [--filter RE]

--bench defaults to build/default/bench/burn_bench_cuda. The sizes of each case are read from
the names burn_bench_cuda reports (BM_CudaMatmul/4096, BM_CudaSoftmax/4096/4096, ...), so PyTorch
always runs the shapes that burn ran (also with burn's --small sizes: --small here passes it on).

Both sides are timed alike: untimed warm-up ops, then R ops queued back to back and one device
sync (burn::cuda_sync / torch.cuda.synchronize), R chosen for about 4 ms of work; a sample is the
mean time per op over at least --min-time seconds of such loops (Google Benchmark's default
0.5 s on burn's side), and each side reports the median of --repeats samples. The clock is the
host's (std::chrono::steady_clock / time.perf_counter), so host-bound cases (the guide's eager
train step) are timed as a user sees them.

PyTorch runs fp32 with TF32 off (torch.backends.cuda.matmul.fp32_precision = "ieee" and likewise
for cuDNN convolutions on PyTorch >= 2.9; allow_tf32 = False before), except the TF32 matmul case
(matmul precision "tf32" / allow_tf32 = True, as burn::set_cuda_allow_tf32(true)); cuDNN
benchmark mode is on. ratio = PyTorch's time per op / burn's: above 1, burn is faster (for the
rates, burn's rate / PyTorch's). Element-wise cases also show burn's GB/s as a percentage of
PyTorch's device-to-device copy (t.clone() of the same size). The guide model's PyTorch
definition (GuideModel, make_optimizer, normalised_images, labels) is taken from
bench/compare_guide.py (its source is parsed, not imported: importing it re-executes the CPU
peer's Python).

Without PyTorch or without a CUDA device in PyTorch, the script says so and exits with status 2.
--dry-run checks the binary (its case list) and PyTorch without timing anything; --burn-json PATH
reads burn's results from a file instead of running the binary; --torch-device cpu times PyTorch on
the CPU (a test of this script, not a comparison: pair it with --small).
"""
import argparse
import ast
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BENCH = os.path.join(ROOT, "build", "default", "bench", "burn_bench_cuda")
GUIDE_SOURCE = os.path.join(ROOT, "bench", "compare_guide.py")
TARGET_SECONDS = 4e-3  # work per loop of R ops, as in bench/cuda.cpp
MAX_REPS = 200
EXIT_UNAVAILABLE = 2


def fail(msg):
    print(f"compare_cuda.py: {msg}", file=sys.stderr)
    sys.exit(EXIT_UNAVAILABLE)


# ------------------------------------------------------------------------------ the cases
# Each maker: (torch, dev, args, guide) -> (op, work per op); work in TFLOP or GB, None for the
# cases reported in ms. `guide` holds compare_guide.py's definitions.
def _rand(torch, dev, *shape):
    return torch.rand(*shape, dtype=torch.float32, device=dev)


def _uniform(torch, dev, *shape):  # Distribution::Uniform(-1, 1)
    return _rand(torch, dev, *shape) * 2 - 1


def _flat(torch, dev, n):
    cols = 4096 if n % 4096 == 0 else n
    return _rand(torch, dev, n // cols, cols)


def _matmul(torch, dev, args, guide):
    (n,) = args
    a, b = _rand(torch, dev, n, n), _rand(torch, dev, n, n)
    return (lambda: torch.matmul(a, b)), 2.0 * n ** 3 * 1e-12


def _matmul_half(dtype_name):
    def make(torch, dev, args, guide):
        (n,) = args
        dt = getattr(torch, dtype_name)
        a, b = _rand(torch, dev, n, n).to(dt), _rand(torch, dev, n, n).to(dt)
        return (lambda: torch.matmul(a, b)), 2.0 * n ** 3 * 1e-12
    return make


def _upload(torch, dev, args, guide):
    (n,) = args
    host = torch.ones(n, dtype=torch.float32)  # pageable, as burn's TensorData
    return (lambda: host.to(dev)), 4 * n * 1e-9


def _copy(torch, dev, args, guide):
    (n,) = args
    t = _flat(torch, dev, n)
    return (lambda: t.clone()), 2.0 * 4 * n * 1e-9


def _cat(torch, dev, args, guide):
    (n,) = args
    a, b = _uniform(torch, dev, n // 2), _uniform(torch, dev, n - n // 2)
    return (lambda: torch.cat([a, b])), 2.0 * 4 * n * 1e-9


def _add(torch, dev, args, guide):
    (n,) = args
    a, b = _flat(torch, dev, n), _flat(torch, dev, n)
    return (lambda: a + b), 3.0 * 4 * n * 1e-9


def _mul_scalar(torch, dev, args, guide):
    (n,) = args
    a = _flat(torch, dev, n)
    return (lambda: a * 2.0), 2.0 * 4 * n * 1e-9


def _exp(torch, dev, args, guide):
    (n,) = args
    a = _flat(torch, dev, n)
    return (lambda: torch.exp(a)), 2.0 * 4 * n * 1e-9


def _gelu_custom(compiled):
    """Burn's README GELU: PyTorch eager (five kernels), or torch.compile's fused kernel."""
    def make(torch, dev, args, guide):
        (n,) = args
        x = _flat(torch, dev, n)

        def custom_gelu(t):
            return t * (torch.erf(t / math.sqrt(2.0)) + 1.0) / 2.0
        fn = torch.compile(custom_gelu) if compiled else custom_gelu
        return (lambda: fn(x)), 2.0 * 4 * n * 1e-9
    return make


def _sum(torch, dev, args, guide):
    r, c = args
    x = _rand(torch, dev, r, c)
    return (lambda: x.sum()), 4.0 * r * c * 1e-9


def _sum_dim1(torch, dev, args, guide):
    r, c = args
    x = _rand(torch, dev, r, c)
    return (lambda: x.sum(1, keepdim=True)), 4.0 * (r * c + r) * 1e-9


def _softmax(torch, dev, args, guide):
    r, c = args
    x = _rand(torch, dev, r, c)
    return (lambda: torch.softmax(x, 1)), 2.0 * 4 * r * c * 1e-9


def _softmax_bf16(torch, dev, args, guide):
    r, c = args
    x = _rand(torch, dev, r, c).to(torch.bfloat16)
    return (lambda: torch.softmax(x, 1)), 2.0 * 2 * r * c * 1e-9


def _max_pool_bf16(torch, dev, args, guide):
    import torch.nn.functional as F
    (batch,) = args
    x = _uniform(torch, dev, batch, 64, 112, 112).to(torch.bfloat16)

    def op():
        with torch.no_grad():
            return F.max_pool2d(x, 3, 2, 1)
    return op, batch * 64 * (112 * 112 + 56 * 56) * 2 * 1e-9


def _softmax_scaled(compiled):
    """softmax(x * 0.125 + bias, 1): eager (three kernels) or torch.compile."""
    def make(torch, dev, args, guide):
        r, c = args
        x, bias = _rand(torch, dev, r, c), _rand(torch, dev, 1, c)

        def f(t, b):
            return torch.softmax(t * 0.125 + b, 1)
        fn = torch.compile(f) if compiled else f
        return (lambda: fn(x, bias)), 2.0 * 4 * r * c * 1e-9
    return make


def _squared_error(compiled):
    """((a - b) ** 2).sum(): eager (three kernels) or torch.compile."""
    def make(torch, dev, args, guide):
        r, c = args
        a, b = _rand(torch, dev, r, c), _rand(torch, dev, r, c)

        def f(u, v):
            return ((u - v) ** 2).sum()
        fn = torch.compile(f) if compiled else f
        return (lambda: fn(a, b)), 2.0 * 4 * r * c * 1e-9
    return make


RESNET_C, RESNET_SIDE = 64, 56  # conv 3x3, 64 -> 64 channels, 56x56, padding 1


def _resnet_tflop(batch):
    return 2.0 * batch * RESNET_C * RESNET_SIDE * RESNET_SIDE * RESNET_C * 9 * 1e-12


def _conv_resnet(torch, dev, args, guide):
    import torch.nn.functional as F
    (batch,) = args
    x = _uniform(torch, dev, batch, RESNET_C, RESNET_SIDE, RESNET_SIDE)
    w, b = _uniform(torch, dev, RESNET_C, RESNET_C, 3, 3), _uniform(torch, dev, RESNET_C)

    def op():
        with torch.no_grad():
            return F.conv2d(x, w, b, padding=1)
    return op, _resnet_tflop(batch)


def _conv_resnet_fwd_bwd_of(dtype_name):
    def case(torch, dev, args, guide):
        import torch.nn.functional as F
        dtype = getattr(torch, dtype_name)
        (batch,) = args
        x = _uniform(torch, dev, batch, RESNET_C, RESNET_SIDE, RESNET_SIDE).to(dtype)
        x.requires_grad_()
        w = _uniform(torch, dev, RESNET_C, RESNET_C, 3, 3).to(dtype).requires_grad_()
        b = _uniform(torch, dev, RESNET_C).to(dtype)  # no gradient, as in burn's case

        def op():
            y = F.conv2d(x, w, b, padding=1)
            return torch.autograd.grad(y.sum(), [x, w])
        return op, 3.0 * _resnet_tflop(batch)
    return case


_conv_resnet_fwd_bwd = _conv_resnet_fwd_bwd_of("float32")


def _guide_train(torch, dev, args, guide):
    import torch.nn.functional as F
    (batch,) = args
    torch.manual_seed(42)
    model = guide["GuideModel"]().to(dev).train()
    optimizer = guide["make_optimizer"](model)
    x, y = guide["normalised_images"](batch).to(dev), guide["labels"](batch).to(dev)

    def op():
        optimizer.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
    return op, None


def _guide_train_graph(torch, dev, args, guide):
    """The same step as a PyTorch CUDA graph (torch.cuda.graph; Adam with capturable=True), the
    batch copied into the graph's static inputs: a second reference for burn's captured step."""
    import torch.nn.functional as F
    (batch,) = args
    torch.manual_seed(42)
    model = guide["GuideModel"]().to(dev).train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, eps=1e-5, capturable=True)
    x, y = guide["normalised_images"](batch).to(dev), guide["labels"](batch).to(dev)
    static_x, static_y = x.clone(), y.clone()

    def step():
        optimizer.zero_grad(set_to_none=True)
        F.cross_entropy(model(static_x), static_y).backward()
        optimizer.step()

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    optimizer.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        F.cross_entropy(model(static_x), static_y).backward()
        optimizer.step()

    def op():
        static_x.copy_(x)
        static_y.copy_(y)
        graph.replay()
    return op, None


def _guide_infer(torch, dev, args, guide):
    (batch,) = args
    torch.manual_seed(42)
    model = guide["GuideModel"]().to(dev).eval()
    x = guide["normalised_images"](batch).to(dev)

    def op():
        with torch.no_grad():
            return model(x).cpu()
    return op, None


TF_SEQ, TF_MODEL, TF_HEADS, TF_FF, TF_LAYERS = 256, 512, 8, 2048, 6


def _transformer_train(amp):
    """burn's BM_CudaTransformerTrainStep[Amp]: nn.TransformerEncoder (post-norm, GELU, dropout
    0.1, batch_first), MSE loss, Adam lr 1e-4; `amp`: forward and loss under
    torch.autocast("cuda", torch.bfloat16), parameters and Adam in f32."""
    def make(torch, dev, args, guide):
        import torch.nn.functional as F
        (batch,) = args
        torch.manual_seed(7)
        layer = torch.nn.TransformerEncoderLayer(TF_MODEL, TF_HEADS, TF_FF, dropout=0.1,
                                                 activation="gelu", batch_first=True)
        model = torch.nn.TransformerEncoder(layer, TF_LAYERS,
                                            enable_nested_tensor=False).to(dev).train()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
        x = torch.rand(batch, TF_SEQ, TF_MODEL, device=dev)
        target = torch.rand(batch, TF_SEQ, TF_MODEL, device=dev)

        def op():
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(dev, dtype=torch.bfloat16, enabled=amp):
                loss = F.mse_loss(model(x), target)
            loss.backward()
            optimizer.step()
        return op, None
    return make


def _at(args, text):
    """The issue's target, which applies at its size only (burn's --small runs other sizes)."""
    return lambda a: text if tuple(a) == args else "(other size)"


N64M = 1 << 26
COPY_TARGET = "64M f32: GB/s, % of PyTorch's copy"
# family -> (metric, make, PyTorch op, target, options)
CASES = {
    "BM_CudaMatmul": ("TFLOPS", _matmul, "torch.matmul(a, b), TF32 off",
                      _at((4096,), "SGEMM 4096^3 f32, TF32 off: TFLOP/s, ratio vs cuBLAS"), {}),
    "BM_CudaMatmulTF32": ("TFLOPS", _matmul, "torch.matmul(a, b), TF32 on",
                          _at((4096,), "SGEMM 4096^3 with TF32: TFLOP/s, ratio vs cuBLAS"),
                          {"tf32": True}),
    "BM_CudaMatmulBF16": ("TFLOPS", _matmul_half("bfloat16"), "torch.matmul(a, b), bf16",
                          _at((4096,), "matmul 4096^3 bf16: >= 0.95x PyTorch"), {}),
    "BM_CudaMatmulF16": ("TFLOPS", _matmul_half("float16"), "torch.matmul(a, b), f16",
                         _at((4096,), "matmul 4096^3 f16: >= 0.95x PyTorch"), {}),
    "BM_CudaUpload": ("GBps", _upload, "cpu_tensor.to('cuda') from pageable memory",
                      "(host to device; burn: from_data through pinned staging)", {}),
    "BM_CudaCopy": ("GBps", _copy, "t.clone() (burn: cudaMemcpyAsync)",
                    "(reference: device-to-device copy)", {}),
    "BM_CudaCat": ("GBps", _cat, "torch.cat([a, b]) of two dense halves",
                   "(burn's own dense copy)", {}),
    "BM_CudaAdd": ("GBps", _add, "a + b", _at((N64M,), COPY_TARGET), {}),
    "BM_CudaMulScalar": ("GBps", _mul_scalar, "a * 2.0", _at((N64M,), COPY_TARGET), {}),
    "BM_CudaExp": ("GBps", _exp, "torch.exp(a)", _at((N64M,), COPY_TARGET), {}),
    "BM_CudaGeluCustom": ("GBps", _gelu_custom(False),
                          "x * (erf(x / sqrt 2) + 1) / 2, eager (five kernels)",
                          _at((N64M,), "no target (the unfused baseline)"), {}),
    "BM_CudaFusionGeluCustom": ("GBps", _gelu_custom(True),
                                "the same in torch.compile (one Triton kernel)",
                                _at((N64M,), "custom GELU 64M, Fusion<Cuda> vs torch.compile: "
                                    ">= 0.9x"), {}),
    "BM_CudaSum": ("GBps", _sum, "x.sum()", _at((4096, 4096), "sum of [4096, 4096]: ratio"), {}),
    "BM_CudaSumDim1": ("GBps", _sum_dim1, "x.sum(1, keepdim=True)",
                       _at((4096, 4096), "sum over dim 1 of [4096, 4096]: ratio"), {}),
    "BM_CudaSoftmax": ("GBps", _softmax, "torch.softmax(x, 1)",
                       _at((4096, 4096), "softmax over dim 1 of [4096, 4096]: ratio"), {}),
    "BM_CudaSoftmaxBF16": ("GBps", _softmax_bf16, "torch.softmax(x, 1), x bf16",
                           "(bf16 softmax: reported)", {}),
    "BM_CudaMaxPoolBF16": ("GBps", _max_pool_bf16, "F.max_pool2d(x, 3, 2, 1), x bf16, no_grad",
                           "(bf16 ResNet stem pooling: reported)", {}),
    "BM_CudaSoftmaxScaled": ("GBps", _softmax_scaled(False), "softmax(x * 0.125 + b, 1), eager",
                             "(the unfused baseline)", {}),
    "BM_CudaFusionSoftmaxScaled": ("GBps", _softmax_scaled(True),
                                   "the same in torch.compile",
                                   "Fusion<Cuda>: one kernel; ratio", {}),
    "BM_CudaSquaredError": ("GBps", _squared_error(False), "((a - b) ** 2).sum(), eager",
                            "(the unfused baseline)", {}),
    "BM_CudaFusionSquaredError": ("GBps", _squared_error(True), "the same in torch.compile",
                                  "Fusion<Cuda>: one kernel (+ partials); ratio", {}),
    "BM_CudaConv2dResnet": ("TFLOPS", _conv_resnet, "F.conv2d 64->64, 56x56, pad 1, no_grad",
                            "(forward only)", {}),
    "BM_CudaConv2dResnetFwdBwd": ("TFLOPS", _conv_resnet_fwd_bwd,
                                  "F.conv2d + autograd.grad(y.sum(), [x, w])",
                                  _at((32,), "ResNet conv 3x3 64->64 56x56, batch 32, "
                                             "fwd+bwd: ratio"), {}),
    "BM_CudaConv2dResnetFwdBwdBF16": ("TFLOPS", _conv_resnet_fwd_bwd_of("bfloat16"),
                                      "the same in torch.bfloat16",
                                      _at((32,), "(bf16 convolutions: reported)"), {}),
    "BM_CudaGuideTrainStep": ("ms", _guide_train, "guide model train step, Adam (eager)",
                              _at((64,), "guide train step, batch 64, eager: ratio"), {}),
    "BM_CudaGuideTrainStepGraph": ("ms", _guide_train,
                                   "guide model train step, Adam (eager)",
                                   _at((64,), "guide train step, batch 64, captured graph (burn) "
                                              "vs eager (PyTorch): ratio"), {}),
    "BM_CudaFusionGuideTrainStepGraph": ("ms", _guide_train,
                                         "guide model train step, Adam (eager; PyTorch unfused)",
                                         _at((64,), "Autodiff<Fusion<Cuda>> step captured: "
                                                    "reported"), {}),
    "BM_CudaFusionGuideTrainStep": ("ms", _guide_train,
                                    "guide model train step, Adam (eager; PyTorch unfused)",
                                    _at((64,), "Autodiff<Fusion<Cuda>> step: reported"), {}),
    "BM_CudaGuideInfer": ("ms", _guide_infer, "guide model, eval + no_grad, .cpu()",
                          _at((1,), "guide inference, batch 1, read back: ratio"), {}),
    "BM_CudaTransformerTrainStep": ("ms", _transformer_train(False),
                                    "nn.TransformerEncoder 6x512 train step, f32, Adam",
                                    _at((32,), "(the f32 baseline of the AMP case)"), {}),
    "BM_CudaTransformerTrainStepAmp": ("ms", _transformer_train(True),
                                       "the same under torch.autocast(bfloat16)",
                                       _at((32,), "AMP bf16: >= 2x burn's f32, >= 1.0x "
                                           "PyTorch AMP"), {}),
}
# Cases with a second PyTorch reference, reported in the note column.
SECOND_PEER = {
    "BM_CudaGuideTrainStepGraph": ("PyTorch CUDA graph", ("ms", _guide_train_graph, "", "", {})),
    "BM_CudaFusionGuideTrainStepGraph": ("PyTorch CUDA graph",
                                         ("ms", _guide_train_graph, "", "", {})),
}
COPY_RELATIVE = {"BM_CudaCopy", "BM_CudaCat", "BM_CudaAdd", "BM_CudaMulScalar", "BM_CudaExp",
                 "BM_CudaGeluCustom", "BM_CudaFusionGeluCustom"}


def target_of(case, args):
    t = case[3]
    return t(args) if callable(t) else t


def parse_name(name):
    """'BM_CudaSoftmax/4096/4096/real_time' -> ('BM_CudaSoftmax', (4096, 4096))."""
    parts = [p for p in name.split("/") if p and not p.startswith("real_time")]
    return parts[0], tuple(int(p) for p in parts[1:] if re.fullmatch(r"\d+", p))


def load_guide_defs(torch):
    """GuideModel, make_optimizer, normalised_images and labels from bench/compare_guide.py."""
    wanted = {"GuideModel", "make_optimizer", "normalised_images", "labels"}
    with open(GUIDE_SOURCE) as f:
        tree = ast.parse(f.read(), GUIDE_SOURCE)
    body = [n for n in tree.body
            if isinstance(n, (ast.ClassDef, ast.FunctionDef)) and n.name in wanted]
    missing = wanted - {n.name for n in body}
    if missing:
        raise RuntimeError(f"{GUIDE_SOURCE} no longer defines {', '.join(sorted(missing))}")
    import torch.nn.functional as F
    namespace = {"torch": torch, "F": F, "__name__": "compare_guide_defs"}
    exec(compile(ast.Module(body=body, type_ignores=[]), GUIDE_SOURCE, "exec"), namespace)
    return namespace


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
        sys.exit(f"compare_cuda.py: {bench} exited with status {proc.returncode}")
    return json.loads(proc.stdout)


def burn_results(report):
    """run name -> {'counters': {...} (the median), 'error': str|None}, in the report's order."""
    runs, samples = {}, {}
    for b in report.get("benchmarks", []):
        run = b.get("run_name", b["name"])
        entry = runs.setdefault(run, {"counters": None, "error": None})
        if b.get("error_occurred"):
            entry["error"] = b.get("error_message", "error")
            continue
        counters = {k: v for k, v in b.items()
                    if k in ("TFLOPS", "GBps", "s_per_op", "img_per_s", "reps")}
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
def import_torch():
    try:
        import torch
    except ImportError as e:
        fail(f"cannot import torch ({e}): run it with the Python that has PyTorch with CUDA")
    return torch


def set_precision(torch, tf32):
    """fp32 matmuls in IEEE precision or TF32; cuDNN convolutions always IEEE."""
    if hasattr(torch.backends.cuda.matmul, "fp32_precision"):  # PyTorch >= 2.9
        torch.backends.cuda.matmul.fp32_precision = "tf32" if tf32 else "ieee"
        torch.backends.cudnn.conv.fp32_precision = "ieee"
    else:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = False


def setup_torch(device_kind):
    torch = import_torch()
    if device_kind == "cuda":
        if not torch.cuda.is_available():
            fail(f"PyTorch sees no CUDA device (torch {torch.__version__}, built for CUDA "
                 f"{torch.version.cuda}): nothing to compare with. Run it on the GPU machine "
                 "(or --torch-device cpu to test this script).")
        set_precision(torch, False)
        torch.backends.cudnn.benchmark = True
    return torch


def time_torch(torch, dev, op, repeats, min_time, warmup=5):
    """Median over `repeats` samples of the seconds per op; a sample is loops of R ops + sync."""
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    for _ in range(warmup):  # kernels, cuDNN's algorithm search, the caching allocator
        op()
    sync()
    t0 = time.perf_counter()
    op()
    op()
    sync()
    per_op = max((time.perf_counter() - t0) / 2, 1e-9)
    reps = max(1, min(MAX_REPS, math.ceil(TARGET_SECONDS / per_op)))
    loops = max(1, math.ceil(min_time / (reps * per_op)))
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(loops):
            for _ in range(reps):
                op()
            sync()
        samples.append((time.perf_counter() - t0) / (loops * reps))
    return statistics.median(samples)


def torch_case(torch, dev, case, args, guide, repeats, min_time):
    """(seconds per op, value in the case's metric) of PyTorch."""
    metric, make, _, _, options = case
    tf32 = options.get("tf32", False)
    if tf32 and dev == "cuda":
        set_precision(torch, True)
    try:
        op, work = make(torch, dev, args, guide)
        seconds = time_torch(torch, dev, op, repeats, min_time)
        del op
    finally:
        if tf32 and dev == "cuda":
            set_precision(torch, False)
        if dev == "cuda":
            torch.cuda.empty_cache()
    return seconds, (seconds * 1e3 if metric == "ms" else work / seconds)


# ------------------------------------------------------------------------------ report
def fmt(v):
    if v is None:
        return "n/a"
    return f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=DEFAULT_BENCH, help="the burn_bench_cuda binary")
    ap.add_argument("--markdown", metavar="FILE", help="also write the table as markdown here")
    ap.add_argument("--filter", default=".", help="regex on burn's case names")
    ap.add_argument("--repeats", type=int, default=5, help="samples per case (median reported)")
    ap.add_argument("--min-time", type=float, default=0.5,
                    help="seconds per PyTorch sample (Google Benchmark's default on burn's side)")
    ap.add_argument("--small", action="store_true", help="burn_bench_cuda --small sizes")
    ap.add_argument("--torch-device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--burn-json", metavar="PATH", help="burn's results from this file (no run)")
    ap.add_argument("--bench-arg", action="append", default=[],
                    help="extra argument for burn_bench_cuda (repeatable)")
    ap.add_argument("--dry-run", action="store_true",
                    help="check the binary and PyTorch, list the cases, time nothing")
    opts = ap.parse_args()
    if opts.repeats < 1:
        ap.error("--repeats must be at least 1")
    if opts.min_time <= 0:
        ap.error("--min-time must be positive")
    try:
        re.compile(opts.filter)
    except re.error as e:
        ap.error(f"--filter: {e}")

    # PyTorch first: without CUDA there is nothing to compare with, whatever the binary.
    torch = None if opts.dry_run else setup_torch(opts.torch_device)
    runnable = os.path.isfile(opts.bench) and os.access(opts.bench, os.X_OK)
    if opts.burn_json is None and not runnable:
        fail(f"no executable {opts.bench} (build the target burn_bench_cuda, which exists when "
             "the CUDA backend is configured, or pass --bench PATH)")

    if opts.dry_run:
        print(f"burn_bench_cuda: {opts.bench if opts.burn_json is None else opts.burn_json}")
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
            print(f"  {name}: " + (f"{case[0]}; PyTorch {case[2]}, args {args}; target: "
                                   f"{target_of(case, args)}" if case else "no PyTorch case"))
        try:
            import torch
            cuda = torch.cuda.is_available()
            print(f"torch {torch.__version__}, CUDA build {torch.version.cuda}, CUDA device: "
                  + (torch.cuda.get_device_name() if cuda else "none"))
            load_guide_defs(torch)
            print(f"guide model: from {GUIDE_SOURCE}")
        except ImportError as e:
            print(f"torch: not importable ({e})")
        return 0

    dev = opts.torch_device
    gpu = torch.cuda.get_device_name() if dev == "cuda" else None

    if opts.burn_json:
        with open(opts.burn_json) as f:
            report = json.load(f)
    else:
        report = run_burn(opts.bench, opts.repeats, opts.filter, opts.small, opts.bench_arg)
    runs = burn_results(report)
    ctx = report.get("context", {})
    guide = load_guide_defs(torch)

    copy_cache = {}  # n -> PyTorch's t.clone() GB/s

    def torch_copy_gbps(n):
        if n not in copy_cache:
            copy_cache[n] = torch_case(torch, dev, CASES["BM_CudaCopy"], (n,), guide,
                                       opts.repeats, opts.min_time)[1]
        return copy_cache[n]

    rows = []  # (case, unit, burn, torch, ratio, % of copy, target, note)
    for run, entry in runs.items():
        family, args = parse_name(run)
        case = CASES.get(family)
        metric = case[0] if case else "?"
        counters = entry["counters"] or {}
        burn_s = counters.get("s_per_op")
        burn_v = burn_s * 1e3 if metric == "ms" and burn_s else counters.get(metric)
        torch_s = torch_v = pct = None
        note = entry["error"] or ""
        if case:
            try:
                torch_s, torch_v = torch_case(torch, dev, case, args, guide, opts.repeats,
                                              opts.min_time)
                if family == "BM_CudaCopy":
                    copy_cache[args[0]] = torch_v
                if family in COPY_RELATIVE:
                    copy_gbps = torch_copy_gbps(args[0])
                    pct = 100.0 * burn_v / copy_gbps if burn_v else None
                    if family != "BM_CudaCopy":
                        note = (note + "; " if note else "") + \
                            f"PyTorch: {100.0 * torch_v / copy_gbps:.0f} % of its copy"
            except Exception as e:  # noqa: BLE001  (report it in the table and go on)
                note = (note + "; " if note else "") + f"PyTorch: {type(e).__name__}: {e}"
        if family in SECOND_PEER and dev == "cuda":
            label, peer = SECOND_PEER[family]
            try:
                peer_s = torch_case(torch, dev, peer, args, guide, opts.repeats, opts.min_time)[0]
                text = f"{label}: {peer_s * 1e3:.3g} ms"
                if burn_s:
                    text += f" (ratio {peer_s / burn_s:.2f})"
                note = (note + "; " if note else "") + text
            except Exception as e:  # noqa: BLE001
                note = (note + "; " if note else "") + f"{label}: {type(e).__name__}: {e}"
        if metric == "ms" and burn_s and torch_s:
            batch = args[0] if args else 1
            note = (note + "; " if note else "") + \
                f"img/s: burn {batch / burn_s:,.0f}, PyTorch {batch / torch_s:,.0f}"
        ratio = torch_s / burn_s if burn_s and torch_s else None
        name = run.replace("/real_time", "")
        target = target_of(case, args) if case else ""
        rows.append((name, metric, burn_v, torch_v, ratio, pct, target, note))
        print(f"  {name}: burn {fmt(burn_v)} {metric}, PyTorch {fmt(torch_v)}", file=sys.stderr,
              flush=True)

    lines = [f"GPU (torch.cuda.get_device_name()): {gpu or 'n/a (PyTorch on the CPU)'}",
             f"burn CUDA device: {ctx.get('cuda_device', '?')} (compute capability "
             f"{ctx.get('cuda_compute_capability', '?')}); sizes: {ctx.get('burn_sizes', '?')}",
             f"torch {torch.__version__} (CUDA {torch.version.cuda}, cuDNN "
             f"{torch.backends.cudnn.version() if dev == 'cuda' else 'n/a'}) on {dev}; fp32, "
             "TF32 off except BM_CudaMatmulTF32; medians of "
             f"{opts.repeats} samples of >= {opts.min_time} s",
             "",
             "ratio: PyTorch's time per op / burn's (above 1: burn is faster). copy %: burn's "
             "GB/s / PyTorch's t.clone() GB/s of the same size.",
             "",
             "| case | unit | burn | PyTorch | ratio | burn % of PyTorch copy | target | note |",
             "|---|---|---:|---:|---:|---:|---|---|"]
    for name, metric, b, t, r, pct, target, note in rows:
        note = note.replace("|", "\\|").replace("\n", " ")
        pct_s = f"{pct:.0f} %" if pct is not None else ""
        lines.append(f"| `{name}` | {metric} | {fmt(b)} | {fmt(t)} | {fmt(r)} | {pct_s} | "
                     f"{target} | {note} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if opts.markdown:
        with open(opts.markdown, "w") as f:
            f.write("<!-- written by bench/compare_cuda.py -->\n" + text)
        print(f"wrote {opts.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
