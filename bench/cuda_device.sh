#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Runs the CUDA tests (and the guide, and the CUDA benchmark when built) on a GPU machine: the
# binaries are built here (no nvcc needed: kernels are compiled there by NVRTC) and shipped with
# the shared libraries they need, except the CUDA Toolkit's, cuDNN's and NCCL's, which the GPU
# machine has (/usr/local/cuda/lib64, /usr/lib/x86_64-linux-gnu).
#
#   bench/cuda_device.sh pack BUILD_DIR OUT_DIR   # here: OUT_DIR/{bin,lib,fixtures} + MANIFEST
#   bench/cuda_device.sh run OUT_DIR              # there, from the repository root
#
# run prints the GPU, runs every test executable with --gtest_brief=1 (a summary line each, the
# failures' names; logs in OUT_DIR/logs), then `guide train --backend cuda` (a guide built with
# -DBURN_CUDA_EXAMPLES=ON where the build machine has no GPU; GUIDE_BACKEND: another
# backend, e.g. cuda-fusion) for GUIDE_EPOCHS (default 0: skipped) and the benchmark (bin/burn_bench_cuda, when packed) unless SKIP_BENCH=1.
# TESTS="burn_tensor_tests_cuda ..." runs only those; GTEST_FILTER applies to each; TEST_TIMEOUT
# (s, default 600) bounds each one. Kernels are compiled on first use and cached in
# $BURN_CUDA_CACHE (default OUT_DIR/kernel-cache), so the first executable pays for NVRTC.
set -u
set -o pipefail

die() { echo "cuda_device.sh: $*" >&2; exit 2; }

pack() {
    local build=$1 out=$2
    [ -d "$build" ] || die "no build directory $build"
    if [ -e "$out" ] && [ ! -f "$out/MANIFEST" ]; then
        die "$out exists and is not a bundle (no MANIFEST): choose a new OUT_DIR"
    fi
    rm -rf "$out"
    mkdir -p "$out/bin" "$out/lib" "$out/fixtures" || die "cannot create $out"
    local bins=() f
    for f in "$build/tests/burn_cuda_runtime_tests" "$build/tests/burn_cuda_graph_tests" \
             "$build/tests/burn_tensor_tests_cuda" \
             "$build/tests/burn_tensor_tests_cuda_half" \
             "$build/tests/burn_autodiff_tests_cuda" "$build/tests/burn_nn_tests_cuda" \
             "$build/tests/burn_cuda_random_program" "$build/tests/burn_cuda_multi_device_tests" \
             "$build/tests/burn_fusion_tests_cuda" "$build/tests/burn_tensor_tests_cuda_fusion" \
             "$build/tests/burn_autodiff_tests_cuda_fusion" "$build/tests/burn_nn_tests_cuda_fusion" \
             "$build/tests/burn_cuda_fusion_random_program" \
             "$build/tests/burn_distributed_nccl_tests" "$build/tests/burn_distributed_nccl_worker" \
             "$build/src/distributed/burn-run" "$build/bench/burn_bench_distributed" \
             "$build/examples/guide/guide" "$build/examples/data-parallel/data-parallel" \
             "$build/bench/burn_bench_cuda"; do
        [ -f "$f" ] && [ -x "$f" ] && bins+=("$f")
    done
    [ ${#bins[@]} -gt 0 ] || die "no CUDA executables under $build"
    for f in "${bins[@]}"; do
        cp "$f" "$out/bin/" && strip "$out/bin/$(basename "$f")" || echo "warning: $f not copied" >&2
    done
    local lib name
    for lib in $(for f in "${bins[@]}"; do ldd "$f"; done \
                 | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u); do
        name=$(basename "$lib")
        case "$name" in
            libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|ld-linux*|libresolv.so*) ;;
            libstdc++.so*|libgcc_s.so*) ;;
            libcuda.so*|libcudart*|libcublas*|libnvrtc*|libcudnn*|libnvJitLink*|libnccl*) ;;
            *) cp -L "$lib" "$out/lib/$name" ;;
        esac
    done
    local src_root fixture_dir=""
    src_root=$(cd "$(dirname "$0")/.." && pwd)
    for f in "$build/tests/burn_tensor_tests_cuda" "$build/tests/burn_tensor_tests_cuda_fusion"; do
        [ -z "$fixture_dir" ] && [ -x "$f" ] \
            && fixture_dir=$(strings "$f" | grep -m1 '/tests/fixtures$' || true)
    done
    cp "$src_root"/tests/fixtures/*.json "$out/fixtures/"
    echo "$fixture_dir" > "$out/fixture_dir.txt"
    {
        echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) from $build"
        (cd "$out" && ls -l bin lib)
    } > "$out/MANIFEST"
    echo "packed ${#bins[@]} executables"
    du -sh "$out"
}

summarise() {  # log -> "passed P, failed F, skipped S"
    local log=$1 p f s
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
    echo "passed ${p:-?}, failed ${f:-0}, skipped ${s:-0}"
}

run() {
    local bundle
    bundle=$(cd "${1%/}" && pwd) || die "no bundle $1"
    export LD_LIBRARY_PATH="$bundle/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export BURN_CUDA_CACHE=${BURN_CUDA_CACHE:-$bundle/kernel-cache}
    # The NCCL tests start their worker from the bundle; NVLink multicast stays off.
    export BURN_NCCL_WORKER=${BURN_NCCL_WORKER:-$bundle/bin/burn_distributed_nccl_worker}
    export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    local fixture_dir
    fixture_dir=$(cat "$bundle/fixture_dir.txt" 2>/dev/null || true)
    if [ -n "$fixture_dir" ] && [ ! -e "$fixture_dir" ]; then
        mkdir -p "$(dirname "$fixture_dir")" 2>/dev/null && ln -s "$bundle/fixtures" "$fixture_dir" \
            || echo "warning: cannot create $fixture_dir: fixture tests will fail" >&2
    fi
    local failed=0 exe name log rc
    mkdir -p "$bundle/logs"
    if [ "${SKIP_TESTS:-0}" != 1 ]; then
        for exe in "$bundle"/bin/burn_*tests* "$bundle"/bin/burn_cuda*_random_program; do
            [ -x "$exe" ] || continue
            name=$(basename "$exe")
            [ -n "${TESTS:-}" ] && [[ " $TESTS " != *" $name "* ]] && continue
            log=$bundle/logs/$name.log
            local t0=$SECONDS
            timeout "${TEST_TIMEOUT:-600}" "$exe" --gtest_brief=1 ${GTEST_FILTER:+--gtest_filter=$GTEST_FILTER} >"$log" 2>&1
            rc=$?
            printf '%-28s rc=%-3s %-40s %ss\n' "$name" "$rc" "$(summarise "$log")" "$((SECONDS - t0))"
            if [ $rc -ne 0 ]; then
                failed=$((failed + 1))
                grep -E '^\[  FAILED  \]' "$log" | sort -u | head -60 | sed 's/^/    /'
                [ $rc -ge 124 ] && tail -5 "$log" | sed 's/^/    /'
            fi
        done
    fi
    if [ "${GUIDE_EPOCHS:-0}" != 0 ] && [ -x "$bundle/bin/guide" ]; then
        local gb=${GUIDE_BACKEND:-cuda}
        echo "== guide train --backend $gb --epochs $GUIDE_EPOCHS"
        "$bundle/bin/guide" train --backend "$gb" --epochs "$GUIDE_EPOCHS" --artifact-dir "/tmp/guide-$gb" \
            2>&1 | tail -12
        "$bundle/bin/guide" infer --backend "$gb" --artifact-dir "/tmp/guide-$gb" --index 0 --count 1000 | tail -1
    fi
    if [ "${SKIP_BENCH:-0}" != 1 ] && [ -x "$bundle/bin/burn_bench_cuda" ]; then
        echo "== burn_bench_cuda"
        "$bundle/bin/burn_bench_cuda" ${BENCH_FILTER:+--benchmark_filter=$BENCH_FILTER} 2>&1 | tee "$bundle/logs/bench.txt"
    fi
    return $failed
}

case "${1:-}" in
    pack) [ $# -eq 3 ] || die "usage: $0 pack BUILD_DIR OUT_DIR"; pack "$2" "$3" ;;
    run) [ $# -ge 2 ] || die "usage: $0 run OUT_DIR"; run "$2" ;;
    *) die "usage: $0 pack BUILD_DIR OUT_DIR | $0 run OUT_DIR" ;;
esac
