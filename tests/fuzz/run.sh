#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Builds the fuzzers of the record loaders, state-dict readers, config loader, dataset readers and
# ONNX model reader (the `fuzz` preset, clang + libFuzzer), writes their seed corpora and runs each
# for SECONDS
# (default 12). A crash, a sanitizer report, a timeout or an out-of-memory stops it with the
# reproducer saved under build/fuzz/artifacts/. tests/fuzz/long_run.sh runs them all at once for
# longer (on this machine or another).
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
# Each fuzzer (build/fuzz/tests/fuzz/burn_fuzz_<name>) with its corpus (build/fuzz/corpus/<dir>).
for entry in record_mpk:mpk record_bin:bin record_gz:gz record_json:json safetensors:safetensors \
    pytorch:pytorch config:config mnist:mnist csv:csv jsonl:jsonl image_folder:image_folder \
    onnx:onnx sqlite:sqlite; do
    name="${entry%%:*}"
    dir="${entry#*:}"
    echo "=== fuzz: $name for ${seconds} s"
    "$out/tests/fuzz/burn_fuzz_$name" "$out/corpus/$dir" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -max_len=65536 -artifact_prefix="$out/artifacts/$name-" -print_final_stats=1 2>&1 |
        grep -E '^(#[0-9]+ +DONE|INFO: Seed|==[0-9]+==|stat::number_of_executed_units|SUMMARY|Done)' ||
        true
    status=${PIPESTATUS[0]}
    if [[ "$status" -ne 0 ]]; then
        echo "fuzz: '$name' failed (exit $status); the input is under $out/artifacts/" >&2
        exit "$status"
    fi
done
