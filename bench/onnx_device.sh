#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Runs bench/compare_onnx.py (burn_bench_onnx against ONNX Runtime, on the CPU) on a machine
# that has python3 with onnxruntime but no burn build: the binary is built here and shipped with
# the shared libraries it loads and the models.
#
#   bench/onnx_device.sh pack BUILD_DIR OUT_DIR    # here: OUT_DIR/{bin,lib,models,...} + OUT_DIR.tar.xz
#   bench/onnx_device.sh run BUNDLE_DIR [compare_onnx.py args...]
#                                                  # there; default: 2 threads on CPUs 0,1,
#                                                  # then all the machine's CPUs
#
# pack takes BUILD_DIR/bench/burn_bench_onnx (or $BURN_BENCH_ONNX), strips it, copies the shared
# libraries it loads except glibc's (libtbb, libopenblas, libgfortran, libprotobuf, ...) into
# lib/ (libstdc++/libgcc_s into lib/compat/, used only when the machine's are too old), and the
# models into models/: mnist.onnx with its record (BUILD_DIR/bench/burn_onnx/Mnist/mnist.mpk) and
# resnet18.onnx (BUILD_DIR/bench/models). The generated code is compiled into the binary and
# reads the records through --model-dir. ResNet-18's record (47 MB of random floats, which xz
# cannot shrink) is not shipped: the bundle carries the generator, BUILD_DIR/src/onnx/burn-onnx,
# and run writes the record from resnet18.onnx with it (the same bytes as at build time).
#
# run unpacks BUNDLE_DIR.tar.xz when BUNDLE_DIR is not there and runs the bundle's
# compare_onnx.py with --bench BUNDLE_DIR/bin/burn_bench_onnx --model-dir BUNDLE_DIR/models:
# with no arguments twice, `--threads 2 --cpus 0,1` and `--threads $(nproc)`, writing
# BUNDLE_DIR/results_2.md and results_<nproc>.md; with arguments, once with those.
set -u
set -o pipefail

die() { echo "onnx_device.sh: $*" >&2; exit 2; }

pack() {
    local build=$1 out=$2
    [ -d "$build" ] || die "no build directory $build"
    if [ -e "$out" ] && [ ! -f "$out/MANIFEST" ]; then
        die "$out exists and is not a bundle (no MANIFEST): choose a new OUT_DIR"
    fi
    local bench=${BURN_BENCH_ONNX:-$build/bench/burn_bench_onnx}
    [ -x "$bench" ] || die "no $bench (ninja -C $build burn_bench_onnx)"
    rm -rf "$out" "$out.tar.xz"
    mkdir -p "$out/bin" "$out/lib/compat" "$out/models" || die "cannot create $out"
    cp "$bench" "$out/bin/" && strip "$out/bin/burn_bench_onnx" || die "cannot copy $bench"
    local gen=$build/src/onnx/burn-onnx
    [ -x "$gen" ] || die "no $gen (ninja -C $build burn_onnx_cli)"
    cp "$gen" "$out/bin/" && strip "$out/bin/burn-onnx" || die "cannot copy $gen"

    local lib name
    for lib in $(ldd "$bench" "$gen" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u); do
        name=$(basename "$lib")
        case "$name" in
            libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|ld-linux*|libresolv.so*) ;;
            libstdc++.so*|libgcc_s.so*) cp -L "$lib" "$out/lib/compat/$name" ;;
            *) cp -L "$lib" "$out/lib/$name" ;;
        esac
    done
    if ldd "$bench" | grep -q "not found"; then
        echo "warning: some libraries were not found by ldd:" >&2
        ldd "$bench" | grep "not found" | sort -u >&2
    fi

    # The models: the .onnx files the binary was generated from (paths compiled in) and the
    # records next to the generated headers.
    local src_root
    src_root=$(cd "$(dirname "$0")/.." && pwd)
    cp "$src_root/examples/onnx-inference/mnist.onnx" "$out/models/" || die "no mnist.onnx"
    cp "$build/bench/burn_onnx/Mnist/mnist.mpk" "$out/models/" || die "no mnist.mpk"
    if [ -f "$build/bench/models/resnet18.onnx" ]; then
        cp "$build/bench/models/resnet18.onnx" "$out/models/"
    else
        echo "warning: no ResNet-18 model in $build (built without PyTorch?): MNIST only" >&2
    fi
    cp "$src_root/bench/compare_onnx.py" "$src_root/bench/ort_onnx.js" \
        "$src_root/bench/onnx_device.sh" "$out/"

    local arch
    arch=$(sed -n 's/^BURN_CPU_ARCH:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null)
    {
        echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) from $build on $(uname -n)"
        echo "BURN_CPU_ARCH=${arch:-?}"
        echo "build_cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
        echo "build_cpu_avx512f=$(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)"
        echo "glibc=$(ldd --version | head -1)"
    } > "$out/MANIFEST"
    (cd "$out" && ls -l bin lib lib/compat models) >> "$out/MANIFEST"

    tar -C "$(dirname "$out")" -cf - "$(basename "$out")" | xz -T1 -6 > "$out.tar.xz" \
        || die "tar/xz failed"
    echo "packed burn_bench_onnx, $(find "$out/lib" -name '*.so*' | wc -l) libraries," \
         "$(ls "$out/models" | wc -l) model files"
    du -sh "$out"
    ls -l "$out.tar.xz"
}

run() {
    local bundle=${1%/}
    shift
    case "$bundle" in *.tar.xz) bundle=${bundle%.tar.xz} ;; esac
    if [ ! -d "$bundle" ]; then
        [ -f "$bundle.tar.xz" ] || die "neither $bundle nor $bundle.tar.xz exists"
        echo "unpacking $bundle.tar.xz"
        tar -C "$(dirname "$bundle")" -xJf "$bundle.tar.xz" || die "cannot unpack $bundle.tar.xz"
    fi
    bundle=$(cd "$bundle" && pwd)
    export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    local bench=$bundle/bin/burn_bench_onnx
    if ! "$bench" --benchmark_list_tests=true >/dev/null 2>"$bundle/ldcheck.txt"; then
        if grep -q "GLIBCXX\|CXXABI\|GCC_" "$bundle/ldcheck.txt"; then
            echo "note: using the bundled libstdc++/libgcc_s (this machine's are older)"
            LD_LIBRARY_PATH="$bundle/lib:$bundle/lib/compat:${LD_LIBRARY_PATH#"$bundle/lib:"}"
            export LD_LIBRARY_PATH
        fi
        cat "$bundle/ldcheck.txt" >&2
    fi
    if grep -q "BURN_CPU_ARCH=native" "$bundle/MANIFEST" \
       && grep -q "build_cpu_avx512f=yes" "$bundle/MANIFEST" && ! grep -qw avx512f /proc/cpuinfo; then
        echo "warning: built with -march=native on an AVX-512 CPU and this CPU has no AVX-512:" \
             "burn_bench_onnx may die with SIGILL (rebuild with -DBURN_CPU_ARCH=x86-64-v3)" >&2
    fi
    # ResNet-18's record, from the shipped model by the shipped generator.
    if [ -f "$bundle/models/resnet18.onnx" ] && [ ! -f "$bundle/models/resnet18.mpk" ]; then
        echo "writing models/resnet18.mpk with burn-onnx"
        "$bundle/bin/burn-onnx" "$bundle/models/resnet18.onnx" --name Resnet18 \
            --out "$bundle/models/gen" --quiet \
            && mv "$bundle/models/gen/resnet18.mpk" "$bundle/models/" \
            && rm -rf "$bundle/models/gen" || echo "warning: burn-onnx failed" >&2
    fi
    echo "CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"
    python3 -c "import onnxruntime as o; print('onnxruntime', o.__version__)" \
        || echo "warning: python3 has no onnxruntime: compare_onnx.py tries onnxruntime-node" >&2

    local common=(--bench "$bench" --model-dir "$bundle/models") failed=0
    if [ $# -gt 0 ]; then
        python3 "$bundle/compare_onnx.py" "${common[@]}" --markdown "$bundle/results.md" "$@" \
            || failed=1
    else
        local n
        n=$(nproc)
        echo "== 2 threads (CPUs 0,1)"
        python3 "$bundle/compare_onnx.py" "${common[@]}" --threads 2 --cpus 0,1 \
            --markdown "$bundle/results_2.md" || failed=1
        echo "== $n threads"
        python3 "$bundle/compare_onnx.py" "${common[@]}" --threads "$n" --cpus "0-$((n - 1))" \
            --markdown "$bundle/results_$n.md" || failed=1
    fi
    return $failed
}

case "${1:-}" in
    pack) [ $# -eq 3 ] || die "usage: $0 pack BUILD_DIR OUT_DIR"; pack "$2" "$3" ;;
    run) [ $# -ge 2 ] || die "usage: $0 run BUNDLE_DIR [compare_onnx.py args]"; shift; run "$@" ;;
    *) die "usage: $0 pack BUILD_DIR OUT_DIR | run BUNDLE_DIR [compare_onnx.py args]" ;;
esac
