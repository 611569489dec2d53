#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Runs the Vulkan tests and benchmark on a GPU machine that has no Vulkan SDK or glslc: the
# binaries are built here and shipped with the shared libraries they need.
#
#   bench/vulkan_device.sh pack BUILD_DIR OUT_DIR   # here: OUT_DIR/{bin,lib,...} + OUT_DIR.tar.xz
#   bench/vulkan_device.sh run BUNDLE_DIR [compare_vulkan.py args...]
#                                                   # there, from the repository root
#
# pack takes BUILD_DIR/tests/{burn_vk_*,burn_vulkan_runtime_tests,burn_tensor_tests_vulkan,
# burn_nn_*_vulkan,burn_autodiff_tests_vulkan,burn_fusion_tests_vulkan,
# burn_{tensor,autodiff,nn}_tests_vulkan_fusion} and
# BUILD_DIR/bench/burn_bench_vulkan (or the path in $BURN_BENCH_VULKAN), strips them, and copies
# the shared libraries they load except glibc, libstdc++ and libgcc (libvulkan, libtbb,
# libopenblas, libgfortran, libquadmath, ...) into lib/; libstdc++/libgcc_s go to lib/compat/,
# used only when the machine's are too old. The typed tensor suite reads tests/fixtures through a
# path compiled in at build time (BURN_FIXTURE_DIR, e.g. /work/vk/tests/fixtures): pack records
# it and ships the fixtures; run links that path to them when it does not exist.
#
# run unpacks BUNDLE_DIR.tar.xz when BUNDLE_DIR is not there, points the Vulkan loader at the
# NVIDIA driver (VK_DRIVER_FILES / VK_ICD_FILENAMES; $VK_ICD overrides the json), runs every test
# executable with --gtest_brief=1 (a summary line each; logs in BUNDLE_DIR/logs), then
# bench/compare_vulkan.py (the bundle's copy) with --markdown BUNDLE_DIR/results.md. Failures are
# reported and the script goes on. SKIP_TESTS=1 / SKIP_BENCH=1 skip a part; TESTS="burn_vk_data
# ..." runs only those executables; TEST_TIMEOUT (s, default 600) bounds each one.
set -u
set -o pipefail

die() { echo "vulkan_device.sh: $*" >&2; exit 2; }

# ------------------------------------------------------------------------------------ pack
pack() {
    local build=$1 out=$2
    [ -d "$build" ] || die "no build directory $build"
    # Replace only an earlier bundle: never a directory that is something else.
    if [ -e "$out" ] && [ ! -f "$out/MANIFEST" ]; then
        die "$out exists and is not a bundle (no MANIFEST): choose a new OUT_DIR"
    fi
    rm -rf "$out" "$out.tar.xz"
    mkdir -p "$out/bin" "$out/lib/compat" "$out/fixtures" || die "cannot create $out"

    local bins=() f
    local bench=${BURN_BENCH_VULKAN:-$build/bench/burn_bench_vulkan}
    if [ -x "$bench" ]; then bins+=("$bench"); else echo "warning: no $bench" >&2; fi
    for f in "$build"/tests/burn_vk_* "$build/tests/burn_vulkan_runtime_tests" \
             "$build/tests/burn_tensor_tests_vulkan" "$build"/tests/burn_nn_*_vulkan \
             "$build/tests/burn_autodiff_tests_vulkan" "$build/tests/burn_fusion_tests_vulkan" \
             "$build/tests/burn_tensor_tests_vulkan_fusion" \
             "$build/tests/burn_autodiff_tests_vulkan_fusion" "$build/tests/burn_nn_tests_vulkan_fusion"; do
        [ -f "$f" ] && [ -x "$f" ] && bins+=("$f")
    done
    [ ${#bins[@]} -gt 0 ] || die "no Vulkan executables under $build"

    for f in "${bins[@]}"; do
        cp "$f" "$out/bin/" && strip "$out/bin/$(basename "$f")" \
            || echo "warning: $f not copied" >&2
    done

    # Shared libraries, from ldd of every binary.
    local libs lib name
    libs=$(for f in "${bins[@]}"; do ldd "$f"; done \
           | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u)
    for lib in $libs; do
        name=$(basename "$lib")
        case "$name" in
            libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|ld-linux*|libresolv.so*) ;;
            libstdc++.so*|libgcc_s.so*) cp -L "$lib" "$out/lib/compat/$name" ;;
            *) cp -L "$lib" "$out/lib/$name" ;;
        esac
    done
    if ldd "${bins[@]}" | grep -q "not found"; then
        echo "warning: some libraries were not found by ldd:" >&2
        ldd "${bins[@]}" | grep "not found" | sort -u >&2
    fi

    # Fixtures: the path compiled into the typed suite (test_support.cpp's BURN_FIXTURE_DIR).
    local src_root fixture_dir=""
    src_root=$(cd "$(dirname "$0")/.." && pwd)
    for f in "$build/tests/burn_tensor_tests_vulkan" "$build/tests/burn_tensor_tests_vulkan_fusion"; do
        [ -x "$f" ] || continue
        fixture_dir=$(strings "$f" | grep -m1 '/tests/fixtures$' || true)
        [ -n "$fixture_dir" ] && break
    done
    cp "$src_root"/tests/fixtures/*.json "$out/fixtures/"
    echo "$fixture_dir" > "$out/fixture_dir.txt"
    cp "$src_root/bench/compare_vulkan.py" "$src_root/bench/vulkan_device.sh" "$out/"

    # What the tests were built with: BURN_CPU_ARCH=native ties burn_cpu (the tests' reference
    # backend) to this CPU's instruction set.
    local arch
    arch=$(sed -n 's/^BURN_CPU_ARCH:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null)
    {
        echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) from $build on $(uname -n)"
        echo "BURN_CPU_ARCH=${arch:-?}"
        echo "build_cpu_avx512f=$(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)"
        echo "glibc=$(ldd --version | head -1)"
    } > "$out/MANIFEST"
    (cd "$out" && ls -l bin lib lib/compat) >> "$out/MANIFEST"

    tar -C "$(dirname "$out")" -cf - "$(basename "$out")" | xz -T2 -6 > "$out.tar.xz" \
        || die "tar/xz failed"
    echo "packed ${#bins[@]} executables, $(find "$out/lib" -name '*.so*' | wc -l) libraries"
    du -sh "$out"
    ls -l "$out.tar.xz"
}

# ------------------------------------------------------------------------------------ run
summarise() {  # log -> "passed P, failed F, skipped S"
    local log=$1 p f s
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
    echo "passed ${p:-?}, failed ${f:-0}, skipped ${s:-0}"
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

    # The Vulkan driver.
    local icd=${VK_ICD:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json} c
    if [ ! -f "$icd" ]; then
        for c in /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json; do
            [ -f "$c" ] && { icd=$c; break; }
        done
    fi
    if [ -f "$icd" ]; then
        export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
        echo "Vulkan ICD: $icd"
        grep -h library_path "$icd" || true
    else
        echo "warning: no NVIDIA Vulkan ICD json found ($icd); using the loader's defaults" >&2
    fi
    command -v nvidia-smi >/dev/null \
        && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

    # libstdc++ / libgcc_s of the build machine when this one's are older.
    local bench=$bundle/bin/burn_bench_vulkan
    if [ -x "$bench" ] \
       && ! "$bench" --benchmark_list_tests=true >/dev/null 2>"$bundle/ldcheck.txt"; then
        if grep -q "GLIBCXX\|CXXABI\|GCC_" "$bundle/ldcheck.txt"; then
            echo "note: using the bundled libstdc++/libgcc_s (this machine's are older)"
            LD_LIBRARY_PATH="$bundle/lib:$bundle/lib/compat:${LD_LIBRARY_PATH#"$bundle/lib:"}"
            export LD_LIBRARY_PATH
        fi
        cat "$bundle/ldcheck.txt" >&2
    fi

    # CPU instruction set of the tests' reference backend.
    if grep -q "BURN_CPU_ARCH=native" "$bundle/MANIFEST" 2>/dev/null \
       && grep -q "build_cpu_avx512f=yes" "$bundle/MANIFEST" \
       && ! grep -qw avx512f /proc/cpuinfo; then
        echo "warning: the tests were built with -march=native on an AVX-512 CPU and this CPU has" \
             "no AVX-512: they may die with SIGILL (rebuild with -DBURN_CPU_ARCH=x86-64-v3)" >&2
    fi

    # Fixtures at the path compiled into the typed suite.
    local fixture_dir
    fixture_dir=$(cat "$bundle/fixture_dir.txt" 2>/dev/null || true)
    if [ -n "$fixture_dir" ] && [ ! -e "$fixture_dir" ]; then
        if mkdir -p "$(dirname "$fixture_dir")" 2>/dev/null \
           && ln -s "$bundle/fixtures" "$fixture_dir"; then
            echo "fixtures: linked $fixture_dir -> $bundle/fixtures"
        else
            echo "warning: cannot create $fixture_dir: the fixture tests of" \
                 "burn_tensor_tests_vulkan will fail" >&2
        fi
    fi

    # The devices burn sees (the first is the one it uses).
    [ -x "$bench" ] && { echo "Vulkan devices:"; "$bench" --list-devices 2>&1 | sed 's/^/    /'; }

    local failed=0 exe name log rc
    if [ "${SKIP_TESTS:-0}" != 1 ]; then
        mkdir -p "$bundle/logs"
        echo "== tests (gtest_brief; logs in $bundle/logs)"
        for exe in "$bundle"/bin/*; do
            name=$(basename "$exe")
            [ "$name" = burn_bench_vulkan ] && continue
            [ -n "${TESTS:-}" ] && [[ " $TESTS " != *" $name "* ]] && continue
            log=$bundle/logs/$name.log
            local t0=$SECONDS
            timeout "${TEST_TIMEOUT:-600}" "$exe" --gtest_brief=1 >"$log" 2>&1
            rc=$?
            printf '%-30s rc=%-3s %-40s %ss\n' "$name" "$rc" "$(summarise "$log")" \
                "$((SECONDS - t0))"
            # Without a device every test skips; gtest's summary may still say "passed" (a skip
            # in the global environment), so the run counts as failed.
            if [ $rc -eq 0 ] && grep -q '^no Vulkan device' "$log"; then
                echo "    no Vulkan device: nothing ran (check the ICD: VK_LOADER_DEBUG=error,driver)"
                rc=1
            fi
            if [ $rc -ne 0 ]; then
                failed=$((failed + 1))
                grep -E '^\[  FAILED  \]|Failure|terminate|Error' "$log" | head -20 \
                    | sed 's/^/    /'
                [ $rc -eq 124 ] && echo "    (timed out after ${TEST_TIMEOUT:-600} s)"
                if [ $rc -ge 128 ]; then
                    echo "    (killed by signal $((rc - 128)))"
                    tail -5 "$log" | sed 's/^/    /'
                fi
            fi
        done
        echo "== tests: $failed executable(s) failed"
    fi

    if [ "${SKIP_BENCH:-0}" != 1 ]; then
        echo "== benchmark: burn Vulkan vs PyTorch CUDA"
        python3 "$bundle/compare_vulkan.py" "$bench" --markdown "$bundle/results.md" "$@" \
            || { echo "compare_vulkan.py failed (status $?)"; failed=$((failed + 1)); }
    fi
    return $((failed > 0))
}

case "${1:-}" in
    pack) [ $# -eq 3 ] || die "usage: $0 pack BUILD_DIR OUT_DIR"; pack "$2" "$3" ;;
    run) [ $# -ge 2 ] || die "usage: $0 run BUNDLE_DIR [compare_vulkan.py args]"; shift; run "$@" ;;
    *) die "usage: $0 pack BUILD_DIR OUT_DIR | run BUNDLE_DIR [compare_vulkan.py args]" ;;
esac
