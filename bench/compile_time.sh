#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Compile time as a user feels it: wall time and peak memory of g++ compiling
#   1. a 3-line program that includes <burn/burn.hpp> and the CPU backend (-O2),
#   2. the same program with <burn/tensor.hpp> (the tensor layer alone), where the tree has it,
#   3. the MNIST guide on the CPU backend (-O2): examples/guide/backend_cpu.cpp, which instantiates
#      the guide's templates for Cpu<float> (in trees before the guide had --backend, main.cpp),
# each the median of N runs (default 3), against the headers of a source tree (default: this one).
# Run it on a quiet machine: other jobs change the figures.
#
#   bash bench/compile_time.sh [-n RUNS] [-t TREE] [-x CXX]
set -euo pipefail
runs=3
tree="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cxx="${CXX:-g++}"
while getopts "n:t:x:h" opt; do
    case "$opt" in
        n) runs="$OPTARG" ;;
        t) tree="$(cd "$OPTARG" && pwd)" ;;
        x) cxx="$OPTARG" ;;
        *) sed -n '3,10p' "$0"; exit 2 ;;
    esac
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/three_lines.cpp" <<'CPP'
#include <burn/burn.hpp>
#include <burn/backend/cpu.hpp>
int main() { std::cout << burn::Tensor<burn::Cpu<>, 2>::ones({2, 3}) << "\n"; }
CPP
sed 's|burn/burn.hpp|burn/tensor.hpp|' "$work/three_lines.cpp" >"$work/three_lines_tensor.cpp"
includes=(-I"$tree/include" -I"$tree/backends/cpu/include")

# measure NAME SOURCE: prints "NAME  median_seconds  median_peak_MiB  (runs: ...)"
measure() {
    local name="$1" src="$2" times=() mems=()
    for ((i = 0; i < runs; ++i)); do
        /usr/bin/time -f "%e %M" -o "$work/t" "$cxx" -std=c++20 -O2 "${includes[@]}" \
            -c "$src" -o "$work/out.o"
        read -r s kb <"$work/t"
        times+=("$s")
        mems+=("$((kb / 1024))")
    done
    local mt mm
    mt=$(printf '%s\n' "${times[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p")
    mm=$(printf '%s\n' "${mems[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p")
    printf '%-34s %6.2f s %6d MiB   (runs: %s s)\n' "$name" "$mt" "$mm" "${times[*]}"
}

echo "compiler: $("$cxx" --version | head -1); tree: $tree; -O2; median of $runs"
measure "3-line program (burn.hpp + Cpu)" "$work/three_lines.cpp"
if [[ -f "$tree/include/burn/tensor.hpp" ]]; then
    measure "3-line program (tensor.hpp + Cpu)" "$work/three_lines_tensor.cpp"
fi
if [[ -f "$tree/examples/guide/backend_cpu.cpp" ]]; then
    measure "examples/guide/backend_cpu.cpp" "$tree/examples/guide/backend_cpu.cpp"
else
    measure "examples/guide/main.cpp" "$tree/examples/guide/main.cpp"
fi
