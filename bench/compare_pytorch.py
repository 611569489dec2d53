#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Runs burn_bench and times the same cases in PyTorch; prints a markdown table.

    python3 bench/compare_pytorch.py [--bench build/default/bench/burn_bench] [--repeats 5]

PyTorch is Debian's python3-torch 1.13 under /usr/bin/python3, tuned as bench/README.md says:
OpenBLAS-OpenMP as its BLAS (LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp) and two
threads. The script re-executes itself that way when started otherwise. burn_bench runs with the
LD_LIBRARY_PATH removed, so it keeps the OpenBLAS it was linked with.

ratio = PyTorch time / burn-cpp time: above 1 means burn-cpp is faster. Both sides report the
median of repeated measurements of wall-clock time.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from torch_peer import ROOT, reexec_if_needed


reexec_if_needed()
import torch  # noqa: E402  (after the re-exec: the BLAS is chosen at load time)

# name in burn_bench -> (setup() -> args, op(*args)). Keep in sync with bench/tensor_ops.cpp.
N16M = 1 << 24
SIDE = 4096


def rand(*shape):
    return torch.rand(*shape, dtype=torch.float32)


CASES = {
    "matmul/256": (lambda: (rand(256, 256), rand(256, 256)), torch.matmul),
    "matmul/512": (lambda: (rand(512, 512), rand(512, 512)), torch.matmul),
    "matmul/1024": (lambda: (rand(1024, 1024), rand(1024, 1024)), torch.matmul),
    "matmul/2048": (lambda: (rand(2048, 2048), rand(2048, 2048)), torch.matmul),
    "matmul_batched/32x128x128": (lambda: (rand(32, 128, 128), rand(32, 128, 128)), torch.matmul),
    "add/16M": (lambda: (rand(N16M // SIDE, SIDE), rand(N16M // SIDE, SIDE)), lambda a, b: a + b),
    "mul/16M": (lambda: (rand(N16M // SIDE, SIDE), rand(N16M // SIDE, SIDE)), lambda a, b: a * b),
    "exp/16M": (lambda: (rand(N16M // SIDE, SIDE),), torch.exp),
    "sum/4096x4096": (lambda: (rand(SIDE, SIDE),), lambda a: a.sum()),
    "sum_dim1/4096x4096": (lambda: (rand(SIDE, SIDE),), lambda a: a.sum(1, keepdim=True)),
    "sum_dim0/4096x4096": (lambda: (rand(SIDE, SIDE),), lambda a: a.sum(0, keepdim=True)),
    "mean_dim1/4096x4096": (lambda: (rand(SIDE, SIDE),), lambda a: a.mean(1, keepdim=True)),
    "transpose_contiguous/4096x4096": (lambda: (rand(SIDE, SIDE),), lambda a: a.t().contiguous()),
    "random_uniform/16M": (lambda: (), lambda: torch.rand(N16M // SIDE, SIDE)),
    "random_normal/16M": (lambda: (), lambda: torch.randn(N16M // SIDE, SIDE)),
    # Burn's README GELU as tensor ops, eager (bench/fusion.cpp: Fusion<Cpu<float>> runs it as one
    # fused program; gelu_custom_unfused/64M is Cpu<float>).
    "gelu_custom/64M": (lambda: (rand(16384, 4096) * 8 - 4,),
                        lambda x: x * (torch.erf(x / 2 ** 0.5) + 1) / 2),
    # Reductions with element-wise work before them (bench/fusion.cpp: one fused program each).
    "softmax_scaled/4096x1024": (lambda: (rand(4096, 1024) * 8 - 4, rand(1, 1024) * 2 - 1),
                                 lambda x, b: torch.softmax(x * 0.125 + b, -1)),
    "mse/16M": (lambda: (rand(N16M // SIDE, SIDE) * 2 - 1, rand(N16M // SIDE, SIDE) * 2 - 1),
                lambda a, b: ((a - b) ** 2).mean()),
}


def conv_case(batch, cin, cout, side, padding, backward):
    """Setup and op of a 3x3 conv2d case of bench/module_ops.cpp."""
    import torch.nn.functional as F

    def setup():
        x = torch.rand(batch, cin, side, side) * 2 - 1
        w = torch.rand(cout, cin, 3, 3) * 2 - 1
        b = torch.rand(cout) * 2 - 1
        if backward:
            x.requires_grad_(); w.requires_grad_(); b.requires_grad_()
        with torch.no_grad():
            gy = torch.ones_like(F.conv2d(x, w, b, padding=padding))
        return x, w, b, gy

    def fwd(x, w, b, gy):
        with torch.no_grad():
            return F.conv2d(x, w, b, padding=padding)

    def fwd_bwd(x, w, b, gy):
        y = F.conv2d(x, w, b, padding=padding)
        return torch.autograd.grad(y, (x, w, b), gy)

    return setup, (fwd_bwd if backward else fwd)


def module_cases():
    import torch.nn.functional as F
    cases = {}
    for name, shape in {"guide1": (64, 1, 8, 28, 0), "guide2": (64, 8, 16, 26, 0),
                        "resnet": (8, 64, 64, 56, 1)}.items():
        cases[f"conv2d_{name}/fwd"] = conv_case(*shape, False)
        cases[f"conv2d_{name}/fwd_bwd"] = conv_case(*shape, True)
    # ResNet-18's four stages (3x3, stride 1, padding 1): forward at batches 1 and 16, forward and
    # backward at batch 16.
    for stage, (ch, side) in enumerate([(64, 56), (128, 28), (256, 14), (512, 7)], start=1):
        for batch in (1, 16):
            cases[f"conv2d_resnet_s{stage}_b{batch}/fwd"] = conv_case(batch, ch, ch, side, 1, False)
        cases[f"conv2d_resnet_s{stage}_b16/fwd_bwd"] = conv_case(16, ch, ch, side, 1, True)
    pool_in = lambda: (torch.rand(64, 16, 24, 24) * 2 - 1,)
    cases["max_pool2d/2x2_64x16x24x24"] = (pool_in, lambda x: F.max_pool2d(x, 2, 2))
    cases["adaptive_avg_pool2d/8x8_64x16x24x24"] = (pool_in, lambda x: F.adaptive_avg_pool2d(x, 8))
    cases["softmax/64x1000"] = (lambda: (torch.rand(64, 1000) * 8 - 4,), lambda x: torch.softmax(x, -1))
    return cases


def autodiff_cases():
    """Training steps of bench/autodiff.cpp: forward, cross-entropy, loss.backward(), batch 64.

    Linear layers are x @ w + b with w [in, out] and b [1, out], as in autodiff.cpp. Gradients
    are set to None before each step (what optimizer.zero_grad() does by default in PyTorch 2).
    """
    import torch.nn.functional as F

    def param(*shape, fan_in):
        k = fan_in ** -0.5
        return (torch.rand(*shape) * (2 * k) - k).requires_grad_()

    labels = torch.tensor([(i * 7 + 3) % 10 for i in range(64)])

    def step(forward, params, x):
        for p in params:
            p.grad = None
        F.cross_entropy(forward(params, x), labels).backward()
        return [p.grad for p in params]

    def mlp_setup():
        params = [param(784, 512, fan_in=784), param(1, 512, fan_in=784),
                  param(512, 512, fan_in=512), param(1, 512, fan_in=512),
                  param(512, 10, fan_in=512), param(1, 10, fan_in=512)]
        return mlp_forward, params, torch.rand(64, 784)

    def mlp_forward(p, x):
        h = F.relu(x @ p[0] + p[1])
        h = F.relu(h @ p[2] + p[3])
        return h @ p[4] + p[5]

    def cnn_setup():
        # The Burn book's MNIST guide model (dropout left out, as in autodiff.cpp).
        params = [param(8, 1, 3, 3, fan_in=9), param(8, fan_in=9),
                  param(16, 8, 3, 3, fan_in=72), param(16, fan_in=72),
                  param(1024, 512, fan_in=1024), param(1, 512, fan_in=1024),
                  param(512, 10, fan_in=512), param(1, 10, fan_in=512)]
        return cnn_forward, params, torch.rand(64, 28, 28)

    def cnn_forward(p, images):
        x = images.reshape(images.shape[0], 1, 28, 28)
        x = F.conv2d(x, p[0], p[1])
        x = F.relu(F.conv2d(x, p[2], p[3]))
        x = F.adaptive_avg_pool2d(x, (8, 8)).reshape(images.shape[0], 1024)
        x = F.relu(x @ p[4] + p[5])
        return x @ p[6] + p[7]

    return {"autodiff_mlp/fwd_bwd": (mlp_setup, step),
            "autodiff_guide_cnn/fwd_bwd": (cnn_setup, step)}


def transformer_cases():
    """nn::TransformerEncoder of bench/nn_transformer.cpp: 6 layers, d_model 256, 8 heads, d_ff
    1024, GELU, post-norm, dropout 0, input [8, 128, 256] (batch_first), no mask.

    fwd: eval mode under torch.no_grad() (PyTorch's inference path, its fused "fast path"
    included). fwd_bwd: y.sum().backward() with gradients set to None before each step, then
    the 96 parameter gradients read.
    """
    def make(train):
        layer = torch.nn.TransformerEncoderLayer(256, 8, 1024, dropout=0.0, activation="gelu",
                                                 batch_first=True)
        enc = torch.nn.TransformerEncoder(layer, 6, enable_nested_tensor=False)
        enc.train(train)
        return enc, torch.rand(8, 128, 256) * 2 - 1

    def fwd(enc, x):
        with torch.no_grad():
            return enc(x)

    def fwd_bwd(enc, x):
        params = list(enc.parameters())
        for p in params:
            p.grad = None
        enc(x).sum().backward()
        return [p.grad for p in params]

    return {"transformer_encoder/fwd": (lambda: make(False), fwd),
            "transformer_encoder/fwd_bwd": (lambda: make(True), fwd_bwd)}


def rnn_cases():
    """The recurrent layers of bench/nn_rnn.cpp: torch.nn.LSTM(256, 256, batch_first=True) over
    x [32, 64, 256], no initial state. fwd runs under torch.no_grad(); fwd_bwd takes the gradients
    of the output sequence against ones (y.backward() in burn-cpp: the gradient of y.sum()) for x
    and the LSTM's 4 parameters."""
    def setup(requires_grad):
        def make():
            torch.manual_seed(7)
            lstm = torch.nn.LSTM(256, 256, batch_first=True)
            x = torch.rand(32, 64, 256).requires_grad_(requires_grad)
            return lstm, x
        return make

    def fwd(lstm, x):
        with torch.no_grad():
            return lstm(x)

    def fwd_bwd(lstm, x):
        y, _ = lstm(x)
        return torch.autograd.grad(y, [x] + list(lstm.parameters()), torch.ones_like(y))

    return {"lstm/fwd": (setup(False), fwd), "lstm/fwd_bwd": (setup(True), fwd_bwd)}


def optim_cases():
    """Optimizer steps of bench/optim.cpp: one torch.optim.Adam(foreach=True).step() over ten
    [1000, 1000] float parameters (10M values) whose .grad are fixed tensors, in the steady state
    (one step is taken in setup so that the moments exist). lr 1e-3 and eps 1e-5, Burn's
    AdamConfig defaults; betas (0.9, 0.999), no weight decay. The step updates the parameters in
    place, as PyTorch training does; burn-cpp's returns a new module (model = optim.step(...)).
    """
    def adam_setup():
        params = [torch.rand(1000, 1000).requires_grad_() for _ in range(10)]
        for p in params:
            p.grad = torch.rand(1000, 1000) * 2 - 1
        optimizer = torch.optim.Adam(params, lr=1e-3, eps=1e-5, foreach=True)
        optimizer.step()  # creates the moments
        return (optimizer,)

    def adam_step(optimizer):
        optimizer.step()

    return {"adam_step/10M": (adam_setup, adam_step)}


CASES.update(module_cases())
CASES.update(autodiff_cases())
CASES.update(transformer_cases())
CASES.update(rnn_cases())
CASES.update(optim_cases())

MATMUL_FLOPS = {
    "matmul/256": 2 * 256**3, "matmul/512": 2 * 512**3, "matmul/1024": 2 * 1024**3,
    "matmul/2048": 2 * 2048**3, "matmul_batched/32x128x128": 32 * 2 * 128**3,
}
for _name, (_b, _ci, _co, _side, _p) in {"guide1": (64, 1, 8, 28, 0), "guide2": (64, 8, 16, 26, 0),
                                         "resnet": (8, 64, 64, 56, 1)}.items():
    _out = _side + 2 * _p - 2
    MATMUL_FLOPS[f"conv2d_{_name}/fwd"] = 2 * _b * _co * _out * _out * _ci * 9
    MATMUL_FLOPS[f"conv2d_{_name}/fwd_bwd"] = 3 * MATMUL_FLOPS[f"conv2d_{_name}/fwd"]


def time_torch(name, repeats, min_time):
    """Median over `repeats` samples; each sample loops the op for at least `min_time` seconds."""
    setup, op = CASES[name]
    args = setup()
    for _ in range(3):  # warm-up
        op(*args)
    t0 = time.perf_counter()
    op(*args)
    once = max(time.perf_counter() - t0, 1e-7)
    iters = max(1, int(min_time / once))
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(iters):
            r = op(*args)
        samples.append((time.perf_counter() - t0) / iters)
        del r
    return statistics.median(samples)


UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def run_burn(bench, repeats, filt):
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)  # keep the OpenBLAS burn_bench was linked with
    env.pop("BURN_COMPARE_REEXEC", None)
    cmd = [bench, "--benchmark_format=json", f"--benchmark_repetitions={repeats}",
           "--benchmark_report_aggregates_only=true", f"--benchmark_filter={filt}"]
    print("+ " + " ".join(cmd), file=sys.stderr)
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    res = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") == "median" or (repeats == 1 and b.get("run_type") == "iteration"):
            name = b["run_name"].removesuffix("/real_time")
            res[name] = b["real_time"] * UNIT[b["time_unit"]]
    return res


def fmt_time(s):
    return f"{s * 1e3:.3f} ms" if s >= 1e-4 else f"{s * 1e6:.1f} us"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "default", "bench", "burn_bench"))
    ap.add_argument("--repeats", type=int, default=5, help="repetitions (median reported)")
    ap.add_argument("--min-time", type=float, default=0.5, help="seconds per PyTorch sample")
    ap.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    ap.add_argument("--filter", default=".", help="regex on case names (burn_bench --benchmark_filter)")
    args = ap.parse_args()

    burn = run_burn(args.bench, args.repeats, args.filter)
    torch.set_num_threads(args.threads)
    print(f"+ PyTorch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"LD_LIBRARY_PATH={os.environ.get('LD_LIBRARY_PATH')}", file=sys.stderr)
    rows = []
    for name in CASES:
        if name not in burn:
            continue
        t = time_torch(name, args.repeats, args.min_time)
        rows.append((name, burn[name], t))

    print("| case | burn-cpp | PyTorch | ratio |")
    print("|---|---:|---:|---:|")
    for name, b, t in rows:
        extra_b = extra_t = ""
        if name in MATMUL_FLOPS:
            extra_b = f" ({MATMUL_FLOPS[name] / b * 1e-9:.0f} GFLOP/s)"
            extra_t = f" ({MATMUL_FLOPS[name] / t * 1e-9:.0f} GFLOP/s)"
        print(f"| {name} | {fmt_time(b)}{extra_b} | {fmt_time(t)}{extra_t} | {t / b:.2f} |")

    # burn-only: fused against unfused on the same machine (bench/fusion.cpp).
    fused = [n for n in burn if n.replace("/", "_unfused/", 1) in burn]
    if fused:
        print()
        print("| case | Fusion<Cpu<float>> | Cpu<float> | speed-up |")
        print("|---|---:|---:|---:|")
        for name in fused:
            f, u = burn[name], burn[name.replace("/", "_unfused/", 1)]
            print(f"| {name} | {fmt_time(f)} | {fmt_time(u)} | {u / f:.2f}x |")

    # burn-only cases: a training step by hand on the inner backend, next to the Autodiff one.
    manual = [n for n in burn if n.endswith("/manual") and n.replace("/manual", "/fwd_bwd") in burn]
    if manual:
        print()
        print("| model | Autodiff fwd_bwd | manual (Cpu<float>) | autodiff overhead |")
        print("|---|---:|---:|---:|")
        for name in manual:
            ad, m = burn[name.replace("/manual", "/fwd_bwd")], burn[name]
            print(f"| {name.split('/')[0]} | {fmt_time(ad)} | {fmt_time(m)} | {(ad - m) / ad * 100:+.1f}% |")


if __name__ == "__main__":
    main()
