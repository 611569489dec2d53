#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Builds the fuzzers of the record loaders, state-dict readers, config loader, dataset readers and
# ONNX model reader (the `fuzz` preset, clang + libFuzzer), writes their seed corpora and runs each
# for SECONDS (default 12), as many at a time as there are cores. A crash, a sanitizer report, a
# timeout or an out-of-memory stops that fuzzer with the reproducer saved under
# build/fuzz/artifacts/, and the script exits non-zero once the others have run.
# tests/fuzz/long_run.sh runs them all at once for longer (on this machine or another).
#
#   bash tests/fuzz/run.sh [SECONDS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
seconds="${1:-12}"

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

out=build/fuzz
mkdir -p "$out/corpus" "$out/artifacts"
"$out/tests/fuzz/burn_fuzz_make_seeds" "$out/corpus"
# Each fuzzer (build/fuzz/tests/fuzz/burn_fuzz_<name>) with its corpus (build/fuzz/corpus/<dir>),
# BURN_FUZZ_JOBS of them at a time (default: the number of cores); each one's summary is printed
# when it ends, its full log kept under build/fuzz/logs/.
jobs="${BURN_FUZZ_JOBS:-$(nproc)}"
mkdir -p "$out/logs"
fuzz_one() {
    local name=$1 dir=$2
    "$out/tests/fuzz/burn_fuzz_$name" "$out/corpus/$dir" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -max_len=65536 -artifact_prefix="$out/artifacts/$name-" -print_final_stats=1 \
        >"$out/logs/$name.log" 2>&1
}
report() {
    local name=$1 status=$2
    echo "=== fuzz: $name for ${seconds} s"
    grep -E '^(#[0-9]+ +DONE|INFO: Seed|==[0-9]+==|stat::number_of_executed_units|SUMMARY|Done)' \
        "$out/logs/$name.log" || true
    if [[ "$status" -ne 0 ]]; then
        echo "fuzz: '$name' failed (exit $status); the input is under $out/artifacts/, the log" \
            "in $out/logs/$name.log" >&2
        return 1
    fi
}
names=() pids=() failed=0
drain() {  # waits for the oldest running fuzzer and reports it
    local status=0
    wait "${pids[0]}" || status=$?
    report "${names[0]}" "$status" || failed=1
    names=("${names[@]:1}")
    pids=("${pids[@]:1}")
}
for entry in record_mpk:mpk record_bin:bin record_gz:gz record_json:json safetensors:safetensors \
    pytorch:pytorch config:config mnist:mnist csv:csv jsonl:jsonl image_folder:image_folder \
    onnx:onnx sqlite:sqlite; do
    fuzz_one "${entry%%:*}" "${entry#*:}" &
    names+=("${entry%%:*}")
    pids+=("$!")
    if [[ ${#pids[@]} -ge "$jobs" ]]; then drain; fi
done
while [[ ${#pids[@]} -gt 0 ]]; do drain; done
exit "$failed"
