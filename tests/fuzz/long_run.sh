#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Runs every fuzzer of tests/fuzz at once, one process per target, each until it has done RUNS
# executions (default 1000000) or SECONDS have passed (default: no time limit), whichever comes
# first; prints each target's executions every INTERVAL seconds, then a table "target,
# executions, seconds, crashes". Works from any directory holding the built fuzzers and the
# seed corpus, so that they can be copied to a bigger machine (12 targets: 12 cores or more):
#
#   # here: bash tests/fuzz/run.sh 1   (builds build/fuzz and writes build/fuzz/corpus)
#   tar czf fuzz.tgz -C build/fuzz tests/fuzz/burn_fuzz_record_mpk ... corpus
#   #   (or: tar czf fuzz.tgz -C build/fuzz corpus $(cd build/fuzz && ls tests/fuzz/burn_fuzz_*))
#   # there:
#   tar xzf fuzz.tgz && bash long_run.sh tests/fuzz corpus [-n RUNS] [-t SECONDS] [-o OUT_DIR]
#
#   BIN_DIR      the directory of the burn_fuzz_<target> binaries
#   CORPUS_DIR   the seed corpus (burn_fuzz_make_seeds writes it): one sub-directory per target
#   -n RUNS      executions per target (libFuzzer's -runs; default 1000000)
#   -t SECONDS   time limit per target (libFuzzer's -max_total_time; default none)
#   -i INTERVAL  seconds between progress lines (default 60)
#   -o OUT_DIR   logs, new corpus entries and crash inputs (default ./fuzz-long-<date>-<time>)
#
# CORPUS_DIR is only read: the inputs a fuzzer finds go to OUT_DIR/corpus/<dir>, its log to
# OUT_DIR/<target>.log and the input of a crash, sanitizer report, timeout (-timeout=10) or
# out-of-memory (-rss_limit_mb=2048, -malloc_limit_mb=2048) to OUT_DIR/artifacts/<target>-*. A
# fuzzer stops at its first crash; "crashes" counts the artifacts its run left (0 or 1). Exits 1
# when any target crashed. Reproduce with: BIN_DIR/burn_fuzz_<target> OUT_DIR/artifacts/<file>.
#
# The binaries are built with ASan + UBSan + libFuzzer linked in statically (clang 14); burn_core
# is a static library. What they load at run time (`ldd build/fuzz/tests/fuzz/burn_fuzz_csv` on
# Debian 12 bookworm; the same list for every target):
#   direct:    libstdc++.so.6 libgcc_s.so.1 libm.so.6 libc.so.6 ld-linux-x86-64.so.2 (GCC 12's
#              libstdc++ or newer, glibc 2.36 or newer), libz.so.1 (zlib1g), libcurl.so.4
#              (libcurl4: MNIST downloads, linked though the fuzzers never download)
#   by libcurl: libnghttp2.so.14 libidn2.so.0 librtmp.so.1 libssh2.so.1 libpsl.so.5 libssl.so.3
#              libcrypto.so.3 libgssapi_krb5.so.2 libldap-2.5.so.0 liblber-2.5.so.0 libzstd.so.1
#              libbrotlidec.so.1 libunistring.so.2 libgnutls.so.30 libhogweed.so.6
#              libnettle.so.8 libgmp.so.10 libkrb5.so.3 libk5crypto.so.3 libcom_err.so.2
#              libkrb5support.so.0 libsasl2.so.2 libbrotlicommon.so.1 libp11-kit.so.0
#              libtasn1.so.6 libkeyutils.so.1 libresolv.so.2 libffi.so.8
# burn_fuzz_onnx also loads Debian's libonnx.so.1.13 and libprotobuf.so.32 (libonnx1,
# libprotobuf32).
# A Debian 12 host with zlib1g and libcurl4 installed has them all;
# `ldd BIN_DIR/burn_fuzz_csv | grep 'not found'` lists what is missing elsewhere.
set -uo pipefail

usage() {
    sed -n '/^#   BIN_DIR/,/^#   -o/p' "${BASH_SOURCE[0]}" | sed 's/^# //' >&2
    echo "usage: $0 BIN_DIR CORPUS_DIR [-n RUNS] [-t SECONDS] [-i INTERVAL] [-o OUT_DIR]" >&2
    exit 2
}

[[ $# -ge 2 ]] || usage
bin_dir=$(cd "$1" && pwd) || usage
corpus_dir=$(cd "$2" && pwd) || usage
shift 2
runs=1000000
seconds=0
interval=60
out="fuzz-long-$(date +%Y%m%d-%H%M%S)"
while getopts "n:t:i:o:h" opt; do
    case "$opt" in
        n) runs="$OPTARG" ;;
        t) seconds="$OPTARG" ;;
        i) interval="$OPTARG" ;;
        o) out="$OPTARG" ;;
        *) usage ;;
    esac
done
for v in "$runs" "$seconds" "$interval"; do
    [[ "$v" =~ ^[0-9]+$ ]] || usage
done

# target:corpus sub-directory, as in tests/fuzz/run.sh.
entries=(record_mpk:mpk record_bin:bin record_gz:gz record_json:json safetensors:safetensors
    pytorch:pytorch config:config mnist:mnist csv:csv jsonl:jsonl image_folder:image_folder
    onnx:onnx sqlite:sqlite)

mkdir -p "$out/artifacts" || exit 2
out=$(cd "$out" && pwd)
names=()
pids=()
for entry in "${entries[@]}"; do
    name="${entry%%:*}"
    dir="${entry#*:}"
    exe="$bin_dir/burn_fuzz_$name"
    if [[ ! -x "$exe" ]]; then
        echo "long_run: $exe is missing, skipping $name" >&2
        continue
    fi
    seeds=()
    [[ -d "$corpus_dir/$dir" ]] && seeds=("$corpus_dir/$dir")
    [[ ${#seeds[@]} -eq 1 ]] || echo "long_run: no seeds for $name ($corpus_dir/$dir)" >&2
    mkdir -p "$out/corpus/$dir"
    limit=()
    [[ "$seconds" -gt 0 ]] && limit=(-max_total_time="$seconds")
    # The first corpus directory receives the new inputs; the seeds are only read.
    (
        start=$(date +%s%N)
        "$exe" "$out/corpus/$dir" "${seeds[@]}" -runs="$runs" "${limit[@]}" -timeout=10 \
            -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
            -artifact_prefix="$out/artifacts/$name-" >"$out/$name.log" 2>&1
        status=$?
        end=$(date +%s%N)
        echo "$status $(((end - start) / 1000000))" >"$out/$name.done"  # milliseconds
    ) &
    names+=("$name")
    pids+=($!)
done
[[ ${#names[@]} -gt 0 ]] || { echo "long_run: no fuzzer found in $bin_dir" >&2; exit 2; }
echo "long_run: ${#names[@]} fuzzers, -runs=$runs$([[ $seconds -gt 0 ]] && echo " -max_total_time=$seconds"), output in $out"

# The executions a fuzzer has done: its final count once done, else the last "#N" it printed.
executions() {
    local log="$out/$1.log" n
    n=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" 2>/dev/null | grep -o '[0-9]*$')
    [[ -n "$n" ]] || n=$(grep -o '^#[0-9]*' "$log" 2>/dev/null | tail -n 1 | tr -d '#')
    echo "${n:-0}"
}

trap 'echo "long_run: interrupted, stopping the fuzzers" >&2; kill "${pids[@]}" 2>/dev/null; wait; exit 130' INT TERM
started=$(date +%s)
next=$interval
while :; do
    running=0
    for name in "${names[@]}"; do [[ -f "$out/$name.done" ]] || running=$((running + 1)); done
    [[ "$running" -eq 0 ]] && break
    sleep 1
    elapsed=$(($(date +%s) - started))
    if [[ "$elapsed" -ge "$next" ]]; then
        next=$((next + interval))
        line="[$elapsed s, $running running]"
        for name in "${names[@]}"; do line+=" $name=$(executions "$name")"; done
        echo "$line"
    fi
done
wait

crashed=0
printf '\n%-14s %12s %10s %8s\n' target executions seconds crashes
for name in "${names[@]}"; do
    read -r status ms <"$out/$name.done"
    crashes=$(find "$out/artifacts" -name "$name-*" ! -name "$name-slow-unit-*" | wc -l)
    if [[ "$status" -ne 0 && "$crashes" -eq 0 ]]; then
        crashes="exit $status"  # failed without an artifact: see the log
    fi
    [[ "$crashes" != 0 ]] && crashed=1
    printf '%-14s %12s %6d.%03d %8s\n' "$name" "$(executions "$name")" $((ms / 1000)) $((ms % 1000)) \
        "$crashes"
done
if [[ "$crashed" -ne 0 ]]; then
    echo "long_run: crashes: the inputs are in $out/artifacts, the reports in $out/<target>.log" >&2
fi
exit "$crashed"
